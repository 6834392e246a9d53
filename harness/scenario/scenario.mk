# SPDX-License-Identifier: MIT
# harness/scenario/: the expectation a fault implies (computed.c) and its
# cited exceptions (csum_first.c), pure, with the outcome names.
$(eval $(call UNIT_TEST,test-computed,harness/tests/test-computed.c \
	harness/scenario/computed.c harness/scenario/csum_first.c \
	$(B)/obj/harness/outcome.o,,$(HARNESS_TEST_CFLAGS)))

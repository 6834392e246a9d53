# SPDX-License-Identifier: MIT
# harness/coverage/: which of the kernel's checksum checks a run reached
# (harness/coverage/README.md):
#   receive   the agent's counter lines of a coverage kernel, per case, into
#             CASE/gcov/ (the agent's half: guest/gcov.c)
#   sites     the checksum verification sites of the kernel's own source
#   gcov      a case's counters as line and branch counts, by gcov
#   casecov   a coverage kernel's sites and one case's use of them
#   coverage  `flipbed coverage DIR`: the site table, coverage.md and .json,
#             an lcov tracefile and genhtml's pages per kernel
# Its objects join the flipbed binary. The coverage kernels (stock-gcov,
# patched-gcov: make kernels-gcov) are what make check boots for its tests.

HARNESS_OBJS += $(addprefix $(B)/obj/harness/coverage/,receive.o sites.o gcov.o casecov.o coverage.o)
PACKAGES += lcov
CHECK_NEEDS += $(foreach k,$(KERNELS_GCOV),$(B)/kernel/$(k)/bzImage)

# The sites read from C text, a case's counts judged at them, and the host's
# reading of the agent's lines, malformed and hostile ones included.
$(eval $(call UNIT_TEST,test-coverage,harness/coverage/tests/test-coverage.c \
	$(B)/obj/harness/coverage/receive.o $(B)/obj/harness/coverage/sites.o \
	$(B)/obj/harness/coverage/casecov.o $(B)/obj/harness/coverage/gcov.o \
	$(B)/obj/harness/kernels.o $(B)/obj/harness/kernel_image.o $(B)/obj/harness/kernel_modules.o \
	$(B)/obj/harness/paths.o $(B)/obj/harness/boot/proc.o \
	$(B)/obj/harness/util.o $(B)/obj/guest/pattern.o,jansson inih,$(HARNESS_TEST_CFLAGS)))

TESTS += $(call SHELL_TESTS,harness/coverage/tests)

# What a case costs on a coverage kernel, beside patched (target 2x).
BENCHES += bench-coverage
.PHONY: bench-coverage
bench-coverage: $(ALL) $(foreach k,$(KERNELS_GCOV),$(B)/kernel/$(k)/bzImage)
	@harness/coverage/bench-coverage.sh

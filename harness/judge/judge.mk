# SPDX-License-Identifier: MIT
# harness/judge/: the checks after a case. fsck_check.c runs e2fsck on the
# image the case left and fsck.c reads its output; manifest.c compares the
# image's files with the golden image's (user data survived); durable.c
# models what a workload made durable and when (the files a case wrote,
# and every flush point of `flipbed crash`); undetected.c says why a fault
# went undetected. Its objects join the flipbed binary.

HARNESS_OBJS += $(addprefix $(B)/obj/harness/judge/,durable.o fsck.o fsck_check.o \
	manifest.o undetected.o)

# The cause of an undetected fault (harness/judge/undetected.c): pure, on
# fault-log records.
TESTS += $(B)/tests/bin/test-undetected
$(B)/tests/bin/test-undetected: harness/tests/test-undetected.c harness/judge/undetected.c \
		$(B)/obj/harness/outcome.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -Iharness $(shell $(PKG_CONFIG) --cflags cmocka) \
		-o $@ $< harness/judge/undetected.c $(B)/obj/harness/outcome.o \
		$(shell $(PKG_CONFIG) --libs cmocka) -ljansson

-include $(B)/tests/bin/test-undetected.d

# The e2fsck oracle's output reader (harness/judge/fsck.c) on the goldens of
# harness/tests/fsck/ (made by harness/tests/fsck-oracle.sh).
TESTS += $(B)/tests/bin/test-fsck
$(B)/tests/bin/test-fsck: harness/tests/test-fsck.c harness/judge/fsck.c $(B)/obj/harness/util.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -Iharness $(shell $(PKG_CONFIG) --cflags cmocka) \
		-o $@ $< harness/judge/fsck.c $(B)/obj/harness/util.o $(shell $(PKG_CONFIG) --libs cmocka)

-include $(B)/tests/bin/test-fsck.d

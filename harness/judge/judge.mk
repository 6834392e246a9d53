# SPDX-License-Identifier: MIT
# harness/judge/: the checks after a case. fsck_check.c runs e2fsck on the
# image the case left and fsck.c reads its output (limits.c: the bounds of
# every run on a guest-made image); manifest.c compares the
# image's files with the golden image's (user data survived), resolve.c
# finding them reading each directory once; durable.c
# models what a workload made durable and when (the files a case wrote,
# and every flush point of `flipbed crash`); undetected.c says why a fault
# went undetected. Its objects join the flipbed binary.

HARNESS_OBJS += $(addprefix $(B)/obj/harness/judge/,durable.o fsck.o fsck_check.o \
	limits.o manifest.o resolve.o undetected.o)

# The cause of an undetected fault (harness/judge/undetected.c): pure, on
# fault-log records.
$(eval $(call UNIT_TEST,test-undetected,harness/tests/test-undetected.c \
	harness/judge/undetected.c $(B)/obj/harness/outcome.o,jansson,$(HARNESS_TEST_CFLAGS)))

# The e2fsck oracle's output reader (harness/judge/fsck.c) on the goldens of
# harness/tests/fsck/ (made by harness/tests/fsck-oracle.sh).
$(eval $(call UNIT_TEST,test-fsck,harness/tests/test-fsck.c harness/judge/fsck.c \
	$(B)/obj/harness/util.o,,$(HARNESS_TEST_CFLAGS)))

# What a workload was acknowledged for (harness/judge/durable.c): the
# model on steps and their results, judged on given image contents.
$(eval $(call UNIT_TEST,test-durable,harness/tests/test-durable.c harness/judge/durable.c \
	guest/steps.c guest/pattern.c $(B)/obj/harness/outcome.o $(B)/obj/harness/util.o,jansson,\
	$(HARNESS_TEST_CFLAGS)))

# Many paths to their inodes, each directory read once
# (harness/judge/resolve.c), against ext2fs_namei() on images made by
# mkfs.ext4 -d, one with a directory block overwritten.
$(eval $(call UNIT_TEST,test-resolve,harness/tests/test-resolve.c harness/judge/resolve.c \
	$(B)/obj/harness/util.o,ext2fs com_err,$(HARNESS_TEST_CFLAGS)))

# make bench-resolve: the oracle's lookups, one namei per path against
# fb_resolve_paths(), side by side (harness/bench-resolve.sh).
$(B)/tests/bin/bench-resolve: harness/judge/bench-resolve.c harness/judge/resolve.c $(B)/obj/harness/util.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(HARNESS_TEST_CFLAGS) $$(pkg-config --cflags ext2fs) -o $@ $^ \
		$$(pkg-config --libs ext2fs com_err)
BENCHES += bench-resolve
.PHONY: bench-resolve
bench-resolve: $(B)/tests/bin/bench-resolve
	@harness/bench-resolve.sh

# The fsck oracle's runs (harness/judge/fsck_check.c) on images made by
# mkfs.ext4 and debugfs: a clean image gets one e2fsck -fn, one with
# orphans or damage all three.
$(eval $(call UNIT_TEST,test-fsck-check,harness/tests/test-fsck-check.c harness/judge/fsck_check.c \
	harness/judge/fsck.c harness/judge/limits.c $(B)/obj/harness/boot/proc.o \
	$(B)/obj/harness/util.o,ext2fs com_err jansson,$(HARNESS_TEST_CFLAGS)))

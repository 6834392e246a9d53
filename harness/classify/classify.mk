# SPDX-License-Identifier: MIT
# harness/classify/: the classifier (classify.c: a console transcript ->
# outcome, each rule commented beside its entry) and the kernel-log module
# (klog.c: crash markers and the one table of kernel-message rules that the
# classifier, the reports and the campaign share), and attribution (attrib.c:
# do the csum-error lines name the object the fault hit). Its test runs on golden
# transcripts (harness/tests/classify/, regenerated from real boots by
# harness/tests/classify/mkreal.sh). harness/harness.mk compiles the objects.

CLASSIFY_OBJS := $(addprefix $(B)/obj/harness/,classify/classify.o \
	classify/klog.o classify/attrib.o classify/split.o outcome.o util.o)

TESTS += $(B)/tests/bin/test-classify
PACKAGES += libcmocka-dev

$(B)/tests/bin/test-classify: harness/tests/test-classify.c $(CLASSIFY_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -Iharness $(shell $(PKG_CONFIG) --cflags cmocka) \
		-o $@ $< $(CLASSIFY_OBJS) $(shell $(PKG_CONFIG) --libs cmocka)

-include $(B)/tests/bin/test-classify.d

# The cause of an undetected fault (harness/run/undetected.c): pure, on
# fault-log records.
TESTS += $(B)/tests/bin/test-undetected
$(B)/tests/bin/test-undetected: harness/tests/test-undetected.c harness/run/undetected.c \
		$(B)/obj/harness/outcome.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -Iharness $(shell $(PKG_CONFIG) --cflags cmocka) \
		-o $@ $< harness/run/undetected.c $(B)/obj/harness/outcome.o \
		$(shell $(PKG_CONFIG) --libs cmocka) -ljansson

-include $(B)/tests/bin/test-undetected.d

# The e2fsck oracle's output reader (harness/run/fsck.c) on the goldens of
# harness/tests/fsck/ (made by harness/tests/fsck-oracle.sh).
TESTS += $(B)/tests/bin/test-fsck
$(B)/tests/bin/test-fsck: harness/tests/test-fsck.c harness/run/fsck.c $(B)/obj/harness/util.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -Iharness $(shell $(PKG_CONFIG) --cflags cmocka) \
		-o $@ $< harness/run/fsck.c $(B)/obj/harness/util.o $(shell $(PKG_CONFIG) --libs cmocka)

-include $(B)/tests/bin/test-fsck.d

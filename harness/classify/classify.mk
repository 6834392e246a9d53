# SPDX-License-Identifier: MIT
# harness/classify/: the classifier (classify.c: a console transcript ->
# outcome, each rule commented beside its entry) and the kernel-log module
# (klog.c: crash markers and the one table of kernel-message rules that the
# classifier, the reports and the campaign share), and attribution (attrib.c:
# do the csum-error lines name the object the fault hit), and the order
# property (order.c: is a checksum failure reported first). Its test runs on golden
# transcripts (harness/tests/classify/, regenerated from real boots by
# harness/tests/classify/mkreal.sh). harness/harness.mk compiles the objects.

CLASSIFY_OBJS := $(addprefix $(B)/obj/harness/,classify/classify.o \
	classify/klog.o classify/attrib.o classify/split.o classify/order.o outcome.o util.o)

$(eval $(call UNIT_TEST,test-classify,harness/tests/test-classify.c $(CLASSIFY_OBJS),, \
	$(HARNESS_TEST_CFLAGS)))
$(eval $(call UNIT_TEST,test-order,harness/tests/test-order.c $(CLASSIFY_OBJS),, \
	$(HARNESS_TEST_CFLAGS)))

# make bench-order: the order property's cost per case beside the
# classifier's (harness/classify/bench-order.c), on the golden transcripts.
$(B)/tests/bin/bench-order: harness/classify/bench-order.c $(CLASSIFY_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(HARNESS_TEST_CFLAGS) -o $@ $^
BENCHES += bench-order
.PHONY: bench-order
bench-order: $(B)/tests/bin/bench-order
	@$(B)/tests/bin/bench-order $${MEDIAN_CASE:-0.35} $${ROUNDS:-2000} harness/tests/classify/*.log

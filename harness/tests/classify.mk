# harness/tests/classify.mk: the classifier (harness/classify.c, rules in its
# top comment) and its test on golden transcripts (harness/tests/classify/,
# regenerated from real boots by harness/tests/classify/mkreal.sh).
# Included by harness/harness.mk, whose pattern rule builds the objects.

CLASSIFY_OBJS := $(B)/obj/harness/classify.o $(B)/obj/harness/outcome.o

TESTS += $(B)/tests/bin/test-classify
PACKAGES += libcmocka-dev

$(B)/obj/harness/classify.o: harness/classify.h harness/outcome.h
$(B)/obj/harness/outcome.o: harness/outcome.h

$(B)/tests/bin/test-classify: harness/tests/test-classify.c $(CLASSIFY_OBJS) \
		harness/classify.h harness/outcome.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iharness $(shell $(PKG_CONFIG) --cflags cmocka) -o $@ \
		$< $(CLASSIFY_OBJS) $(shell $(PKG_CONFIG) --libs cmocka)

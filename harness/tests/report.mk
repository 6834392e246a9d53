# harness/tests/report.mk: the results side of the harness (report.h):
# summary.md, index.html, junit.xml, KTAP, and flipbed report/show/diff/merge.
# Included by harness/harness.mk (-include harness/tests/report.mk).
#
# For the lead, to link build/bin/flipbed:
#   REPORT_LIB   build/obj/harness/libfbreport.a (the objects REPORT_OBJS)
#   REPORT_LIBS  the libraries it needs (jansson); it also needs outcome.o
#   cmd_report, cmd_show, cmd_diff, cmd_merge (report.h) for the dispatcher.
#
#   make check   runs build/tests/bin/report-unit (cmocka) and
#                harness/tests/report/run.sh (goldens, HTML, diff, merge)

REPORT_SRCS := $(addprefix harness/,report.c report_case.c report_cmds.c \
	report_diff.c report_dmesg.c report_html.c report_junit.c \
	report_ktap.c report_load.c report_md.c report_merge.c report_page.c \
	report_show.c report_table.c report_util.c util.c)
REPORT_HDRS := $(addprefix harness/,report.h report_int.h report_html.h util.h \
	outcome.h)
REPORT_OBJS := $(patsubst harness/%.c,$(B)/obj/report/%.o,$(REPORT_SRCS))
REPORT_LIB := $(B)/obj/harness/libfbreport.a
REPORT_CFLAGS = $(CFLAGS) $(shell $(PKG_CONFIG) --cflags jansson)
REPORT_LIBS = $(shell $(PKG_CONFIG) --libs jansson)
# outcome.c is the lead's; the tests build their own copy of its object.
REPORT_TEST_OBJS := $(REPORT_LIB) $(B)/obj/report/outcome.o

ALL += $(REPORT_LIB)
TESTS += $(B)/tests/bin/report-unit harness/tests/report/run.sh
PACKAGES += libjansson-dev libcmocka-dev libxml2-utils

$(B)/obj/report/%.o: harness/%.c $(REPORT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(REPORT_CFLAGS) -c -o $@ $<

$(REPORT_LIB): $(REPORT_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(B)/tests/bin/report-unit: harness/tests/report/unit.c $(REPORT_TEST_OBJS) \
		$(REPORT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(REPORT_CFLAGS) -Iharness $(shell $(PKG_CONFIG) --cflags cmocka) \
		-o $@ $< $(REPORT_TEST_OBJS) $(REPORT_LIBS) \
		$(shell $(PKG_CONFIG) --libs cmocka)

# The commands without the rest of flipbed, for run.sh.
$(B)/tests/bin/report-cli: harness/tests/report/cli.c $(REPORT_TEST_OBJS) \
		$(REPORT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(REPORT_CFLAGS) -Iharness -o $@ $< $(REPORT_TEST_OBJS) \
		$(REPORT_LIBS)

harness/tests/report/run.sh: $(B)/tests/bin/report-cli

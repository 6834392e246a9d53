# SPDX-License-Identifier: MIT
# harness/report/: the results library (report/report.h): summary.md,
# index.html, junit.xml, KTAP, the IRON table, campaign.html,
# history.html, and flipbed report/show/diff/merge.
# Included by harness/harness.mk, which compiles its objects.
#
#   REPORT_LIB   build/obj/harness/libfbreport.a
#   make check   build/tests/bin/report-unit (cmocka),
#                harness/tests/report/run.sh (goldens, HTML, diff, merge),
#                harness/tests/report-iron.sh (the IRON table's golden),
#                harness/tests/report-html.sh (the series' effect, headline,
#                heatmaps, campaign.html) and report-history.sh
#   make check-html   the pages in headless Chromium (below)
#   make bench-report the 2000-case benchmark (below)

REPORT_SRCS := $(addprefix harness/report/,report.c report_case.c \
	report_cmds.c report_diff.c report_dmesg.c report_html.c \
	report_junit.c report_ktap.c report_load.c report_loose.c report_md.c \
	report_merge.c report_order.c report_page.c report_show.c report_campaign.c \
	report_table.c report_util.c report_explain.c report_iron.c report_signals.c \
	report_series.c report_heatmap.c report_history.c report_chart.c \
	report_campaign_html.c report_coverage.c)
REPORT_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(REPORT_SRCS))
REPORT_LIB := $(B)/obj/harness/libfbreport.a
# What a program linking the library alone needs besides it.
REPORT_DEPS := $(addprefix $(B)/obj/harness/,util.o outcome.o kernels.o kernel_image.o \
	kernel_modules.o paths.o \
	html.o classify/klog.o classify/order.o witness/fserror_report.o witness/bioread_report.o)
REPORT_LIBS = $(call PKG_LIBS,jansson)

ALL += $(REPORT_LIB)
TESTS += $(call SHELL_TESTS,harness/tests/report)
PACKAGES += libjansson-dev libxml2-utils

$(REPORT_LIB): $(REPORT_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(eval $(call UNIT_TEST,report-unit,harness/tests/report/unit.c $(REPORT_LIB) $(REPORT_DEPS), \
	jansson inih,$(HARNESS_TEST_CFLAGS)))

# The commands without the rest of flipbed, for run.sh.
$(B)/tests/bin/report-cli: harness/tests/report/cli.c $(REPORT_LIB) $(REPORT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP $(HARNESS_TEST_CFLAGS) $(call PKG_CFLAGS,jansson) \
		-o $@ $< $(REPORT_LIB) $(REPORT_DEPS) $(REPORT_LIBS)

# The library's own objects depend on the headers they include (outcome.h's
# enums size the report's tables): without their .d files a changed header
# left a stale library behind.
-include $(REPORT_OBJS:.o=.d) $(B)/tests/bin/report-cli.d

harness/tests/report/run.sh harness/tests/report-iron.sh harness/tests/report-html.sh \
	harness/tests/report-history.sh harness/tests/report-browser.sh: $(B)/tests/bin/report-cli

# The HTML reports in headless Chromium (harness/tests/report-browser.sh,
# group own-target): not in make check nor .ci/run, as Debian's chromium
# package is about 460 MB installed; it is not in PACKAGES either
# (apt-get install chromium). Screenshots in build/check-html/.
.PHONY: check-html
check-html: $(B)/tests/bin/report-cli
	@tests/run harness/tests/report-browser.sh

# The time to write every report of a 2000-case run (target: 2 s), on a run
# synthesized from the ci baseline's records: bench/report.sh. Not a test.
BENCHES += bench-report
.PHONY: bench-report
bench-report: $(B)/bin/flipbed
	bench/report.sh

// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the run loader (fb_run_load) as report, show, diff and
 * merge read a run directory. The input is a cases.jsonl, optionally
 * followed by a line "=== run.json" and a run.json; with nothing before
 * that line there is no cases.jsonl at all. What loads is printed as the
 * reports print it (summary.md, junit.xml, KTAP) and compared with itself
 * as `flipbed diff` compares runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "report/report_int.h"

static char dir[4096], cases[4096], info[4096];
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *box = fuzz_sandbox();

	snprintf(dir, sizeof(dir), "%s/run", box);
	snprintf(cases, sizeof(cases), "%s/cases.jsonl", dir);
	snprintf(info, sizeof(info), "%s/run.json", dir);
	if (fb_mkdirs(dir))
		abort();
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *tail;
	size_t head_len, tail_len;
	struct fb_run run;

	fuzz_split(data, size, "=== run.json", &tail, &head_len, &tail_len);
	unlink(cases);
	unlink(info);
	if (!tail || head_len)
		fuzz_write(cases, data, head_len);
	if (tail)
		fuzz_write(info, tail, tail_len);
	if (!fb_run_load(dir, &run)) {
		fb_run_status(&run);
		fb_report_summary(&run, devnull);
		fb_report_junit(&run, devnull);
		fb_report_ktap_run(&run, devnull);
		fb_diff_runs(&run, &run, devnull);
		fb_diff_by(&run, "kernel", devnull);
		fb_diff_by(&run, "fault.timing", devnull);
	}
	fb_run_free(&run);
	return 0;
}

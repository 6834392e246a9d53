// SPDX-License-Identifier: MIT
/*
 * The results commands on their own (report-cli report|show|diff|merge ...),
 * so run.sh tests them before and independently of build/bin/flipbed.
 * `report-cli campaign DIR` writes DIR/campaign.md and campaign.html as a
 * campaign would for the run DIR, its failed cases taken as findings
 * (one each), without running one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "report/report.h"
#include "util.h"

static const char *const timings[FB_REPORT_TIMINGS] = { "rest", "read", "read-sticky", "write" };

static int timing_of(const char *t)
{
	for (int i = 0; i < FB_REPORT_TIMINGS; i++)
		if (!strcmp(t, timings[i]))
			return i;
	return -1;
}

/* The object types of RUN, NULL-terminated (campaign.md's rows). */
static const char **types_of(const struct fb_run *run)
{
	const char **t = xcalloc(run->n + 1, sizeof(*t));
	size_t n = 0;

	for (size_t i = 0; i < run->n; i++) {
		size_t k = 0;

		while (k < n && strcmp(t[k], run->cases[i].type))
			k++;
		if (k == n)
			t[n++] = run->cases[i].type;
	}
	return t;
}

static int campaign_cmd(int argc, char **argv)
{
	struct fb_campaign_finding *f;
	struct fb_campaign_summary s = { .seed = 1, .kernel = "stock", .max_bits = 1 };
	char *all[] = { "rest", "read", "write", NULL }, path[4096];
	struct fb_run run;
	int *bits, *timing, ret;

	if (argc != 2 || fb_run_load(argv[1], &run))
		return 2;
	f = xcalloc(run.n + 1, sizeof(*f));
	bits = xcalloc(run.n + 1, sizeof(*bits));
	timing = xcalloc(run.n + 1, sizeof(*timing));
	for (size_t i = 0; i < run.n; i++) {
		bits[i] = 1;
		timing[i] = timing_of(run.cases[i].timing);
		if (run.cases[i].verdict == FB_VERDICT_FAIL)
			f[s.nfindings++] = (struct fb_campaign_finding){
				run.cases[i].name, run.cases[i].dir, &run.cases[i], 1 };
	}
	s.count = s.ran = (int)run.n;
	s.timings = all;
	s.all_types = types_of(&run);
	memcpy(s.timing_names, timings, sizeof(timings));
	s.bits = bits;
	s.timing = timing;
	s.findings = f;
	snprintf(path, sizeof(path), "%s/campaign.md", argv[1]);
	ret = fb_report_campaign(path, &run, &s) < 0 ? 2 : 0;
	free((void *)s.all_types);
	free(f);
	free(bits);
	free(timing);
	fb_run_free(&run);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "report", cmd_report }, { "show", cmd_show },
		{ "diff", cmd_diff }, { "merge", cmd_merge },
		{ "campaign", campaign_cmd },
	};

	for (size_t i = 0; argc > 1 && i < sizeof(cmds) / sizeof(*cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "usage: report-cli report|show|diff|merge|campaign ARGS...\n");
	return 2;
}

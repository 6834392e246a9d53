// SPDX-License-Identifier: MIT
/* Write every report of a run directory from its cases.jsonl (report.h). */
#include <stdlib.h>
#include "report/report_int.h"

typedef int (*writer)(const struct fb_run *run, FILE *out);

static int write_one(const struct fb_run *run, const char *name, writer w)
{
	char *path = fb_path(run->dir, NULL, name);
	FILE *out = path ? fb_out_open(path) : NULL;
	int ret = -1;

	if (out) {
		ret = w(run, out);
		if (fb_out_close(out, path))
			ret = -1;
	}
	free(path);
	return ret;
}

int fb_report_write(const struct fb_run *run)
{
	if (write_one(run, "summary.md", fb_report_summary) ||
	    write_one(run, "junit.xml", fb_report_junit))
		return -1;
	return fb_report_html(run);
}

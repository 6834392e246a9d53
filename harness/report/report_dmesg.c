// SPDX-License-Identifier: MIT
/*
 * The kernel messages that matter, out of a whole boot's dmesg.txt: what
 * ext4 and jbd2 said, I/O errors, and every kernel report (the markers
 * of classify/klog.c: BUG:, WARNING:, Oops, KASAN:, UBSAN:, panics, hung
 * tasks) with the lines of the report that follow it.
 */
#include <stdlib.h>
#include <string.h>
#include "classify/klog.h"
#include "report/report_int.h"

#define REPORT_LINES 60	/* a report's body kept after its first line */
#define MAX_LINES 200	/* keep a page readable; dmesg.txt has the rest */

char *fb_dmesg_excerpt(const char *text, unsigned *kept, unsigned *total)
{
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	unsigned in_report = 0;

	*kept = *total = 0;
	if (!f)
		return NULL;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		bool keep = false;

		++*total;
		if (fb_klog_report_start(p, len)) {
			in_report = REPORT_LINES;
			keep = true;
		} else if (in_report) {
			in_report--;
			keep = true;
			if (memmem(p, len, "---[ end", 8))
				in_report = 0;
		} else {
			keep = fb_klog_notable(p, len);
		}
		if (keep && *kept < MAX_LINES) {
			fwrite(p, 1, len, f);
			fputc('\n', f);
			++*kept;
		}
		p += len + (nl != NULL);
	}
	fclose(f);
	return out;
}

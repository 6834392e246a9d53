// SPDX-License-Identifier: MIT
/*
 * The kernel messages that matter, out of a whole boot's dmesg.txt: what
 * ext4 and jbd2 said, I/O errors, and every report fstests' dmesg check
 * looks for (BUG:, WARNING:, Oops, general protection fault, KASAN:,
 * UBSAN:) with the lines of the report that follow it.
 */
#include <stdlib.h>
#include <string.h>
#include "report/report_int.h"

#define REPORT_LINES 60	/* a report's body kept after its first line */
#define MAX_LINES 200	/* keep a page readable; dmesg.txt has the rest */

static const char *const notable[] = {
	"EXT4-fs", "JBD2", "jbd2", "I/O error", "blk_update_request",
	"Aborting journal",
};

static const char *const report_start[] = {
	"BUG:", "WARNING:", "Oops", "general protection fault", "KASAN:",
	"UBSAN:", "Kernel panic", "blocked for more than",
};

static bool has_any(const char *line, size_t len, const char *const *pats,
		    size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (memmem(line, len, pats[i], strlen(pats[i])))
			return true;
	return false;
}

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
		if (has_any(p, len, report_start, sizeof(report_start) /
			    sizeof(*report_start))) {
			in_report = REPORT_LINES;
			keep = true;
		} else if (in_report) {
			in_report--;
			keep = true;
			if (memmem(p, len, "---[ end", 8))
				in_report = 0;
		} else {
			keep = has_any(p, len, notable,
				       sizeof(notable) / sizeof(*notable));
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

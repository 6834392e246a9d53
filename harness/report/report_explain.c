// SPDX-License-Identifier: MIT
/*
 * The explained verdicts of a run (report_int.h, fb_report_explained), for
 * summary.md and campaign.md:
 *  - the headline per kernel and object type: checksum-covered faults the
 *    guest read (the target breaks a checksum the kernel verifies, and the
 *    plugin saw the changed bytes read), and how many of those were
 *    detected, in the workload or at the next mount;
 *  - undetected cases by cause (outcome.undetected), per type and timing;
 *  - write faults: detected by the workload, or only at the next mount.
 * Records without the fields (runs older than them) are left out; with
 * none at all the section is not written.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"

#define MAX_ROWS 64

struct row {
	char name[96];
	int read, detected, unexplained;	/* headline */
	int cause[FB_UNDET__COUNT];		/* undetected by cause */
};

static struct row *row_of(struct row *rows, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	if (*n == MAX_ROWS)
		return &rows[MAX_ROWS - 1];	/* the last row takes the rest */
	memset(&rows[*n], 0, sizeof(rows[*n]));
	snprintf(rows[*n].name, sizeof(rows[*n].name), "%s", *n == MAX_ROWS - 1 ? "(others)" : name);
	return &rows[(*n)++];
}

static bool detected(const struct fb_case *c)
{
	const char *next = fb_case_str(c, "outcome.detect_next");

	return c->detect != FB_DETECT_NONE || (next && strcmp(next, "none"));
}

static void cause_table(FILE *f, const char *by, struct row *rows, int n)
{
	fprintf(f, "\n| %s |", by);
	for (int u = 1; u < FB_UNDET__COUNT; u++)
		fprintf(f, " %s |", fb_undetected_name(u));
	fputs("\n|---|", f);
	for (int u = 1; u < FB_UNDET__COUNT; u++)
		fputs("---|", f);
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		int any = 0;

		for (int u = 1; u < FB_UNDET__COUNT; u++)
			any += rows[i].cause[u];
		if (!any)
			continue;
		fprintf(f, "| %s |", rows[i].name);
		for (int u = 1; u < FB_UNDET__COUNT; u++)
			fprintf(f, " %d |", rows[i].cause[u]);
		fputc('\n', f);
	}
}

void fb_report_explained(FILE *f, const struct fb_run *run)
{
	static struct row head[MAX_ROWS], types[MAX_ROWS], timings[MAX_ROWS];
	int nh = 0, nty = 0, nti = 0, any = 0, w_first = 0, w_next = 0, w_none = 0, w_cases = 0;
	char key[200];

	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];
		json_t *read = fb_case_get(c, "outcome.fault_read");
		const char *why = fb_case_str(c, "outcome.undetected");
		int u = why ? fb_undetected_parse(why) : -1;
		struct row *r;

		if (!c->has_outcome || fb_case_class(c) == FB_CLASS_INFRA || !json_is_boolean(read))
			continue;
		any++;
		snprintf(key, sizeof(key), "%s | %s", c->kernel, c->type);
		r = row_of(head, &nh, key);
		if (json_is_true(read) && fb_case_str(c, "target.csum_error")) {
			r->read++;
			r->detected += detected(c);
			r->unexplained += u == FB_UNDET_UNEXPLAINED;
		}
		if (u > 0) {
			row_of(types, &nty, c->type)->cause[u]++;
			row_of(timings, &nti, c->timing)->cause[u]++;
		}
		if (!strcmp(c->timing, "write") && fb_case_str(c, "outcome.detect_next")) {
			w_cases++;
			if (c->detect != FB_DETECT_NONE)
				w_first++;
			else if (detected(c))
				w_next++;
			else
				w_none++;
		}
	}
	if (!any)
		return;
	fputs("\n## Checksum-covered faults the kernel read\n\n"
	      "Cases whose fault breaks a checksum the kernel verifies (not resealed, covered "
	      "bytes) and whose changed bytes the guest read (the plugin's witness); *detected*: "
	      "in the workload or at the next mount; *unexplained*: read, covered, and nothing "
	      "detected, each a finding.\n\n"
	      "| kernel | type | covered flips read | detected | unexplained |\n"
	      "|---|---|---|---|---|\n", f);
	for (int i = 0; i < nh; i++)
		if (head[i].read)
			fprintf(f, "| %s | %d | %d | %d |\n", head[i].name, head[i].read,
				head[i].detected, head[i].unexplained);
	fputs("\n## Undetected, by cause\n\nCases with a fault that neither the workload nor "
	      "the next mount detected, by why (harness/RESULTS.md, `undetected`).\n", f);
	cause_table(f, "type", types, nty);
	cause_table(f, "timing", timings, nti);
	if (w_cases)
		fprintf(f, "\n## Write faults at the next mount\n\n%d write-fault cases ran the "
			"next-mount pass: %d detected by the workload, %d only at the next mount, "
			"%d not at all.\n", w_cases, w_first, w_next, w_none);
}

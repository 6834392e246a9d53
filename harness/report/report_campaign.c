// SPDX-License-Identifier: MIT
/*
 * campaign.md: a campaign's outcome classes, reactions, infra kinds,
 * detection rates by object type, flipped bits and timing, and its
 * findings (report.h, fb_report_campaign); campaign.html beside it
 * (report_campaign_html.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

struct tally {
	int cases, detected, unsafe;
};

/* Why an infra case is infra, in three kinds the summary counts apart. */
static const char *infra_kind(const struct fb_case *c)
{
	const char *why = fb_case_str(c, "outcome.infra");

	if (!why)
		why = "";
	if (strstr(why, "never fired"))
		return "fault never fired";
	if (strstr(why, "interrupted by"))
		return "interrupted";
	if (!strncmp(why, "target ", 7))
		return "target not in image";
	return "infrastructure";
}

/* campaign.html beside PATH (campaign.md). */
static void write_html(const char *path, const struct fb_run *run,
		       const struct fb_campaign_summary *o)
{
	size_t len = strlen(path);
	char *html;
	FILE *f;

	if (len > 3 && !strcmp(path + len - 3, ".md"))
		len -= 3;
	if (asprintf(&html, "%.*s.html", (int)len, path) < 0)
		return;
	f = fb_out_open(html);
	if (f) {
		fb_campaign_html(f, run, o);
		fb_out_close(f, html);
	}
	free(html);
}

static void rate(FILE *f, const char *name, const struct tally *t)
{
	fprintf(f, "| %s | %d | %d | %.0f%% | %d |\n", name, t->cases, t->detected,
		t->cases ? 100.0 * t->detected / t->cases : 0.0, t->unsafe);
}

int fb_report_campaign(const char *path, const struct fb_run *run,
		       const struct fb_campaign_summary *o)
{
	const char *const *types = o->all_types;
	int ntypes = 0, nclass[FB_CLASS__COUNT] = { 0 }, nreact[FB_REACT__COUNT] = { 0 };
	int ninfra[4] = { 0 }, warnings = 0, silent = 0;
	static const char *const ikinds[4] = { "fault never fired", "target not in image",
					       "interrupted", "infrastructure" };

	while (types[ntypes])
		ntypes++;
	struct tally by_type[ntypes + 1], by_bits[65], by_timing[FB_REPORT_TIMINGS];
	memset(by_type, 0, sizeof(by_type));
	memset(by_bits, 0, sizeof(by_bits));
	memset(by_timing, 0, sizeof(by_timing));
	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];
		enum fb_class k = fb_case_class(c);
		nclass[k]++;
		if (k == FB_CLASS_INFRA) {
			const char *kind = infra_kind(c);
			for (int j = 0; j < 4; j++)
				ninfra[j] += !strcmp(kind, ikinds[j]);
			continue;
		}
		if (!c->has_outcome)
			continue;
		nreact[c->reaction]++;
		warnings += c->warning;
		silent += fb_case_silent_change(c);
		bool det = c->detect != FB_DETECT_NONE;
		bool bad = k == FB_CLASS_UNSAFE || c->warning;
		int t = 0, b = o->bits[i], tm = o->timing[i];
		while (types[t] && strcmp(types[t], c->type))
			t++;
		struct tally *tv[] = { &by_type[t], &by_bits[b > 64 ? 0 : b],
				       &by_timing[tm < 0 || tm >= FB_REPORT_TIMINGS ? 0 : tm] };
		for (int j = 0; j < 3; j++) {
			tv[j]->cases++;
			tv[j]->detected += det;
			tv[j]->unsafe += bad;
		}
	}

	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "flipbed campaign: cannot write %s: %s\n", path, strerror(errno));
		return ninfra[3];
	}
	fprintf(f, "# flipbed campaign, seed %llu\n\n", (unsigned long long)o->seed);
	fprintf(f, "%d cases generated, %zu recorded in run/cases.jsonl; kernel %s; profile %s; "
		"bits 1..%u; reseal ratio %.2f; timings ", o->count, run->n, o->kernel,
		o->profile ? o->profile : "full", o->max_bits, o->reseal_ratio);
	int ran = o->ran;
	for (char **t = o->timings; *t; t++)
		fprintf(f, "%s%s", *t, t[1] ? "," : "");
	fputs("; types ", f);
	if (!o->types)
		fputs("default (every type but mmp)", f);
	for (char **t = o->types; t && *t; t++)
		fprintf(f, "%s%s", *t, t[1] ? "," : "");
	fprintf(f, ".\nThis invocation ran %d cases in %.0f s: **%.1f cases/min** (golden images "
		"included).\n\nRe-generate the files with `build/bin/flipbed campaign --seed %llu "
		"--count %d --kernel %s --generate`; every case file is a scenario "
		"(`build/bin/flipbed run FILE`).\n\n", ran, o->seconds,
		o->seconds > 0 ? ran * 60 / o->seconds : 0, (unsigned long long)o->seed,
		o->count, o->kernel);

	fputs("## Outcome classes\n\n| class | cases |\n|---|---|\n", f);
	for (int k = FB_CLASS__COUNT - 1; k >= 0; k--)
		fprintf(f, "| %s | %d |\n", fb_class_name(k), nclass[k]);
	fputs("\n| reaction | cases |\n|---|---|\n", f);
	for (int r = 0; r < FB_REACT__COUNT; r++)
		fprintf(f, "| %s | %d |\n", fb_reaction_name(r), nreact[r]);
	fprintf(f, "| WARNING/BUG/UBSAN line | %d |\n| data changed, nothing detected | %d |\n",
		warnings, silent);
	fputs("\n| infra kind | cases |\n|---|---|\n", f);
	for (int j = 0; j < 4; j++)
		fprintf(f, "| %s | %d |\n", ikinds[j], ninfra[j]);

	fputs("\n## Detection rate by object type\n\nCases with a kernel outcome; *detected*: "
	      "detect is not none; *unsafe*: panic, oops, KASAN, hang, silent data change or a "
	      "WARNING line.\n\n| type | cases | detected | rate | unsafe |\n|---|---|---|---|---|\n", f);
	for (int t = 0; t < ntypes; t++)
		if (by_type[t].cases)
			rate(f, types[t], &by_type[t]);
	fputs("\n## Detection rate by flipped bits\n\n| bits | cases | detected | rate | unsafe |\n"
	      "|---|---|---|---|---|\n", f);
	for (int b = 0; b < 65; b++) {
		char name[16];
		snprintf(name, sizeof(name), "%d", b);
		if (by_bits[b].cases)
			rate(f, name, &by_bits[b]);
	}
	fputs("\n## Detection rate by timing\n\n| timing | cases | detected | rate | unsafe |\n"
	      "|---|---|---|---|---|\n", f);
	for (int t = 0; t < FB_REPORT_TIMINGS; t++)
		if (by_timing[t].cases)
			rate(f, o->timing_names[t], &by_timing[t]);

	fb_report_explained(f, run);
	fprintf(f, "\n## Findings (%d distinct)\n\n", o->nfindings);
	if (!o->nfindings)
		fputs("None.\n", f);
	for (int i = 0; i < o->nfindings; i++) {
		const struct fb_campaign_finding *fd = &o->findings[i];
		const struct fb_case *c = fd->first;
		fprintf(f, "- **%s** — %d case%s, first `%s` (%s): `findings/%s/`; repro: "
			"`build/bin/flipbed run %s --kernel %s`\n", fd->title, fd->n,
			fd->n == 1 ? "" : "s", c->name, c->type, fd->dir,
			fb_case_str(c, "scenario"), c->kernel);
	}
	fclose(f);
	write_html(path, run, o);
	return ninfra[3];
}

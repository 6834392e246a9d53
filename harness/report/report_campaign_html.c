// SPDX-License-Identifier: MIT
/*
 * campaign.html beside campaign.md (report_int.h, fb_campaign_html): the
 * campaign's numbers as charts, inline SVG (report_chart.c):
 *  - detection by object type: the share of cases with a kernel outcome
 *    whose fault was detected (in the workload or at the next mount);
 *  - undetected cases by cause (outcome.undetected);
 *  - distinct findings over the cases run, in the order they finished
 *    (cases.jsonl's order; a finding counts from its first case);
 *  - the detection rate as the campaign went on: the share detected of
 *    the cases finished so far, in the same order;
 *  - the campaign's speed over the clock: cases finished per minute, in
 *    bins of at least a minute, from each record's "finished" (records
 *    written before it existed have none: the chart then says so);
 *  - a guided campaign's coverage over the cases: the failure branches of
 *    the checksum checks its cases had reached (DIR/guide-curve.tsv,
 *    written by campaign.c's guided rounds).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "report/report_int.h"

/* "2026-01-02T03:04:05[.678]Z" as seconds since the epoch; -1 if it is not. */
static double utc_seconds(const char *s)
{
	struct tm tm = { 0 };
	const char *end;
	double frac = 0;

	if (!s || !(end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)))
		return -1;
	if (*end == '.') {
		double scale = 0.1;

		for (end++; *end >= '0' && *end <= '9'; end++, scale /= 10)
			frac += (*end - '0') * scale;
	}
	if (strcmp(end, "Z"))
		return -1;
	return (double)timegm(&tm) + frac;
}

static bool detected(const struct fb_case *c)
{
	const char *next = fb_case_str(c, "outcome.detect_next");

	return c->detect != FB_DETECT_NONE || (next && strcmp(next, "none"));
}

static void by_type(FILE *out, const struct fb_run *run, const struct fb_campaign_summary *s)
{
	size_t ntypes = 0, nbars = 0;
	struct fb_bar *bars;

	while (s->all_types[ntypes])
		ntypes++;
	bars = xcalloc(ntypes + 1, sizeof(*bars));
	for (size_t t = 0; t < ntypes; t++) {
		size_t n = 0, d = 0;

		for (size_t i = 0; i < run->n; i++) {
			const struct fb_case *c = &run->cases[i];

			if (!fb_case_comparable(c) || strcmp(c->type, s->all_types[t]))
				continue;
			n++;
			d += detected(c);
		}
		if (!n)
			continue;
		bars[nbars].label = s->all_types[t];
		bars[nbars].value = (double)d / n;
		snprintf(bars[nbars++].text, sizeof(bars->text), "%.0f%% (%zu/%zu)",
			 100.0 * d / n, d, n);
	}
	fputs("<h2 id=\"types\">Detection by object type</h2>\n<p>The share of each type's "
	      "cases with a kernel outcome whose fault was detected, in the workload or at "
	      "the next mount (detected/cases).</p>\n", out);
	if (nbars)
		fb_svg_bars(out, "detection by object type", bars, nbars, 1.0, "#2b6cb0");
	else
		fputs("<p>No case with a kernel outcome.</p>\n", out);
	free(bars);
}

static void causes(FILE *out, const struct fb_run *run)
{
	struct fb_bar bars[FB_UNDET__COUNT];
	size_t n[FB_UNDET__COUNT] = { 0 }, nbars = 0, max = 0;

	for (size_t i = 0; i < run->n; i++) {
		const char *why = fb_case_str(&run->cases[i], "outcome.undetected");
		int u = why ? fb_undetected_parse(why) : -1;

		if (u > 0 && fb_case_comparable(&run->cases[i]))
			n[u]++;
	}
	for (int u = 1; u < FB_UNDET__COUNT; u++) {
		if (!n[u])
			continue;
		bars[nbars].label = fb_undetected_name(u);
		bars[nbars].value = n[u];
		snprintf(bars[nbars++].text, sizeof(bars->text), "%zu", n[u]);
		max = n[u] > max ? n[u] : max;
	}
	fputs("<h2 id=\"causes\">Undetected, by cause</h2>\n<p>Cases with a fault that "
	      "neither the workload nor the next mount detected, by why "
	      "(harness/RESULTS.md, <code>undetected</code>).</p>\n", out);
	if (nbars)
		fb_svg_bars(out, "undetected cases by cause", bars, nbars, (double)max, "#c05621");
	else
		fputs("<p>None with a cause recorded.</p>\n", out);
}

static int by_line(const void *a, const void *b)
{
	const struct fb_case *x = *(const struct fb_case *const *)a;
	const struct fb_case *y = *(const struct fb_case *const *)b;

	return (x->line > y->line) - (x->line < y->line);
}

/* Cases of RUN in the order they finished (cases.jsonl's lines). */
static const struct fb_case **finish_order(const struct fb_run *run)
{
	const struct fb_case **o = xcalloc(run->n + 1, sizeof(*o));

	for (size_t i = 0; i < run->n; i++)
		o[i] = &run->cases[i];
	qsort(o, run->n, sizeof(*o), by_line);
	return o;
}

static void findings(FILE *out, const struct fb_run *run, const struct fb_case **order,
		     const struct fb_campaign_summary *s)
{
	double *x = xcalloc(run->n + 2, sizeof(*x)), *y = xcalloc(run->n + 2, sizeof(*y));
	size_t n = 0, found = 0;

	x[n] = y[n] = 0;
	n++;
	for (size_t i = 0; i < run->n; i++) {
		size_t news = 0;

		for (int f = 0; f < s->nfindings; f++)
			news += s->findings[f].first == order[i];
		if (!news)
			continue;
		found += news;
		x[n] = (double)i + 1;
		y[n++] = (double)found;
	}
	x[n] = (double)run->n;
	y[n++] = (double)found;
	fprintf(out, "<h2 id=\"findings\">Findings over the cases run</h2>\n<p>Distinct "
		"findings (%d) by the cases finished when each was first met.</p>\n",
		s->nfindings);
	fb_svg_line(out, &(struct fb_line){
		.title = "distinct findings over cases run", .xlabel = "cases finished",
		.ylabel = "findings", .x = x, .y = y, .n = n, .xmax = (double)run->n,
		.ymax = found ? (double)found : 1, .step = true });
	free(x);
	free(y);
}

static void rate(FILE *out, const struct fb_run *run, const struct fb_case **order)
{
	double *x = xcalloc(run->n + 1, sizeof(*x)), *y = xcalloc(run->n + 1, sizeof(*y));
	size_t n = 0, with = 0, det = 0;

	for (size_t i = 0; i < run->n; i++) {
		if (!fb_case_comparable(order[i]))
			continue;
		with++;
		det += detected(order[i]);
		x[n] = (double)i + 1;
		y[n++] = 100.0 * det / with;
	}
	fputs("<h2 id=\"rate\">Detection rate as the campaign went on</h2>\n<p>The share "
	      "detected (%) of the cases with a kernel outcome, in the order they finished.</p>\n", out);
	if (n)
		fb_svg_line(out, &(struct fb_line){
			.title = "detection rate over cases run", .xlabel = "cases finished",
			.ylabel = "% detected", .x = x, .y = y, .n = n,
			.xmax = (double)run->n, .ymax = 100 });
	else
		fputs("<p>No case with a kernel outcome.</p>\n", out);
	free(x);
	free(y);
}

static int by_seconds(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void clock_rate(FILE *out, const struct fb_run *run)
{
	double *t = xcalloc(run->n + 1, sizeof(*t)), start = -1, span, bin;
	size_t n = 0, nbins;

	for (size_t i = 0; i < run->n; i++) {
		double f = utc_seconds(fb_case_str(&run->cases[i], "finished"));

		if (f >= 0)
			t[n++] = f;
	}
	fputs("<h2 id=\"speed\">Cases per minute over the clock</h2>\n", out);
	if (!n) {
		fputs("<p>The records carry no clock time (no \"finished\"): written "
		      "before flipbed recorded it.</p>\n", out);
		free(t);
		return;
	}
	qsort(t, n, sizeof(*t), by_seconds);
	if (run->info)
		start = utc_seconds(json_string_value(json_object_get(run->info, "started")));
	if (start < 0 || start > t[0])
		start = t[0];
	span = t[n - 1] - start;
	bin = span / 30 > 60 ? span / 30 : 60;
	nbins = (size_t)(span / bin) + 1;
	double *x = xcalloc(nbins + 1, sizeof(*x)), *y = xcalloc(nbins + 1, sizeof(*y)), ymax = 1;

	for (size_t b = 0; b < nbins; b++)
		x[b] = b * bin / 60;
	for (size_t i = 0; i < n; i++) {
		size_t b = (size_t)((t[i] - start) / bin);

		y[b < nbins ? b : nbins - 1] += 60 / bin;
	}
	for (size_t b = 0; b < nbins; b++)
		ymax = y[b] > ymax ? y[b] : ymax;
	x[nbins] = nbins * bin / 60;
	y[nbins] = y[nbins - 1];
	fprintf(out, "<p>%zu cases finished in %.1f min since the campaign started: %.1f "
		"cases/min overall; each step is a bin of %.0f s.</p>\n", n, span / 60,
		span > 0 ? n * 60 / span : 0.0, bin);
	fb_svg_line(out, &(struct fb_line){
		.title = "cases finished per minute", .xlabel = "minutes since the start",
		.ylabel = "cases/min", .x = x, .y = y, .n = nbins + 1,
		.xmax = x[nbins], .ymax = ymax, .step = true });
	free(x);
	free(y);
	free(t);
}

/* A guided campaign's guide-curve.tsv, beside its run directory, as a chart. */
static void guided_coverage(FILE *out, const struct fb_run *run)
{
	char path[4200], line[128];
	double *x = NULL, *y = NULL;
	size_t n = 0, cap = 0;
	int of = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/../guide-curve.tsv", run->dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n < 1000000) {
		double a, b;

		if (sscanf(line, "# cases learned from, failure branches reached (of %d)", &of) == 1)
			continue;
		if (sscanf(line, "%lf %lf", &a, &b) != 2 || a < 0 || b < 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			x = xrealloc(x, cap * sizeof(*x));
			y = xrealloc(y, cap * sizeof(*y));
		}
		x[n] = a;
		y[n++] = b;
	}
	fclose(f);
	if (n) {
		fprintf(out, "<h2 id=\"coverage\">Coverage over the cases (guided)</h2>\n<p>Failure "
			"branches of the kernel's checksum checks reached by the cases learned from "
			"(%.0f of %d after %zu cases; <code>flipbed coverage run</code> has the table).</p>\n",
			y[n - 1], of, n);
		fb_svg_line(out, &(struct fb_line){
			.title = "failure branches reached over cases", .xlabel = "cases learned from",
			.ylabel = "failure branches", .x = x, .y = y, .n = n, .xmax = x[n - 1],
			.ymax = of > 0 ? of : y[n - 1] > 0 ? y[n - 1] : 1, .step = true });
	}
	free(x);
	free(y);
}

void fb_campaign_html(FILE *out, const struct fb_run *run, const struct fb_campaign_summary *s)
{
	const struct fb_case **order = finish_order(run);
	char title[96];

	snprintf(title, sizeof(title), "flipbed campaign, seed %llu", s->seed);
	fb_html_head(out, title);
	fprintf(out, "<p>%zu cases recorded; kernel ", run->n);
	fb_xml_puts(out, s->kernel);
	fputs(". The tables: <a href=\"campaign.md\">campaign.md</a>.</p>\n", out);
	by_type(out, run, s);
	causes(out, run);
	findings(out, run, order, s);
	rate(out, run, order);
	clock_rate(out, run);
	guided_coverage(out, run);
	fb_html_tail(out);
	free(order);
}

// SPDX-License-Identifier: MIT
/*
 * index.html's heatmaps (report_int.h, fb_heatmaps_html): object type x
 * timing, one panel per kernel, drawn as inline SVG by flipbed itself (no
 * script, nothing fetched when the page is viewed).
 *  - detection: the colour is the share of the cell's cases whose fault
 *    was detected (in the workload or at the next mount), the text
 *    "detected/cases";
 *  - reactions: a bar split by reaction class (safe, silent, weak,
 *    unsafe), the text the number of cases.
 * Only cases with a kernel outcome count (not infra, skipped or cut
 * short); a cell without one is grey. Each <svg> starts a line and each
 * </svg> ends one, so a test can take the drawings out of the page.
 */
#include <stdlib.h>
#include <string.h>
#include "report/report_int.h"

#define LABEL_W 150	/* the row labels */
#define CELL_W 64
#define CELL_H 18
#define HEAD_H 34	/* the kernel's name and the timings */

struct tally {
	size_t n, detected;
	size_t cls[FB_CLASS__COUNT];
};

static void count(const struct fb_run *run, const struct fb_cell *cell, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < cell->n; i++) {
		const struct fb_case *c = &run->cases[cell->idx[i]];
		const char *next = fb_case_str(c, "outcome.detect_next");

		if (!fb_case_comparable(c))
			continue;
		t->n++;
		t->detected += c->detect != FB_DETECT_NONE || (next && strcmp(next, "none"));
		t->cls[fb_case_class(c)]++;
	}
}

/* From a pale yellow (none detected) to a dark blue (all): colour-blind safe. */
static void share_colour(double share, char *buf, size_t len)
{
	static const int lo[3] = { 0xff, 0xf7, 0xbc }, hi[3] = { 0x08, 0x45, 0x94 };
	int c[3];

	for (int k = 0; k < 3; k++)
		c[k] = (int)(lo[k] + (hi[k] - lo[k]) * share + 0.5);
	snprintf(buf, len, "#%02x%02x%02x", c[0], c[1], c[2]);
}

struct panel {
	FILE *out;
	const struct fb_run *run;
	const struct fb_table *t;
	const char *kernel;
	size_t *cols;		/* the table's columns of this kernel, timing order */
	size_t ncols;
};

static void cell_title(const struct panel *p, size_t r, size_t c, const char *what)
{
	fputs("<title>", p->out);
	fb_xml_puts(p->out, p->kernel);
	fputs(" · ", p->out);
	fb_xml_puts(p->out, p->t->rows[r]);
	fputs(" · ", p->out);
	fb_xml_puts(p->out, p->t->cols[c].timing);
	fputs(": ", p->out);
	fb_xml_puts(p->out, what);
	fputs("</title>", p->out);
}

static void detect_cell(const struct panel *p, size_t r, size_t c, int x, int y)
{
	struct tally t;
	char colour[8], what[96];
	double share;

	count(p->run, fb_table_cell(p->t, r, c), &t);
	if (!t.n) {
		fprintf(p->out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			"fill=\"#eee\"/>\n", x, y, CELL_W - 1, CELL_H - 1);
		return;
	}
	share = (double)t.detected / t.n;
	share_colour(share, colour, sizeof(colour));
	snprintf(what, sizeof(what), "%zu of %zu cases detected", t.detected, t.n);
	fprintf(p->out, "<g><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>",
		x, y, CELL_W - 1, CELL_H - 1, colour);
	fprintf(p->out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%zu/%zu"
		"</text>", x + CELL_W / 2, y + CELL_H - 5, share > 0.5 ? "#fff" : "#000",
		t.detected, t.n);
	cell_title(p, r, c, what);
	fputs("</g>\n", p->out);
}

static void react_cell(const struct panel *p, size_t r, size_t c, int x, int y)
{
	static const struct {
		enum fb_class k;
		const char *fill;	/* the matrix's colours */
	} seg[] = {
		{ FB_CLASS_SAFE, "#b9e4b9" }, { FB_CLASS_SILENT, "#e4e4e4" },
		{ FB_CLASS_WEAK, "#ffd98a" }, { FB_CLASS_UNSAFE, "#f49a9a" },
	};
	struct tally t;
	char what[160];
	size_t done = 0, len = 0;
	int x0 = x;

	count(p->run, fb_table_cell(p->t, r, c), &t);
	if (!t.n) {
		fprintf(p->out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			"fill=\"#eee\"/>\n", x, y, CELL_W - 1, CELL_H - 1);
		return;
	}
	fputs("<g>", p->out);
	for (size_t s = 0; s < sizeof(seg) / sizeof(*seg); s++) {
		size_t k = t.cls[seg[s].k];
		int x1 = x + (int)((CELL_W - 1) * (done + k) / t.n);

		done += k;
		if (k && len < sizeof(what))
			len += snprintf(what + len, sizeof(what) - len, "%s%zu %s",
					len ? ", " : "", k, fb_class_name(seg[s].k));
		if (x1 > x0)
			fprintf(p->out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				"fill=\"%s\"/>", x0, y, x1 - x0, CELL_H - 1, seg[s].fill);
		x0 = x1;
	}
	fprintf(p->out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%zu</text>",
		x + CELL_W / 2, y + CELL_H - 5, t.n);
	cell_title(p, r, c, what);
	fputs("</g>\n", p->out);
}

static void panel_svg(const struct panel *p, const char *what,
		      void (*cell)(const struct panel *, size_t, size_t, int, int))
{
	int w = LABEL_W + (int)p->ncols * CELL_W, h = HEAD_H + (int)p->t->nrows * CELL_H;

	fprintf(p->out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"hm\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		"font-size=\"11\" role=\"img\">\n<title>", w, h, w, h);
	fb_xml_puts(p->out, what);
	fputs(": ", p->out);
	fb_xml_puts(p->out, p->kernel);
	fputs("</title>\n<text x=\"0\" y=\"12\" font-weight=\"bold\">", p->out);
	fb_xml_puts(p->out, p->kernel);
	fputs("</text>\n", p->out);
	for (size_t c = 0; c < p->ncols; c++) {
		fprintf(p->out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
			LABEL_W + (int)c * CELL_W + CELL_W / 2, HEAD_H - 6);
		fb_xml_puts(p->out, p->t->cols[p->cols[c]].timing);
		fputs("</text>\n", p->out);
	}
	for (size_t r = 0; r < p->t->nrows; r++) {
		int y = HEAD_H + (int)r * CELL_H;

		fprintf(p->out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 6,
			y + CELL_H - 5);
		fb_xml_puts(p->out, p->t->rows[r]);
		fputs("</text>\n", p->out);
		for (size_t c = 0; c < p->ncols; c++)
			cell(p, r, p->cols[c], LABEL_W + (int)c * CELL_W, y);
	}
	fputs("</svg>\n", p->out);
}

/* One panel per kernel, in the table's column order. */
static void panels(FILE *out, const struct fb_run *run, const struct fb_table *t,
		   const char *what,
		   void (*cell)(const struct panel *, size_t, size_t, int, int))
{
	struct panel p = { .out = out, .run = run, .t = t };

	p.cols = xcalloc(t->ncols + 1, sizeof(*p.cols));
	for (size_t c = 0; c < t->ncols; c++) {
		bool seen = false;

		for (size_t k = 0; k < c; k++)
			seen |= !strcmp(t->cols[k].kernel, t->cols[c].kernel);
		if (seen)
			continue;
		p.kernel = t->cols[c].kernel;
		p.ncols = 0;
		for (size_t k = c; k < t->ncols; k++)
			if (!strcmp(t->cols[k].kernel, p.kernel))
				p.cols[p.ncols++] = k;
		panel_svg(&p, what, cell);
	}
	free(p.cols);
}

static bool any_outcome(const struct fb_run *run)
{
	for (size_t i = 0; i < run->n; i++)
		if (fb_case_comparable(&run->cases[i]))
			return true;
	return false;
}

void fb_heatmaps_html(FILE *out, const struct fb_run *run, const struct fb_table *t)
{
	if (!any_outcome(run))
		return;
	fputs("<h2 id=\"detection\">Detection by type and timing</h2>\n<p>Per kernel, the "
	      "share of each cell's cases whose fault was detected, in the workload or at "
	      "the next mount (detected/cases; pale: none, dark blue: all; grey: no case "
	      "with a kernel outcome).</p>\n<div class=\"hms\">\n", out);
	panels(out, run, t, "detection", detect_cell);
	fputs("</div>\n<h2 id=\"reactions\">Reactions by type and timing</h2>\n<p>Per kernel, "
	      "each cell's cases by reaction class: <span class=\"k safe\">safe</span> "
	      "<span class=\"k silent\">silent</span> <span class=\"k weak\">weak</span> "
	      "<span class=\"k unsafe\">unsafe</span>; the number is the cases.</p>\n"
	      "<div class=\"hms\">\n", out);
	panels(out, run, t, "reactions", react_cell);
	fputs("</div>\n", out);
}

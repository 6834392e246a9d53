/* SPDX-License-Identifier: MIT */
/*
 * flipbed: helpers shared by the report writers (report_*.c) and nothing
 * else; the public surface is report.h.
 */
#ifndef FLIPBED_REPORT_INT_H
#define FLIPBED_REPORT_INT_H

#include <stdio.h>
#include "html.h"
#include "report/report.h"
#include "util.h"

/* The IRON-style matrix: rows object types, columns timing x kernel. */
struct fb_col {
	const char *timing;
	const char *kernel;
};

struct fb_cell {
	size_t *idx;		/* indexes into run->cases, most severe first */
	size_t n;
	enum fb_verdict mark;	/* worst verdict in the cell: fail > infra > pass > skip */
};

struct fb_table {
	char **rows;		/* "inode", "inode resealed", ... */
	size_t nrows;
	struct fb_col *cols;
	size_t ncols;
	struct fb_cell *cells;	/* nrows * ncols, row-major */
};

int fb_table_build(const struct fb_run *run, struct fb_table *t);
void fb_table_free(struct fb_table *t);
static inline struct fb_cell *fb_table_cell(const struct fb_table *t,
					    size_t r, size_t c)
{
	return &t->cells[r * t->ncols + c];
}

/* run.json's run_id, else the run directory's last component. */
const char *fb_run_id(const struct fb_run *run);

/* Counts of each verdict, indexed by enum fb_verdict. */
void fb_run_totals(const struct fb_run *run, size_t totals[FB_VERDICT__COUNT]);

/* A case as a coloured link to its page (PREFIX leads from the page to the run dir). */
void fb_html_case_link(FILE *out, const struct fb_case *c, const char *prefix,
		       const char *text);
/* RUN_DIR/<case dir>/index.html (report_page.c) */
int fb_html_case_page(const struct fb_run *run, const struct fb_case *c);

/* DIR/REL/NAME, malloc'd (REL may be NULL). */
char *fb_path(const char *dir, const char *rel, const char *name);
bool fb_is_file(const char *path);

/*
 * The kernel messages that matter (ext4/jbd2 errors, I/O errors, BUG,
 * WARNING, Oops, KASAN, panic, hung tasks and the lines of their reports).
 * Returns a malloc'd string; *kept and *total count lines.
 */
char *fb_dmesg_excerpt(const char *text, unsigned *kept, unsigned *total);

/* Write to PATH through PATH.tmp, renamed into place by fb_out_close. */
FILE *fb_out_open(const char *path);
int fb_out_close(FILE *f, const char *path);

/*
 * The explained verdicts (report_explain.c): the headline of checksum-
 * covered faults the kernel read and detected, undetected cases by cause,
 * write faults met at the next mount. Nothing when no record has them.
 */
void fb_report_explained(FILE *f, const struct fb_run *run);
/* The same in HTML on OUT, each number a link to its list of cases on LISTS. */
void fb_report_explained_html(FILE *out, const struct fb_run *run, FILE *lists);

/*
 * index.html's detection and reaction heatmaps of RUN, object type x
 * timing per kernel, as inline SVG (report_heatmap.c).
 */
void fb_heatmaps_html(FILE *out, const struct fb_run *run, const struct fb_table *t);

/* Inline SVG charts (report_chart.c). */
struct fb_bar {
	const char *label;
	double value;		/* the bar's length, of the chart's MAX */
	char text[48];		/* beside the bar */
};

struct fb_line {
	const char *title, *xlabel, *ylabel;
	const double *x, *y;	/* N points, x ascending */
	size_t n;
	double xmax, ymax;	/* the axes run from 0 to these */
	bool step;		/* each value holds until the next point */
};

void fb_svg_bars(FILE *out, const char *title, const struct fb_bar *bars, size_t n,
		 double max, const char *fill);
void fb_svg_line(FILE *out, const struct fb_line *l);

/* campaign.html (report_campaign_html.c): the campaign's numbers as charts. */
void fb_campaign_html(FILE *out, const struct fb_run *run, const struct fb_campaign_summary *s);

/* Kernel variants in their column order: stock, patched, kasan, others. */
int fb_kernel_cmp(const char *a, const char *b);

/*
 * `flipbed diff`: print one line per case whose outcome changed; return 1
 * if any did, 0 if none, -1 on error. fb_diff_by compares, inside one run,
 * cases that differ only in the parameter KEY.
 */
int fb_diff_runs(const struct fb_run *a, const struct fb_run *b, FILE *out);
int fb_diff_by(const struct fb_run *run, const char *key, FILE *out);
/*
 * Between two runs: each case of B against the case of A with the same
 * scenario and parameters whose kernel is B's case's kernel or the kernel
 * it is a variant of (kernel/kernels.ini: stock-6.12 against stock).
 */
int fb_diff_runs_by_kernel(const struct fb_run *a, const struct fb_run *b,
			   FILE *out);

/* Whether C has a kernel outcome to compare; whether A's and B's differ. */
bool fb_case_comparable(const struct fb_case *c);
bool fb_case_changed(const struct fb_case *a, const struct fb_case *b);
/* C's scenario and parameters but KEY, as JSON: equal for cases that differ only in KEY. */
char *fb_case_rest_key(const struct fb_case *c, const char *key);

/*
 * The patch series' effect (report_series.c): each case on a kernel
 * without the series ("stock", "stock-6.12") against its case on the same
 * kernel with it ("patched", "patched-6.12"), same scenario and other
 * parameters. A pair is changed when their outcomes (detect, reaction,
 * fsck, data) differ; MARKED says, per case of the run, that it is in one.
 */
struct fb_series_pair {
	size_t base, series;	/* indexes into run->cases */
};

/* The pairs of one kernel and the same with the series ("stock", "patched"). */
struct fb_series_kernels {
	const char *base, *series;
	size_t compared, changed;
};

struct fb_series {
	struct fb_series_pair *changed;	/* by kernel pair, then base case name */
	size_t nchanged;
	size_t compared;		/* pairs with an outcome on both sides */
	struct fb_series_kernels *kernels;	/* in kernels.ini's order */
	size_t nkernels;
	bool *marked;
};

void fb_series_build(const struct fb_run *run, struct fb_series *s);
void fb_series_free(struct fb_series *s);
/* Whether any case of CELL is in a changed pair. */
bool fb_series_cell(const struct fb_series *s, const struct fb_cell *cell);
/* summary.md's and index.html's list of the changed pairs (nothing without pairs). */
void fb_series_md(FILE *out, const struct fb_run *run, const struct fb_series *s);

/* report_coverage.c: DIR/coverage.json's table (flipbed coverage), if any. */
void fb_coverage_md(FILE *out, const struct fb_run *run);
void fb_coverage_html(FILE *out, const struct fb_run *run);
void fb_series_html(FILE *out, const struct fb_run *run, const struct fb_series *s);

/* `flipbed merge`: OUT from the shard runs DIRS; ARGV is recorded in run.json. */
int fb_merge(const char *out, char **dirs, int ndirs, int argc, char **argv);

/* How reports print JSON values: 0.95, not 0.94999999999999996. */
#define FB_JSON_TEXT (JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(10))

/* The JSON value at a dotted path of the record, or NULL. */
struct json_t *fb_case_get(const struct fb_case *c, const char *path);

/*
 * The signals of a case record (report_signals.c): its lines in `flipbed
 * show`, its section of the case page, and summary.md's list of the
 * conflicts, kernel by kernel (nothing when there is none).
 */
void fb_signals_show(FILE *out, const struct json_t *rec);
void fb_signals_page(FILE *out, const struct json_t *rec);
void fb_signals_summary(FILE *out, const struct fb_run *run);

#endif

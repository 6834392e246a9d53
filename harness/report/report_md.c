// SPDX-License-Identifier: MIT
/*
 * summary.md: the matrix as a Markdown table (readable as plain text too,
 * `flipbed report` prints it), the totals, and every case that needs a
 * look with its reason and the command that reproduces it.
 */
#include <jansson.h>
#include <string.h>
#include "report/report_int.h"
#include "witness/fserror.h"

static const char *info_str(const struct fb_run *run, const char *key)
{
	json_t *v = json_object_get(run->info, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *fb_run_id(const struct fb_run *run)
{
	const char *id = info_str(run, "run_id");
	const char *slash = strrchr(run->dir, '/');

	if (id)
		return id;
	return slash && slash[1] ? slash + 1 : run->dir;
}

static void print_kernels(const struct fb_run *run, FILE *out)
{
	json_t *ks = json_object_get(run->info, "kernels"), *k;
	const char *name, *sep = "";

	if (!json_object_size(ks))
		return;
	fputs("- kernels:", out);
	json_object_foreach(ks, name, k) {
		const char *v = json_string_value(json_object_get(k, "source_version"));
		const char *img = json_string_value(json_object_get(k, "image"));
		size_t n = json_array_size(json_object_get(k, "series"));

		if (img) {	/* --kernel-image: its banner's release and the file */
			const char *mods = json_string_value(json_object_get(k, "modules"));

			v = json_string_value(json_object_get(k, "release"));
			fprintf(out, "%s %s %s (%s%s%s)", sep, name, v ? v : "?", img,
				mods ? ", modules " : "", mods ? mods : "");
			sep = ";";
			continue;
		}
		fprintf(out, "%s %s %s", sep, name, v ? v : "?");
		if (n)
			fprintf(out, " + %zu patch%s", n, n == 1 ? "" : "es");
		sep = ";";
	}
	fputc('\n', out);
}

/* A run cut short says so first: its tables and totals are not a whole run's. */
static void print_interrupted(const struct fb_run *run, FILE *out)
{
	char what[160];

	if (fb_run_interrupted(run, what, sizeof(what)))
		fprintf(out, "**This run was %s.** The tables and totals below are of a "
			"partial run.\n\n", what);
}

static void print_header(const struct fb_run *run, FILE *out)
{
	static const char *const keys[] = {
		"matrix", "seed", "shard", "started", "finished", "flipbed",
	};
	const char *sep = "- ";

	fprintf(out, "# flipbed run %s\n\n", fb_run_id(run));
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		json_t *v = json_object_get(run->info, keys[i]);

		if (json_is_string(v))
			fprintf(out, "%s%s: %s", sep, keys[i], json_string_value(v));
		else if (json_is_integer(v))
			fprintf(out, "%s%s: %lld", sep, keys[i],
				(long long)json_integer_value(v));
		else
			continue;
		sep = " · ";
	}
	if (strcmp(sep, "- "))
		fputc('\n', out);
	print_kernels(run, out);
	fputc('\n', out);
	print_interrupted(run, out);
}

/* Markdown table cell text: '|' would end the cell. */
static void md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
}

static void print_cell(const struct fb_run *run, const struct fb_cell *cell,
		       const struct fb_series *s, FILE *out)
{
	char buf[96];

	if (!cell->n)
		return;
	md_cell(out, fb_case_short(&run->cases[cell->idx[0]], buf, sizeof(buf)));
	if (cell->n > 1)
		fprintf(out, " ×%zu", cell->n);
	if (cell->mark == FB_VERDICT_FAIL)
		fputs(" ✗", out);
	else if (cell->mark == FB_VERDICT_INFRA &&
		 run->cases[cell->idx[0]].verdict != FB_VERDICT_INFRA)
		fputs(" ⚠", out);
	if (fb_series_cell(s, cell))
		fputs(" Δ", out);
}

static void print_table(const struct fb_run *run, const struct fb_table *t,
			const struct fb_series *s, FILE *out)
{
	fputs("| type |", out);
	for (size_t c = 0; c < t->ncols; c++)
		fprintf(out, " %s/%s |", t->cols[c].timing, t->cols[c].kernel);
	fputs("\n|---|", out);
	for (size_t c = 0; c < t->ncols; c++)
		fputs("---|", out);
	fputc('\n', out);
	for (size_t r = 0; r < t->nrows; r++) {
		fprintf(out, "| %s |", t->rows[r]);
		for (size_t c = 0; c < t->ncols; c++) {
			fputc(' ', out);
			print_cell(run, fb_table_cell(t, r, c), s, out);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
	fputs("\nA cell shows the most severe outcome of its cases (×N: N cases);"
	      " ✗ a case failed its expectation, ⚠ a case hit an infra error.\n"
	      "ro = remount-ro, refused = mount-refused, continue = error-continue;"
	      " +lost/+changed: user data; +warn: WARNING/BUG in the kernel log.\n",
	      out);
	if (s->nchanged)
		fputs("Δ the patch series changed an outcome of the cell (Changed by the "
		      "series, above).\n", out);
}

static void print_totals(const struct fb_run *run, FILE *out)
{
	size_t t[FB_VERDICT__COUNT];

	fb_run_totals(run, t);
	fprintf(out, "\n## Totals\n\n| pass | fail | infra | skip | interrupted | total |\n"
		"|---|---|---|---|---|---|\n| %zu | %zu | %zu | %zu | %zu | %zu |\n",
		t[FB_VERDICT_PASS], t[FB_VERDICT_FAIL], t[FB_VERDICT_INFRA],
		t[FB_VERDICT_SKIP], t[FB_VERDICT_INTERRUPTED], run->n);
}

static void print_list(const struct fb_run *run, enum fb_verdict v,
		       const char *title, FILE *out)
{
	bool any = false;
	char why[1024];

	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];
		const char *repro = fb_case_str(c, "repro");

		if (c->verdict != v)
			continue;
		if (!any)
			fprintf(out, "\n## %s\n\n", title);
		any = true;
		fprintf(out, "- `%s`: %s\n", c->name,
			fb_case_reason(c, why, sizeof(why)));
		if (repro && v != FB_VERDICT_SKIP && v != FB_VERDICT_INTERRUPTED)
			fprintf(out, "  `%s`\n", repro);
	}
}

/* The cases whose fserror witness disagrees with the kernel log, if any. */
static void print_fserror(const struct fb_run *run, FILE *out)
{
	bool any = false;

	for (size_t i = 0; i < run->n; i++)
		fb_fserror_summary(out, run->cases[i].rec, run->cases[i].name, &any);
}

int fb_report_summary(const struct fb_run *run, FILE *out)
{
	struct fb_table t;
	struct fb_series s;
	int ret = fb_table_build(run, &t);

	fb_series_build(run, &s);
	if (!ret) {
		print_header(run, out);
		fb_series_md(out, run, &s);
		print_table(run, &t, &s, out);
		print_totals(run, out);
		fb_report_explained(out, run);
		print_list(run, FB_VERDICT_FAIL, "Failures", out);
		print_list(run, FB_VERDICT_INFRA, "Infra errors", out);
		print_list(run, FB_VERDICT_SKIP, "Skipped", out);
		print_list(run, FB_VERDICT_INTERRUPTED, "Interrupted", out);
		print_fserror(run, out);
		fb_signals_summary(out, run);
		fb_coverage_md(out, run);
	}
	fb_series_free(&s);
	fb_table_free(&t);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * index.html: the matrix with cells coloured by reaction class, each case a
 * link to its page; self-contained (inline CSS, no script), every text
 * escaped. The case pages are written by report_page.c, by forked workers
 * in a big run.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "html.h"
#include "report/report_int.h"
#include "util.h"

/* A case as a coloured link (PREFIX leads from the page to the run dir). */
void fb_html_case_link(FILE *out, const struct fb_case *c, const char *prefix,
		       const char *text)
{
	fprintf(out, "<a class=\"k %s%s\" href=\"%s",
		fb_class_name(fb_case_class(c)),
		c->verdict == FB_VERDICT_FAIL ? " fail" : "", prefix);
	fb_url_puts(out, c->dir);
	fputs("/index.html\" title=\"", out);
	fb_xml_puts(out, c->name);
	fprintf(out, ": %s\">", fb_verdict_name(c->verdict));
	fb_xml_puts(out, text);
	if (c->verdict == FB_VERDICT_FAIL)
		fputs(" ✗", out);
	fputs("</a>", out);
}

static void print_meta(const struct fb_run *run, FILE *out)
{
	static const char *const keys[] = {
		"matrix", "seed", "shard", "started", "finished", "flipbed",
	};

	fputs("<p>", out);
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		json_t *v = json_object_get(run->info, keys[i]);
		char *s = json_is_null(v) || !v ? NULL :
			  json_is_string(v) ? xstrdup(json_string_value(v)) :
			  json_dumps(v, FB_JSON_TEXT);

		if (!s)
			continue;
		fprintf(out, "%s: ", keys[i]);
		fb_xml_puts(out, s);
		fputs(" · ", out);
		free(s);
	}
	fputs("<a href=\"summary.md\">summary.md</a> · "
	      "<a href=\"junit.xml\">junit.xml</a> · "
	      "<a href=\"cases.jsonl\">cases.jsonl</a></p>\n", out);
}

static void print_table(const struct fb_run *run, const struct fb_table *t,
			const struct fb_series *s, FILE *out)
{
	char buf[96];

	fputs("<div class=\"wide\"><table>\n<tr><th>type</th>", out);
	for (size_t c = 0; c < t->ncols; c++) {
		fputs("<th>", out);
		fb_xml_puts(out, t->cols[c].timing);
		fputc('/', out);
		fb_xml_puts(out, t->cols[c].kernel);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("<tr><th>", out);
		fb_xml_puts(out, t->rows[r]);
		fputs("</th>", out);
		for (size_t c = 0; c < t->ncols; c++) {
			const struct fb_cell *cell = fb_table_cell(t, r, c);

			fputs(fb_series_cell(s, cell) ? "<td class=\"series\">" : "<td>", out);
			for (size_t i = 0; i < cell->n; i++) {
				const struct fb_case *k = &run->cases[cell->idx[i]];

				fb_html_case_link(out, k, "",
					fb_case_short(k, buf, sizeof(buf)));
			}
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

static void print_legend(const struct fb_series *s, FILE *out)
{
	static const char *const what[FB_CLASS__COUNT] = {
		[FB_CLASS_SAFE] = "safe: remount-ro, shutdown, mount-refused, recovered",
		[FB_CLASS_SILENT] = "silent: not noticed, data intact",
		[FB_CLASS_WEAK] = "weak: error-continue, or data lost unnoticed",
		[FB_CLASS_UNSAFE] = "unsafe: panic, oops, KASAN, hang, or data "
				    "silently changed",
		[FB_CLASS_INFRA] = "infra: no kernel outcome",
		[FB_CLASS_SKIP] = "skip: requirement not met",
		[FB_CLASS_INTERRUPTED] = "interrupted: cut short by a signal",
	};

	fputs("<p>", out);
	for (int k = FB_CLASS__COUNT - 1; k >= 0; k--)
		fprintf(out, "<span class=\"k %s\">%s</span> ", fb_class_name(k),
			what[k]);
	fputs("<br><span class=\"k fail\">✗</span> the case failed its "
	      "expectation. A cell lists all its cases, most severe first. "
	      "ro = remount-ro, refused = mount-refused, continue = "
	      "error-continue; +lost/+changed: user data; +warn: WARNING/BUG "
	      "in the kernel log.", out);
	if (s->nchanged)
		fputs(" A <span class=\"series\">blue border</span>: the patch series "
		      "changed an outcome of the cell (<a href=\"#series\">Changed by the "
		      "series</a>).", out);
	fputs("</p>\n", out);
}

static void print_totals(const struct fb_run *run, FILE *out)
{
	size_t t[FB_VERDICT__COUNT];

	fb_run_totals(run, t);
	fprintf(out, "<h2>Totals</h2>\n<table><tr><th>pass</th><th>fail</th>"
		"<th>infra</th><th>skip</th><th>interrupted</th><th>total</th></tr>\n"
		"<tr><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td>"
		"<td>%zu</td></tr>\n</table>\n", t[FB_VERDICT_PASS], t[FB_VERDICT_FAIL],
		t[FB_VERDICT_INFRA], t[FB_VERDICT_SKIP], t[FB_VERDICT_INTERRUPTED], run->n);
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
			fprintf(out, "<h2>%s</h2>\n<ul>\n", title);
		any = true;
		fputs("<li>", out);
		fb_html_case_link(out, c, "", c->name);
		fb_xml_puts(out, fb_case_reason(c, why, sizeof(why)));
		if (repro && v != FB_VERDICT_SKIP && v != FB_VERDICT_INTERRUPTED) {
			fputs("<br><code>", out);
			fb_xml_puts(out, repro);
			fputs("</code>", out);
		}
		fputs("</li>\n", out);
	}
	if (any)
		fputs("</ul>\n", out);
}

/* The lists behind the numbers of the explained verdicts go last. */
static void print_explained(const struct fb_run *run, FILE *out, char **lists, size_t *len)
{
	FILE *m = open_memstream(lists, len);

	fb_report_explained_html(out, run, m ? m : out);
	if (m)
		fclose(m);
}

static int write_index(const struct fb_run *run, const struct fb_table *t)
{
	char *path = fb_path(run->dir, NULL, "index.html");
	char title[256], what[160], *lists = NULL;
	FILE *out = path ? fb_out_open(path) : NULL;
	struct fb_series s;
	size_t len = 0;
	int ret;

	if (!out) {
		free(path);
		return -1;
	}
	fb_series_build(run, &s);
	snprintf(title, sizeof(title), "flipbed run %s", fb_run_id(run));
	fb_html_head(out, title);
	print_meta(run, out);
	if (fb_run_interrupted(run, what, sizeof(what))) {
		fputs("<p><strong>This run was ", out);
		fb_xml_puts(out, what);
		fputs(".</strong> The tables and totals below are of a partial run.</p>\n", out);
	}
	fb_series_html(out, run, &s);
	print_explained(run, out, &lists, &len);
	fputs("<h2 id=\"matrix\">Matrix</h2>\n", out);
	print_table(run, t, &s, out);
	print_legend(&s, out);
	fb_heatmaps_html(out, run, t);
	print_totals(run, out);
	print_list(run, FB_VERDICT_FAIL, "Failures", out);
	print_list(run, FB_VERDICT_INFRA, "Infra errors", out);
	print_list(run, FB_VERDICT_SKIP, "Skipped", out);
	print_list(run, FB_VERDICT_INTERRUPTED, "Interrupted", out);
	fb_coverage_html(out, run);
	if (lists)
		fwrite(lists, 1, len, out);
	fb_html_tail(out);
	free(lists);
	fb_series_free(&s);
	ret = fb_out_close(out, path);
	free(path);
	return ret;
}

/* Pages K, K + N, K + 2N, ... of RUN. */
static int pages(const struct fb_run *run, size_t k, size_t n)
{
	int ret = 0;

	for (size_t i = k; !ret && i < run->n; i += n)
		ret = fb_html_case_page(run, &run->cases[i]);
	return ret;
}

/*
 * The case pages are most of the work of a big run (each reads its
 * dmesg.txt and fsck.txt, and writes a file): with more than one
 * processor, forked workers write every Nth page each, this process the
 * first share and the share of any worker that could not be forked. A
 * worker only writes its own pages and says how it ended by its status.
 */
#define MAX_WORKERS 4
#define PAGES_PER_WORKER 250	/* below that, a fork costs more than it saves */

static int write_pages(const struct fb_run *run)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > MAX_WORKERS ? MAX_WORKERS : cpus > 1 ? (size_t)cpus : 1;
	pid_t pid[MAX_WORKERS] = { 0 };
	int ret = 0, status;

	if (n > run->n / PAGES_PER_WORKER)
		n = run->n / PAGES_PER_WORKER ? run->n / PAGES_PER_WORKER : 1;
	fflush(NULL);	/* a worker must not write this process's buffers again */
	for (size_t k = 1; k < n; k++) {
		pid[k] = fork();
		if (!pid[k])
			_exit(pages(run, k, n) ? 1 : 0);
	}
	ret = pages(run, 0, n);
	for (size_t k = 1; k < n; k++) {
		if (pid[k] < 0) {
			ret |= pages(run, k, n);
			continue;
		}
		while (waitpid(pid[k], &status, 0) < 0)
			if (errno != EINTR) {
				status = -1;
				break;
			}
		if (status)
			ret = -1;
	}
	return ret;
}

int fb_report_html(const struct fb_run *run)
{
	struct fb_table t;
	int ret = fb_table_build(run, &t);

	if (!ret)
		ret = write_index(run, &t);
	if (!ret)
		ret = write_pages(run);
	fb_table_free(&t);
	return ret;
}

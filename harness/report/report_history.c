// SPDX-License-Identifier: MIT
/*
 * `flipbed report --history DIR... --out OUT` (report.h,
 * fb_report_history): OUT/history.html, the regression view of one matrix
 * across runs, oldest first. A header table gives each run's id, start,
 * flipbed commit and kernel versions, and whether it was cut short; then
 * the cases whose outcome changed from one run to the next, then every
 * case. A cell is the case's outcome in that run (the matrix's text and
 * colour, a link to its case page), highlighted when it differs from the
 * case's previous outcome; "—" when the run has no such case.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "report/report_int.h"

struct history {
	FILE *out;
	const struct fb_run *runs;
	size_t nruns;
	char **prefix;		/* per run: from OUT to its directory, with a '/' */
	const char **names;	/* every case name of every run, sorted, unique */
	size_t nnames;
	const struct fb_case **cell;	/* nnames x nruns, row-major; NULL: no case */
	bool *changed;		/* nnames x nruns: differs from the previous outcome */
};

static const char *info_str(const struct fb_run *run, const char *key)
{
	json_t *v = json_object_get(run->info, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A directory holding a cases.jsonl, or one line on stderr. */
static int check_dir(const char *dir)
{
	struct stat st;
	char *p = fb_path(dir, NULL, "cases.jsonl");
	bool ok = p && !stat(dir, &st) && S_ISDIR(st.st_mode) && fb_is_file(p);

	free(p);
	if (!ok)
		fprintf(stderr, "flipbed: %s: not a run directory (no cases.jsonl); "
			"accepted: run directories of one matrix, oldest first\n", dir);
	return ok ? 0 : -1;
}

static int check_matrix(const struct fb_run *runs, size_t n)
{
	const char *m0 = info_str(&runs[0], "matrix");

	for (size_t i = 1; i < n; i++) {
		const char *m = info_str(&runs[i], "matrix");

		if ((!m0 && !m) || (m0 && m && !strcmp(m0, m)))
			continue;
		fprintf(stderr, "flipbed: %s: a run of matrix '%s', but %s is of matrix "
			"'%s'; accepted: runs of one matrix (run.json's \"matrix\")\n",
			runs[i].dir, m ? m : "(none)", runs[0].dir, m0 ? m0 : "(none)");
		return -1;
	}
	return 0;
}

/* The way from directory FROM to directory TO, ending in '/' ("" if the same). */
static char *rel_dir(const char *from, const char *to)
{
	char f[PATH_MAX + 1], t[PATH_MAX + 1], *s;
	size_t common = 0, ups = 0;

	if (!realpath(from, f) || !realpath(to, t))
		return NULL;
	strcat(f, "/");		/* room for it: realpath fills at most PATH_MAX */
	strcat(t, "/");
	/* the longest common prefix that ends at a '/' of both */
	for (size_t i = 0; f[i] && f[i] == t[i]; i++)
		if (f[i] == '/')
			common = i + 1;
	for (const char *p = f + common; *p; p++)
		ups += *p == '/';
	s = xmalloc(3 * ups + strlen(t + common) + 1);
	s[0] = '\0';
	for (size_t i = 0; i < ups; i++)
		strcat(s, "../");
	strcat(s, t + common);
	return s;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const struct fb_case *find(const struct fb_run *run, const char *name)
{
	size_t lo = 0, hi = run->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(run->cases[mid].name, name);

		if (!r)
			return &run->cases[mid];
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool differs(const struct fb_case *a, const struct fb_case *b)
{
	char oa[96], ob[96];

	return a->verdict != b->verdict ||
	       strcmp(fb_case_outcome4(a, oa, sizeof(oa)), fb_case_outcome4(b, ob, sizeof(ob)));
}

static void build(struct history *h)
{
	size_t all = 0, n = 0;

	for (size_t r = 0; r < h->nruns; r++)
		all += h->runs[r].n;
	h->names = xcalloc(all + 1, sizeof(*h->names));
	for (size_t r = 0; r < h->nruns; r++)
		for (size_t i = 0; i < h->runs[r].n; i++)
			h->names[n++] = h->runs[r].cases[i].name;
	qsort(h->names, n, sizeof(*h->names), name_cmp);
	for (size_t i = 0; i < n; i++)
		if (!h->nnames || strcmp(h->names[h->nnames - 1], h->names[i]))
			h->names[h->nnames++] = h->names[i];
	h->cell = xcalloc(h->nnames * h->nruns + 1, sizeof(*h->cell));
	h->changed = xcalloc(h->nnames * h->nruns + 1, sizeof(*h->changed));
	for (size_t i = 0; i < h->nnames; i++) {
		const struct fb_case *prev = NULL;

		for (size_t r = 0; r < h->nruns; r++) {
			const struct fb_case *c = find(&h->runs[r], h->names[i]);

			h->cell[i * h->nruns + r] = c;
			if (!c)
				continue;
			h->changed[i * h->nruns + r] = prev && differs(prev, c);
			prev = c;
		}
	}
}

static bool row_changed(const struct history *h, size_t i)
{
	for (size_t r = 0; r < h->nruns; r++)
		if (h->changed[i * h->nruns + r])
			return true;
	return false;
}

/* Without run.json's kernels: each kernel's kernel_version as its records give it. */
static void kernels_of_records(FILE *out, const struct fb_run *run)
{
	const char *sep = "";

	for (size_t i = 0; i < run->n; i++) {
		const char *v = fb_case_str(&run->cases[i], "kernel_version");
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(run->cases[j].kernel, run->cases[i].kernel);
		if (seen)
			continue;
		fputs(sep, out);
		fb_xml_puts(out, run->cases[i].kernel);
		fputc(' ', out);
		fb_xml_puts(out, v ? v : "?");
		sep = "<br>";
	}
	if (!*sep)
		fputs("not recorded", out);
}

static void kernels(FILE *out, const struct fb_run *run)
{
	json_t *ks = json_object_get(run->info, "kernels"), *k;
	const char *name, *sep = "";

	if (!json_object_size(ks)) {
		kernels_of_records(out, run);
		return;
	}
	json_object_foreach(ks, name, k) {
		const char *v = json_string_value(json_object_get(k, "source_version"));
		size_t np = json_array_size(json_object_get(k, "series"));

		fputs(sep, out);
		fb_xml_puts(out, name);
		fputc(' ', out);
		fb_xml_puts(out, v ? v : "?");
		if (np)
			fprintf(out, " + %zu patch%s", np, np == 1 ? "" : "es");
		sep = "<br>";
	}
}

static void run_state(FILE *out, const struct fb_run *run)
{
	char what[160];
	bool cut = fb_run_interrupted(run, what, sizeof(what));

	if (run->truncated)
		fprintf(out, "<strong class=\"cut\">cut short: its last record (line %u of "
			"cases.jsonl) is truncated and left out</strong>", run->truncated);
	if (cut) {
		fputs(run->truncated ? "<br><strong class=\"cut\">" :
				       "<strong class=\"cut\">", out);
		fb_xml_puts(out, what);
		fputs("</strong>", out);
	}
	if (!cut && !run->truncated)
		fputs("complete", out);
}

/* The run's id, a link to its index.html when it has one. */
static void run_link(const struct history *h, size_t r)
{
	char *index = fb_path(h->runs[r].dir, NULL, "index.html");
	bool link = fb_is_file(index);

	if (link) {
		fputs("<a href=\"", h->out);
		fb_url_puts(h->out, h->prefix[r]);
		fputs("index.html\">", h->out);
	}
	fb_xml_puts(h->out, fb_run_id(&h->runs[r]));
	if (link)
		fputs("</a>", h->out);
	fprintf(h->out, "<br><code>");
	fb_xml_puts(h->out, h->runs[r].dir);
	fputs("</code>", h->out);
	free(index);
}

static void runs_table(const struct history *h)
{
	static const char *const rows[] = {
		"run", "started", "flipbed", "kernels", "cases", "state",
	};

	fputs("<h2 id=\"runs\">Runs, oldest first</h2>\n<div class=\"wide\"><table>\n", h->out);
	for (size_t k = 0; k < sizeof(rows) / sizeof(*rows); k++) {
		fprintf(h->out, "<tr><th>%s</th>", rows[k]);
		for (size_t r = 0; r < h->nruns; r++) {
			const struct fb_run *run = &h->runs[r];
			const char *s = info_str(run, rows[k]);

			fputs("<td>", h->out);
			switch (k) {
			case 0:
				run_link(h, r);
				break;
			case 3:
				kernels(h->out, run);
				break;
			case 4:
				fprintf(h->out, "%zu", run->n);
				break;
			case 5:
				run_state(h->out, run);
				break;
			default:	/* run.json's "started", "flipbed" */
				fb_xml_puts(h->out, s ? s : "not recorded");
			}
			fputs("</td>", h->out);
		}
		fputs("</tr>\n", h->out);
	}
	fputs("</table>\n", h->out);
}

static void case_cell(const struct history *h, size_t i, size_t r)
{
	const struct fb_case *c = h->cell[i * h->nruns + r];
	char buf[96], *page;

	if (!c) {
		fputs("<td>—</td>", h->out);
		return;
	}
	fputs(h->changed[i * h->nruns + r] ? "<td class=\"chg\">" : "<td>", h->out);
	fb_case_short(c, buf, sizeof(buf));
	page = fb_path(h->runs[r].dir, c->dir, "index.html");
	if (fb_is_file(page)) {
		fb_html_case_link(h->out, c, h->prefix[r], buf);
	} else {	/* the run's reports were never written */
		fprintf(h->out, "<span class=\"k %s\">", fb_class_name(fb_case_class(c)));
		fb_xml_puts(h->out, buf);
		fputs("</span>", h->out);
	}
	free(page);
	fputs("</td>", h->out);
}

static void cases_table(const struct history *h, bool only_changed)
{
	fputs("<div class=\"wide\"><table>\n<tr><th>case</th>", h->out);
	for (size_t r = 0; r < h->nruns; r++) {
		fputs("<th>", h->out);
		fb_xml_puts(h->out, fb_run_id(&h->runs[r]));
		fputs("</th>", h->out);
	}
	fputs("</tr>\n", h->out);
	for (size_t i = 0; i < h->nnames; i++) {
		if (only_changed && !row_changed(h, i))
			continue;
		fputs("<tr><th>", h->out);
		fb_xml_puts(h->out, h->names[i]);
		fputs("</th>", h->out);
		for (size_t r = 0; r < h->nruns; r++)
			case_cell(h, i, r);
		fputs("</tr>\n", h->out);
	}
	fputs("</table></div>\n", h->out);
}

static size_t nchanged(const struct history *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nnames; i++)
		n += row_changed(h, i);
	return n;
}

static void page(const struct history *h, size_t changed)
{
	const char *m = info_str(&h->runs[0], "matrix");
	char title[200];

	snprintf(title, sizeof(title), "flipbed history of matrix %s", m ? m : "(none)");
	fb_html_head(h->out, title);
	runs_table(h);
	fprintf(h->out, "<h2 id=\"changed\">Changed (%zu of %zu cases)</h2>\n<p>The cases "
		"whose outcome (detect/reaction/fsck/data) or verdict differs from their "
		"previous run's; a <span class=\"chg\">blue outline</span> marks the run "
		"where it changed. — : not in that run.</p>\n", changed, h->nnames);
	if (changed)
		cases_table(h, true);
	fputs("<h2 id=\"all\">Every case</h2>\n", h->out);
	cases_table(h, false);
	fb_html_tail(h->out);
}

static int write_page(struct history *h, const char *outdir)
{
	char *path = fb_path(outdir, NULL, "history.html");
	size_t changed;
	int ret = -1;

	h->out = path && !fb_mkdirs(outdir) ? fb_out_open(path) : NULL;
	if (!h->out) {
		free(path);
		return -1;
	}
	h->prefix = xcalloc(h->nruns + 1, sizeof(*h->prefix));
	for (size_t r = 0; r < h->nruns; r++) {
		h->prefix[r] = rel_dir(outdir, h->runs[r].dir);
		if (!h->prefix[r])	/* links relative to the page's own directory */
			h->prefix[r] = xstrdup("");
	}
	build(h);
	changed = nchanged(h);
	page(h, changed);
	ret = fb_out_close(h->out, path);
	if (!ret)
		printf("%s: %zu runs, %zu cases, %zu changed\n", path, h->nruns, h->nnames,
		       changed);
	for (size_t r = 0; r < h->nruns; r++)
		free(h->prefix[r]);
	free(h->prefix);
	free(h->names);
	free(h->cell);
	free(h->changed);
	free(path);
	return ret;
}

int fb_report_history(char **dirs, size_t n, const char *out)
{
	struct fb_run *runs = xcalloc(n + 1, sizeof(*runs));
	struct history h = { .runs = runs, .nruns = n };
	size_t loaded = 0;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++)
		ret = check_dir(dirs[i]);
	for (; loaded < n && !ret; loaded++)
		ret = fb_run_load_partial(dirs[loaded], &runs[loaded]);
	if (!ret)
		ret = check_matrix(runs, n);
	if (!ret)
		ret = write_page(&h, out);
	for (size_t i = 0; i < loaded; i++)
		fb_run_free(&runs[i]);
	free(runs);
	return ret;
}

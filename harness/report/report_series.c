// SPDX-License-Identifier: MIT
/*
 * The patch series' effect inside one run (report_int.h, fb_series_*):
 * every case on a kernel without the series against the same case on the
 * kernel with it, and the pairs whose outcome differs, for summary.md's
 * and index.html's "changed by the series" list and the cells they mark.
 *
 * kernel/kernels.ini names the pairs: "patched" is "stock" with
 * kernel/patches, and each port keeps the names with a suffix
 * ("stock-6.12", "patched-6.12" with kernel/patches-6.12). The debug and
 * race variants (kasan, patched-smp) change the config as well as the
 * series, so they are no one's pair.
 */
#include <stdlib.h>
#include <string.h>
#include "report/report_int.h"

#define BASE "stock"
#define SERIES "patched"

struct member {
	char *rest;		/* scenario and parameters but the kernel */
	size_t i;		/* index into run->cases */
};

static int member_cmp(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	int r = strcmp(a->rest, b->rest);

	return r ? r : (a->i > b->i) - (a->i < b->i);
}

/* Whether kernel S is kernel B with the series: B = "stock"X, S = "patched"X. */
static bool series_of(const char *b, const char *s)
{
	return !strncmp(b, BASE, strlen(BASE)) && !strncmp(s, SERIES, strlen(SERIES)) &&
	       !strcmp(b + strlen(BASE), s + strlen(SERIES));
}

static struct fb_series_kernels *kernels_of(struct fb_series *s, const char *base,
					    const char *series)
{
	for (size_t i = 0; i < s->nkernels; i++)
		if (!strcmp(s->kernels[i].base, base))
			return &s->kernels[i];
	s->kernels = xrealloc(s->kernels, (s->nkernels + 1) * sizeof(*s->kernels));
	s->kernels[s->nkernels] = (struct fb_series_kernels){ base, series, 0, 0 };
	return &s->kernels[s->nkernels++];
}

/* The pairs of one rest group [lo, hi). */
static void pair_group(const struct fb_run *run, const struct member *m, size_t lo,
		       size_t hi, struct fb_series *s)
{
	for (size_t a = lo; a < hi; a++)
		for (size_t b = lo; b < hi; b++) {
			const struct fb_case *ca = &run->cases[m[a].i], *cb = &run->cases[m[b].i];

			if (!series_of(ca->kernel, cb->kernel) ||
			    !fb_case_comparable(ca) || !fb_case_comparable(cb))
				continue;
			struct fb_series_kernels *k = kernels_of(s, ca->kernel, cb->kernel);

			s->compared++;
			k->compared++;
			if (!fb_case_changed(ca, cb))
				continue;
			k->changed++;
			s->changed = xrealloc(s->changed, (s->nchanged + 1) * sizeof(*s->changed));
			s->changed[s->nchanged].base = m[a].i;
			s->changed[s->nchanged++].series = m[b].i;
			s->marked[m[a].i] = s->marked[m[b].i] = true;
		}
}

static const struct fb_run *sort_run;

static int pair_cmp(const void *pa, const void *pb)
{
	const struct fb_series_pair *a = pa, *b = pb;
	int r = fb_kernel_cmp(sort_run->cases[a->base].kernel, sort_run->cases[b->base].kernel);

	if (r)
		return r;
	if (a->base != b->base)
		return a->base < b->base ? -1 : 1;
	return (a->series > b->series) - (a->series < b->series);
}

static int kernels_cmp(const void *pa, const void *pb)
{
	return fb_kernel_cmp(((const struct fb_series_kernels *)pa)->base,
			     ((const struct fb_series_kernels *)pb)->base);
}

void fb_series_build(const struct fb_run *run, struct fb_series *s)
{
	struct member *m = xcalloc(run->n + 1, sizeof(*m));
	size_t n = 0, lo = 0;

	memset(s, 0, sizeof(*s));
	s->marked = xcalloc(run->n + 1, sizeof(*s->marked));
	for (size_t i = 0; i < run->n; i++) {
		const char *k = run->cases[i].kernel;

		if (strncmp(k, BASE, strlen(BASE)) && strncmp(k, SERIES, strlen(SERIES)))
			continue;
		m[n].rest = fb_case_rest_key(&run->cases[i], "kernel");
		m[n].i = i;
		n += m[n].rest != NULL;
	}
	qsort(m, n, sizeof(*m), member_cmp);
	for (size_t i = 1; i <= n; i++)
		if (i == n || strcmp(m[i].rest, m[lo].rest)) {
			pair_group(run, m, lo, i, s);
			lo = i;
		}
	sort_run = run;
	if (s->nchanged)
		qsort(s->changed, s->nchanged, sizeof(*s->changed), pair_cmp);
	if (s->nkernels)
		qsort(s->kernels, s->nkernels, sizeof(*s->kernels), kernels_cmp);
	for (size_t i = 0; i < n; i++)
		free(m[i].rest);
	free(m);
}

void fb_series_free(struct fb_series *s)
{
	free(s->changed);
	free(s->kernels);
	free(s->marked);
	memset(s, 0, sizeof(*s));
}

bool fb_series_cell(const struct fb_series *s, const struct fb_cell *cell)
{
	for (size_t i = 0; i < cell->n; i++)
		if (s->marked[cell->idx[i]])
			return true;
	return false;
}

static void intro(FILE *out, const struct fb_series *s)
{
	fprintf(out, "%zu of %zu case pairs differ between a kernel and the same "
		"kernel with the patch series (stock and patched, stock-6.12 and "
		"patched-6.12; detect/reaction/fsck/data)", s->nchanged, s->compared);
}

/* A relative link for Markdown: percent-encoded, so no byte ends it. */
static void md_url(FILE *out, const char *dir)
{
	for (const unsigned char *p = (const unsigned char *)dir; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/@:", *p))
			fputc(*p, out);
		else
			fprintf(out, "%%%02X", *p);
	}
}

static void md_case(FILE *out, const struct fb_case *c)
{
	fprintf(out, "[`%s`](", c->name);
	md_url(out, c->dir);
	fputs("/index.html)", out);
}

void fb_series_md(FILE *out, const struct fb_run *run, const struct fb_series *s)
{
	char oa[96], ob[96];

	if (!s->compared)
		return;
	fputs("## Changed by the series\n\n", out);
	intro(out, s);
	fputs(s->nchanged ? "; their cells are marked Δ:\n\n" : ".\n\n", out);
	for (size_t i = 0; i < s->nchanged; i++) {
		const struct fb_case *a = &run->cases[s->changed[i].base];
		const struct fb_case *b = &run->cases[s->changed[i].series];

		fputs("- ", out);
		md_case(out, a);
		fputs(" → ", out);
		md_case(out, b);
		fprintf(out, ": %s → %s\n", fb_case_outcome4(a, oa, sizeof(oa)),
			fb_case_outcome4(b, ob, sizeof(ob)));
	}
	if (s->nchanged)
		fputc('\n', out);
}

/* The changed pairs of K, open when short enough to read at a glance. */
static void kernels_html(FILE *out, const struct fb_run *run, const struct fb_series *s,
			 const struct fb_series_kernels *k)
{
	char oa[96], ob[96];

	fprintf(out, "<details%s><summary>", k->changed <= 20 ? " open" : "");
	fb_xml_puts(out, k->base);
	fputs(" → ", out);
	fb_xml_puts(out, k->series);
	fprintf(out, ": %zu of %zu pairs changed</summary>\n", k->changed, k->compared);
	if (!k->changed) {
		fputs("</details>\n", out);
		return;
	}
	fputs("<ul>\n", out);
	for (size_t i = 0; i < s->nchanged; i++) {
		const struct fb_case *a = &run->cases[s->changed[i].base];
		const struct fb_case *b = &run->cases[s->changed[i].series];

		if (strcmp(a->kernel, k->base))
			continue;
		fputs("<li>", out);
		fb_html_case_link(out, a, "", a->name);
		fputs(" → ", out);
		fb_html_case_link(out, b, "", b->kernel);
		fprintf(out, ": %s → %s</li>\n", fb_case_outcome4(a, oa, sizeof(oa)),
			fb_case_outcome4(b, ob, sizeof(ob)));
	}
	fputs("</ul>\n</details>\n", out);
}

void fb_series_html(FILE *out, const struct fb_run *run, const struct fb_series *s)
{
	if (!s->compared)
		return;
	fputs("<h2 id=\"series\">Changed by the series</h2>\n<p>", out);
	intro(out, s);
	fputs(s->nchanged ? "; their cells have a <span class=\"series\">blue "
	      "border</span>.</p>\n" : ".</p>\n", out);
	for (size_t i = 0; i < s->nkernels; i++)
		kernels_html(out, run, s, &s->kernels[i]);
}

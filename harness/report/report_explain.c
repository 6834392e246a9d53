// SPDX-License-Identifier: MIT
/*
 * The explained verdicts of a run (report_int.h, fb_report_explained), in
 * Markdown for summary.md and campaign.md and in HTML for index.html:
 *  - the headline per kernel and object type: checksum-covered faults the
 *    guest read (the target breaks a checksum the kernel verifies, and the
 *    plugin saw the changed bytes read), and how many of those were
 *    detected, in the workload or at the next mount;
 *  - undetected cases by cause (outcome.undetected), per type and timing;
 *  - write faults: detected by the workload, or only at the next mount.
 * Each number is a set of cases: the HTML links it to the list of them.
 * Records without the fields (runs older than them) are left out; with
 * none at all the section is not written.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

struct set {
	size_t *idx;		/* indexes into run->cases, in name order */
	size_t n;
};

enum { HEAD_READ, HEAD_DETECTED, HEAD_UNEXPLAINED, HEAD__COUNT };
enum { WRITE_FIRST, WRITE_NEXT, WRITE_NONE, WRITE__COUNT };

struct row {
	const char *a, *b;	/* kernel and type (headline), or type or timing */
	struct set head[HEAD__COUNT];
	struct set cause[FB_UNDET__COUNT];
};

struct table {
	struct row *rows;	/* in the order their first case comes */
	size_t n;
};

struct explained {
	size_t any;		/* cases with the fields */
	struct table head, types, timings;
	struct table kernels;	/* the headline summed over types (HTML) */
	struct set write[WRITE__COUNT];	/* write faults that ran the next-mount pass */
};

static void set_add(struct set *s, size_t i)
{
	s->idx = xrealloc(s->idx, (s->n + 1) * sizeof(*s->idx));
	s->idx[s->n++] = i;
}

static struct row *row_of(struct table *t, const char *a, const char *b)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].a, a) && (!b || !strcmp(t->rows[i].b, b)))
			return &t->rows[i];
	t->rows = xrealloc(t->rows, (t->n + 1) * sizeof(*t->rows));
	memset(&t->rows[t->n], 0, sizeof(*t->rows));
	t->rows[t->n].a = a;
	t->rows[t->n].b = b;
	return &t->rows[t->n++];
}

static bool detected(const struct fb_case *c)
{
	const char *next = fb_case_str(c, "outcome.detect_next");

	return c->detect != FB_DETECT_NONE || (next && strcmp(next, "none"));
}

static void add_case(struct explained *x, const struct fb_case *c, size_t i)
{
	json_t *read = fb_case_get(c, "outcome.fault_read");
	const char *why = fb_case_str(c, "outcome.undetected");
	int u = why ? fb_undetected_parse(why) : -1;
	struct row *r[2] = { row_of(&x->head, c->kernel, c->type),
			     row_of(&x->kernels, c->kernel, "all types") };

	x->any++;
	for (int k = 0; k < 2 && json_is_true(read) && fb_case_str(c, "target.csum_error"); k++) {
		set_add(&r[k]->head[HEAD_READ], i);
		if (detected(c))
			set_add(&r[k]->head[HEAD_DETECTED], i);
		if (u == FB_UNDET_UNEXPLAINED)
			set_add(&r[k]->head[HEAD_UNEXPLAINED], i);
	}
	if (u > 0) {
		set_add(&row_of(&x->types, c->type, NULL)->cause[u], i);
		set_add(&row_of(&x->timings, c->timing, NULL)->cause[u], i);
	}
	if (!strcmp(c->timing, "write") && fb_case_str(c, "outcome.detect_next"))
		set_add(&x->write[c->detect != FB_DETECT_NONE ? WRITE_FIRST :
				  detected(c) ? WRITE_NEXT : WRITE_NONE], i);
}

/* The headline kernel by kernel (kernels.ini's order), then type by type. */
static int head_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int r = fb_kernel_cmp(a->a, b->a);

	return r ? r : strcmp(a->b, b->b);
}

static void build(const struct fb_run *run, struct explained *x)
{
	memset(x, 0, sizeof(*x));
	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];

		if (c->has_outcome && fb_case_class(c) != FB_CLASS_INFRA &&
		    json_is_boolean(fb_case_get(c, "outcome.fault_read")))
			add_case(x, c, i);
	}
	if (x->head.n)
		qsort(x->head.rows, x->head.n, sizeof(*x->head.rows), head_cmp);
	if (x->kernels.n)
		qsort(x->kernels.rows, x->kernels.n, sizeof(*x->kernels.rows), head_cmp);
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (int h = 0; h < HEAD__COUNT; h++)
			free(t->rows[i].head[h].idx);
		for (int u = 0; u < FB_UNDET__COUNT; u++)
			free(t->rows[i].cause[u].idx);
	}
	free(t->rows);
}

static void release(struct explained *x)
{
	table_free(&x->head);
	table_free(&x->kernels);
	table_free(&x->types);
	table_free(&x->timings);
	for (int w = 0; w < WRITE__COUNT; w++)
		free(x->write[w].idx);
}

static size_t causes(const struct row *r)
{
	size_t any = 0;

	for (int u = 1; u < FB_UNDET__COUNT; u++)
		any += r->cause[u].n;
	return any;
}

static const char head_intro[] =
	"Cases whose fault breaks a checksum the kernel verifies (not resealed, covered "
	"bytes) and whose changed bytes the guest read (the plugin's witness); *detected*: "
	"in the workload or at the next mount; *unexplained*: read, covered, and nothing "
	"detected, each a finding.";
static const char cause_intro[] =
	"Cases with a fault that neither the workload nor the next mount detected, by "
	"why (harness/RESULTS.md, `undetected`).";

static void cause_table_md(FILE *f, const char *by, const struct table *t)
{
	fprintf(f, "\n| %s |", by);
	for (int u = 1; u < FB_UNDET__COUNT; u++)
		fprintf(f, " %s |", fb_undetected_name(u));
	fputs("\n|---|", f);
	for (int u = 1; u < FB_UNDET__COUNT; u++)
		fputs("---|", f);
	fputc('\n', f);
	for (size_t i = 0; i < t->n; i++) {
		if (!causes(&t->rows[i]))
			continue;
		fprintf(f, "| %s |", t->rows[i].a);
		for (int u = 1; u < FB_UNDET__COUNT; u++)
			fprintf(f, " %zu |", t->rows[i].cause[u].n);
		fputc('\n', f);
	}
}

void fb_report_explained(FILE *f, const struct fb_run *run)
{
	struct explained x;
	size_t w;

	build(run, &x);
	if (!x.any) {
		release(&x);
		return;
	}
	fprintf(f, "\n## Checksum-covered faults the kernel read\n\n%s\n\n"
		"| kernel | type | covered flips read | detected | unexplained |\n"
		"|---|---|---|---|---|\n", head_intro);
	for (size_t i = 0; i < x.head.n; i++) {
		const struct row *r = &x.head.rows[i];

		if (r->head[HEAD_READ].n)
			fprintf(f, "| %s | %s | %zu | %zu | %zu |\n", r->a, r->b,
				r->head[HEAD_READ].n, r->head[HEAD_DETECTED].n,
				r->head[HEAD_UNEXPLAINED].n);
	}
	fprintf(f, "\n## Undetected, by cause\n\n%s\n", cause_intro);
	cause_table_md(f, "type", &x.types);
	cause_table_md(f, "timing", &x.timings);
	w = x.write[WRITE_FIRST].n + x.write[WRITE_NEXT].n + x.write[WRITE_NONE].n;
	if (w)
		fprintf(f, "\n## Write faults at the next mount\n\n%zu write-fault cases ran "
			"the next-mount pass: %zu detected by the workload, %zu only at the "
			"next mount, %zu not at all.\n", w, x.write[WRITE_FIRST].n,
			x.write[WRITE_NEXT].n, x.write[WRITE_NONE].n);
	release(&x);
}

/* The intros' Markdown in HTML: *x* in <em>, `x` in <code>. */
static void intro_html(FILE *out, const char *md)
{
	bool em = false, code = false;

	fputs("<p>", out);
	for (const char *p = md; *p; p++) {
		if (*p == '*') {
			fputs(em ? "</em>" : "<em>", out);
			em = !em;
		} else if (*p == '`') {
			fputs(code ? "</code>" : "<code>", out);
			code = !code;
		} else {
			fb_xml_write(out, p, 1);
		}
	}
	fputs(" Each number links to its cases.</p>\n", out);
}

/* The HTML: each number links to its list of cases, "#x-ID" further down. */
struct html {
	FILE *out;
	const struct fb_run *run;
	char **what;		/* per list: what its cases are */
	const struct set **sets;
	size_t n;
};

static void number(struct html *h, const struct set *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void number(struct html *h, const struct set *s, const char *fmt, ...)
{
	va_list ap;
	char *what;

	if (!s->n) {
		fputs("0", h->out);
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	h->what = xrealloc(h->what, (h->n + 1) * sizeof(*h->what));
	h->sets = xrealloc(h->sets, (h->n + 1) * sizeof(*h->sets));
	h->what[h->n] = what;
	h->sets[h->n] = s;
	fprintf(h->out, "<a href=\"#x-%zu\">%zu</a>", h->n++, s->n);
}

static void cause_table_html(struct html *h, const char *by, const struct table *t)
{
	fprintf(h->out, "<div class=\"wide\"><table class=\"num\">\n<tr><th>%s</th>", by);
	for (int u = 1; u < FB_UNDET__COUNT; u++)
		fprintf(h->out, "<th>%s</th>", fb_undetected_name(u));
	fputs("</tr>\n", h->out);
	for (size_t i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		if (!causes(r))
			continue;
		fputs("<tr><th>", h->out);
		fb_xml_puts(h->out, r->a);
		fputs("</th>", h->out);
		for (int u = 1; u < FB_UNDET__COUNT; u++) {
			fputs("<td>", h->out);
			number(h, &r->cause[u], "%s %s, undetected: %s", by, r->a,
			       fb_undetected_name(u));
			fputs("</td>", h->out);
		}
		fputs("</tr>\n", h->out);
	}
	fputs("</table></div>\n", h->out);
}

static void head_table_html(struct html *h, const struct table *t)
{
	static const char *const what[HEAD__COUNT] = {
		"covered flips read", "detected", "unexplained",
	};

	fputs("<table class=\"num\">\n<tr><th>kernel</th><th>type</th><th>covered flips "
	      "read</th><th>detected</th><th>unexplained</th></tr>\n", h->out);
	for (size_t i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		if (!r->head[HEAD_READ].n)
			continue;
		fputs("<tr><th>", h->out);
		fb_xml_puts(h->out, r->a);
		fputs("</th><th>", h->out);
		fb_xml_puts(h->out, r->b);
		fputs("</th>", h->out);
		for (int k = 0; k < HEAD__COUNT; k++) {
			fputs("<td>", h->out);
			number(h, &r->head[k], "%s %s: %s", r->a, r->b, what[k]);
			fputs("</td>", h->out);
		}
		fputs("</tr>\n", h->out);
	}
	fputs("</table>\n", h->out);
}

static void lists_html(struct html *h)
{
	if (!h->n)
		return;
	fputs("<h2 id=\"behind\">The cases behind the numbers</h2>\n", h->out);
	for (size_t i = 0; i < h->n; i++) {
		fprintf(h->out, "<h3 id=\"x-%zu\">", i);
		fb_xml_puts(h->out, h->what[i] ? h->what[i] : "?");
		fprintf(h->out, " (%zu)</h3>\n<p class=\"cases\">", h->sets[i]->n);
		for (size_t j = 0; j < h->sets[i]->n; j++) {
			const struct fb_case *c = &h->run->cases[h->sets[i]->idx[j]];

			fb_html_case_link(h->out, c, "", c->name);
			fputs(" ", h->out);
		}
		fputs("</p>\n", h->out);
		free(h->what[i]);
	}
}

void fb_report_explained_html(FILE *out, const struct fb_run *run, FILE *lists)
{
	struct html h = { .out = out, .run = run };
	struct explained x;
	size_t w;

	build(run, &x);
	if (x.any) {
		fputs("<h2 id=\"headline\">Checksum-covered faults the kernel read</h2>\n", out);
		intro_html(out, head_intro);
		head_table_html(&h, &x.kernels);
		fputs("<p>By object type:</p>\n", out);
		head_table_html(&h, &x.head);
		fputs("<h2 id=\"causes\">Undetected, by cause</h2>\n", out);
		intro_html(out, cause_intro);
		cause_table_html(&h, "type", &x.types);
		cause_table_html(&h, "timing", &x.timings);
		w = x.write[WRITE_FIRST].n + x.write[WRITE_NEXT].n + x.write[WRITE_NONE].n;
		if (w) {
			fprintf(out, "<h2>Write faults at the next mount</h2>\n<p>%zu "
				"write-fault cases ran the next-mount pass: ", w);
			number(&h, &x.write[WRITE_FIRST], "write faults detected by the workload");
			fputs(" detected by the workload, ", out);
			number(&h, &x.write[WRITE_NEXT],
			       "write faults detected only at the next mount");
			fputs(" only at the next mount, ", out);
			number(&h, &x.write[WRITE_NONE], "write faults not detected");
			fputs(" not at all.</p>\n", out);
		}
		h.out = lists;
		lists_html(&h);
	}
	free(h.what);
	free(h.sets);
	release(&x);
}

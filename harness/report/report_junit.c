// SPDX-License-Identifier: MIT
/*
 * junit.xml for CI systems: one testsuite per scenario folder, one testcase
 * per case; a failure carries the mismatches and the repro command, infra is
 * an error, skip and interrupted are skipped (with what cut it short), and
 * the name of an interrupted run says so, with how much of it ran. Failed and infra cases carry the kernel
 * messages that matter as system-out, so the CI page alone says what broke.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_int.h"

struct counts {
	size_t tests, fail, infra, skip;
	double time;
};

static double case_time(const struct fb_case *c)
{
	return json_number_value(fb_case_get(c, "durations.total"));
}

static void count(const struct fb_run *run, const char *suite, struct counts *k)
{
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];

		if (suite && strcmp(c->suite, suite))
			continue;
		k->tests++;
		k->fail += c->verdict == FB_VERDICT_FAIL;
		k->infra += c->verdict == FB_VERDICT_INFRA;
		k->skip += c->verdict == FB_VERDICT_SKIP || c->verdict == FB_VERDICT_INTERRUPTED;
		k->time += case_time(c);
	}
}

static void print_counts(FILE *out, const struct counts *k)
{
	fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		"skipped=\"%zu\" time=\"%.3f\">\n", k->tests, k->fail, k->infra,
		k->skip, k->time);
}

static void print_dmesg(const struct fb_run *run, const struct fb_case *c,
			FILE *out)
{
	char *path = fb_path(run->dir, c->dir, "dmesg.txt");
	char *text = path ? fb_slurp(path, NULL) : NULL;
	unsigned kept, total;
	char *ex = text ? fb_dmesg_excerpt(text, &kept, &total) : NULL;

	if (ex && kept) {
		fputs("      <system-out>", out);
		fb_xml_puts(out, ex);
		fputs("</system-out>\n", out);
	}
	free(ex);
	free(text);
	free(path);
}

static void print_result(const struct fb_run *run, const struct fb_case *c,
			 FILE *out)
{
	static const char *const tag[FB_VERDICT__COUNT] = {
		[FB_VERDICT_FAIL] = "failure", [FB_VERDICT_INFRA] = "error",
	};
	const char *repro = fb_case_str(c, "repro");
	char why[1024];

	fb_case_reason(c, why, sizeof(why));
	if (c->verdict == FB_VERDICT_SKIP || c->verdict == FB_VERDICT_INTERRUPTED) {
		fputs("      <skipped message=\"", out);
		fb_xml_puts(out, why);
		fputs("\"/>\n", out);
		return;
	}
	fprintf(out, "      <%s type=\"%s\" message=\"", tag[c->verdict],
		fb_verdict_name(c->verdict));
	fb_xml_puts(out, why);
	fputs("\">", out);
	fb_xml_puts(out, why);
	if (repro) {
		fputs("\nrepro: ", out);
		fb_xml_puts(out, repro);
	}
	fprintf(out, "</%s>\n", tag[c->verdict]);
	print_dmesg(run, c, out);
}

static void print_case(const struct fb_run *run, const struct fb_case *c,
		       FILE *out)
{
	fputs("    <testcase classname=\"", out);
	fb_xml_puts(out, c->suite);
	fputs("\" name=\"", out);
	fb_xml_puts(out, c->name);
	fprintf(out, "\" time=\"%.3f\"", case_time(c));
	if (c->verdict == FB_VERDICT_PASS) {
		fputs("/>\n", out);
		return;
	}
	fputs(">\n", out);
	print_result(run, c, out);
	fputs("    </testcase>\n", out);
}

static int suite_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int fb_report_junit(const struct fb_run *run, FILE *out)
{
	const char **suites = xcalloc(run->n + 1, sizeof(*suites));
	char what[160];
	size_t ns = 0;
	struct counts k;

	for (size_t i = 0; i < run->n; i++)
		suites[ns++] = run->cases[i].suite;
	qsort(suites, ns, sizeof(*suites), suite_cmp);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"flipbed ", out);
	fb_xml_puts(out, fb_run_id(run));
	if (fb_run_interrupted(run, what, sizeof(what))) {
		fputs(" (", out);
		fb_xml_puts(out, what);
		fputc(')', out);
	}
	fputc('"', out);
	count(run, NULL, &k);
	print_counts(out, &k);
	for (size_t s = 0; s < ns; s++) {
		if (s && !strcmp(suites[s], suites[s - 1]))
			continue;
		fputs("  <testsuite name=\"", out);
		fb_xml_puts(out, suites[s]);
		fputc('"', out);
		count(run, suites[s], &k);
		print_counts(out, &k);
		for (size_t i = 0; i < run->n; i++)
			if (!strcmp(run->cases[i].suite, suites[s]))
				print_case(run, &run->cases[i], out);
		fputs("  </testsuite>\n", out);
	}
	fputs("</testsuites>\n", out);
	free(suites);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * cases/<dir>/index.html: one case, in the order a reader needs it: what the
 * kernel said, outcome against expectation, then what was done (parameters,
 * target, rules, faults, steps), fsck, the files and the repro command.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_int.h"
#include "util.h"
#include "witness/bioread.h"
#include "witness/fserror.h"

struct page {
	FILE *out;
	const struct fb_run *run;
	const struct fb_case *c;
};

static void text_of(FILE *out, json_t *v)
{
	char *s;

	if (json_is_string(v)) {
		fb_xml_puts(out, json_string_value(v));
		return;
	}
	s = json_dumps(v, FB_JSON_TEXT);
	fb_xml_puts(out, s ? s : "?");
	free(s);
}

/* An object as a two-column table. */
static void kv_table(FILE *out, json_t *obj)
{
	const char *k;
	json_t *v;

	if (!json_object_size(obj)) {
		fputs("<p>none recorded</p>\n", out);
		return;
	}
	fputs("<table>\n", out);
	json_object_foreach(obj, k, v) {
		fputs("<tr><th>", out);
		fb_xml_puts(out, k);
		fputs("</th><td>", out);
		text_of(out, v);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* An array, one element per line. */
static void lines_pre(FILE *out, json_t *arr)
{
	size_t i;
	json_t *v;

	if (!json_array_size(arr)) {
		fputs("<p>none</p>\n", out);
		return;
	}
	fputs("<pre>", out);
	json_array_foreach(arr, i, v) {
		text_of(out, v);
		fputc('\n', out);
	}
	fputs("</pre>\n", out);
}

static char *case_file(const struct page *p, const char *name)
{
	char *path = fb_path(p->run->dir, p->c->dir, name);

	if (fb_is_file(path))
		return path;
	free(path);
	return NULL;
}

static void section_dmesg(const struct page *p)
{
	char *path = case_file(p, "dmesg.txt");
	char *text = path ? fb_slurp(path, NULL) : NULL;
	unsigned kept = 0, total = 0;
	char *ex = text ? fb_dmesg_excerpt(text, &kept, &total) : NULL;

	fputs("<h2>Kernel messages</h2>\n", p->out);
	if (!ex) {
		fputs("<p>no dmesg.txt</p>\n", p->out);
	} else {
		fputs("<pre>", p->out);
		fb_xml_puts(p->out, ex);
		fprintf(p->out, "</pre>\n<p>%u of %u lines; all of them in "
			"<a href=\"dmesg.txt\">dmesg.txt</a></p>\n", kept, total);
	}
	free(ex);
	free(text);
	free(path);
	/* the call traces with file:line per frame, when the run could decode them */
	path = case_file(p, "trace.txt");
	text = path ? fb_slurp(path, NULL) : NULL;
	if (text) {
		fputs("<h3>Call traces, file:line per frame</h3>\n<pre>", p->out);
		fb_xml_puts(p->out, text);
		fputs("</pre>\n", p->out);
	}
	free(text);
	free(path);
}

static void section_outcome(const struct page *p)
{
	static const char *const fields[] = { "detect", "reaction", "fsck", "data" };
	const struct fb_case *c = p->c;
	char buf[128];

	fprintf(p->out, "<h2>Outcome vs expectation</h2>\n<p>verdict: "
		"<span class=\"k %s%s\">%s</span> (%s)</p>\n",
		fb_class_name(fb_case_class(c)),
		c->verdict == FB_VERDICT_FAIL ? " fail" : "",
		fb_verdict_name(c->verdict), fb_case_short(c, buf, sizeof(buf)));
	fputs("<table>\n<tr><th></th><th>expected</th><th>got</th></tr>\n", p->out);
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++) {
		const char *want, *got;

		snprintf(buf, sizeof(buf), "expect.%s", fields[i]);
		want = fb_case_str(c, buf);
		snprintf(buf, sizeof(buf), "outcome.%s", fields[i]);
		got = fb_case_str(c, buf);
		/* a case cut short has no outcome to miss its expectation */
		fprintf(p->out, "<tr%s><th>%s</th><td>",
			fb_expect_match(want, got) || c->verdict == FB_VERDICT_INTERRUPTED ?
			"" : " class=\"mismatch\"", fields[i]);
		fb_xml_puts(p->out, want ? want : "any");
		fputs("</td><td>", p->out);
		fb_xml_puts(p->out, got ? got : "-");
		fputs("</td></tr>\n", p->out);
	}
	fputs("</table>\n", p->out);
	if (json_array_size(fb_case_get(c, "mismatch"))) {
		fputs("<p>mismatch:</p>\n", p->out);
		lines_pre(p->out, fb_case_get(c, "mismatch"));
	}
	if (fb_case_str(c, "outcome.detail") && *fb_case_str(c, "outcome.detail")) {
		fputs("<p>decided by: <code>", p->out);
		fb_xml_puts(p->out, fb_case_str(c, "outcome.detail"));
		fputs("</code></p>\n", p->out);
	}
	if (fb_case_str(c, "outcome.infra") && *fb_case_str(c, "outcome.infra")) {
		fprintf(p->out, "<p>%s: ", c->verdict == FB_VERDICT_INTERRUPTED ? "cut short" :
			"infra");
		fb_xml_puts(p->out, fb_case_str(c, "outcome.infra"));
		fputs("</p>\n", p->out);
	}
}

static void section_case(const struct page *p)
{
	static const char *const keys[] = {
		"scenario", "groups", "kernel", "kernel_version", "mkfs",
		"durations",
	};
	json_t *o = json_object();

	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (fb_case_get(p->c, keys[i]))
			json_object_set(o, keys[i], fb_case_get(p->c, keys[i]));
	fputs("<h2>Case</h2>\n", p->out);
	kv_table(p->out, o);
	json_decref(o);
	fputs("<h2>Parameters</h2>\n", p->out);
	kv_table(p->out, fb_case_get(p->c, "params"));
	fputs("<h2>Target</h2>\n", p->out);
	kv_table(p->out, fb_case_get(p->c, "target"));
	fputs("<h2>Rules</h2>\n", p->out);
	lines_pre(p->out, fb_case_get(p->c, "rules"));
	fputs("<h2>Faults that fired</h2>\n", p->out);
	lines_pre(p->out, fb_case_get(p->c, "faults"));
}

static void section_steps(const struct page *p)
{
	json_t *steps = fb_case_get(p->c, "steps"), *s;
	size_t i;

	fputs("<h2>Steps</h2>\n", p->out);
	if (!json_array_size(steps)) {
		fputs("<p>none recorded</p>\n", p->out);
		return;
	}
	fputs("<table>\n<tr><th>n</th><th>step</th><th>result</th>"
	      "<th>errno</th><th>detail</th></tr>\n", p->out);
	json_array_foreach(steps, i, s) {
		static const char *const cols[] = {
			"n", "text", "result", "errno", "detail",
		};

		fputs("<tr>", p->out);
		for (size_t k = 0; k < sizeof(cols) / sizeof(*cols); k++) {
			json_t *v = json_object_get(s, cols[k]);

			fputs("<td>", p->out);
			if (v)
				text_of(p->out, v);
			fputs("</td>", p->out);
		}
		fputs("</tr>\n", p->out);
	}
	fputs("</table>\n", p->out);
}

static void section_files(const struct page *p)
{
	static const char *const names[] = {
		"transcript.log", "dmesg.txt", "trace.txt", "faults.jsonl", "fsck.txt",
		"rules.txt", "case.json", "image.raw",
	};
	char *path = case_file(p, "fsck.txt");
	char *text = path ? fb_slurp(path, NULL) : NULL;
	const char *repro = fb_case_str(p->c, "repro");
	bool any = false;

	fputs("<h2>fsck</h2>\n", p->out);
	if (text) {
		fputs("<pre>", p->out);
		fb_xml_puts(p->out, text);
		fputs("</pre>\n", p->out);
	} else {
		fputs("<p>no fsck.txt</p>\n", p->out);
	}
	free(text);
	free(path);
	fputs("<h2>Files</h2>\n<p>", p->out);
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		if (!(path = case_file(p, names[i])))
			continue;
		fprintf(p->out, "%s<a href=\"%s\">%s</a>", any ? " · " : "",
			names[i], names[i]);
		any = true;
		free(path);
	}
	fputs(any ? "</p>\n" : "none kept</p>\n", p->out);
	fputs("<h2>Reproduce</h2>\n<pre>", p->out);
	fb_xml_puts(p->out, repro ? repro : "(no repro command recorded)");
	fputs("</pre>\n", p->out);
}

/* "../" once per component of the case dir: the way back to the run dir. */
static char *up_prefix(const char *dir)
{
	size_t n = 1;
	char *s;

	for (const char *p = dir; *p; p++)
		n += *p == '/';
	s = xmalloc(3 * n + 1);
	for (size_t i = 0; i < n; i++)
		memcpy(s + 3 * i, "../", 3);
	s[3 * n] = '\0';
	return s;
}

static void write_page(const struct page *p)
{
	const char *shows = fb_case_str(p->c, "shows");
	char *up = up_prefix(p->c->dir);

	fb_html_head(p->out, p->c->name);
	fprintf(p->out, "<p><a href=\"%sindex.html\">run ", up ? up : "");
	fb_xml_puts(p->out, fb_run_id(p->run));
	fputs("</a></p>\n", p->out);
	if (shows) {
		fputs("<p>", p->out);
		fb_xml_puts(p->out, shows);
		fputs("</p>\n", p->out);
	}
	section_dmesg(p);
	section_outcome(p);
	fb_signals_page(p->out, p->c->rec);
	fb_fserror_page(p->out, p->c->rec);
	fb_bioread_page(p->out, p->c->rec);
	section_case(p);
	section_steps(p);
	section_files(p);
	fb_html_tail(p->out);
	free(up);
}

int fb_html_case_page(const struct fb_run *run, const struct fb_case *c)
{
	char *dir = fb_path(run->dir, NULL, c->dir);
	char *path = fb_path(run->dir, c->dir, "index.html");
	struct page p = { .run = run, .c = c };
	int ret = -1;

	if (dir && path && !fb_mkdirs(dir) && (p.out = fb_out_open(path))) {
		write_page(&p);
		ret = fb_out_close(p.out, path);
	}
	free(dir);
	free(path);
	return ret;
}

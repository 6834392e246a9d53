// SPDX-License-Identifier: MIT
/*
 * The two signals of a detection in the reports (the record's "signals"
 * and outcome.umount_error and outcome.note; harness/RESULTS.md): the
 * kernel message's class and the function that printed it, the errno's
 * class and where it came from, their conflict, whether the fanotify
 * witness was there to compare. The case page and `flipbed show` show
 * them; summary.md lists the conflicts kernel by kernel. A record without
 * "signals" (older runs) shows nothing.
 */
#include <jansson.h>
#include <string.h>

#include "html.h"
#include "report/report_int.h"

static const char *str(const json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* "csum (check_xattrs): LINE" or "none". */
static void message_text(const json_t *sig, char *buf, size_t len)
{
	const char *cls = str(sig, "message", "class"), *fn = str(sig, "message", "function");
	const char *line = str(sig, "message", "line");

	snprintf(buf, len, "%s%s%s%s%s%s", cls ? cls : "?", fn && *fn ? " (" : "",
		 fn && *fn ? fn : "", fn && *fn ? ")" : "", line && *line ? ": " : "",
		 line && *line ? line : "");
}

/* "csum (EBADMSG, fanotify)" or "none". */
static void errno_text(const json_t *sig, char *buf, size_t len)
{
	const char *cls = str(sig, "errno", "class"), *e = str(sig, "errno", "errno");
	const char *src = str(sig, "errno", "source");

	if (e)
		snprintf(buf, len, "%s (%s, %s)", cls ? cls : "?", e, src ? src : "?");
	else
		snprintf(buf, len, "%s", cls ? cls : "?");
}

/* NAME: VALUE lines of REC's signals and outcome notes, through PUT. */
static void each_line(const json_t *rec, void (*put)(void *, const char *, const char *),
		      void *arg)
{
	const json_t *sig = json_object_get(rec, "signals");
	const char *c = str(sig, "conflict", NULL), *fa = str(sig, "fanotify", NULL);
	const char *u = str(rec, "outcome", "umount_error"), *n = str(rec, "outcome", "note");
	char buf[640];

	if (sig) {
		message_text(sig, buf, sizeof(buf));
		put(arg, "message", buf);
		errno_text(sig, buf, sizeof(buf));
		put(arg, "errno", buf);
		if (!fa || strcmp(fa, "compared"))
			put(arg, "witness", "fanotify absent: decided from the message alone");
		if (c)
			put(arg, "CONFLICT", c);
	}
	if (u && *u)
		put(arg, "umount", u);
	if (n && *n)
		put(arg, "note", n);
}

static void put_show(void *arg, const char *name, const char *value)
{
	fprintf(arg, "  %-9s %s\n", name, value);
}

static void put_page(void *arg, const char *name, const char *value)
{
	fprintf(arg, "<tr><th>%s</th><td>", name);
	fb_xml_puts(arg, value);
	fputs("</td></tr>\n", arg);
}

void fb_signals_show(FILE *out, const json_t *rec)
{
	if (json_object_get(rec, "signals") || json_object_get(json_object_get(rec, "outcome"),
							       "umount_error"))
		each_line(rec, put_show, out);
}

void fb_signals_page(FILE *out, const json_t *rec)
{
	if (!json_object_get(rec, "signals"))
		return;
	fputs("<h2>Signals: the message and the errno</h2>\n<table>\n", out);
	each_line(rec, put_page, out);
	fputs("</table>\n", out);
}

static const char *conflict_of(const struct fb_case *c)
{
	return str(json_object_get(c->rec, "signals"), "conflict", NULL);
}

/* Whether an earlier case than I has KERNEL and a conflict (its list is printed). */
static bool listed(const struct fb_run *run, size_t i, const char *kernel)
{
	for (size_t j = 0; j < i; j++)
		if (conflict_of(&run->cases[j]) && !strcmp(run->cases[j].kernel, kernel))
			return true;
	return false;
}

void fb_signals_summary(FILE *out, const struct fb_run *run)
{
	bool any = false;

	for (size_t i = 0; i < run->n; i++) {
		const char *k = run->cases[i].kernel;

		if (!conflict_of(&run->cases[i]) || listed(run, i, k))
			continue;
		if (!any)
			fputs("\n## The message and the errno disagree\n", out);
		any = true;
		fprintf(out, "\n%s:\n\n", k);
		for (size_t j = i; j < run->n; j++)
			if (conflict_of(&run->cases[j]) && !strcmp(run->cases[j].kernel, k))
				fprintf(out, "- `%s`: %s\n", run->cases[j].name,
					conflict_of(&run->cases[j]));
	}
}

// SPDX-License-Identifier: MIT
/*
 * The fserror witness in the reports (fserror.h): whether the guest's
 * FAN_FS_ERROR events agree with the kernel log ("fanotify",
 * "fanotify_agrees" of a case record; harness/RESULTS.md). The case page
 * and `flipbed show` show the flag, the agreement and the events;
 * summary.md lists the cases whose witness disagrees. A record without
 * "fanotify" (older runs) shows nothing.
 */
#include <jansson.h>
#include <string.h>

#include "html.h"
#include "witness/fserror.h"

const char *fb_fserror_flag(const json_t *rec)
{
	json_t *a = json_object_get(rec, "fanotify_agrees");

	if (!json_object_get(rec, "fanotify"))
		return NULL;
	return json_is_true(a) ? "agrees" : json_is_false(a) ? "DISAGREES" : "not compared";
}

/* The agreement, unless the witness was unavailable (availability says why). */
static const char *agreement(json_t *f)
{
	if (!json_is_true(json_object_get(f, "available")))
		return NULL;
	return json_string_value(json_object_get(f, "agreement"));
}

/* "EBADMSG ino 12 x1", "EUCLEAN ino - x3": one event of the record. */
static void event_text(json_t *e, char *buf, size_t len)
{
	const char *err = json_string_value(json_object_get(e, "errno"));
	json_t *ino = json_object_get(e, "ino");

	if (json_is_integer(ino))
		snprintf(buf, len, "%s ino %lld x%lld", err ? err : "?",
			 (long long)json_integer_value(ino),
			 (long long)json_integer_value(json_object_get(e, "count")));
	else
		snprintf(buf, len, "%s ino - x%lld", err ? err : "?",
			 (long long)json_integer_value(json_object_get(e, "count")));
}

/* "available", or "unavailable (REASON)". */
static void availability(json_t *f, char *buf, size_t len)
{
	const char *r = json_string_value(json_object_get(f, "reason"));

	if (json_is_true(json_object_get(f, "available")))
		snprintf(buf, len, "available");
	else
		snprintf(buf, len, "unavailable (%s)", r && *r ? r : "no reason recorded");
}

static long long count_of(json_t *f, const char *key)
{
	return (long long)json_integer_value(json_object_get(f, key));
}

void fb_fserror_page(FILE *out, const json_t *rec)
{
	const char *flag = fb_fserror_flag(rec);
	json_t *f = json_object_get(rec, "fanotify"), *events, *e;
	const char *why;
	char buf[160];
	size_t i;

	if (!flag)
		return;
	why = agreement(f);
	events = json_object_get(f, "events");
	availability(f, buf, sizeof(buf));
	fputs("<h2>fanotify witness (FAN_FS_ERROR)</h2>\n<p>", out);
	fb_xml_puts(out, buf);
	fprintf(out, "; <span class=\"k %s\">%s</span> with the kernel log",
		!strcmp(flag, "DISAGREES") ? "unsafe fail" : !strcmp(flag, "agrees") ?
		"safe" : "silent", flag);
	if (why) {
		fputs(": ", out);
		fb_xml_puts(out, why);
	}
	fputs("</p>\n", out);
	if (json_array_size(events)) {
		fputs("<pre>", out);
		json_array_foreach(events, i, e) {
			event_text(e, buf, sizeof(buf));
			fb_xml_puts(out, buf);
			fputc('\n', out);
		}
		fputs("</pre>\n", out);
	}
	if (count_of(f, "dropped") || count_of(f, "malformed"))
		fprintf(out, "<p>%lld more events not recorded, %lld malformed lines refused</p>\n",
			count_of(f, "dropped"), count_of(f, "malformed"));
}

void fb_fserror_show(FILE *out, const json_t *rec)
{
	const char *flag = fb_fserror_flag(rec);
	json_t *f = json_object_get(rec, "fanotify"), *events, *e;
	const char *why;
	char buf[160];
	size_t i;

	if (!flag)
		return;
	why = agreement(f);
	events = json_object_get(f, "events");
	availability(f, buf, sizeof(buf));
	fprintf(out, "  fanotify  %s: %s%s%s\n", flag, buf, why ? "; " : "", why ? why : "");
	json_array_foreach(events, i, e) {
		event_text(e, buf, sizeof(buf));
		fprintf(out, "    %s\n", buf);
	}
	if (count_of(f, "dropped") || count_of(f, "malformed"))
		fprintf(out, "    %lld more events not recorded, %lld malformed lines refused\n",
			count_of(f, "dropped"), count_of(f, "malformed"));
}

void fb_fserror_summary(FILE *out, const json_t *rec, const char *name, bool *any)
{
	const char *flag = fb_fserror_flag(rec);
	const char *why = json_string_value(json_object_get(json_object_get(rec, "fanotify"),
							   "agreement"));

	if (!flag || strcmp(flag, "DISAGREES"))
		return;
	if (!*any)
		fputs("\n## fanotify disagrees with the kernel log\n\n", out);
	*any = true;
	fprintf(out, "- `%s`: %s\n", name, why ? why : "");
}

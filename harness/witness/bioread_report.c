// SPDX-License-Identifier: MIT
/*
 * The bioread witness in the reports (bioread.h): how the guest's block
 * layer read the target's bytes ("bio_reads" of a case record,
 * harness/RESULTS.md), one line per read bio with its flags and the step
 * it was submitted in, on the case page and in `flipbed show`. A record
 * without "bio_reads" (older runs, cases without a target on the disk)
 * shows nothing.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "witness/bioread.h"

static long long int_of(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* The witness's headline: its state, and the fault's step. */
static void headline(const json_t *b, char *buf, size_t len)
{
	const char *state = json_string_value(json_object_get(b, "state"));
	const char *reason = json_string_value(json_object_get(b, "reason"));

	if (state && !strcmp(state, "unavailable"))
		snprintf(buf, len, "unavailable: %s", reason ? reason : "");
	else
		snprintf(buf, len, "%s, %zu read%s of the target, %lld not recorded; the fault fired in step %lld",
			 state ? state : "?", json_array_size(json_object_get(b, "bios")),
			 json_array_size(json_object_get(b, "bios")) == 1 ? "" : "s",
			 int_of(b, "dropped"), int_of(b, "fault_step"));
}

/* One bio: "RA sectors 128+128 (bytes 65536..131071), step 5 walk /". */
static void bio_text(const json_t *rec, const json_t *bio, char *buf, size_t len)
{
	const char *rwbs = json_string_value(json_object_get(bio, "rwbs"));
	long long s = int_of(bio, "sector"), n = int_of(bio, "sectors"), step = int_of(bio, "step");
	const char *text = NULL;
	json_t *steps = json_object_get(rec, "steps"), *st;
	size_t i;

	json_array_foreach(steps, i, st)
		if (int_of(st, "n") == step)
			text = json_string_value(json_object_get(st, "text"));
	snprintf(buf, len, "%-5s sectors %lld+%lld (bytes %lld..%lld), step %lld%s%s%s",
		 rwbs ? rwbs : "?", s, n, s * 512, (s + n) * 512 - 1, step,
		 text ? " (" : "", text ? text : "", text ? ")" : "");
}

void fb_bioread_page(FILE *out, const json_t *rec)
{
	json_t *b = json_object_get(rec, "bio_reads"), *bio;
	char buf[256];
	size_t i;

	if (!json_is_object(b))
		return;
	headline(b, buf, sizeof(buf));
	fputs("<h2>read-ahead witness (block_bio_queue)</h2>\n<p>", out);
	fb_xml_puts(out, buf);
	fputs("</p>\n", out);
	if (!json_array_size(json_object_get(b, "bios")))
		return;
	fputs("<pre>", out);
	json_array_foreach(json_object_get(b, "bios"), i, bio) {
		bio_text(rec, bio, buf, sizeof(buf));
		fb_xml_puts(out, buf);
		fputc('\n', out);
	}
	fputs("</pre>\n", out);
}

void fb_bioread_show(FILE *out, const json_t *rec)
{
	json_t *b = json_object_get(rec, "bio_reads"), *bio;
	char buf[256];
	size_t i;

	if (!json_is_object(b))
		return;
	headline(b, buf, sizeof(buf));
	fprintf(out, "  bio reads %s\n", buf);
	json_array_foreach(json_object_get(b, "bios"), i, bio) {
		bio_text(rec, bio, buf, sizeof(buf));
		fprintf(out, "    %s\n", buf);
	}
}

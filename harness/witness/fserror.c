// SPDX-License-Identifier: MIT
/*
 * The fserror witness on the host side (fserror.h): the agent's fserror
 * lines in, the case record's "fanotify" object and "fanotify_agrees" out.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "guest/steps.h"
#include "util.h"
#include "witness/fserror.h"

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* ERRNO as the agent names it; its canonical name in OUT. */
static int parse_errno(const char *s, char *out, size_t len)
{
	const char *c = errname_canon(s);
	unsigned long long n;

	/* the agent names an errno glibc does not know E<number> */
	if (!c && s[0] == 'E' && !fb_parse_dec(s + 1, 4095, &n) && n)
		c = s;
	/* EBADDATA is the agent's own word for a content mismatch, not an errno */
	if (!c || !strcmp(c, "EBADDATA") || strlen(c) >= len)
		return -1;
	snprintf(out, len, "%s", c);
	return 0;
}

static int parse_event(struct fb_fserror *f, char *args)
{
	char *err = args, *ino, *count;
	struct fb_fserror_event e = { .ino = -1 };
	unsigned long long v;

	if (!(ino = strchr(err, ' ')))
		return -1;
	*ino++ = '\0';
	if (!(count = strchr(ino, ' ')))
		return -1;
	*count++ = '\0';
	if (strchr(count, ' ') || parse_errno(err, e.err, sizeof(e.err)))
		return -1;
	if (strcmp(ino, "-")) {
		if (fb_parse_dec(ino, 0xffffffffULL, &v) || !v)
			return -1;
		e.ino = (long long)v;
	}
	if (fb_parse_dec(count, 0xffffffffULL, &v) || !v)
		return -1;
	e.count = v;
	if (f->nev == FB_FSERROR_MAX)
		f->dropped++;
	else
		f->ev[f->nev++] = e;
	return 0;
}

static int parse_reason(struct fb_fserror *f, const char *r)
{
	size_t n = strlen(r);

	if (f->unavailable || !n || n >= sizeof(f->reason))
		return -1;
	for (const char *p = r; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return -1;
	f->unavailable = true;
	memcpy(f->reason, r, n + 1);
	return 0;
}

static int parse_line(struct fb_fserror *f, char *line)
{
	unsigned long long v;

	if (!strncmp(line, "fserror-watch /", 15) && !strchr(line + 14, ' ')) {
		f->watched = true;
		return 0;
	}
	if (starts(line, "fserror-unavailable "))
		return parse_reason(f, line + strlen("fserror-unavailable "));
	if (starts(line, "fserror-dropped ")) {
		if (f->dropped_seen || fb_parse_dec(line + strlen("fserror-dropped "),
						 1ULL << 48, &v))
			return -1;
		f->dropped_seen = true;
		f->dropped += v;
		return 0;
	}
	if (starts(line, "fserror "))
		return parse_event(f, line + strlen("fserror "));
	return -1;
}

int fb_fserror_line(struct fb_fserror *f, const char *line)
{
	char buf[FB_FSERROR_LINE_MAX + 1];
	size_t n;

	if (!starts(line, "fserror"))
		return 0;
	n = strnlen(line, sizeof(buf));
	if (n == sizeof(buf) || parse_line(f, memcpy(buf, line, n + 1))) {
		f->malformed++;
		return -1;
	}
	return 1;
}

static bool detected(enum fb_detect d)
{
	return d == FB_DETECT_CSUM || d == FB_DETECT_SANITY;
}

/* ext4 recorded an error in this pass: it detected and did not only recover. */
static bool recorded(enum fb_detect d, enum fb_reaction r)
{
	return detected(d) && r != FB_REACT_RECOVERED;
}

/* Nothing in this pass that ext4 records as an error. */
static bool quiet(enum fb_detect d, enum fb_reaction r)
{
	return d == FB_DETECT_NONE || (detected(d) && r == FB_REACT_RECOVERED);
}

/* The guest may have stopped before it sent what was queued. */
static bool stopped(enum fb_reaction r)
{
	return r == FB_REACT_PANIC || r == FB_REACT_HANG || r == FB_REACT_OOPS;
}

/* The detection class of an event's errno (EFSBADCRC is EBADMSG by now). */
static enum fb_detect event_class(const char *err)
{
	return !strcmp(err, "EBADMSG") ? FB_DETECT_CSUM : !strcmp(err, "EUCLEAN") ?
	       FB_DETECT_SANITY : !strcmp(err, "EIO") ? FB_DETECT_IO : FB_DETECT_NONE;
}

/*
 * A pass that recorded detect D: agrees when an event kept has D's class,
 * disagrees when none came or none has it; not compared when every event
 * was dropped. WHY says which, and the record's conflict when it has one.
 */
static int classes_agree(const struct fb_fserror *f, const struct fb_outcome *out,
			 enum fb_detect d, bool next, char *why, size_t len)
{
	unsigned long long events = f->nev + f->dropped;
	int n = snprintf(why, len, "detect %s%s, %llu FAN_FS_ERROR event%s", fb_detect_name(d),
			 next ? " (next mount)" : "", events, events == 1 ? "" : "s");

	if (!events)
		return 0;
	if (!f->nev) {
		snprintf(why, len, "not compared: detect %s, every FAN_FS_ERROR event dropped",
			 fb_detect_name(d));
		return -1;
	}
	for (int i = 0; i < f->nev; i++)
		if (event_class(f->ev[i].err) == d)
			return 1;
	if (n >= 0 && (size_t)n < len)
		snprintf(why + n, len - n, ", none of class %s (the first %s)%s%s",
			 fb_detect_name(d), f->ev[0].err, out->sig.conflict[0] ? "; " : "",
			 out->sig.conflict);
	return 0;
}

int fb_fserror_agrees(const struct fb_fserror *f, const struct fb_outcome *out,
		      enum fb_verdict v, char *why, size_t len)
{
	bool next = out->next_ran;
	unsigned long long events = f->nev + f->dropped;

	if (f->unavailable || !f->watched) {
		snprintf(why, len, "not compared: witness unavailable (%s)",
			 f->unavailable ? f->reason : "no watch: no mount step succeeded");
		return -1;
	}
	if (v == FB_VERDICT_INFRA || v == FB_VERDICT_SKIP || v == FB_VERDICT_INTERRUPTED) {
		snprintf(why, len, "not compared: the case is %s", fb_verdict_name(v));
		return -1;
	}
	if (stopped(out->reaction) || (next && stopped(out->reaction_next))) {
		snprintf(why, len, "not compared: the guest may have stopped (%s) before it "
			 "sent every event", fb_reaction_name(stopped(out->reaction) ?
							      out->reaction : out->reaction_next));
		return -1;
	}
	if (recorded(out->detect, out->reaction))
		return classes_agree(f, out, out->detect, false, why, len);
	if (next && recorded(out->detect_next, out->reaction_next))
		return classes_agree(f, out, out->detect_next, true, why, len);
	if (quiet(out->detect, out->reaction) &&
	    (!next || quiet(out->detect_next, out->reaction_next))) {
		snprintf(why, len, "no error in the kernel log, %llu FAN_FS_ERROR event%s",
			 events, events == 1 ? "" : "s");
		return events == 0;
	}
	snprintf(why, len, "not compared: detect %s, which ext4 may or may not record as "
		 "an error", fb_detect_name(quiet(out->detect, out->reaction) ?
					    out->detect_next : out->detect));
	return -1;
}

/* "" as JSON null, any other text as a string. */
static json_t *text_or_null(const char *s)
{
	return *s ? json_string(s) : json_null();
}

json_t *fb_signals_json(const struct fb_signals *s)
{
	return json_pack("{s:{s:s, s:s, s:s}, s:{s:s, s:o, s:o}, s:o, s:s}",
		"message", "class", fb_signal_name(s->msg), "line", s->msg_line,
			   "function", s->msg_func,
		"errno", "class", fb_signal_name(s->err), "errno", text_or_null(s->err_name),
			 "source", text_or_null(s->err_source),
		"conflict", text_or_null(s->conflict),
		"fanotify", s->fanotify ? "compared" : "absent");
}

void fb_fserror_record(json_t *rec, const struct fb_fserror *f,
		       const struct fb_outcome *out, enum fb_verdict v)
{
	json_t *events = json_array();
	char why[640];
	int agrees = fb_fserror_agrees(f, out, v, why, sizeof(why));
	const char *reason = f->unavailable ? f->reason : f->watched ? "" :
		"no watch: no mount step succeeded";

	for (int i = 0; i < f->nev; i++)
		json_array_append_new(events, json_pack("{s:s, s:o, s:I}",
			"errno", f->ev[i].err,
			"ino", f->ev[i].ino < 0 ? json_null() : json_integer(f->ev[i].ino),
			"count", (json_int_t)f->ev[i].count));
	json_object_set_new(rec, "fanotify", json_pack("{s:b, s:s, s:o, s:I, s:I, s:s}",
		"available", f->watched && !f->unavailable, "reason", reason,
		"events", events, "dropped", (json_int_t)f->dropped,
		"malformed", (json_int_t)f->malformed, "agreement", why));
	json_object_set_new(rec, "fanotify_agrees", agrees < 0 ? json_null() :
			    json_boolean(agrees));
}

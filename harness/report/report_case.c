// SPDX-License-Identifier: MIT
/* How one case is summarised: its reaction class, its cell text, its reason. */
#include <ctype.h>
#include <jansson.h>
#include <string.h>
#include "report/report_int.h"

static const char *const class_names[FB_CLASS__COUNT] = {
	"interrupted", "skip", "infra", "safe", "silent", "weak", "unsafe",
};

const char *fb_class_name(enum fb_class k)
{
	return (unsigned)k < FB_CLASS__COUNT ? class_names[k] : "?";
}

static bool is_crash(enum fb_reaction r)
{
	return r == FB_REACT_PANIC || r == FB_REACT_OOPS ||
	       r == FB_REACT_KASAN || r == FB_REACT_HANG;
}

/*
 * Safe means the kernel stopped further damage: the filesystem went
 * read-only (or shut down: no write reaches the disk), refused to mount,
 * or recovered a good copy. Silently changed data is unsafe even without a
 * crash: it is the worst outcome IRON names.
 */
bool fb_case_silent_change(const struct fb_case *c)
{
	const char *next = fb_case_str(c, "outcome.detect_next");

	return c->data == FB_DATA_CHANGED && c->detect == FB_DETECT_NONE &&
	       (!next || !strcmp(next, "none"));
}

enum fb_class fb_case_class(const struct fb_case *c)
{
	if (c->verdict == FB_VERDICT_INTERRUPTED)
		return FB_CLASS_INTERRUPTED;
	if (c->verdict == FB_VERDICT_SKIP)
		return FB_CLASS_SKIP;
	if (c->verdict == FB_VERDICT_INFRA || !c->has_outcome)
		return FB_CLASS_INFRA;
	if (is_crash(c->reaction))
		return FB_CLASS_UNSAFE;
	switch (c->reaction) {
	case FB_REACT_REMOUNT_RO:
	case FB_REACT_SHUTDOWN:
	case FB_REACT_MOUNT_REFUSED:
	case FB_REACT_RECOVERED:
		return FB_CLASS_SAFE;
	case FB_REACT_ERROR_CONTINUE:
		return c->data == FB_DATA_CHANGED ? FB_CLASS_UNSAFE :
						    FB_CLASS_WEAK;
	default:
		return c->data == FB_DATA_CHANGED ? FB_CLASS_UNSAFE :
		       c->data == FB_DATA_LOST ? FB_CLASS_WEAK :
						 FB_CLASS_SILENT;
	}
}

static const char *reaction_short(enum fb_reaction r)
{
	switch (r) {
	case FB_REACT_REMOUNT_RO:
		return "ro";
	case FB_REACT_MOUNT_REFUSED:
		return "refused";
	case FB_REACT_ERROR_CONTINUE:
		return "continue";
	default:
		return fb_reaction_name(r);
	}
}

const char *fb_case_short(const struct fb_case *c, char *buf, size_t len)
{
	char react[16];
	size_t n;

	if (c->verdict == FB_VERDICT_SKIP || c->verdict == FB_VERDICT_INFRA ||
	    !c->has_outcome) {
		snprintf(buf, len, "%s", fb_verdict_name(c->verdict));
		return buf;
	}
	snprintf(react, sizeof(react), "%s", reaction_short(c->reaction));
	if (is_crash(c->reaction))
		for (char *p = react; *p; p++)
			*p = toupper((unsigned char)*p);
	if (c->detect == FB_DETECT_NONE && c->reaction == FB_REACT_NONE)
		n = snprintf(buf, len, "none");
	else if (c->detect == FB_DETECT_NONE && is_crash(c->reaction))
		n = snprintf(buf, len, "%s", react);
	else
		n = snprintf(buf, len, "%s→%s", fb_detect_name(c->detect),
			     react);
	if (n < len && (c->data == FB_DATA_LOST || c->data == FB_DATA_CHANGED))
		n += snprintf(buf + n, len - n, "+%s", fb_data_name(c->data));
	if (n < len && c->warning)
		snprintf(buf + n, len - n, "+warn");
	return buf;
}

const char *fb_case_outcome4(const struct fb_case *c, char *buf, size_t len)
{
	if (!c->has_outcome)
		snprintf(buf, len, "%s", fb_verdict_name(c->verdict));
	else
		snprintf(buf, len, "%s/%s/%s/%s", fb_detect_name(c->detect),
			 fb_reaction_name(c->reaction), fb_fsck_name(c->fsck),
			 fb_data_name(c->data));
	return buf;
}

/* Join the strings of an array with "; ", newlines flattened to spaces. */
static size_t join(json_t *a, char *buf, size_t len)
{
	size_t n = 0, i;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v);

		if (!s || n >= len)
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? "; " : "", s);
	}
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return n;
}

/*
 * infra: outcome.infra; skip: the unmet requirement in mismatch (outcome.infra
 * as a fallback); interrupted: what the signal cut short, in outcome.infra;
 * fail: the mismatches. Empty for a pass.
 */
const char *fb_case_reason(const struct fb_case *c, char *buf, size_t len)
{
	const char *infra = fb_case_str(c, "outcome.infra");

	buf[0] = '\0';
	if (c->verdict == FB_VERDICT_INFRA) {
		snprintf(buf, len, "%s", infra && *infra ? infra : "no reason recorded");
	} else if (c->verdict != FB_VERDICT_PASS) {
		if (!join(fb_case_get(c, "mismatch"), buf, len))
			snprintf(buf, len, "%s", infra && *infra ? infra :
				 "no reason recorded");
	}
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return buf;
}

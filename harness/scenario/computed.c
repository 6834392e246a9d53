// SPDX-License-Identifier: MIT
/* computed.h: the expectation a case's fault implies. */
#include <stdio.h>
#include <string.h>

#include "scenario/computed.h"
#include "scenario/csum_first.h"

/* The types without a checksum of their own: no fault in them is computed. */
static const char *const uncovered_types[] = { "none", "range", "data", NULL };

/* Does the '|' list LIST hold NAME? "any" holds everything. */
static bool holds(const char *list, const char *name)
{
	return list && fb_expect_match(list, name);
}

/* Does the written undetected name a cause, the reason nothing may be detected? */
static bool names_cause(const struct fb_expect *e)
{
	const char *u = e->field[FB_EXP_UNDETECTED];

	if (!u || !strcmp(u, "any") || !strcmp(u, "explained"))
		return false;
	for (int i = 0; i < FB_UNDET__COUNT; i++)
		if (i != FB_UNDET_NA && holds(u, fb_undetected_name(i)))
			return true;
	return false;
}

/* The checked-before-csum entry that holds for TYPE on CHAIN's kernel, or NULL. */
static const struct fb_csum_first *first_check(const struct fb_expect *e, const char *type,
					       const char *const *chain)
{
	const char *f = e->field[FB_EXP_CHECKED_FIRST];
	const struct fb_csum_first *x = f ? fb_csum_first_find(f) : NULL;

	return x && type && fb_csum_first_reads(x, type) && fb_csum_first_holds(x, chain) ?
	       x : NULL;
}

/* The computed detect classes into WANT, the reasons for them into WHY. */
static bool classes(const struct fb_expect *e, const char *type, const char *const *chain,
		    char *want, size_t wlen, char *why, size_t ylen)
{
	const struct fb_csum_first *x = first_check(e, type, chain);
	size_t n = snprintf(want, wlen, "csum");
	size_t m = snprintf(why, ylen, "target checksum-covered, not resealed, fault fired and read");

	if (x) {
		n += snprintf(want + n, n < wlen ? wlen - n : 0, "|%s", x->detect);
		m += snprintf(why + m, m < ylen ? ylen - m : 0,
			      "; %s checks the structure before the checksum", x->function);
	}
	if (names_cause(e)) {
		snprintf(want + n, n < wlen ? wlen - n : 0, "|none");
		snprintf(why + m, m < ylen ? ylen - m : 0, "; undetected = %s",
			 e->field[FB_EXP_UNDETECTED]);
	}
	return x;
}

void fb_computed_expect(const struct fb_expect *e, const char *type, const char *const *chain,
			bool breaks_csum, bool fired, bool read, struct fb_computed *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!breaks_csum || !fired || !read)
		return;
	ret->on = true;
	ret->checked_first = classes(e, type, chain, ret->detect, sizeof(ret->detect),
				     ret->why, sizeof(ret->why));
}

bool fb_computed_match(const struct fb_computed *c, const struct fb_outcome *out,
		       const char **ret_got)
{
	enum fb_detect first = out->detect;

	if (first == FB_DETECT_NONE && out->next_ran)
		first = out->detect_next;
	*ret_got = fb_detect_name(first);
	return !c->on || holds(c->detect, *ret_got);
}

static bool in_list(const char *const *v, const char *s)
{
	for (; *v; v++)
		if (!strcmp(*v, s))
			return true;
	return false;
}

bool fb_computed_static(const struct fb_scenario *s)
{
	static const char *const in_place[] = { "flip", "zero", "ones", "random", NULL };

	return s->type && !in_list(uncovered_types, s->type) &&
	       (!strcmp(s->region, "covered") || !strcmp(s->region, "csum")) &&
	       !s->reseal && in_list(in_place, s->action) &&
	       !strstr(s->features, "^metadata_csum");
}

/* Does the written list W accept one of the classes in WANT? */
static bool meets(const char *w, const char *want)
{
	char tok[16];

	if (!w || !strcmp(w, "any"))
		return true;
	for (const char *p = want; *p;) {
		size_t len = strcspn(p, "|");

		snprintf(tok, sizeof(tok), "%.*s", (int)len, p);
		if (holds(w, tok))
			return true;
		p += len + (p[len] == '|');
	}
	return false;
}

bool fb_computed_contradicted(const struct fb_scenario *s, const struct fb_expect *e,
			      const char *const *chain, char *want, size_t len)
{
	char why[320];

	if (!fb_computed_static(s))
		return false;
	classes(e, s->type, chain, want, len, why, sizeof(why));
	return !meets(e->field[FB_EXP_DETECT], want) &&
	       !(s->next_mount && meets(e->field[FB_EXP_DETECT_NEXT], want));
}

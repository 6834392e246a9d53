// SPDX-License-Identifier: MIT
/* flipbed: apply a rule's data action to a window of disk bytes.
 *
 * Every action is a function of the absolute disk offset only, so a range
 * read in one request or in many gets the same bytes: random= byte i of
 * the rule (i = offset - at) is byte i % 8 (little-endian) of splitmix64
 * output i / 8 for the rule's seed.
 */
#include <stdlib.h>

#include "mutate.h"

int fb_overlap(const struct fb_rule *r, uint64_t off, uint64_t len,
	       uint64_t *ostart, uint64_t *oend)
{
	uint64_t s = r->at > off ? r->at : off;
	uint64_t e1 = r->at + r->len, e2 = off + len;
	uint64_t e = e1 < e2 ? e1 : e2;

	if (len == 0 || s >= e)
		return 0;
	*ostart = s;
	*oend = e;
	return 1;
}

static void record(struct fb_changes *ch, uint64_t offset, uint8_t old,
		   uint8_t new)
{
	if (!ch || old == new)
		return;
	if (ch->n < FB_CHANGES_MAX)
		ch->v[ch->n++] = (struct fb_change){ offset, old, new };
	ch->changed++;
}

static uint8_t random_byte(const struct fb_rule *r, uint64_t i)
{
	return fb_splitmix64(r->seed, i / 8) >> (i % 8 * 8);
}

/* First index in the sorted bit list whose byte is >= byte. */
static size_t first_bit(const struct fb_rule *r, uint64_t byte)
{
	size_t lo = 0, hi = r->nbits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->bits[mid] / 8 < byte)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void flip_bits(const struct fb_rule *r, uint64_t off, uint8_t *buf,
		      uint64_t s, uint64_t e, struct fb_changes *ch)
{
	size_t i = first_bit(r, s - r->at);

	while (i < r->nbits && r->bits[i] / 8 < e - r->at) {
		uint64_t byte = r->bits[i] / 8;
		uint8_t *p = buf + (r->at + byte - off);
		uint8_t old = *p;

		/* Gather every bit of this byte so one change is logged. */
		for (; i < r->nbits && r->bits[i] / 8 == byte; i++)
			*p ^= 1u << (r->bits[i] % 8);
		record(ch, r->at + byte, old, *p);
	}
}

void fb_mutate(const struct fb_rule *r, uint64_t off, uint8_t *buf, size_t len,
	       struct fb_changes *ch)
{
	uint64_t s, e, o;

	if (!fb_action_changes_data(r->action) || !fb_overlap(r, off, len, &s, &e))
		return;
	if (r->action == FB_FLIP || r->action == FB_FLIP_RANDOM) {
		flip_bits(r, off, buf, s, e, ch);
		return;
	}
	for (o = s; o < e; o++) {
		uint8_t *p = buf + (o - off), old = *p;

		if (r->action == FB_ZERO)
			*p = 0;
		else if (r->action == FB_ONES)
			*p = 0xff;
		else
			*p = random_byte(r, o - r->at);
		record(ch, o, old, *p);
	}
}

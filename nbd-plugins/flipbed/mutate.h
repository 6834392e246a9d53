/* SPDX-License-Identifier: MIT */
/* flipbed: apply a rule's data action to bytes, recording what changed.
 *
 * Pure code like rule.c: no nbdkit, no I/O.
 */
#ifndef FLIPBED_MUTATE_H
#define FLIPBED_MUTATE_H

#include <stddef.h>
#include <stdint.h>

#include "rule.h"

#define FB_CHANGES_MAX 4096	/* changed bytes listed per fault log record */

struct fb_change {
	uint64_t offset;
	uint8_t old;
	uint8_t new;
};

/* The bytes one fault changed: the first FB_CHANGES_MAX in v, all of them
 * counted in changed.
 */
struct fb_changes {
	struct fb_change v[FB_CHANGES_MAX];
	size_t n;
	uint64_t changed;
};

/* buf holds the disk bytes [off, off + len). Apply r's data action (flip,
 * flip-random, zero, ones, random) to the part of buf inside r's range and
 * append every byte that changed to ch (may be NULL). Bytes outside the
 * overlap are never touched. Does nothing for eio, drop and misdirect.
 */
void fb_mutate(const struct fb_rule *r, uint64_t off, uint8_t *buf, size_t len,
	       struct fb_changes *ch);

/* The overlap of r's range with [off, off + len): returns 0 if empty, else
 * 1 with the overlap in *ostart and *oend (exclusive).
 */
int fb_overlap(const struct fb_rule *r, uint64_t off, uint64_t len,
	       uint64_t *ostart, uint64_t *oend);

#endif

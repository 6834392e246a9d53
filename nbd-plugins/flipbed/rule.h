/* SPDX-License-Identifier: MIT */
/* flipbed: fault rules, parsed from and formatted to one line of text.
 *
 * Pure code (no nbdkit, no I/O): the plugin, the unit tests and the
 * fuzzer link it alone.
 */
#ifndef FLIPBED_RULE_H
#define FLIPBED_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FB_ID_MAX 63		/* longest id=NAME */
#define FB_LINE_MAX 4096	/* longest rule or control line */
#define FB_FLIP_RANDOM_MAX 65536 /* most bits one flip-random= may pick */
#define FB_SECTOR 512		/* the unit of torn= */
/* Most sectors torn= may keep: an NBD request is shorter than 4 GiB, so a
 * tear at 8388608 sectors or more could never cut one.
 */
#define FB_TORN_MAX 8388607
#define FB_STALL_MAX_MS 600000	/* longest stall=MS: 10 minutes */

enum fb_on { FB_ON_REST, FB_ON_READ, FB_ON_WRITE };

enum fb_action {
	FB_FLIP,
	FB_FLIP_RANDOM,
	FB_ZERO,
	FB_ONES,
	FB_RANDOM,
	FB_EIO,
	FB_DROP,
	FB_MISDIRECT,
	FB_WATCH,	/* changes nothing: the read witness watches the range */
	FB_TORN,	/* stores the first torn sectors of a write, no more */
	FB_STALL,	/* holds the request for stall_ms, or until released */
};

struct fb_rule {
	char id[FB_ID_MAX + 1];	/* "" until the rule set names it */
	enum fb_on on;		/* unused by watch, which takes no on= */
	enum fb_action action;
	uint64_t at;
	uint64_t len;
	/* flip= as given, or the bits flip-random= picked: sorted, distinct,
	 * each < len * 8.
	 */
	uint64_t *bits;
	size_t nbits;
	uint64_t flip_random;	/* N of flip-random=N */
	int64_t delta;		/* misdirect=DELTA */
	uint64_t torn;		/* torn=N: sectors of FB_SECTOR bytes kept */
	uint64_t stall_ms;	/* stall=MS; 0: a bare stall (until release) */
	uint64_t count;		/* 0: no count= (stays armed) */
	uint64_t after;
	uint64_t seed;
	bool has_seed;
};

/* Parse one rule line into *r. On error returns -1 with a reason in err
 * (naming the word and what is accepted) and leaves nothing to free.
 */
int fb_rule_parse(const char *line, struct fb_rule *r, char *err, size_t errlen);

/* Free what fb_rule_parse allocated (safe on a zeroed rule). */
void fb_rule_free(struct fb_rule *r);

/* Deep copy; returns -1 on allocation failure. */
int fb_rule_copy(struct fb_rule *dst, const struct fb_rule *src);

/* Refuse a rule whose range (or misdirect target) is not inside a disk of
 * size bytes. Returns -1 with a reason in err.
 */
int fb_rule_check_size(const struct fb_rule *r, uint64_t size,
		       char *err, size_t errlen);

/* Canonical one-line form, which fb_rule_parse reads back to an equal rule.
 * Returns the length it needed (like snprintf).
 */
int fb_rule_format(const struct fb_rule *r, char *buf, size_t len);

/* True when both rules would act identically (ids included). */
bool fb_rule_equal(const struct fb_rule *a, const struct fb_rule *b);

const char *fb_on_name(enum fb_on on);
const char *fb_action_name(enum fb_action a);

/* True for the actions that change bytes (flip, flip-random, zero, ones,
 * random), as opposed to eio, drop, misdirect, watch, torn and stall.
 */
bool fb_action_changes_data(enum fb_action a);

/* splitmix64: the generator behind random= and flip-random=. Output k
 * (k = 0, 1, ...) of the stream seeded with s is fb_splitmix64(s, k).
 */
uint64_t fb_splitmix64(uint64_t seed, uint64_t k);

#endif

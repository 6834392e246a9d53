/* SPDX-License-Identifier: MIT */
/* flipbed: apply the armed rules to requests, and rest rules to the image.
 *
 * Each function returns 0, or -1 with errno set (EIO when an eio rule
 * fired). Every applied fault goes to the fault log, and the bytes it
 * changed to the read witness (witness.h), which is shown every request
 * that is not failed by an eio rule.
 */
#ifndef FLIPBED_INJECT_H
#define FLIPBED_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "rule.h"
#include "ruleset.h"

/* buf holds [off, off + len) as read from the image: corrupt it there.
 * Called for every read while rules are armed or spans watched.
 */
int fb_inject_read(void *buf, uint64_t len, uint64_t off);

/* Store a write (buf), zero (buf NULL, op FB_OP_ZERO) or trim (buf NULL,
 * op FB_OP_TRIM) through the rules. buf is never modified.
 */
int fb_inject_write(enum fb_op op, const void *buf, uint64_t len,
		    uint64_t off, bool may_trim);

/* Change the image file as rest rule r says, durably (fdatasync). */
int fb_inject_rest(const struct fb_rule *r);

#endif

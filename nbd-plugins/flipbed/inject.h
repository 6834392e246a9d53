/* SPDX-License-Identifier: MIT */
/* flipbed: apply the armed rules to requests, and rest rules to the image.
 *
 * Each function returns 0, or -1 with errno set (EIO when an eio rule
 * fired, ESHUTDOWN when nbdkit shut down while a stall rule held the
 * request). Every applied fault goes to the fault log, and the bytes it
 * changed to the read witness (witness.h), which is shown every request
 * that is not failed by an eio rule. What reaches the image goes to the
 * write log (writelog.h) when there is one.
 */
#ifndef FLIPBED_INJECT_H
#define FLIPBED_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "rule.h"
#include "ruleset.h"

/* Read [off, off + len) from the image into buf through the rules: held
 * first by the stall rules that fire, then corrupted by the others.
 * Called for every read while rules are armed or spans watched.
 */
int fb_inject_read(void *buf, uint64_t len, uint64_t off);

/* Store a write (buf), zero (buf NULL, op FB_OP_ZERO) or trim (buf NULL,
 * op FB_OP_TRIM) through the rules, held first by the stall rules that
 * fire. flags are the request's (NBDKIT_FLAG_FUA, NBDKIT_FLAG_MAY_TRIM).
 * buf is never modified.
 */
int fb_inject_write(enum fb_op op, const void *buf, uint64_t len,
		    uint64_t off, uint32_t flags);

/* Change the image file as rest rule r says, durably (fdatasync). */
int fb_inject_rest(const struct fb_rule *r);

#endif

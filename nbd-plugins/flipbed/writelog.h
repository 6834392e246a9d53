/* SPDX-License-Identifier: MIT */
/* flipbed: the write log (writelog=FILE), in the format of wlog.h.
 *
 * It records what reached the image, in the order it was stored: every
 * write, zero and trim as stored (a request no rule changed is one
 * record, exactly as the client sent it; a request rules changed is
 * recorded piece by piece, as stored, with FB_WLOG_FAULT), every change
 * an on=rest rule made, and every flush that succeeded. Replaying it onto
 * the image as it was at start (flipbed-replay) rebuilds the image at any
 * flush. Records are appended under one lock, so the log's order is the
 * order in which requests were logged; each is in the file after it was
 * stored and before it is acknowledged.
 */
#ifndef FLIPBED_WRITELOG_H
#define FLIPBED_WRITELOG_H

#include <stdbool.h>
#include <stdint.h>

#include "ruleset.h"
#include "wlog.h"

extern bool fb_writelog_on;	/* set once, before any request */

static inline bool fb_writelog_active(void)
{
	return fb_writelog_on;
}

/* Create FILE (truncating it) and write the header, with the size and the
 * XXH64 of the image as it is now (fb_disk_*). Returns -1 with errno set.
 */
int fb_writelog_open(const char *path);
void fb_writelog_close(void);

/* A write (buf), zero or trim of [off, off + len) reached the image.
 * flags: FB_WLOG_* (FUA, MAY_TRIM, FAULT, REST). A piece longer than one
 * record holds is logged as several.
 */
void fb_writelog_store(enum fb_op op, unsigned flags, const void *buf,
		       uint64_t len, uint64_t off);

/* The FB_WLOG_* flags of a request with these nbdkit flags. */
unsigned fb_writelog_flags(enum fb_op op, uint32_t flags);

/* A flush succeeded. */
void fb_writelog_flush(void);

#endif

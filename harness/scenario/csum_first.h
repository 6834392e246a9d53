/* SPDX-License-Identifier: MIT */
/*
 * The kernel functions that check an object's structure before its
 * checksum: a fault in the bytes they check first is reported as a sanity
 * failure though the checksum covers them. A scenario names one in
 * `checked-before-csum = FUNCTION` to widen the computed expectation
 * (computed.h) by that function's class, and only for the object types the
 * function reads. The table is closed: each entry cites the code.
 */
#ifndef FLIPBED_CSUM_FIRST_H
#define FLIPBED_CSUM_FIRST_H

#include <stdbool.h>

struct fb_csum_first {
	const char *function;	/* the kernel function, as in its source */
	const char *types;	/* the corruptor types it reads, space-separated */
	const char *detect;	/* what its check before the checksum reports */
};

/* The entry for FUNCTION, or NULL. */
const struct fb_csum_first *fb_csum_first_find(const char *function);

/* Does entry F read objects of corruptor type TYPE? */
bool fb_csum_first_reads(const struct fb_csum_first *f, const char *type);

/* The table's function names, comma-separated, for error messages. */
const char *fb_csum_first_list(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The kernel functions that check an object's structure before its
 * checksum: a fault in the bytes they check first is reported as a sanity
 * failure though the checksum covers them. A scenario names one in
 * `checked-before-csum = FUNCTION` to widen the computed expectation
 * (computed.h) by that function's class, and only for the object types the
 * function reads, on the kernels whose code does it (a patch series may
 * verify the checksum first). The table is closed: each entry cites the
 * code.
 */
#ifndef FLIPBED_CSUM_FIRST_H
#define FLIPBED_CSUM_FIRST_H

#include <stdbool.h>

struct fb_csum_first {
	const char *function;	/* the kernel function, as in its source */
	const char *types;	/* the corruptor types it reads, space-separated */
	const char *detect;	/* what its check before the checksum reports */
	const char *kernels;	/* the kernels (kernel/kernels.ini) whose code
				   does it, and their variants, space-separated */
};

/* The entry for FUNCTION, or NULL. */
const struct fb_csum_first *fb_csum_first_find(const char *function);

/* Does entry F read objects of corruptor type TYPE? */
bool fb_csum_first_reads(const struct fb_csum_first *f, const char *type);

/*
 * Does entry F hold on the kernel whose variant-of chain is CHAIN (the
 * kernel, the kernel it is a variant of, ...; NULL-terminated)?
 */
bool fb_csum_first_holds(const struct fb_csum_first *f, const char *const *chain);

/* The table's function names, comma-separated, for error messages. */
const char *fb_csum_first_list(void);

#endif

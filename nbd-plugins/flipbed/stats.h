/* SPDX-License-Identifier: MIT */
/* flipbed: request and fault counters for the control socket's stats.
 *
 * Each request thread counts in its own block (no shared cache line, no
 * locked instruction on the request path); fb_stats_get adds them up.
 */
#ifndef FLIPBED_STATS_H
#define FLIPBED_STATS_H

#include <stdint.h>

void fb_stats_read(void);	/* one read request served */
void fb_stats_write(void);	/* one write, zero or trim request served */
void fb_stats_fault(void);	/* one fault applied */
void fb_stats_get(uint64_t *reads, uint64_t *writes, uint64_t *faults);

#endif

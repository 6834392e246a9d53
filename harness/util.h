/* SPDX-License-Identifier: MIT */
/*
 * Small helpers of the host command. Allocation: out of memory is not a
 * case outcome, so these print and exit with the infra status (3) instead
 * of returning NULL.
 */
#ifndef FLIPBED_UTIL_H
#define FLIPBED_UTIL_H

#include <stddef.h>

void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);	/* NULL is taken as "" */

/* mkdir -p PATH; a failure is printed, naming the directory. 0 or -1. */
int fb_mkdirs(const char *path);

/* Seconds on the monotonic clock. */
double fb_now(void);

#endif

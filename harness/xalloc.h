/* SPDX-License-Identifier: MIT */
/*
 * Allocation for the host command: out of memory is not a case outcome, so
 * these print and exit with the infra status (3) instead of returning NULL.
 */
#ifndef FLIPBED_XALLOC_H
#define FLIPBED_XALLOC_H

#include <stddef.h>

void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);	/* NULL is taken as "" */

#endif

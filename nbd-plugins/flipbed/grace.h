/* SPDX-License-Identifier: MIT */
/* flipbed: a grace period for data published RCU-style.
 *
 * A reader counts itself in active[epoch & 1] before it loads the pointer
 * it reads through, and out when it is done. A writer that swapped the
 * pointer flips the epoch and waits for the old counter to drain, twice,
 * so that a reader that picked its counter before an earlier flip is
 * waited for too. Only then may the old data be freed. Writers of one
 * domain are serialised by the caller; readers never wait.
 */
#ifndef FLIPBED_GRACE_H
#define FLIPBED_GRACE_H

#include <stdatomic.h>

struct fb_grace {
	atomic_uint epoch;
	atomic_ulong active[2];
};

static inline unsigned fb_grace_enter(struct fb_grace *g)
{
	unsigned e = atomic_load(&g->epoch) & 1;

	atomic_fetch_add(&g->active[e], 1);
	return e;
}

static inline void fb_grace_leave(struct fb_grace *g, unsigned e)
{
	atomic_fetch_sub(&g->active[e], 1);
}

/* Returns once every reader that entered before the call has left. */
void fb_grace_wait(struct fb_grace *g);

#endif

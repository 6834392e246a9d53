// SPDX-License-Identifier: MIT
/* flipbed: the grace period (see grace.h). */
#include <time.h>

#include "grace.h"

void fb_grace_wait(struct fb_grace *g)
{
	const struct timespec pause = { 0, 20000 };
	int i;

	for (i = 0; i < 2; i++) {
		unsigned old = atomic_fetch_xor(&g->epoch, 1) & 1;

		while (atomic_load(&g->active[old]) != 0)
			nanosleep(&pause, NULL);
	}
}

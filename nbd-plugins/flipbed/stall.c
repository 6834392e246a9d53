// SPDX-License-Identifier: MIT
/* flipbed: stalled requests (see stall.h).
 *
 * A release bumps a generation number and takes the count of held
 * requests; a held request that sees its generation pass was released.
 * Both happen under one lock, so that a request leaving on its own
 * (timeout, shutdown) is either counted by a release or not, never both.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "stall.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t generation;
static uint64_t held;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

enum fb_stall_end fb_stall_hold(uint64_t ms)
{
	uint64_t gen, end = now_ms() + ms, t;
	enum fb_stall_end how;

	pthread_mutex_lock(&lock);
	gen = atomic_load(&generation);
	held++;
	pthread_mutex_unlock(&lock);
	for (;;) {
		uint64_t slice = FB_STALL_SLICE_MS;

		/* Released: the release counted it out already. */
		if (atomic_load(&generation) != gen)
			return FB_STALL_RELEASED;
		t = now_ms();
		if (ms && t >= end) {
			how = FB_STALL_TIMEOUT;
			break;
		}
		if (ms && end - t < slice)
			slice = end - t;
		if (nbdkit_nanosleep(0, slice * 1000000) < 0) {
			how = FB_STALL_SHUTDOWN;
			break;
		}
	}
	pthread_mutex_lock(&lock);
	if (atomic_load(&generation) != gen)
		how = FB_STALL_RELEASED;
	else
		held--;
	pthread_mutex_unlock(&lock);
	return how;
}

uint64_t fb_stall_release(void)
{
	uint64_t n;

	pthread_mutex_lock(&lock);
	n = held;
	held = 0;
	atomic_fetch_add(&generation, 1);
	pthread_mutex_unlock(&lock);
	return n;
}

uint64_t fb_stall_held(void)
{
	uint64_t n;

	pthread_mutex_lock(&lock);
	n = held;
	pthread_mutex_unlock(&lock);
	return n;
}

// SPDX-License-Identifier: MIT
/* flipbed: per-thread request counters (see stats.h). A thread's block is
 * linked into a list the first time it counts, and folded into the
 * retired totals when the thread exits.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "stats.h"

struct counters {
	_Atomic uint64_t reads, writes;	/* written by the owner thread only */
	struct counters *prev, *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct counters *threads;
static uint64_t retired_reads, retired_writes;
static _Atomic uint64_t faults;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Thread_local struct counters *mine;

static void retire(void *p)
{
	struct counters *c = p;

	pthread_mutex_lock(&lock);
	retired_reads += atomic_load(&c->reads);
	retired_writes += atomic_load(&c->writes);
	if (c->prev)
		c->prev->next = c->next;
	else
		threads = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&lock);
	free(c);
}

static void make_key(void)
{
	pthread_key_create(&key, retire);
}

/* NULL only if out of memory: the request is then not counted. */
static struct counters *get(void)
{
	struct counters *c = mine;

	if (c)
		return c;
	pthread_once(&once, make_key);
	c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	pthread_mutex_lock(&lock);
	c->next = threads;
	if (threads)
		threads->prev = c;
	threads = c;
	pthread_mutex_unlock(&lock);
	pthread_setspecific(key, c);
	mine = c;
	return c;
}

/* Single writer: a relaxed load and store, no read-modify-write. */
static void bump(_Atomic uint64_t *v)
{
	atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

void fb_stats_read(void)
{
	struct counters *c = get();

	if (c)
		bump(&c->reads);
}

void fb_stats_write(void)
{
	struct counters *c = get();

	if (c)
		bump(&c->writes);
}

void fb_stats_fault(void)
{
	atomic_fetch_add(&faults, 1);
}

void fb_stats_get(uint64_t *reads, uint64_t *writes, uint64_t *ret_faults)
{
	struct counters *c;

	pthread_mutex_lock(&lock);
	*reads = retired_reads;
	*writes = retired_writes;
	for (c = threads; c; c = c->next) {
		*reads += atomic_load(&c->reads);
		*writes += atomic_load(&c->writes);
	}
	pthread_mutex_unlock(&lock);
	*ret_faults = atomic_load(&faults);
}

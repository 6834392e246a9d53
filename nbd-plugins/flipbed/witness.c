// SPDX-License-Identifier: MIT
/* flipbed: the read witness (see witness.h).
 *
 * A snapshot is an array of spans sorted by start. Spans may overlap (a
 * fault inside a watch rule's range), and one watch may own several (a
 * partial overwrite splits its span in two). Readers update a watch's
 * counters with atomics; the spans and the list of watches change only
 * under the lock, by publishing a new snapshot. A watch left without
 * spans is freed after the grace period, when no reader can count in it
 * any more, so that its summary holds every request.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "faultlog.h"
#include "grace.h"
#include "witness.h"

struct watch {
	uint64_t fault;		/* its fault's seq; 0: a watch rule */
	char rule[FB_ID_MAX + 1];
	uint64_t at, len;		/* the span first watched */
	atomic_bool read_logged, overwrite_logged;
	_Atomic uint64_t reads, overwrites;
	size_t nspans;		/* in the live snapshot; under lock */
	struct watch *next;	/* every watch not ended; under lock */
};

struct span {
	uint64_t start, end;
	struct watch *w;
};

struct fb_wsnap {
	size_t n;
	struct span v[];
};

_Atomic(struct fb_wsnap *) fb_witness_live;
static struct fb_grace grace;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct watch *watches;

/* "fault":N, for a fault's watch, nothing for a watch rule's. */
static void fault_field(const struct watch *w, char *buf, size_t len)
{
	buf[0] = '\0';
	if (w->fault)
		snprintf(buf, len, "\"fault\":%" PRIu64 ",", w->fault);
}

/* Count the request; log it if it is the first of its kind. */
static void seen(struct watch *w, enum fb_op op, uint64_t s, uint64_t e)
{
	bool read = op == FB_OP_READ;
	const char *kind = read ? "read" : "overwrite";
	atomic_bool *logged = read ? &w->read_logged : &w->overwrite_logged;
	char fault[40];

	atomic_fetch_add(read ? &w->reads : &w->overwrites, 1);
	if (atomic_exchange(logged, true))
		return;
	nbdkit_debug("flipbed: witness: first %s (%s) of rule %s's span "
		     "%" PRIu64 "+%" PRIu64 " (fault %" PRIu64 "): offset %"
		     PRIu64 " len %" PRIu64, kind, fb_op_name(op), w->rule,
		     w->at, w->len, w->fault, s, e - s);
	fault_field(w, fault, sizeof fault);
	fb_faultlog_note("\"witness\":\"%s\",%s\"rule\":\"%s\",\"op\":\"%s\","
			 "\"offset\":%" PRIu64 ",\"len\":%" PRIu64, kind, fault,
			 w->rule, fb_op_name(op), s, e - s);
}

bool fb_witness_see(enum fb_op op, uint64_t off, uint64_t len)
{
	unsigned e = fb_grace_enter(&grace);
	struct fb_wsnap *s = atomic_load(&fb_witness_live);
	uint64_t end = off + len;
	struct watch *last = NULL;
	bool hit = false;
	size_t i;

	for (i = 0; s && i < s->n && s->v[i].start < end; i++) {
		const struct span *p = &s->v[i];

		if (p->end <= off)
			continue;
		hit = true;
		/* The halves of a split span count one request once. */
		if (p->w == last)
			continue;
		last = p->w;
		seen(p->w, op, p->start > off ? p->start : off,
		     p->end < end ? p->end : end);
	}
	fb_grace_leave(&grace, e);
	return hit;
}

static void summary(const struct watch *w, const char *why)
{
	uint64_t reads = atomic_load(&w->reads);
	uint64_t overwrites = atomic_load(&w->overwrites);
	char fault[40];

	nbdkit_debug("flipbed: witness: rule %s's span %" PRIu64 "+%" PRIu64
		     " (fault %" PRIu64 ") %s: %" PRIu64 " reads, %" PRIu64
		     " overwrites", w->rule, w->at, w->len, w->fault, why,
		     reads, overwrites);
	/* The first records told all there was. */
	if (reads <= 1 && overwrites <= 1)
		return;
	fault_field(w, fault, sizeof fault);
	fb_faultlog_note("\"witness\":\"summary\",%s\"rule\":\"%s\","
			 "\"offset\":%" PRIu64 ",\"len\":%" PRIu64
			 ",\"reads\":%" PRIu64 ",\"overwrites\":%" PRIu64
			 ",\"end\":\"%s\"", fault, w->rule, w->at, w->len,
			 reads, overwrites, why);
}

static struct fb_wsnap *snap_alloc(size_t cap)
{
	struct fb_wsnap *s = malloc(sizeof *s + cap * sizeof s->v[0]);

	if (s)
		s->n = 0;
	return s;
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Under lock: make s (sorted, possibly empty) the live snapshot, wait out
 * the readers of the old one, then end the watches s has no span of.
 */
static void swap_in(struct fb_wsnap *s, const char *why)
{
	struct watch **pp = &watches, *w;
	struct fb_wsnap *old;
	size_t i;

	for (w = watches; w; w = w->next)
		w->nspans = 0;
	for (i = 0; s && i < s->n; i++)
		s->v[i].w->nspans++;
	if (s && s->n == 0) {
		free(s);
		s = NULL;
	}
	old = atomic_exchange(&fb_witness_live, s);
	fb_grace_wait(&grace);
	free(old);
	while ((w = *pp)) {
		if (w->nspans) {
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		summary(w, why);
		free(w);
	}
}

/* Under lock: true if a fault of rule already watches [at, end). */
static bool watched(const struct fb_wsnap *cur, const char *rule,
		    uint64_t at, uint64_t end)
{
	size_t i;

	for (i = 0; cur && i < cur->n; i++) {
		const struct span *p = &cur->v[i];

		if (p->w->fault && p->start == at && p->end == end &&
		    strcmp(p->w->rule, rule) == 0)
			return true;
	}
	return false;
}

int fb_witness_add(uint64_t fault, const char *rule, uint64_t at,
		   uint64_t len)
{
	struct fb_wsnap *cur, *s;
	struct watch *w;
	size_t n, i, j;
	int ret = -1;

	pthread_mutex_lock(&lock);
	cur = atomic_load(&fb_witness_live);
	n = cur ? cur->n : 0;
	if (fault && watched(cur, rule, at, at + len)) {
		ret = 0;
		goto out;
	}
	if (n >= FB_WITNESS_MAX)
		goto out;
	w = calloc(1, sizeof *w);
	s = snap_alloc(n + 1);
	if (!w || !s) {
		free(w);
		free(s);
		goto out;
	}
	w->fault = fault;
	snprintf(w->rule, sizeof w->rule, "%s", rule);
	w->at = at;
	w->len = len;
	w->next = watches;
	watches = w;
	/* After the spans that start where it does. */
	for (i = 0, j = 0; i < n && cur->v[i].start <= at; i++)
		s->v[j++] = cur->v[i];
	s->v[j++] = (struct span){ at, at + len, w };
	for (; i < n; i++)
		s->v[j++] = cur->v[i];
	s->n = j;
	swap_in(s, "");		/* ends no watch */
	ret = 0;
out:
	pthread_mutex_unlock(&lock);
	return ret;
}

/* Under lock: the live spans without the bytes [off, end). A watch
 * rule's span stays whole (it watches a range, whatever it holds), and so
 * does a span that would split in two when the halves would not fit.
 */
static struct fb_wsnap *cut(const struct fb_wsnap *cur, uint64_t off,
			    uint64_t end)
{
	struct fb_wsnap *s = snap_alloc(2 * cur->n);
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < cur->n; i++) {
		struct span p = cur->v[i];
		bool left = p.start < off, right = p.end > end;
		size_t after = cur->n - i - 1;	/* spans still to copy */

		if (p.end <= off || p.start >= end || !p.w->fault ||
		    (left && right && s->n + 2 + after > FB_WITNESS_MAX)) {
			s->v[s->n++] = p;
			continue;
		}
		if (left)
			s->v[s->n++] = (struct span){ p.start, off, p.w };
		if (right)
			s->v[s->n++] = (struct span){ end, p.end, p.w };
	}
	qsort(s->v, s->n, sizeof s->v[0], cmp_span);
	return s;
}

void fb_witness_stored(uint64_t off, uint64_t len)
{
	struct fb_wsnap *cur, *s;
	unsigned e;
	bool hit = false;
	size_t i;

	if (!fb_witness_armed())
		return;
	/* Most stores touch no fault's span: find out without the lock. */
	e = fb_grace_enter(&grace);
	cur = atomic_load(&fb_witness_live);
	for (i = 0; cur && i < cur->n && cur->v[i].start < off + len; i++) {
		if (cur->v[i].end > off && cur->v[i].w->fault) {
			hit = true;
			break;
		}
	}
	fb_grace_leave(&grace, e);
	if (!hit)
		return;
	pthread_mutex_lock(&lock);
	cur = atomic_load(&fb_witness_live);
	s = cur ? cut(cur, off, off + len) : NULL;
	if (s)
		swap_in(s, "overwritten");
	else if (cur)
		nbdkit_error("flipbed: witness: out of memory: offset %" PRIu64
			     " len %" PRIu64 " stays watched", off, len);
	pthread_mutex_unlock(&lock);
}

void fb_witness_unwatch(const char *id)
{
	struct fb_wsnap *cur, *s;
	size_t i;

	pthread_mutex_lock(&lock);
	cur = atomic_load(&fb_witness_live);
	s = cur ? snap_alloc(cur->n) : NULL;
	if (s) {
		for (i = 0; i < cur->n; i++) {
			const struct watch *w = cur->v[i].w;

			if (w->fault || (id && strcmp(w->rule, id) != 0))
				s->v[s->n++] = cur->v[i];
		}
		if (s->n < cur->n)
			swap_in(s, "deleted");
		else
			free(s);
	} else if (cur) {
		nbdkit_error("flipbed: witness: out of memory: watch rule %s "
			     "stays watched", id ? id : "(all)");
	}
	pthread_mutex_unlock(&lock);
}

void fb_witness_close(void)
{
	pthread_mutex_lock(&lock);
	swap_in(NULL, "exit");
	pthread_mutex_unlock(&lock);
}

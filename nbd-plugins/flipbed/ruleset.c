// SPDX-License-Identifier: MIT
/* flipbed: the armed rules (see ruleset.h). Old snapshots are freed after
 * a grace period (grace.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grace.h"
#include "ruleset.h"

_Atomic(struct fb_snapshot *) fb_live;
static struct fb_grace grace;
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long next_id = 1;

struct fb_snapshot *fb_rules_enter(unsigned *e)
{
	*e = fb_grace_enter(&grace);
	return atomic_load(&fb_live);
}

void fb_rules_leave(unsigned e)
{
	fb_grace_leave(&grace, e);
}

static const char *const op_names[] = {
	[FB_OP_READ] = "read", [FB_OP_WRITE] = "write",
	[FB_OP_ZERO] = "zero", [FB_OP_TRIM] = "trim",
};

const char *fb_op_name(enum fb_op op)
{
	return op_names[op];
}

/* watch rules never fire: the read witness serves them (witness.h). */
static bool applies(const struct fb_rule *r, enum fb_op op, uint64_t len)
{
	if (r->action == FB_WATCH)
		return false;
	if (op == FB_OP_READ)
		return r->on == FB_ON_READ;
	if (r->on != FB_ON_WRITE)
		return false;
	/* A write no longer than the tear would be stored whole. */
	if (r->action == FB_TORN)
		return op != FB_OP_TRIM && len > r->torn * FB_SECTOR;
	/* A trim has no data to change: only eio, drop, misdirect, stall. */
	return op != FB_OP_TRIM || !fb_action_changes_data(r->action);
}

/* Count the request; true if the rule acts on it. */
static bool fires(struct fb_armed *a)
{
	uint64_t h = atomic_fetch_add(&a->hits, 1);

	if (h < a->rule.after)
		return false;
	return a->rule.count == 0 || h - a->rule.after < a->rule.count;
}

static bool used_up(struct fb_armed *a)
{
	return a->rule.count &&
	       atomic_load(&a->hits) >= a->rule.after + a->rule.count;
}

static void fired_add(struct fb_fired *f, struct fb_armed *a)
{
	struct fb_armed **v;

	if (f->n == f->cap) {
		v = malloc(2 * f->cap * sizeof *v);
		if (!v) {
			/* Counted but not applied: say so, change nothing. */
			fprintf(stderr, "flipbed: out of memory: rule %s not "
				"applied\n", a->rule.id);
			return;
		}
		memcpy(v, f->v, f->n * sizeof *v);
		if (f->v != f->local)
			free(f->v);
		f->v = v;
		f->cap *= 2;
	}
	f->v[f->n++] = a;
}

void fb_fired_free(struct fb_fired *f)
{
	if (f->v != f->local)
		free(f->v);
}

static size_t fire(struct fb_snapshot *snap, enum fb_op op, uint64_t off,
		   uint64_t len, bool stalls, struct fb_fired *f)
{
	size_t lo = 0, hi = snap->n, i;
	uint64_t end = off + len;

	f->v = f->local;
	f->n = 0;
	f->cap = sizeof f->local / sizeof f->local[0];
	/* First rule starting at or after the request's end. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (snap->rules[mid]->rule.at < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Walk back while some earlier rule still reaches past off. */
	for (i = lo; i > 0 && snap->maxend[i - 1] > off; i--) {
		struct fb_armed *a = snap->rules[i - 1];

		if (a->rule.at + a->rule.len > off &&
		    (a->rule.action == FB_STALL) == stalls &&
		    applies(&a->rule, op, len) && fires(a))
			fired_add(f, a);
	}
	/* Found from the back: put them in offset order. */
	for (i = 0; i < f->n / 2; i++) {
		struct fb_armed *t = f->v[i];

		f->v[i] = f->v[f->n - 1 - i];
		f->v[f->n - 1 - i] = t;
	}
	return f->n;
}

size_t fb_rules_fire(struct fb_snapshot *snap, enum fb_op op, uint64_t off,
		     uint64_t len, struct fb_fired *f)
{
	return fire(snap, op, off, len, false, f);
}

size_t fb_rules_fire_stalls(struct fb_snapshot *snap, enum fb_op op,
			    uint64_t off, uint64_t len, struct fb_fired *f)
{
	return fire(snap, op, off, len, true, f);
}

static void free_snapshot(struct fb_snapshot *s)
{
	if (!s)
		return;
	free(s->rules);
	free(s->maxend);
	free(s);
}

static void free_armed(struct fb_armed *a)
{
	fb_rule_free(&a->rule);
	free(a);
}

/* A snapshot of the n rules in v (already in offset order), or NULL for
 * none, so that the request path sees "nothing armed" in one load.
 */
static int build(struct fb_armed **v, size_t n, struct fb_snapshot **ret)
{
	struct fb_snapshot *s;
	size_t i;

	*ret = NULL;
	if (n == 0)
		return 0;
	s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	s->rules = malloc(n * sizeof *s->rules);
	s->maxend = malloc(n * sizeof *s->maxend);
	if (!s->rules || !s->maxend) {
		free_snapshot(s);
		return -1;
	}
	s->n = n;
	for (i = 0; i < n; i++) {
		uint64_t e = v[i]->rule.at + v[i]->rule.len;

		s->rules[i] = v[i];
		s->maxend[i] = i && s->maxend[i - 1] > e ? s->maxend[i - 1] : e;
		s->nstall += v[i]->rule.action == FB_STALL;
	}
	*ret = s;
	return 0;
}

/* Swap in s and free the old snapshot once no reader can see it. */
static void publish(struct fb_snapshot *s)
{
	struct fb_snapshot *old = atomic_exchange(&fb_live, s);

	fb_grace_wait(&grace);
	free_snapshot(old);
}

static struct fb_armed *find(struct fb_snapshot *s, const char *id, size_t *idx)
{
	size_t i;

	for (i = 0; s && i < s->n; i++) {
		if (strcmp(s->rules[i]->rule.id, id) == 0) {
			if (idx)
				*idx = i;
			return s->rules[i];
		}
	}
	return NULL;
}

void fb_rules_new_id(char id[FB_ID_MAX + 1])
{
	pthread_mutex_lock(&write_lock);
	do
		snprintf(id, FB_ID_MAX + 1, "r%lu", next_id++);
	while (find(atomic_load(&fb_live), id, NULL));
	pthread_mutex_unlock(&write_lock);
}

static int arm_locked(struct fb_armed *a, char *err, size_t errlen)
{
	struct fb_snapshot *cur = atomic_load(&fb_live), *s;
	size_t n = cur ? cur->n : 0, i, at;
	struct fb_armed **v;
	int r;

	if (find(cur, a->rule.id, NULL)) {
		snprintf(err, errlen, "id=%s is already armed", a->rule.id);
		return -1;
	}
	v = malloc((n + 1) * sizeof *v);
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* After every rule at the same offset: equal offsets apply in the
	 * order they were armed.
	 */
	for (at = n; at > 0 && cur->rules[at - 1]->rule.at > a->rule.at; at--)
		;
	for (i = 0; i < at; i++)
		v[i] = cur->rules[i];
	v[at] = a;
	for (i = at; i < n; i++)
		v[i + 1] = cur->rules[i];
	r = build(v, n + 1, &s);
	free(v);
	if (r < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	publish(s);
	return 0;
}

int fb_rules_arm(struct fb_rule *r, char *err, size_t errlen)
{
	struct fb_armed *a = calloc(1, sizeof *a);
	int ret;

	if (!a) {
		fb_rule_free(r);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (r->id[0] == '\0')
		fb_rules_new_id(r->id);
	a->rule = *r;
	memset(r, 0, sizeof *r);
	pthread_mutex_lock(&write_lock);
	ret = arm_locked(a, err, errlen);
	pthread_mutex_unlock(&write_lock);
	if (ret < 0)
		free_armed(a);
	return ret;
}

/* Keep the rules for which keep() is true; free the others. */
static int filter_locked(bool (*keep)(struct fb_armed *, const void *),
			 const void *arg)
{
	struct fb_snapshot *cur = atomic_load(&fb_live), *s;
	struct fb_armed **v, **gone;
	size_t i, n = 0, ngone = 0;

	if (!cur)
		return 0;
	v = malloc(cur->n * sizeof *v);
	gone = malloc(cur->n * sizeof *gone);
	if (!v || !gone)
		goto oom;
	for (i = 0; i < cur->n; i++) {
		if (keep(cur->rules[i], arg))
			v[n++] = cur->rules[i];
		else
			gone[ngone++] = cur->rules[i];
	}
	if (ngone && build(v, n, &s) < 0)
		goto oom;
	if (ngone)
		publish(s);
	for (i = 0; i < ngone; i++)
		free_armed(gone[i]);
	free(v);
	free(gone);
	return (int)ngone;

oom:
	free(v);
	free(gone);
	return -1;
}

static bool keep_other_id(struct fb_armed *a, const void *id)
{
	return strcmp(a->rule.id, id) != 0;
}

static bool keep_none(struct fb_armed *a, const void *arg)
{
	return false;
}

static bool keep_live(struct fb_armed *a, const void *arg)
{
	return !used_up(a);
}

int fb_rules_del(const char *id)
{
	int r;

	pthread_mutex_lock(&write_lock);
	r = filter_locked(keep_other_id, id);
	pthread_mutex_unlock(&write_lock);
	return r == 1 ? 0 : -1;
}

void fb_rules_clear(void)
{
	pthread_mutex_lock(&write_lock);
	filter_locked(keep_none, NULL);
	pthread_mutex_unlock(&write_lock);
}

void fb_rules_prune(void)
{
	pthread_mutex_lock(&write_lock);
	filter_locked(keep_live, NULL);
	pthread_mutex_unlock(&write_lock);
}

void fb_rules_foreach(void (*fn)(const struct fb_rule *r, void *opaque),
		      void *opaque)
{
	struct fb_snapshot *s;
	size_t i;

	pthread_mutex_lock(&write_lock);
	s = atomic_load(&fb_live);
	for (i = 0; s && i < s->n; i++)
		fn(&s->rules[i]->rule, opaque);
	pthread_mutex_unlock(&write_lock);
}

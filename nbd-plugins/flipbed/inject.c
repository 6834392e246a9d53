// SPDX-License-Identifier: MIT
/* flipbed: the fault engine (see inject.h).
 *
 * Stall rules act first, in a pass of their own: the request is held
 * outside the rule snapshot (stall.h), then meets the rules armed by the
 * time it is released. A write with rules firing is first cut short by
 * the torn rules among them (the shortest tear wins), then cut at every
 * rule boundary into segments; each segment is stored according to the
 * rules covering it: not at all (drop), at +delta instead of in place
 * (misdirect), with its bytes changed (flip, flip-random, zero, ones,
 * random), or as it came. Every piece stored goes to the write log.
 * Requests are shown to the read witness (witness.h) before the faults
 * they cause are applied, so that a fault's own request is not counted as
 * one that came after it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "faultlog.h"
#include "disk.h"
#include "inject.h"
#include "mutate.h"
#include "stall.h"
#include "witness.h"
#include "writelog.h"

#define CHUNK (1024 * 1024)	/* bytes changed per buffer */

/* Watch [at, at + len) for fault seq of rule r. */
static void watch_span(uint64_t seq, const struct fb_rule *r, uint64_t at,
		       uint64_t len)
{
	if (len && fb_witness_add(seq, r->id, at, len) < 0)
		nbdkit_debug("flipbed: witness: fault %" PRIu64 " of rule %s "
			     "not watched: %d spans are watched already, or "
			     "out of memory", seq, r->id, FB_WITNESS_MAX);
}

/* Watch the bytes fault seq changed: from the first changed byte to the
 * last, or to the end of the fault's range when there were more changes
 * than ch lists.
 */
static void watch_changes(uint64_t seq, const struct fb_fault *f)
{
	const struct fb_changes *ch = f->changes;
	uint64_t s = UINT64_MAX, e = 0;
	size_t i;

	for (i = 0; i < ch->n; i++) {
		if (ch->v[i].offset < s)
			s = ch->v[i].offset;
		if (ch->v[i].offset >= e)
			e = ch->v[i].offset + 1;
	}
	if (ch->changed > ch->n)
		e = f->offset + f->len;
	watch_span(seq, f->rule, s, e - s);
}

static void log_fault(const struct fb_rule *r, const char *op, uint64_t off,
		      uint64_t len, const struct fb_changes *ch)
{
	struct fb_fault f = { .rule = r, .op = op, .changes = ch };
	uint64_t s, e, seq;

	if (fb_overlap(r, off, len, &s, &e)) {
		f.offset = s;
		f.len = e - s;
	}
	seq = fb_faultlog_write(&f);
	if (ch && ch->changed)
		watch_changes(seq, &f);
	/* a lost write leaves the old bytes in place; a misdirected one, and
	 * the bytes it landed on, which were another block's
	 */
	if (f.len && (r->action == FB_DROP || r->action == FB_MISDIRECT) &&
	    strcmp(op, "read")) {
		watch_span(seq, r, f.offset, f.len);
		if (r->action == FB_MISDIRECT)
			watch_span(seq, r, f.offset + (uint64_t)r->delta, f.len);
	}
}

/* What a tear did, from the image as it was before the write. */
struct tear {
	bool known, stored_changed, lost_changed;
};

/* A torn rule's record: the part [off, off + len) of the request it did
 * not store, which keeps the old bytes a later read gets.
 */
static void log_torn(const struct fb_rule *r, enum fb_op op, uint64_t off,
		     uint64_t len, const struct tear *t)
{
	struct fb_fault f = { .rule = r, .op = fb_op_name(op), .offset = off, .len = len,
			      .tear_known = t->known, .stored_changed = t->stored_changed,
			      .lost_changed = t->lost_changed };

	watch_span(fb_faultlog_write(&f), r, off, len);
}

/* If an eio rule fired, log every eio rule that did and return true. */
static bool fired_eio(const struct fb_fired *f, enum fb_op op, uint64_t off,
		      uint64_t len)
{
	bool eio = false;
	size_t i;

	for (i = 0; i < f->n; i++) {
		if (f->v[i]->rule.action == FB_EIO) {
			log_fault(&f->v[i]->rule, fb_op_name(op), off, len,
				  NULL);
			eio = true;
		}
	}
	return eio;
}

static void see(enum fb_op op, uint64_t off, uint64_t len, bool *watched)
{
	bool hit = fb_witness_armed() && fb_witness_see(op, off, len);

	if (watched)
		*watched = hit;
}

static const char *const stall_ends[] = {
	[FB_STALL_TIMEOUT] = "its time is up",
	[FB_STALL_RELEASED] = "released",
	[FB_STALL_SHUTDOWN] = "nbdkit is shutting down or the client left",
};

/* Hold the request while the stall rules that fire for it say: the
 * longest of their times, or until release when one of them has none.
 */
static int stall(enum fb_op op, uint64_t off, uint64_t len)
{
	char id[FB_ID_MAX + 1] = "";
	struct fb_snapshot *snap;
	enum fb_stall_end how;
	bool forever = false;
	uint64_t ms = 0;
	struct fb_fired f;
	unsigned epoch;
	size_t i, n = 0;

	snap = fb_rules_enter(&epoch);
	if (snap && snap->nstall)
		n = fb_rules_fire_stalls(snap, op, off, len, &f);
	for (i = 0; i < n; i++) {
		const struct fb_rule *r = &f.v[i]->rule;

		log_fault(r, fb_op_name(op), off, len, NULL);
		forever |= r->stall_ms == 0;
		if (r->stall_ms > ms)
			ms = r->stall_ms;
		if (!id[0] || r->stall_ms == 0)
			strcpy(id, r->id);
	}
	if (n)
		fb_fired_free(&f);
	fb_rules_leave(epoch);
	if (n == 0)
		return 0;
	nbdkit_debug("flipbed: rule %s: %s offset %" PRIu64 " len %" PRIu64
		     " held until %s", id, fb_op_name(op), off, len,
		     forever ? "released" : "released or its time is up");
	how = fb_stall_hold(forever ? 0 : ms);
	nbdkit_debug("flipbed: rule %s: %s offset %" PRIu64 " goes on: %s",
		     id, fb_op_name(op), off, stall_ends[how]);
	if (how == FB_STALL_SHUTDOWN) {
		errno = ESHUTDOWN;
		return -1;
	}
	return 0;
}

int fb_inject_read(void *buf, uint64_t len, uint64_t off)
{
	struct fb_changes *ch = NULL;
	struct fb_fired f;
	struct fb_snapshot *snap;
	unsigned epoch;
	int ret = 0;
	size_t i;

	if (fb_rules_armed() && stall(FB_OP_READ, off, len) < 0)
		return -1;
	if (fb_disk_pread(buf, len, off) < 0)
		return -1;
	if (!fb_rules_armed()) {
		see(FB_OP_READ, off, len, NULL);
		return 0;
	}
	snap = fb_rules_enter(&epoch);
	if (!snap || fb_rules_fire(snap, FB_OP_READ, off, len, &f) == 0) {
		see(FB_OP_READ, off, len, NULL);
		goto out;
	}
	if (fired_eio(&f, FB_OP_READ, off, len)) {
		errno = EIO;
		ret = -1;
		goto done;
	}
	see(FB_OP_READ, off, len, NULL);
	ch = malloc(sizeof *ch);
	if (!ch) {
		ret = -1;
		goto done;
	}
	for (i = 0; i < f.n; i++) {
		const struct fb_rule *r = &f.v[i]->rule;

		ch->n = ch->changed = 0;
		fb_mutate(r, off, buf, len, ch);
		log_fault(r, "read", off, len, ch);
	}
done:
	free(ch);
	fb_fired_free(&f);
out:
	fb_rules_leave(epoch);
	return ret;
}

/* One write request on its way through the rules. */
struct wreq {
	enum fb_op op;
	const uint8_t *buf;		/* NULL for zero and trim */
	uint64_t off, len;
	uint64_t stored;		/* len, or less when torn */
	bool may_trim;
	unsigned wlflags;		/* FB_WLOG_* of what it stores */
	bool watched;			/* it overlaps a watched span */
	struct fb_fired f;
	struct fb_changes **ch;		/* ch[i]: changes made by f.v[i] */
	struct tear tear;		/* when stored < len */
};

static bool covers(const struct fb_rule *r, uint64_t s, uint64_t e)
{
	return r->at <= s && e <= r->at + r->len;
}

/* Store [s, e) as it came (or as zeros / a trim) at s + delta. */
static int store_plain(const struct wreq *w, uint64_t s, uint64_t e,
		       uint64_t delta)
{
	const uint8_t *data = w->buf ? w->buf + (s - w->off) : NULL;
	int r;

	switch (w->op) {
	case FB_OP_WRITE:
		r = fb_disk_pwrite(data, e - s, s + delta);
		break;
	case FB_OP_ZERO:
		r = fb_disk_zero(e - s, s + delta, w->may_trim);
		break;
	default:
		r = fb_disk_trim(e - s, s + delta);
		break;
	}
	if (r == 0 && fb_writelog_active())
		fb_writelog_store(w->op, w->wlflags, data, e - s, s + delta);
	return r;
}

/* Store [s, e) changed by the data rules covering it, at each target. */
static int store_changed(const struct wreq *w, uint64_t s, uint64_t e,
			 const uint64_t *deltas, size_t ndeltas)
{
	uint8_t *scratch = malloc(e - s < CHUNK ? e - s : CHUNK);
	uint64_t c;
	size_t i;

	if (!scratch)
		return -1;
	for (c = s; c < e; c += CHUNK) {
		uint64_t n = e - c < CHUNK ? e - c : CHUNK;

		if (w->buf)
			memcpy(scratch, w->buf + (c - w->off), n);
		else
			memset(scratch, 0, n);
		for (i = 0; i < w->f.n; i++)
			fb_mutate(&w->f.v[i]->rule, c, scratch, n, w->ch[i]);
		for (i = 0; i < ndeltas; i++) {
			if (fb_disk_pwrite(scratch, n, c + deltas[i]) < 0) {
				free(scratch);
				return -1;
			}
			if (fb_writelog_active())
				fb_writelog_store(FB_OP_WRITE, w->wlflags,
						  scratch, n, c + deltas[i]);
		}
	}
	free(scratch);
	return 0;
}

static int store_segment(const struct wreq *w, uint64_t s, uint64_t e,
			 uint64_t *deltas)
{
	bool changed = false;
	size_t i, nd = 0;

	for (i = 0; i < w->f.n; i++) {
		const struct fb_rule *r = &w->f.v[i]->rule;

		if (!covers(r, s, e))
			continue;
		if (r->action == FB_DROP)
			return 0;
		if (r->action == FB_MISDIRECT)
			deltas[nd++] = (uint64_t)r->delta;
		changed |= fb_action_changes_data(r->action);
	}
	if (nd == 0)
		deltas[nd++] = 0;
	if (changed && store_changed(w, s, e, deltas, nd) < 0)
		return -1;
	for (i = 0; !changed && i < nd; i++) {
		if (store_plain(w, s, e, deltas[i]) < 0)
			return -1;
	}
	/* Misdirected bytes leave the range as it was. */
	for (i = 0; w->watched && i < nd; i++) {
		if (deltas[i] == 0)
			fb_witness_stored(s, e - s);
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Cut the part of the request to store at every rule boundary and store
 * each piece. Rules that lie in a torn-off tail cut nothing.
 */
static int store_request(const struct wreq *w)
{
	size_t nb = 0, i;
	uint64_t *b = malloc((2 * w->f.n + 2) * sizeof *b);
	uint64_t *deltas = malloc((w->f.n + 1) * sizeof *deltas);
	int ret = 0;

	if (!b || !deltas) {
		ret = -1;
		goto out;
	}
	b[nb++] = w->off;
	b[nb++] = w->off + w->stored;
	for (i = 0; i < w->f.n; i++) {
		uint64_t s, e;

		if (!fb_overlap(&w->f.v[i]->rule, w->off, w->stored, &s, &e))
			continue;
		b[nb++] = s;
		b[nb++] = e;
	}
	qsort(b, nb, sizeof *b, cmp_u64);
	for (i = 0; i + 1 < nb && ret == 0; i++) {
		if (b[i] != b[i + 1])
			ret = store_segment(w, b[i], b[i + 1], deltas);
	}
out:
	free(b);
	free(deltas);
	return ret;
}

static int write_fired(struct wreq *w)
{
	size_t i;
	int ret = -1;

	w->ch = calloc(w->f.n, sizeof *w->ch);
	if (!w->ch)
		return -1;
	for (i = 0; i < w->f.n; i++) {
		if (fb_action_changes_data(w->f.v[i]->rule.action)) {
			w->ch[i] = calloc(1, sizeof *w->ch[i]);
			if (!w->ch[i])
				goto out;
		}
	}
	w->wlflags |= FB_WLOG_FAULT;
	ret = store_request(w);
	for (i = 0; ret == 0 && i < w->f.n; i++) {
		const struct fb_rule *r = &w->f.v[i]->rule;

		if (r->action == FB_TORN)
			log_torn(r, w->op, w->off + w->stored,
				 w->len - w->stored, &w->tear);
		else
			log_fault(r, fb_op_name(w->op), w->off, w->len,
				  w->ch[i]);
	}
out:
	for (i = 0; i < w->f.n; i++)
		free(w->ch[i]);
	free(w->ch);
	return ret;
}

/* A request no rule fires for: stored as it came. */
static int store_whole(struct wreq *w)
{
	see(w->op, w->off, w->len, &w->watched);
	if (store_plain(w, w->off, w->off + w->len, 0) < 0)
		return -1;
	if (w->watched)
		fb_witness_stored(w->off, w->len);
	return 0;
}

/*
 * Whether a torn write's stored part changes the image and whether the
 * part it will not store differs from what the image holds there: a tear
 * whose lost part the image already held loses nothing (the disk ends as
 * the kernel meant), one whose stored part changes nothing leaves the
 * whole request as it was (an old, valid version). Read before storing;
 * not known when the image cannot be read (or the request is too large to
 * hold twice).
 */
static void tear_effect(struct wreq *w)
{
	uint8_t *old;
	uint64_t i;

	w->tear.known = false;
	if (w->len > 64 * 1024 * 1024 || !(old = malloc(w->len)))
		return;
	if (fb_disk_pread(old, w->len, w->off) == 0) {
		w->tear.stored_changed = w->tear.lost_changed = false;
		for (i = 0; i < w->len; i++) {
			uint8_t now = w->buf ? w->buf[i] : 0;
			bool *d = i < w->stored ? &w->tear.stored_changed :
						  &w->tear.lost_changed;

			*d |= now != old[i];
		}
		w->tear.known = true;
	}
	free(old);
}

/* The shortest tear of the torn rules that fired, or the whole request. */
static uint64_t stored_part(const struct fb_fired *f, uint64_t len)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		const struct fb_rule *r = &f->v[i]->rule;

		if (r->action == FB_TORN && r->torn * FB_SECTOR < len)
			len = r->torn * FB_SECTOR;
	}
	return len;
}

int fb_inject_write(enum fb_op op, const void *buf, uint64_t len,
		    uint64_t off, uint32_t flags)
{
	struct wreq w = { .op = op, .buf = buf, .off = off, .len = len,
			  .stored = len };
	struct fb_snapshot *snap;
	unsigned epoch;
	int ret;

	w.may_trim = flags & NBDKIT_FLAG_MAY_TRIM;
	w.wlflags = fb_writelog_flags(op, flags);
	if (!fb_rules_armed())
		return store_whole(&w);
	if (stall(op, off, len) < 0)
		return -1;
	snap = fb_rules_enter(&epoch);
	if (!snap || fb_rules_fire(snap, op, off, len, &w.f) == 0) {
		fb_rules_leave(epoch);
		return store_whole(&w);
	}
	if (fired_eio(&w.f, op, off, len)) {
		errno = EIO;
		ret = -1;
	} else {
		see(op, off, len, &w.watched);
		w.stored = stored_part(&w.f, len);
		if (w.stored < len)
			tear_effect(&w);
		ret = write_fired(&w);
	}
	fb_fired_free(&w.f);
	fb_rules_leave(epoch);
	return ret;
}

int fb_inject_rest(const struct fb_rule *r)
{
	uint64_t len = r->len < CHUNK ? r->len : CHUNK, c;
	struct fb_changes *ch = calloc(1, sizeof *ch);
	uint8_t *buf = malloc(len);
	int ret = -1;

	if (!ch || !buf)
		goto out;
	for (c = r->at; c < r->at + r->len; c += CHUNK) {
		uint64_t n = r->at + r->len - c < CHUNK ? r->at + r->len - c : CHUNK;

		if (fb_disk_pread(buf, n, c) < 0)
			goto out;
		fb_mutate(r, c, buf, n, ch);
		if (fb_disk_pwrite(buf, n, c) < 0)
			goto out;
		if (fb_writelog_active())
			fb_writelog_store(FB_OP_WRITE, FB_WLOG_REST, buf, n, c);
	}
	if (fb_disk_flush() < 0)
		goto out;
	log_fault(r, "rest", r->at, r->len, ch);
	ret = 0;
out:
	free(buf);
	free(ch);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/* flipbed: the armed rules, published RCU-style for the request path.
 *
 * The control thread builds a new immutable snapshot (rules sorted by
 * offset) for every change and swaps it in with one atomic store; request
 * threads read it without a lock. With no rules armed the pointer is NULL,
 * so the request path costs one atomic load (fb_rules_armed).
 */
#ifndef FLIPBED_RULESET_H
#define FLIPBED_RULESET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rule.h"

/* The request kinds rules are matched against. */
enum fb_op { FB_OP_READ, FB_OP_WRITE, FB_OP_ZERO, FB_OP_TRIM };

/* "read", "write", "zero" or "trim". */
const char *fb_op_name(enum fb_op op);

struct fb_armed {
	struct fb_rule rule;
	_Atomic uint64_t hits;	/* matching requests seen so far */
};

struct fb_snapshot {
	size_t n;
	struct fb_armed **rules;	/* sorted by rule.at */
	uint64_t *maxend;		/* maxend[i]: max(at + len) of rules[0..i] */
	size_t nstall;			/* how many of them are stall rules */
};

extern _Atomic(struct fb_snapshot *) fb_live;

static inline bool fb_rules_armed(void)
{
	return atomic_load_explicit(&fb_live, memory_order_acquire) != NULL;
}

/* Read side: everything between enter and leave may use the snapshot. */
struct fb_snapshot *fb_rules_enter(unsigned *epoch);
void fb_rules_leave(unsigned epoch);

/* The rules that fire for one request, in offset order. */
struct fb_fired {
	struct fb_armed **v;	/* local, or malloc'd when it outgrew it */
	size_t n, cap;
	struct fb_armed *local[32];
};

/* Fill f with the rules of snap that fire for this request: each rule of
 * the right kind overlapping [off, off + len) counts the request, and
 * fires unless it is still letting its first after= requests pass or has
 * used up its count=. A torn rule's kind is a write or zero longer than
 * its tear. Stall rules are left to fb_rules_fire_stalls. Returns f->n.
 * Call fb_fired_free afterwards.
 */
size_t fb_rules_fire(struct fb_snapshot *snap, enum fb_op op, uint64_t off,
		     uint64_t len, struct fb_fired *f);

/* The same for the stall rules alone, which act before the request is
 * served (snap->nstall says whether there are any).
 */
size_t fb_rules_fire_stalls(struct fb_snapshot *snap, enum fb_op op,
			    uint64_t off, uint64_t len, struct fb_fired *f);
void fb_fired_free(struct fb_fired *f);

/* Write side, serialised by the caller (the control thread or startup).
 * fb_rules_arm takes ownership of *r (also on failure), names it when it
 * has no id, and refuses an id already armed. Returns -1 with a reason.
 */
int fb_rules_arm(struct fb_rule *r, char *err, size_t errlen);
int fb_rules_del(const char *id);
void fb_rules_clear(void);

/* Disarm the rules that used up their count=. */
void fb_rules_prune(void);

/* The next free automatic id ("r1", "r2", ...) into id. */
void fb_rules_new_id(char id[FB_ID_MAX + 1]);

/* Calls fn for every armed rule in offset order. */
void fb_rules_foreach(void (*fn)(const struct fb_rule *r, void *opaque),
		      void *opaque);

#endif

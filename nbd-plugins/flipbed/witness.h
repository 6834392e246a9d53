/* SPDX-License-Identifier: MIT */
/* flipbed: the read witness. Which requests touched, after the fact, the
 * bytes a fault changed or a watch rule names.
 *
 * A watch covers one span of the disk: the bytes one fault changed, or
 * the range of one watch rule. Its first read and its first overwrite
 * (write, zero or trim) are logged as witness records; later ones are
 * counted and logged once, in a summary record, when the watch ends. The
 * bytes of a fault that a request stores in place are watched no more: a
 * fault's watch whose every byte was overwritten ends. A watch rule's
 * watch ends with the rule (del, clear) only.
 *
 * The spans are published RCU-style like the rules (ruleset.h): with
 * nothing watched the request path costs one atomic load
 * (fb_witness_armed), else a scan of at most FB_WITNESS_MAX spans.
 */
#ifndef FLIPBED_WITNESS_H
#define FLIPBED_WITNESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ruleset.h"

#define FB_WITNESS_MAX 256	/* spans watched at once */

struct fb_wsnap;
extern _Atomic(struct fb_wsnap *) fb_witness_live;

static inline bool fb_witness_armed(void)
{
	return atomic_load_explicit(&fb_witness_live,
				    memory_order_acquire) != NULL;
}

/* Watch [at, at + len) for fault seq of rule, or for the watch rule named
 * rule when fault is 0. A fault whose rule already watches that very span
 * adds nothing (the earlier fault's watch counts what follows). Returns
 * -1 when FB_WITNESS_MAX spans are watched already or memory is out.
 */
int fb_witness_add(uint64_t fault, const char *rule, uint64_t at,
		   uint64_t len);

/* End the watch of watch rule id, or of every watch rule (id NULL). */
void fb_witness_unwatch(const char *id);

/* A request of kind op on [off, off + len) reaches the disk: log it for
 * each watch it is the first read or overwrite of, count it for the
 * others. Returns true if it overlapped a watched span.
 */
bool fb_witness_see(enum fb_op op, uint64_t off, uint64_t len);

/* [off, off + len) was stored in place: watch the bytes faults changed
 * there no more.
 */
void fb_witness_stored(uint64_t off, uint64_t len);

/* End every watch (summaries go to the fault log) and free them. */
void fb_witness_close(void);

#endif

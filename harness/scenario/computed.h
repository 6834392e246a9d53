/* SPDX-License-Identifier: MIT */
/*
 * The expectation flipbed computes from a case's fault, whatever a
 * scenario writes: a fault that breaks a checksum the kernel verifies
 * (target.h's breaks_csum: bytes the checksum covers changed, not
 * resealed), that fired (the fault log has a record) and whose bytes the
 * guest read (outcome.fault_read), is detected by that checksum: the
 * case's first detection (the workload's, else the next-mount pass's) is
 * csum. Two lines of the scenario widen it, each with its reason:
 *   undetected = CAUSE           a cause from outcome.h's closed set:
 *                                 nothing may be detected, for that cause;
 *   checked-before-csum = FUNC   a kernel function from csum_first.h's
 *                                 table checks the object's structure first
 *                                 on the case's kernel: its class may be
 *                                 detected instead.
 * A written detect only narrows it: the case must satisfy both.
 */
#ifndef FLIPBED_COMPUTED_H
#define FLIPBED_COMPUTED_H

#include <stdbool.h>

#include "outcome.h"
#include "scenario/scenario.h"

struct fb_computed {
	bool on;		/* the case has one */
	char detect[64];	/* what the first detection may be: "csum", "csum|none" */
	char why[320];		/* the reasons, for the record */
	bool checked_first;	/* a checked-before-csum function widened it */
};

/*
 * The computed expectation of a case whose target is TYPE, on the kernel
 * whose variant-of chain is CHAIN (csum_first.h), under the written
 * (resolved) expectation E: BREAKS_CSUM, FIRED and READ as above.
 * RET->on is false when one of them is false.
 */
void fb_computed_expect(const struct fb_expect *e, const char *type, const char *const *chain,
			bool breaks_csum, bool fired, bool read, struct fb_computed *ret);

/*
 * Whether OUT satisfies C: its first detection (detect, or detect_next
 * when the workload detected nothing and the pass ran) is one of
 * C->detect. True when C is off. *RET_GOT names the detection judged.
 */
bool fb_computed_match(const struct fb_computed *c, const struct fb_outcome *out,
		       const char **ret_got);

/*
 * Whether S's fault, as written, changes bytes a checksum covers: a target
 * type with a checksum under metadata_csum, region covered or csum, not
 * resealed, an action that changes the bytes in place (flip, zero, ones,
 * random), and metadata_csum not turned off in [mkfs] features.
 */
bool fb_computed_static(const struct fb_scenario *s);

/*
 * Whether the written expectation E contradicts the computed one S's fault
 * has by fb_computed_static() on the kernel of CHAIN: detect (or, with
 * next-mount, detect_next) accepts none of the computed classes. WANT gets
 * the computed detect.
 */
bool fb_computed_contradicted(const struct fb_scenario *s, const struct fb_expect *e,
			      const char *const *chain, char *want, size_t len);

#endif

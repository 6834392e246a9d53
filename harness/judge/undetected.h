/* SPDX-License-Identifier: MIT */
/*
 * Why a fault went undetected: for a case whose workload and next-mount
 * pass both detected nothing, a cause from outcome.h's closed set, decided
 * from the plugin's fault log and read witness (was the changed span read
 * by the guest, or overwritten first?) and the corruptor's record of the
 * target (its type, resealed, whether its checksum covers the bytes).
 * A target with a "verify" list (an image run with no fault, run/badobj.h)
 * has the objects whose checksums failed before the boot for its fault:
 * their watch rules' witness records decide.
 */
#ifndef FLIPBED_UNDETECTED_H
#define FLIPBED_UNDETECTED_H

#include <jansson.h>
#include <stdbool.h>

#include "outcome.h"

/*
 * Whether the guest read bytes a fault changed: a fault applied in a read
 * (the kernel received it), or a witness "read" record of a fault before
 * any overwrite of it, on TARGET's bytes (its offset and length) for a
 * lost or misdirected write, whose span is the request's and may reach
 * past the object; anywhere in a torn write's unstored part.
 * *ret_overwritten: some fault's bytes were overwritten before they were
 * read. FAULTS and WITNESS are the case's arrays of fault-log records
 * (case.json "faults", "witness").
 */
bool fb_fault_was_read(const json_t *target, const json_t *faults, const json_t *witness,
		       bool *ret_overwritten);

/*
 * The cause for an undetected fault. TARGET is the case's target record
 * (type, reseal, offset, path), BREAKS_CSUM whether the change breaks a
 * checksum a kernel verifies (target.h), STEPS the case's step results
 * (text, result; may be NULL), BIO_READS the case record's "bio_reads"
 * (the guest's reads of the target, witness/bioread.h; may be NULL). Order:
 * what the witness saw first (never-read, overwritten-before-read: nothing
 * could have detected it), then what the object is (data-block,
 * redundant-copy-unused), then what the fault did (no-change, stale,
 * resealed, not-covered), then where the kernel's own code never verifies the bytes
 * it read (discarded-read, log-end, freed, read-ahead), else unexplained.
 */
enum fb_undetected fb_undetected_cause(const json_t *target, bool breaks_csum,
				       const json_t *faults, const json_t *witness,
				       const json_t *steps, const json_t *bio_reads);

#endif

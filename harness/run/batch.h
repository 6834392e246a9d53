/* SPDX-License-Identifier: MIT */
/*
 * Many cases in one boot: up to FB_VM_MAX_DISKS cases share a kernel, each
 * with its own disk, nbdkit, rules and transcript; a case that may have
 * changed the kernel for the next ends the boot, and the rest go on in a
 * fresh one (batch.c says which). Every case ends with the same record as
 * when it runs alone (runcase.h), with "vm": its boot, place and the
 * boot's size.
 */
#ifndef FLIPBED_BATCH_H
#define FLIPBED_BATCH_H

#include <stdbool.h>

#include "golden/golden.h"
#include "run/runcase.h"
#include "scenario/matrix.h"

/* Cases per boot unless --batch says otherwise. */
#define FB_BATCH_DEFAULT 7

/*
 * Whether the cases of scenario S may share a boot with others: not with
 * [scenario] batch = no, nor when a step changes the kernel for every
 * later case (set: a kernel knob) or cuts the power (crash).
 */
bool fb_batch_allowed(const struct fb_scenario *s);

/*
 * Run the N cases C[0..N-1] (one kernel) against golden images G[0..N-1],
 * their sockets in directories under PRIV. Writes each case's case.json;
 * returns 0, or -1 when some case could not be recorded.
 */
int fb_batch_run(const struct fb_case_spec *c, const struct fb_golden *g, int n,
		 const struct fb_run_opts *o, const char *priv);

#endif

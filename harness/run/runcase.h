/* SPDX-License-Identifier: MIT */
/*
 * One case, start to end: copy the golden image, find the target with the
 * corruptor library, serve the copy through nbdkit and the flipbed plugin,
 * boot the kernel with the agent, arm the fault at its point, then e2fsck
 * the result, compare user files with the golden manifest, classify the
 * transcript and judge against the expectation. Everything the case wrote
 * is in its directory; its record is case.json there.
 */
#ifndef FLIPBED_RUNCASE_H
#define FLIPBED_RUNCASE_H

#include <stdbool.h>

#include "golden/golden.h"
#include "scenario/matrix.h"

struct fb_run_opts {
	const char *outdir;	/* the run directory */
	bool keep;		/* keep every case image (else only failures) */
	bool verbose;		/* stream console and agent lines to stderr */
};

/*
 * Run case C against golden image G (built beforehand), with PRIV the
 * private directory for its sockets (made by the caller, who removes it;
 * NULL or "" when it could not be made, which is recorded as infra).
 * Writes OUTDIR/cases/<dir>/case.json and returns 0; -1 only when the case
 * directory could not be made or case.json not written. Exit code
 * semantics live in the record's verdict.
 */
int fb_case_run(const struct fb_case_spec *c, const struct fb_golden *g,
		const struct fb_run_opts *o, const char *priv);

/*
 * A case worker's guest slot (run.c): FD, the write end of its guest pipe,
 * is closed by fb_case_guest_done() once no QEMU of the worker's will start
 * again, so that the run starts the next worker's guest while this one
 * checks its images. Without a slot (FD -1, or not a worker), a no-op.
 */
void fb_case_guest_slot(int fd);
void fb_case_guest_done(void);

/* "inode/checksum:read@patched" -> "inode_checksum:read@patched" */
void fb_case_dirname(const char *name, char *buf, size_t len);

/* The repro command line of C (malloc'ed). */
char *fb_case_repro(const struct fb_case_spec *c);

#endif

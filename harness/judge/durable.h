/* SPDX-License-Identifier: MIT */
/*
 * What a workload made durable and when (durable.c): each step is
 * bracketed by barriers (a "wait" step flipbed crash adds before every
 * step and after the last) at which the host counts the flushes in the
 * write log, and from those counts and the steps the model says, for
 * every file and every flush point, which content the file must have
 * there, or that it may have several. A case uses the same model without
 * barriers: the content each file must have once the workload is done,
 * and, from the steps' results, what the workload saw made durable (the
 * files it was acknowledged for, fb_durable_acked).
 */
#ifndef FLIPBED_DURABLE_H
#define FLIPBED_DURABLE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "judge/manifest.h"

/* One content a path had: written by STEP (-1: the golden image's). */
struct fb_durable_version {
	int step;
	bool absent;
	uint64_t size, hash;
	bool synced;		/* this content reached the disk before a later step */
	bool partial;		/* a write-fd that failed: the pattern of any size from MIN_SIZE to SIZE */
	uint64_t min_size;
	/* with the steps' results (fb_durable_build_run), steps counted from 1: */
	int ack;		/* the step whose success made it durable; 0: none */
	int nack;		/* one that failed to before any succeeded; 0: none */
	int bad_read;		/* a read of it that failed while it was current; 0: none */
	char err[24];		/* the errno of nack */
	char read_err[24];	/* the errno of bad_read */
};

/* A step after which a version of the path was durable. */
struct fb_durable_point {
	int ver;
	int step;		/* -1: the golden image (flush point 0) */
};

struct fb_durable_path {
	char *path;
	bool untracked;		/* a step changed it in a way the model does not follow */
	char why[96];		/* the step that made it untracked */
	struct fb_durable_version *v;
	int nv;
	struct fb_durable_point *d;
	int nd;
	int held;		/* `open P` holds a descriptor of version HELD - 1; 0: none */
	bool named;		/* a step that writes named it */
};

struct fb_durable_model {
	struct fb_durable_path *p;
	int np, cap;
	int *slot;		/* the paths by name: an index into P, or -1 (durable.c) */
	int nslot;
	int nsteps;
	/*
	 * barrier[i], 0 <= i <= nsteps: the write log's flush count the host
	 * read while the guest waited before step i (i = nsteps: after the last
	 * step); -1 when the guest never got there.
	 */
	long *barrier;
	const char *const *results;	/* fb_durable_build_run: each step's result */
	int *ids;		/* and its enum step_id */
	bool mounted;		/* while building: /mnt is mounted (a read there counts) */
	int nown;		/* the scenario's own steps, the first NOWN */
};

/*
 * Build the model of STEPS (the scenario's workload) on the golden image's
 * files GOLDEN. -1 with WHY for a step the model cannot follow at all.
 */
int fb_durable_build(struct fb_durable_model *m, const struct fb_manifest *golden,
		     char *const *steps, int nsteps, char *why, size_t len);
void fb_durable_free(struct fb_durable_model *m);

/*
 * The model of a case's workload as it ran: RESULTS[i] is step i's result
 * ("ok" or an errno name). A step that succeeded counts whatever its
 * prefix (expect, may); one that failed changed nothing the model can
 * follow (its paths are untracked) and made nothing durable. Of the
 * NSTEPS steps the first NOWN are the scenario's: only their successes
 * acknowledge (the harness's probes and next-mount pass are not the
 * workload's).
 */
int fb_durable_build_run(struct fb_durable_model *m, const struct fb_manifest *golden,
			 char *const *steps, const char *const *results, int nsteps, int nown,
			 char *why, size_t len);

/*
 * Whether a step wrote, renamed or removed P, or named it in a write that
 * failed (else it is the golden image's: a directory renamed above it
 * leaves it to the golden comparison, which skips it).
 */
bool fb_durable_written(const struct fb_durable_path *p);

/*
 * What the workload was acknowledged for, judged on FOUND (FOUND[i]: what
 * the final image holds at m->p[i].path, fb_manifest_lookup). Appends one
 * {path, durable, result[, note]} object per path a step wrote to FILES;
 * returns the worst result of the acknowledged ones (changed, lost,
 * intact; not-checked when none was judged), the first bad one named in
 * DETAIL.
 */
enum fb_data fb_durable_acked(const struct fb_durable_model *m,
			      const struct fb_manifest_found *found, json_t *files,
			      char *detail, size_t len);

/*
 * Judge the files of IMAGE at flush point K. Appends one object per
 * tracked path to FILES; returns the number of paths that broke their
 * requirement (the first named in DETAIL), -1 when IMAGE could not be read.
 */
int fb_durable_judge(const struct fb_durable_model *m, long k, const struct fb_manifest *img,
		     json_t *files, char *detail, size_t len);

#endif

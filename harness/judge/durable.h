/* SPDX-License-Identifier: MIT */
/*
 * What a workload made durable and when (durable.c): each step is
 * bracketed by barriers (a "wait" step flipbed crash adds before every
 * step and after the last) at which the host counts the flushes in the
 * write log, and from those counts and the steps the model says, for
 * every file and every flush point, which content the file must have
 * there, or that it may have several. A case uses the same model without
 * barriers: the content each file must have once the workload is done.
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
};

struct fb_durable_model {
	struct fb_durable_path *p;
	int np;
	int nsteps;
	/*
	 * barrier[i], 0 <= i <= nsteps: the write log's flush count the host
	 * read while the guest waited before step i (i = nsteps: after the last
	 * step); -1 when the guest never got there.
	 */
	long *barrier;
};

/*
 * Build the model of STEPS (the scenario's workload) on the golden image's
 * files GOLDEN. -1 with WHY for a step the model cannot follow at all.
 */
int fb_durable_build(struct fb_durable_model *m, const struct fb_manifest *golden,
		     char *const *steps, int nsteps, char *why, size_t len);
void fb_durable_free(struct fb_durable_model *m);

/*
 * Judge the files of IMAGE at flush point K. Appends one object per
 * tracked path to FILES; returns the number of paths that broke their
 * requirement (the first named in DETAIL), -1 when IMAGE could not be read.
 */
int fb_durable_judge(const struct fb_durable_model *m, long k, const struct fb_manifest *img,
		     json_t *files, char *detail, size_t len);

#endif

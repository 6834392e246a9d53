/* SPDX-License-Identifier: MIT */
/*
 * flipbed crash: power cuts at the flush points of a fault-free workload.
 *
 * durable.c models what the workload made durable and when: each step is
 * bracketed by barriers (a "wait" step the command adds before every step
 * and after the last) at which the host counts the flushes in the write
 * log, and from those counts and the steps it says, for every file and
 * every flush point, which content the file must have there, or that it
 * may have several. wlogscan.c counts the flushes of a growing write log.
 */
#ifndef FLIPBED_CRASH_H
#define FLIPBED_CRASH_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "judge/manifest.h"

/* One content a path had: written by STEP (-1: the golden image's). */
struct crash_version {
	int step;
	bool absent;
	uint64_t size, hash;
	bool synced;		/* this content reached the disk before a later step */
};

/* A step after which a version of the path was durable. */
struct crash_durable {
	int ver;
	int step;		/* -1: the golden image (flush point 0) */
};

struct crash_path {
	char *path;
	bool untracked;		/* a step changed it in a way the model does not follow */
	char why[96];		/* the step that made it untracked */
	struct crash_version *v;
	int nv;
	struct crash_durable *d;
	int nd;
};

struct crash_model {
	struct crash_path *p;
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
int crash_model_build(struct crash_model *m, const struct fb_manifest *golden,
		      char *const *steps, int nsteps, char *why, size_t len);
void crash_model_free(struct crash_model *m);

/*
 * Judge the files of IMAGE at flush point K. Appends one object per
 * tracked path to FILES; returns the number of paths that broke their
 * requirement (the first named in DETAIL), -1 when IMAGE could not be read.
 */
int crash_model_judge(const struct crash_model *m, long k, const struct fb_manifest *img,
		      json_t *files, char *detail, size_t len);

/* A write log read as it grows: flushes and FUA writes counted so far. */
struct crash_wlog {
	int fd;
	uint64_t off;
	uint64_t image_size;
	long flushes, fua, records;
};

int crash_wlog_open(struct crash_wlog *w, const char *path);
/* Count the whole records appended since the last call. 0, or -1 (damaged). */
int crash_wlog_scan(struct crash_wlog *w);
void crash_wlog_close(struct crash_wlog *w);

#endif

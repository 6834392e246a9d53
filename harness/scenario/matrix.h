/* SPDX-License-Identifier: MIT */
/*
 * Cases: a scenario with every axis fixed (kernel, timing, reseal, …).
 * A matrix file (scenarios/matrix/NAME.mat) names scenarios and axes; each
 * scenario declares in its own [axes] which values it accepts, and the case
 * list is the product of the intersections. Format: scenarios/README.md.
 */
#ifndef FLIPBED_MATRIX_H
#define FLIPBED_MATRIX_H

#include "scenario/scenario.h"

struct fb_case_spec {
	char *name;		/* "inode/checksum:read:reseal@patched" */
	char *kernel;
	struct fb_scenario *scn;	/* loaded with the case's overrides */
	struct fb_entry *params;	/* the axis values of this case, then the --set
					   values (section.key=value) */
	int nparams;
};

struct fb_case_specs {
	struct fb_case_spec *v;
	int n;
};

struct fb_select {
	const char *group;	/* only scenarios in this group, or NULL */
	const char *filter;	/* fnmatch glob on case names, or NULL */
	const char *kernels;	/* space-separated kernels, or NULL for the default */
	int shard_k, shard_n;	/* keep case i (0-based) when i % n == k - 1; n = 0: all */
	const struct fb_entry *sets;	/* --set section.key=value, applied last */
	int nsets;
};

/*
 * Expand the matrix NAME (a path, or a name looked up as
 * scenarios/matrix/NAME.mat) into cases. Returns 0, or -1 after printing
 * "file:line: problem" lines.
 */
int fb_matrix_expand(const char *name, const struct fb_select *sel,
		     struct fb_case_specs *ret);

/* Cases for scenario files run as written, one per kernel. */
int fb_scenarios_expand(char *const files[], int nfiles,
			const struct fb_select *sel, struct fb_case_specs *ret);

void fb_case_spec_free(struct fb_case_spec *c);
void fb_case_specs_free(struct fb_case_specs *l);

/* Parse "section.key=value" (from --set) into E; 0 or -1 with a message. */
int fb_entry_parse_set(const char *arg, struct fb_entry *e);

#endif

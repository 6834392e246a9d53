/* SPDX-License-Identifier: MIT */
/*
 * A coverage kernel's sites and one case's use of them: what `flipbed
 * coverage` tabulates and what a guided campaign learns from (casecov.c).
 */
#ifndef FLIPBED_COVERAGE_CASECOV_H
#define FLIPBED_COVERAGE_CASECOV_H

#include <stdbool.h>
#include <stddef.h>

#include "coverage/gcov.h"
#include "coverage/sites.h"

/* A coverage kernel: its bundle (build/kernel/NAME/gcov), build id and sites. */
struct fb_cov_kernel {
	const char *name;
	char bundle[4096];
	char id[128];
	struct fb_site *sites;
	size_t nsites;
	int with_branch;	/* sites with a failure branch */
	char **files;		/* the site files' objects, "fs/ext4/inode" (NULL-terminated) */
};

/* One case at one site. */
struct fb_site_use {
	bool reached;		/* the check's line ran */
	bool failed;		/* its failure branch's first line with code ran */
	bool reported;		/* a report call of that branch ran */
	bool unmeasurable;	/* reached, and no line of its failure branch has
				   code (the compiler folded it into the jump:
				   a bare assignment, a jbd2_debug() compiled
				   out): gcov's line counts cannot tell */
};

/*
 * Load KERNEL: 0, or 2 after a one-line message starting "flipbed WHO: "
 * (not in kernels.ini, no coverage = gcov, not built, no site found).
 */
int fb_cov_kernel_load(const char *who, const char *kernel, struct fb_cov_kernel *k);
void fb_cov_kernel_free(struct fb_cov_kernel *k);

/* The kernels with coverage = gcov, ", "-separated, or "none". */
const char *fb_cov_kernel_names(char *buf, size_t len);

/* What counts C show at each of SITES (NSITES of them): USE, one per site. */
void fb_cov_use(const struct fb_site *sites, size_t nsites, const struct fb_cov *c,
		struct fb_site_use *use);

/*
 * Read the counters in GCOVDIR (a case's gcov/) into USE (one per site).
 * COV, when not NULL, gets every line and branch of both directories;
 * without it only the site files are read (faster). BUILD_ID is the
 * case's (its record's coverage.build_id): another than the kernel's is
 * refused, both named. 0, or -1 with WHY.
 */
int fb_cov_case(const struct fb_cov_kernel *k, const char *build_id, const char *gcovdir,
		struct fb_site_use *use, struct fb_cov *cov, char *why, size_t len);

#endif

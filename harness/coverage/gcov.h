/* SPDX-License-Identifier: MIT */
/*
 * A case's gcov counters as line and branch coverage of fs/ext4 and
 * fs/jbd2, by gcov itself: the case's .gcda files beside the kernel's
 * .gcno files (build/kernel/NAME/gcov/, kept by kernel/build.sh), then
 * `gcov --json-format --stdout --branch-probabilities`, run bounded (the
 * counters are guest-made). Only the .c files of the two directories are
 * kept; a header's lines belong to every object that includes it.
 */
#ifndef FLIPBED_COVERAGE_GCOV_H
#define FLIPBED_COVERAGE_GCOV_H

#include <stdbool.h>
#include <stdio.h>

struct fb_cov_file {
	char name[48];		/* "fs/ext4/inode.c" */
	int nlines;		/* lines 1..nlines - 1 */
	long long *count;	/* per line; -1: no code on the line */
	int nbr;		/* branches, in gcov's order (the same for one build) */
	int *br_line;
	long long *br;
};

struct fb_cov {
	struct fb_cov_file *f;
	size_t n;
};

/*
 * The kernel's bundle BUNDLE (build/kernel/NAME/gcov): its build id in
 * ID, 0, or -1 with WHY.
 */
int fb_gcov_bundle_id(const char *bundle, char *id, size_t idlen, char *why, size_t len);

/*
 * Read the case's counters (its GCOVDIR, CASE/gcov) against BUNDLE into
 * *COV (emptied first): every object's, or only those ONLY names
 * ("fs/ext4/inode", NULL-terminated). 0, or -1 with WHY. A .gcda whose
 * stamp is not its .gcno's (another build) is refused, both stamps named.
 */
int fb_gcov_read_case(const char *bundle, const char *gcovdir, const char *const *only,
		      struct fb_cov *cov, char *why, size_t len);

/* Add C's counts to SUM (same build: the same files, lines and branches). */
void fb_cov_add(struct fb_cov *sum, const struct fb_cov *c);

/* The count of FILE:LINE, or -1 when the line has no code (or no such file). */
long long fb_cov_line(const struct fb_cov *c, const char *file, int line);

/*
 * The first line of FILE from FIRST to LAST that has code: its count in
 * *COUNT, the line returned; 0 when none has.
 */
int fb_cov_first_code(const struct fb_cov *c, const char *file, int first, int last,
		      long long *count);

/* An lcov tracefile of C, with SRC/FILE as each file's path (genhtml's input). */
void fb_cov_write_info(const struct fb_cov *c, const char *src, FILE *out);

void fb_cov_free(struct fb_cov *c);

#endif

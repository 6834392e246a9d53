/* SPDX-License-Identifier: MIT */
/*
 * The host side of the agent's coverage lines (guest/gcov.c): a case on a
 * coverage kernel hands back its gcov counters, one .gcda file per object
 * of fs/ext4 and fs/jbd2, which land in the case directory as
 * gcov/fs/ext4/NAME.gcda. The guest is not trusted: every path, size,
 * base64 character and hash is checked, and the whole is bounded
 * (FB_GCOV_MAX_FILES files of at most FB_GCOV_MAX_BYTES in all). The
 * first line that breaks a rule ends the transfer, and the case record
 * says why ("coverage": status "refused").
 */
#ifndef FLIPBED_COVERAGE_RECEIVE_H
#define FLIPBED_COVERAGE_RECEIVE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#define FB_GCOV_MAX_FILES 256
#define FB_GCOV_MAX_BYTES (64u << 20)

struct fb_gcov_recv {
	char dir[4096];		/* where the files go: CASE/gcov */
	bool wanted;		/* the kernel is a coverage kernel */
	enum { GCOV_WAITING, GCOV_DONE, GCOV_UNAVAILABLE, GCOV_REFUSED } state;
	char build_id[96];	/* the guest's kernel's, or "" */
	char why[256];		/* UNAVAILABLE or REFUSED: why */
	int files;		/* complete files */
	unsigned long long bytes;
	/* the file being received */
	FILE *f;
	char rel[96];		/* "fs/ext4/super.gcda" */
	unsigned long long size, got, hash;
};

/* Start for a case whose directory is CASE_DIR. */
void fb_gcov_recv_init(struct fb_gcov_recv *r, const char *case_dir, bool wanted);

/* 1 if LINE was a coverage line (taken, or refused), 0 if not one. */
int fb_gcov_recv_line(struct fb_gcov_recv *r, const char *line);

/*
 * The case's "coverage" record: status "ok" (build_id, files, bytes),
 * "unavailable" or "refused" (why), "missing" when the boot ended before
 * the counters came; NULL when none were asked for.
 */
json_t *fb_gcov_recv_json(struct fb_gcov_recv *r);

/* Close what is open; a partial file is removed. */
void fb_gcov_recv_end(struct fb_gcov_recv *r);

/* Base64 (RFC 4648, with padding) to bytes: the count, or -1. */
long fb_base64_decode(const char *in, unsigned char *out, size_t cap);

#endif

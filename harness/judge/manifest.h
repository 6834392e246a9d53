/* SPDX-License-Identifier: MIT */
/*
 * User data survival: the regular files of an image with their sizes and
 * content digests, read through libext2fs (inline data, extents and holes
 * alike), and the comparison of a case's image against its golden one.
 */
#ifndef FLIPBED_MANIFEST_H
#define FLIPBED_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>

#include "judge/limits.h"

#include "outcome.h"

struct fb_manifest_entry {
	char *path;		/* "/d/small", as the guest sees it */
	uint64_t size;
	uint64_t hash;
};

struct fb_manifest {
	struct fb_manifest_entry *v;
	int n;
	bool replayed;		/* built after replaying the image's journal */
};

/*
 * Limits on what the host reads of a guest-made image: a file's digest
 * covers at most its first FB_MANIFEST_READ_MAX bytes, and building or
 * comparing a manifest gives up after fb_oracle_seconds().
 */
#define FB_MANIFEST_READ_MAX (256ull << 20)


/*
 * The golden manifest's file name in a cached golden image's directory.
 * Its number changes whenever what a digest covers changes, so that a
 * golden image cached by an older flipbed gets a new manifest. Version 2:
 * a file's first min(size, FB_MANIFEST_READ_MAX) bytes (libext2fs returns
 * the whole 60 bytes of i_block for an inline file; version 1 hashed them).
 */
#define FB_MANIFEST_FILE "manifest-3.txt"

/*
 * Every regular file of IMAGE. 0, or -1 with a reason in WHY. An image
 * whose journal needs recovery is read as the kernel will see it: from a
 * copy (IMAGE.replay-PID) on which `e2fsck -E journal_only` replayed the
 * journal, and ret->replayed says so. Version 3 of the file: a first line
 * "# after journal replay" when it was; a given image that needs recovery
 * read by version 2 without the replay.
 */
int fb_manifest_build(const char *image, struct fb_manifest *ret, char *why, size_t len);
int fb_manifest_save(const struct fb_manifest *m, const char *file);
int fb_manifest_load(const char *file, struct fb_manifest *ret);
void fb_manifest_free(struct fb_manifest *m);

/*
 * Compare IMAGE's files against M, ignoring paths in SKIP (files the workload
 * itself changes) and anything below them. RET: intact, lost (missing or
 * unreadable) or changed (another size or content); DETAIL names the first
 * file that is not intact. -1 when it ran past fb_oracle_seconds() (RET is
 * then not-checked and DETAIL says so), else 0.
 */
int fb_manifest_compare(const struct fb_manifest *m, const char *image,
			char *const skip[], int nskip, enum fb_data *ret,
			char *detail, size_t len);

/*
 * A file the workload itself wrote, renamed or removed, with the content it
 * must have when the workload ended cleanly: ABSENT, or SIZE bytes whose
 * digest (as fb_manifest_build's) is HASH.
 */
struct fb_manifest_want {
	const char *path;
	bool absent;
	uint64_t size, hash;
};

/*
 * Check IMAGE's files against the N wants W: RET intact, lost (a wanted file
 * missing or unreadable) or changed (another size or content, or a file
 * that should be gone still there); DETAIL names the first. -1 when it ran
 * past fb_oracle_seconds(), else 0.
 */
int fb_manifest_check(const struct fb_manifest_want *w, int n, const char *image,
		      enum fb_data *ret, char *detail, size_t len);

/* What an image holds at a path. */
struct fb_manifest_found {
	enum { FB_FOUND_NOT_CHECKED, FB_FOUND_ABSENT, FB_FOUND_UNREADABLE,
	       FB_FOUND_FILE } state;
	uint64_t size, hash;	/* FB_FOUND_FILE: as fb_manifest_build's */
};

/*
 * Look the N PATHS up in IMAGE: RET[i] says what it holds at PATHS[i] (a
 * NULL path is left not-checked). -1 with DETAIL when the image cannot be
 * opened or the lookups ran past fb_oracle_seconds() (the rest of RET then
 * not-checked), else 0.
 */
int fb_manifest_lookup(char *const *paths, int n, const char *image,
		       struct fb_manifest_found *ret, char *detail, size_t len);

#endif

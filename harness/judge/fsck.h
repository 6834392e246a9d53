/* SPDX-License-Identifier: MIT */
/*
 * Reading e2fsck -n's output, not only its exit status. e2fsprogs (1.47.0,
 * and master in 2026) resets its "filesystem valid" flag after the
 * superblock and group-descriptor checks (e2fsck/unix.c, the
 * ext2fs_mark_valid() after check_super_block()), so a problem found
 * there and declined by -n leaves the exit status 0: a bad group
 * descriptor checksum prints "Group descriptor 0 checksum is 0x0000,
 * should be 0x937b.  IGNORED." and exits 0. Problems its table flags
 * PR_NO_OK exit 0 too; a few of those are not damage at all (the
 * superblock's free counts, which the kernel recomputes at mount and
 * leaves stale after a crash; a time in the future; an extent tree that
 * could be narrower), and are not counted.
 */
#ifndef FLIPBED_FSCK_H
#define FLIPBED_FSCK_H

#include <stddef.h>

#define FB_FSCK_LINE 160	/* a problem line is kept to this many bytes */

/*
 * The problem lines of one e2fsck -n run's output TEXT (LEN bytes): every
 * line but the pass headers, the final summary, the version banner,
 * flipbed's own "$ e2fsck"/"# exit" lines, a bare answer ("Fix? no") and
 * the not-damage problems above. The first MAX go to LINES (NUL-ended,
 * cut at FB_FSCK_LINE - 1 bytes, control bytes replaced); returns how many
 * there are in all.
 */
int fb_fsck_problems(const char *text, size_t len, char (*lines)[FB_FSCK_LINE], int max);

#endif

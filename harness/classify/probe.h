/* SPDX-License-Identifier: MIT */
/*
 * The read-only probe: the step the runner appends to every workload, and
 * how the classifier recognises it. A one-byte xattr on the root directory
 * needs no new inode and, with 256-byte inodes, no new block: only a
 * filesystem that is read-only (EROFS) refuses it, where a new file could
 * fail first for other reasons (ENOSPC when the inode bitmap is condemned).
 */
#ifndef FLIPBED_PROBE_H
#define FLIPBED_PROBE_H

#define FB_PROBE_STEP "may setxattr / user.flipbed-probe 1"
#define FB_PROBE_MARK "setxattr / user.flipbed-probe"

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The probes: the two steps the runner appends to every workload, and how
 * the classifier recognises them.
 *
 * The write probe: a one-byte xattr on the root directory needs no new
 * inode and, with 256-byte inodes, no new block: only a filesystem that is
 * read-only (EROFS) refuses it, where a new file could fail first for other
 * reasons (ENOSPC when the inode bitmap is condemned).
 *
 * The read probe, after it: the same xattr read back. It lives in the root
 * inode, which the mount read and keeps cached, so it reads nothing the
 * fault can have reached; it answers the value or ENODATA (the write was
 * refused). Only a filesystem that has shut down fails it with EIO, as
 * 6.12 does on an error under errors=remount-ro (every read and write
 * fails with EIO, the mount stays rw): reaction `shutdown`.
 */
#ifndef FLIPBED_PROBE_H
#define FLIPBED_PROBE_H

#define FB_PROBE_STEP "may setxattr / user.flipbed-probe 1"
#define FB_PROBE_MARK "setxattr / user.flipbed-probe"
#define FB_PROBE_READ_STEP "may getxattr / user.flipbed-probe"
#define FB_PROBE_READ_MARK "getxattr / user.flipbed-probe"

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Many paths of an ext4 image to their inodes, each directory read once
 * (resolve.c). The data oracle looks up every file of a manifest: one
 * ext2fs_namei() per path reads a directory once per name in it, so a
 * directory of N files costs N^2 name comparisons (4,000 files: over a
 * second of CPU per case). fb_resolve_paths() gives every path what
 * ext2fs_namei(fs, root, root, path, &ino) gives it, reading each parent
 * directory once.
 */
#ifndef FLIPBED_RESOLVE_H
#define FLIPBED_RESOLVE_H

#include <ext2fs/ext2fs.h>

/*
 * PATHS[0..N-1] (absolute, "/d/name"; NULL entries are skipped) of FS:
 * INO[i] and ERR[i] as ext2fs_namei() would set and return them (ERR[i]
 * 0 with INO[i] the inode, or EXT2_ET_FILE_NOT_FOUND, or the error that
 * reading a directory on the way met).
 */
void fb_resolve_paths(ext2_filsys fs, const char *const *paths, int n, ext2_ino_t *ino,
		      errcode_t *err);

#endif

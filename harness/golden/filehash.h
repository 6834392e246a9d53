/* SPDX-License-Identifier: MIT */
/*
 * A 64-bit content hash of a file, holes read as zeros: what a golden
 * image held when it was built, compared after every case that used it
 * (golden.c), so that a write to the cache is caught.
 */
#ifndef FLIPBED_FILEHASH_H
#define FLIPBED_FILEHASH_H

#include <stdint.h>

/* FNV-1a over PATH's 8-byte words, then its last size % 8 bytes. 0, or -1 with errno. */
int fb_file_hash(const char *path, uint64_t *ret);

#endif

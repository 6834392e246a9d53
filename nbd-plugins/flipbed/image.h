/* SPDX-License-Identifier: MIT */
/* flipbed: the backing image file, shared by every connection.
 *
 * All functions return 0 or -1 with errno set; none of them applies rules.
 */
#ifndef FLIPBED_PLUGIN_IMAGE_H
#define FLIPBED_PLUGIN_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

struct nbdkit_extents;

int fp_image_open(const char *path);
void fp_image_close(void);
uint64_t fp_image_size(void);
bool fp_image_writable(void);

/*
 * The control socket's freeze: from now on the image keeps what it holds.
 * The plugin then acknowledges writes, zeroes, trims and flushes without
 * applying them, and serves reads as the image holds them, through no
 * rule and no witness: the guest's disk is over, as at a power cut, while
 * the guest winds down.
 */
void fp_image_freeze(void);
bool fp_image_frozen(void);

int fp_image_pread(void *buf, uint64_t len, uint64_t off);
int fp_image_pwrite(const void *buf, uint64_t len, uint64_t off);
int fp_image_flush(void);

/* Make [off, off + len) read as zeros: punch a hole when may_trim, else
 * zero the range in place, else write zeros ourselves.
 */
int fp_image_zero(uint64_t len, uint64_t off, bool may_trim);

/* Punch a hole; a file system that cannot leaves the data (trim is a hint). */
int fp_image_trim(uint64_t len, uint64_t off);

/* Data and hole extents from SEEK_DATA / SEEK_HOLE. */
int fp_image_extents(uint64_t len, uint64_t off, bool req_one,
		     struct nbdkit_extents *extents);

#endif

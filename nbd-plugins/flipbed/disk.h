/* SPDX-License-Identifier: MIT */
/* flipbed: the disk, the image file the plugin serves, shared by every
 * connection.
 *
 * All functions return 0 or -1 with errno set; none of them applies rules.
 */
#ifndef FLIPBED_PLUGIN_DISK_H
#define FLIPBED_PLUGIN_DISK_H

#include <stdbool.h>
#include <stdint.h>

struct nbdkit_extents;

int fb_disk_open(const char *path);
void fb_disk_close(void);
uint64_t fb_disk_size(void);
bool fb_disk_writable(void);

/*
 * The control socket's freeze: from now on the disk keeps what it holds.
 * The plugin then acknowledges writes, zeroes, trims and flushes without
 * applying them, and serves reads as the disk holds them, through no
 * rule and no witness: the guest's disk is over, as at a power cut, while
 * the guest winds down.
 */
void fb_disk_freeze(void);
bool fb_disk_frozen(void);

int fb_disk_pread(void *buf, uint64_t len, uint64_t off);
int fb_disk_pwrite(const void *buf, uint64_t len, uint64_t off);
int fb_disk_flush(void);

/* Make [off, off + len) read as zeros: punch a hole when may_trim, else
 * zero the range in place, else write zeros ourselves.
 */
int fb_disk_zero(uint64_t len, uint64_t off, bool may_trim);

/* Punch a hole; a file system that cannot leaves the data (trim is a hint). */
int fb_disk_trim(uint64_t len, uint64_t off);

/* Data and hole extents from SEEK_DATA / SEEK_HOLE. */
int fb_disk_extents(uint64_t len, uint64_t off, bool req_one,
		    struct nbdkit_extents *extents);

#endif

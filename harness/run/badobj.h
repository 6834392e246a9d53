/* SPDX-License-Identifier: MIT */
/*
 * The objects of an image from elsewhere whose checksums fail, found with
 * the corruptor's verify (corruptor/flipbed-ext4.h) and a libext2fs scan
 * of the inodes not in use, as the read witness's watch rules: a case that runs such an image with no fault of its own
 * (`flipbed image`) watches them as a fault's bytes are watched, and the
 * undetected cause (judge/undetected.h) takes them for its fault.
 */
#ifndef FLIPBED_BADOBJ_H
#define FLIPBED_BADOBJ_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Objects watched at most. The image is hostile input: it may fail every
 * checksum it has; the plugin watches FB_WITNESS_MAX spans, and a case
 * holds FB_TARGET_MAX_RULES rules.
 */
#define FB_BADOBJ_MAX 64

/*
 * Verify IMAGE: *RET a new object {"failed": N, "objects": [...],
 * "unwatched": M, "free_inodes": "complete" or why the scan stopped}, the
 * first MAX failing objects (map order, then the free inodes), each
 * {"id": "badK", "type", "verdict": "bad"|"unverifiable", "ino", "group",
 * "path", "pblk", "offset", "length", "note": null|"not in use",
 * "watched"}, and M of them not watched: the N - MAX left out, and those
 * not within the image.
 * 0, or -1 with the reason in WHY (libext2fs cannot open it).
 */
int fb_badobj_find(const char *image, size_t max, json_t **ret, char *why, size_t len);

/* One line per object of a fb_badobj_find() result, and the unwatched count. */
void fb_badobj_print(FILE *f, const json_t *verify);

#endif

/* SPDX-License-Identifier: MIT */
/* flipbed: the write log's binary format, shared by the plugin
 * (writelog.c) and flipbed-replay (replay.c). The format is described
 * byte by byte in flipbed-replay.pod (WRITE LOG FORMAT).
 *
 * A log is a 64-byte header, then records in the order they were stored,
 * each a 48-byte header followed, for a write, by its data. Every number
 * is little-endian. Each header ends with a check: the low 32 bits of
 * XXH64 (seed 0) of the header's bytes before it.
 *
 * Pure code like rule.c: no nbdkit, no I/O.
 */
#ifndef FLIPBED_WLOG_H
#define FLIPBED_WLOG_H

#include <stddef.h>
#include <stdint.h>

#define FB_WLOG_MAGIC "FLIPBEDW"	/* 8 bytes, no NUL */
#define FB_WLOG_VERSION 1
#define FB_WLOG_HEADER_SIZE 64
#define FB_WLOG_RECORD_SIZE 48
#define FB_WLOG_DATA_MAX (64u << 20)	/* data bytes of one write record */
#define FB_WLOG_EXTENT_MAX UINT32_MAX	/* bytes one zero or trim covers */

enum fb_wlog_type {
	FB_WLOG_WRITE = 1,	/* data follows */
	FB_WLOG_ZERO = 2,
	FB_WLOG_TRIM = 3,
	FB_WLOG_FLUSH = 4,	/* offset and length 0 */
};

/* Record flags. */
#define FB_WLOG_FUA 1		/* the request had FUA */
#define FB_WLOG_MAY_TRIM 2	/* a zero the client let become a hole */
#define FB_WLOG_FAULT 4		/* a piece of a request rules changed */
#define FB_WLOG_REST 8		/* an on=rest rule's change, not a request */
#define FB_WLOG_FLAGS 15	/* every flag version 1 knows */

struct fb_wlog_header {
	uint32_t version;
	uint64_t image_size;
	uint64_t image_hash;	/* XXH64, seed 0, of the image at start */
};

struct fb_wlog_record {
	uint32_t size;		/* FB_WLOG_RECORD_SIZE + the data's bytes */
	uint16_t type;		/* enum fb_wlog_type */
	uint16_t flags;
	uint64_t seq;		/* 1, 2, 3 ... without gaps */
	uint64_t ns;		/* CLOCK_MONOTONIC, as the fault log's "ns" */
	uint64_t offset;
	uint64_t length;	/* bytes of the image it covers */
};

void fb_wlog_header_encode(uint8_t out[FB_WLOG_HEADER_SIZE],
			   const struct fb_wlog_header *h);

/* Returns -1 with a reason in err when in is not a version 1 header. */
int fb_wlog_header_decode(const uint8_t in[FB_WLOG_HEADER_SIZE],
			  struct fb_wlog_header *h, char *err, size_t errlen);

void fb_wlog_record_encode(uint8_t out[FB_WLOG_RECORD_SIZE],
			   const struct fb_wlog_record *r);

/* Decode and check a record header: its check, type, flags, size and
 * bounds, and that it lies inside an image of image_size bytes. Returns
 * -1 with a reason in err.
 */
int fb_wlog_record_decode(const uint8_t in[FB_WLOG_RECORD_SIZE],
			  uint64_t image_size, struct fb_wlog_record *r,
			  char *err, size_t errlen);

/* "write", "zero", "trim", "flush", or "?" for another number. */
const char *fb_wlog_type_name(unsigned type);

/* XXH64, streamed: init, update any number of times, digest. */
struct fb_xxh64 {
	uint64_t v[4];
	uint64_t total;
	uint8_t buf[32];
	size_t used;
	uint64_t seed;
};

void fb_xxh64_init(struct fb_xxh64 *s, uint64_t seed);
void fb_xxh64_update(struct fb_xxh64 *s, const void *p, size_t n);
uint64_t fb_xxh64_digest(const struct fb_xxh64 *s);
uint64_t fb_xxh64(const void *p, size_t n, uint64_t seed);

#endif

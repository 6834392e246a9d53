// SPDX-License-Identifier: MIT
/* flipbed: the write log's format and XXH64 (see wlog.h). XXH64 is
 * written here from its specification (xxHash's doc/xxhash_spec.md) so
 * that the plugin and the replay tool need no library for it.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "wlog.h"

#define P1 UINT64_C(0x9E3779B185EBCA87)
#define P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define P3 UINT64_C(0x165667B19E3779F9)
#define P4 UINT64_C(0x85EBCA77C2B2AE63)
#define P5 UINT64_C(0x27D4EB2F165667C5)

static uint64_t rotl(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

/* Little-endian loads; memcpy lets the compiler make each one load. */
static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof v);
	return le64toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return le32toh(v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint64_t round64(uint64_t acc, uint64_t input)
{
	return rotl(acc + input * P2, 31) * P1;
}

static uint64_t merge(uint64_t acc, uint64_t v)
{
	return (acc ^ round64(0, v)) * P1 + P4;
}

void fb_xxh64_init(struct fb_xxh64 *s, uint64_t seed)
{
	memset(s, 0, sizeof *s);
	s->seed = seed;
	s->v[0] = seed + P1 + P2;
	s->v[1] = seed + P2;
	s->v[2] = seed;
	s->v[3] = seed - P1;
}

static void stripe(uint64_t v[4], const uint8_t *p)
{
	v[0] = round64(v[0], get64(p));
	v[1] = round64(v[1], get64(p + 8));
	v[2] = round64(v[2], get64(p + 16));
	v[3] = round64(v[3], get64(p + 24));
}

void fb_xxh64_update(struct fb_xxh64 *s, const void *data, size_t n)
{
	const uint8_t *p = data;

	s->total += n;
	if (s->used) {
		size_t take = 32 - s->used < n ? 32 - s->used : n;

		memcpy(s->buf + s->used, p, take);
		s->used += take;
		p += take;
		n -= take;
		if (s->used < 32)
			return;
		stripe(s->v, s->buf);
		s->used = 0;
	}
	for (; n >= 32; p += 32, n -= 32)
		stripe(s->v, p);
	memcpy(s->buf, p, n);
	s->used = n;
}

uint64_t fb_xxh64_digest(const struct fb_xxh64 *s)
{
	const uint8_t *p = s->buf;
	size_t n = s->used;
	uint64_t h;

	if (s->total >= 32) {
		h = rotl(s->v[0], 1) + rotl(s->v[1], 7) + rotl(s->v[2], 12) +
		    rotl(s->v[3], 18);
		h = merge(h, s->v[0]);
		h = merge(h, s->v[1]);
		h = merge(h, s->v[2]);
		h = merge(h, s->v[3]);
	} else {
		h = s->seed + P5;
	}
	h += s->total;
	for (; n >= 8; p += 8, n -= 8)
		h = rotl(h ^ round64(0, get64(p)), 27) * P1 + P4;
	if (n >= 4) {
		h = rotl(h ^ (uint64_t)get32(p) * P1, 23) * P2 + P3;
		p += 4;
		n -= 4;
	}
	for (; n > 0; p++, n--)
		h = rotl(h ^ *p * P5, 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

uint64_t fb_xxh64(const void *p, size_t n, uint64_t seed)
{
	struct fb_xxh64 s;

	fb_xxh64_init(&s, seed);
	fb_xxh64_update(&s, p, n);
	return fb_xxh64_digest(&s);
}

static uint32_t check(const uint8_t *p, size_t n)
{
	return (uint32_t)fb_xxh64(p, n, 0);
}

static int fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -1;
}

void fb_wlog_header_encode(uint8_t out[FB_WLOG_HEADER_SIZE],
			   const struct fb_wlog_header *h)
{
	memset(out, 0, FB_WLOG_HEADER_SIZE);
	memcpy(out, FB_WLOG_MAGIC, 8);
	put32(out + 8, h->version);
	put32(out + 12, FB_WLOG_HEADER_SIZE);
	put64(out + 16, h->image_size);
	put64(out + 24, h->image_hash);
	put32(out + 32, FB_WLOG_RECORD_SIZE);
	put32(out + 36, FB_WLOG_DATA_MAX);
	put32(out + 60, check(out, 60));
}

int fb_wlog_header_decode(const uint8_t in[FB_WLOG_HEADER_SIZE],
			  struct fb_wlog_header *h, char *err, size_t errlen)
{
	if (memcmp(in, FB_WLOG_MAGIC, 8) != 0)
		return fail(err, errlen, "not a flipbed write log (no "
			    "FLIPBEDW magic)");
	h->version = get32(in + 8);
	if (h->version != FB_WLOG_VERSION) {
		snprintf(err, errlen, "write log version %" PRIu32 " (this "
			 "program reads version %d)", h->version,
			 FB_WLOG_VERSION);
		return -1;
	}
	if (get32(in + 60) != check(in, 60))
		return fail(err, errlen, "the log's header is damaged (its "
			    "check does not match)");
	if (get32(in + 12) != FB_WLOG_HEADER_SIZE ||
	    get32(in + 32) != FB_WLOG_RECORD_SIZE ||
	    get32(in + 36) != FB_WLOG_DATA_MAX)
		return fail(err, errlen, "the log's header gives sizes "
			    "version 1 does not have");
	h->image_size = get64(in + 16);
	h->image_hash = get64(in + 24);
	return 0;
}

void fb_wlog_record_encode(uint8_t out[FB_WLOG_RECORD_SIZE],
			   const struct fb_wlog_record *r)
{
	put32(out, r->size);
	put16(out + 4, r->type);
	put16(out + 6, r->flags);
	put64(out + 8, r->seq);
	put64(out + 16, r->ns);
	put64(out + 24, r->offset);
	put64(out + 32, r->length);
	put32(out + 40, 0);
	put32(out + 44, check(out, 44));
}

const char *fb_wlog_type_name(unsigned type)
{
	static const char *const names[] = {
		[FB_WLOG_WRITE] = "write", [FB_WLOG_ZERO] = "zero",
		[FB_WLOG_TRIM] = "trim", [FB_WLOG_FLUSH] = "flush",
	};

	return type >= FB_WLOG_WRITE && type <= FB_WLOG_FLUSH ?
	       names[type] : "?";
}

int fb_wlog_record_decode(const uint8_t in[FB_WLOG_RECORD_SIZE],
			  uint64_t image_size, struct fb_wlog_record *r,
			  char *err, size_t errlen)
{
	uint64_t data;

	if (get32(in + 44) != check(in, 44))
		return fail(err, errlen, "damaged record header (its check "
			    "does not match)");
	r->size = get32(in);
	r->type = get16(in + 4);
	r->flags = get16(in + 6);
	r->seq = get64(in + 8);
	r->ns = get64(in + 16);
	r->offset = get64(in + 24);
	r->length = get64(in + 32);
	if (r->type < FB_WLOG_WRITE || r->type > FB_WLOG_FLUSH) {
		snprintf(err, errlen, "unknown record type %u", r->type);
		return -1;
	}
	if (r->flags & ~FB_WLOG_FLAGS) {
		snprintf(err, errlen, "unknown record flags 0x%x",
			 r->flags & ~FB_WLOG_FLAGS);
		return -1;
	}
	data = r->type == FB_WLOG_WRITE ? r->length : 0;
	if (r->type == FB_WLOG_FLUSH && (r->offset || r->length))
		return fail(err, errlen, "a flush record with an offset or "
			    "a length");
	if (r->type != FB_WLOG_FLUSH && r->length == 0)
		return fail(err, errlen, "a record of 0 bytes");
	if ((r->type == FB_WLOG_WRITE && r->length > FB_WLOG_DATA_MAX) ||
	    r->length > FB_WLOG_EXTENT_MAX) {
		snprintf(err, errlen, "a %s record of %" PRIu64 " bytes (at "
			 "most %u)", fb_wlog_type_name(r->type), r->length,
			 r->type == FB_WLOG_WRITE ? FB_WLOG_DATA_MAX :
			 FB_WLOG_EXTENT_MAX);
		return -1;
	}
	if (r->size != FB_WLOG_RECORD_SIZE + data) {
		snprintf(err, errlen, "record size %" PRIu32 " for a %s of "
			 "%" PRIu64 " bytes", r->size,
			 fb_wlog_type_name(r->type), r->length);
		return -1;
	}
	if (r->offset > image_size || r->length > image_size - r->offset) {
		snprintf(err, errlen, "a %s at %" PRIu64 " of %" PRIu64
			 " bytes, outside the image (%" PRIu64 " bytes)",
			 fb_wlog_type_name(r->type), r->offset, r->length,
			 image_size);
		return -1;
	}
	return 0;
}

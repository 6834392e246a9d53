// SPDX-License-Identifier: MIT
/*
 * File contents the agent writes and later verifies: every 8-byte word is a
 * hash of the file's path and the word's offset, so a byte read back can be
 * checked wherever it lies, whatever size the writes had, and a block that
 * landed in another file (or at another offset) does not match.
 */
#include <string.h>

#include "agent.h"

uint64_t fnv1a(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* splitmix64's finaliser: neighbouring offsets give unrelated words. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void pattern_fill(const char *path, uint64_t off, unsigned char *buf, size_t len)
{
	uint64_t seed = fnv1a(FNV1A_INIT, path, strlen(path));
	uint64_t word = 0, at = UINT64_MAX;

	for (size_t i = 0; i < len; i++) {
		uint64_t o = off + i;

		if (o >> 3 != at) {
			at = o >> 3;
			word = mix(seed ^ at);
		}
		buf[i] = word >> (8 * (o & 7));
	}
}

// SPDX-License-Identifier: MIT
/* Problem lines of e2fsck -n output (fsck.h). */
#include <stdbool.h>
#include <string.h>

#include "judge/fsck.h"

static bool starts(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);

	return n >= k && !memcmp(s, p, k);
}

static bool has(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return true;
	return false;
}

/* "IMAGE: 11/4096 files (9.1% non-contiguous), 1291/4096 blocks" */
static bool summary(const char *s, size_t n)
{
	return has(s, n, " files (") && has(s, n, "non-contiguous), ") &&
	       n > 7 && !memcmp(s + n - 7, " blocks", 7);
}

/* A bare answer to the problem on the line before: "Fix? no", "Clear? no" */
static bool answer(const char *s, size_t n)
{
	size_t q = 0;

	while (q < n && s[q] != '?')
		if (s[q++] == ' ' && q > 1 && s[q - 2] == '.')
			return false;	/* a sentence before the question */
	return q < n && q < 40 && n - q <= 4 && starts(s + q, n - q, "? no");
}

/*
 * Messages about what the kernel keeps loosely (the free counts, which it
 * recomputes at mount) or what the guest's clock wrote: a superblock time
 * ahead of the host's clock, whose message spans two lines, "Superblock
 * last mount time is in the future." and "(by less than a day, ...)", or
 * "Superblock last mount time (DATE," and "now = DATE) is in the future."
 */
static bool not_damage(const char *s, size_t n)
{
	return starts(s, n, "Free blocks count wrong (") ||
	       starts(s, n, "Free inodes count wrong (") ||
	       starts(s, n, "Superblock last mount time ") ||
	       starts(s, n, "Superblock last write time ") ||
	       starts(s, n, "(by less than a day, probably due to the hardware clock") ||
	       starts(s, n, "now = ") ||
	       has(s, n, "could be narrower") || has(s, n, "could be shorter") ||
	       has(s, n, "could be more shallow") ||
	       starts(s, n, "Warning: skipping journal recovery because doing a read-only");
}

/* "IMAGE: recovering journal": the replay the next mount would make too */
static bool replay(const char *s, size_t n)
{
	static const char tail[] = ": recovering journal";
	size_t k = sizeof(tail) - 1;

	return n > k && !memcmp(s + n - k, tail, k);
}

static bool expected(const char *s, size_t n)
{
	return n == 0 || starts(s, n, "Pass ") || summary(s, n) || replay(s, n) ||
	       (starts(s, n, "e2fsck ") && has(s, n, " (")) ||
	       starts(s, n, "$ e2fsck") || starts(s, n, "# exit") ||
	       starts(s, n, "# killed") || answer(s, n) || not_damage(s, n);
}

int fb_fsck_problems(const char *text, size_t len, char (*lines)[FB_FSCK_LINE], int max)
{
	const char *p = text, *end = text + len;
	int count = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end;
		const char *s = p;
		size_t n;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		n = e - s;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
			n--;
		if (!expected(s, n)) {
			if (count < max) {
				size_t k = n < FB_FSCK_LINE - 1 ? n : FB_FSCK_LINE - 1;

				for (size_t i = 0; i < k; i++)
					lines[count][i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ?
							  '?' : s[i];
				lines[count][k] = '\0';
			}
			count++;
		}
		p = nl ? nl + 1 : end;
	}
	return count;
}

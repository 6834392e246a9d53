// SPDX-License-Identifier: MIT
/* Names of the outcome enums (outcome.h); one table per enum. */
#include <string.h>
#include "outcome.h"

static const char *const detect_names[FB_DETECT__COUNT] = {
	"none", "csum", "sanity", "io", "mount",
};
static const char *const reaction_names[FB_REACT__COUNT] = {
	"none", "recovered", "error-continue", "remount-ro", "shutdown",
	"mount-refused", "hang", "panic", "oops", "kasan",
};
static const char *const fsck_names[FB_FSCK__COUNT] = {
	"clean", "repaired", "unrepaired", "not-run",
};
static const char *const data_names[FB_DATA__COUNT] = {
	"intact", "lost", "changed", "not-checked",
};
static const char *const verdict_names[FB_VERDICT__COUNT] = {
	"pass", "fail", "infra", "skip", "interrupted",
};

static const char *const attrib_names[FB_ATTRIB__COUNT] = {
	"n/a", "match", "mismatch", "none",
};

static const char *const undetected_names[FB_UNDET__COUNT] = {
	"n/a", "never-read", "overwritten-before-read", "data-block",
	"redundant-copy-unused", "resealed", "not-covered", "stale", "no-change",
	"discarded-read",
	"log-end", "freed", "read-ahead", "unexplained",
};

static const char *const signal_names[FB_SIGNAL__COUNT] = {
	"none", "csum", "sanity", "io", "ambiguous",
};

static int lookup(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

#define NAMES(kind, table, count)					\
	const char *fb_##kind##_name(enum fb_##kind v)			\
	{								\
		return (unsigned)v < count ? table[v] : "?";		\
	}								\
	int fb_##kind##_parse(const char *name)				\
	{								\
		return lookup(table, count, name);			\
	}

NAMES(detect, detect_names, FB_DETECT__COUNT)
NAMES(fsck, fsck_names, FB_FSCK__COUNT)
NAMES(data, data_names, FB_DATA__COUNT)
NAMES(verdict, verdict_names, FB_VERDICT__COUNT)
NAMES(reaction, reaction_names, FB_REACT__COUNT)
NAMES(attrib, attrib_names, FB_ATTRIB__COUNT)
NAMES(undetected, undetected_names, FB_UNDET__COUNT)
NAMES(signal, signal_names, FB_SIGNAL__COUNT)

bool fb_expect_match(const char *expect, const char *got)
{
	size_t n = got ? strlen(got) : 0;

	if (!expect || !strcmp(expect, "any"))
		return true;
	if (!got)
		return false;
	for (const char *p = expect; *p;) {
		size_t len = strcspn(p, "|");

		if (len == n && !strncmp(p, got, n))
			return true;
		/* undetected's default: any cause a case has, but unexplained */
		if (len == 9 && !strncmp(p, "explained", 9) && strcmp(got, "unexplained"))
			return true;
		p += len + (p[len] == '|');
	}
	return false;
}

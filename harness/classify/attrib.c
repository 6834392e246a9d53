// SPDX-License-Identifier: MIT
/*
 * Attribution (attrib.h): the csum-error lines of a case's kernel log
 * against the object its fault hit.
 *
 * What the kernel prints for each object (kernel/patches/0001, measured on
 * the ci matrix): ino is the owning inode (the inode itself for an inode,
 * the directory for its blocks, the journal inode for journal blocks) or
 * "-" for the superblock, descriptors, bitmaps and MMP; block is the block
 * holding the object; group is the group a bitmap or descriptor describes,
 * an inode's own group, "-" for jbd2, else the group holding the block.
 * The corruptor's records carry the same numbers (corruptor/map.c), so
 * only the type names and the "-" fields differ.
 */
#include <stdio.h>
#include <string.h>

#include "classify/attrib.h"

enum { OWNER = 1, NO_INO = 2, NO_GROUP = 4, JBD2 = 8 };

static const struct {
	const char *corruptor;	/* flipbed-corrupt's type */
	const char *kernel;	/* the line's TYPE */
	unsigned how;
} types[] = {
	{ "superblock", "superblock", NO_INO },
	{ "superblock-backup", "superblock", NO_INO },
	{ "group-desc", "group-desc", NO_INO },
	{ "block-bitmap", "block-bitmap", NO_INO },
	{ "inode-bitmap", "inode-bitmap", NO_INO },
	{ "inode", "inode", OWNER },
	/* the extra space and inline data share the inode's checksum */
	{ "inode-extra", "inode", OWNER },
	{ "inline-data", "inode", OWNER },
	/* the corruptor's index blocks are the kernel's depth > 0 */
	{ "extent-index", "extent-index", OWNER },
	{ "extent-leaf", "extent-leaf", OWNER },
	{ "dir-leaf", "dir-leaf", OWNER },
	{ "dx-root", "dx-root", OWNER },
	{ "dx-node", "dx-node", OWNER },
	{ "xattr-block", "xattr-block", OWNER },
	{ "mmp", "mmp", NO_INO },
	{ "orphan-block", "orphan-block", OWNER },
	{ "journal-sb", "journal-sb", OWNER | NO_GROUP | JBD2 },
	{ "journal-descriptor", "journal-descriptor", OWNER | NO_GROUP | JBD2 },
	{ "journal-commit", "journal-commit", OWNER | NO_GROUP | JBD2 },
	{ "journal-revoke", "journal-revoke", OWNER | NO_GROUP | JBD2 },
	{ "journal-data", "journal-data", OWNER | NO_GROUP | JBD2 },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

int fb_csum_object_expect(const char *type, long long ino, long long group,
			  long long pblk, struct fb_csum_object *ret)
{
	for (size_t i = 0; i < NTYPES; i++) {
		if (strcmp(types[i].corruptor, type))
			continue;
		snprintf(ret->type, sizeof(ret->type), "%s", types[i].kernel);
		ret->ino = types[i].how & NO_INO || ino <= 0 ? -1 : ino;
		ret->block = pblk;
		ret->group = types[i].how & NO_GROUP ? -1 : group;
		return 0;
	}
	return -1;
}

static void field(char *buf, size_t len, long long v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", v);
}

void fb_csum_object_format(const struct fb_csum_object *o, char *buf, size_t len)
{
	char ino[24], block[24], group[24];

	field(ino, sizeof(ino), o->ino);
	field(block, sizeof(block), o->block);
	field(group, sizeof(group), o->group);
	snprintf(buf, len, "type=%s ino=%s block=%s group=%s", o->type, ino, block, group);
}

/* ---- parsing ---- */

static bool take(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - *p) < n || memcmp(*p, word, n))
		return false;
	*p += n;
	return true;
}

/* A decimal of at most 63 bits, no sign, no leading zero; "-" is -1. */
static bool take_number(const char **p, const char *end, long long *v)
{
	const char *s = *p;
	unsigned long long n = 0;

	if (s < end && *s == '-') {
		*v = -1;
		*p = s + 1;
		return true;
	}
	if (s >= end || *s < '0' || *s > '9' || (*s == '0' && s + 1 < end &&
						  s[1] >= '0' && s[1] <= '9'))
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (n > (9223372036854775807ULL - (*s - '0')) / 10)
			return false;
		n = n * 10 + (*s - '0');
	}
	*v = (long long)n;
	*p = s;
	return true;
}

/* TYPE up to the next space: one the kernel of this prefix prints. */
static bool take_type(const char **p, const char *end, bool jbd2, char *type, size_t size)
{
	const char *sp = memchr(*p, ' ', end - *p);
	size_t n = (sp ? sp : end) - *p;

	for (size_t i = 0; i < NTYPES; i++) {
		if (!!(types[i].how & JBD2) != jbd2 || strlen(types[i].kernel) != n ||
		    memcmp(types[i].kernel, *p, n))
			continue;
		snprintf(type, size, "%s", types[i].kernel);
		*p += n;
		return true;
	}
	return false;
}

int fb_csum_line_parse(const char *msg, size_t len, struct fb_csum_object *ret,
		       bool *ret_recovered)
{
	const char *p = msg, *end = msg + len, *close;
	bool jbd2;

	if (take(&p, end, "EXT4-fs csum-error"))
		jbd2 = false;
	else if (take(&p, end, "JBD2 csum-error"))
		jbd2 = true;
	else
		return 0;
	if (len > FB_CSUM_LINE_MAX || !take(&p, end, " (device "))
		return -1;
	/* a device name: no space, no parenthesis, at most 32 bytes */
	close = memchr(p, ')', end - p);
	if (!close || close == p || close - p > 32 || memchr(p, ' ', close - p))
		return -1;
	p = close;
	*ret_recovered = false;
	if (!take(&p, end, "): type=") ||
	    !take_type(&p, end, jbd2, ret->type, sizeof(ret->type)) ||
	    !take(&p, end, " ino=") || !take_number(&p, end, &ret->ino) ||
	    !take(&p, end, " block=") || !take_number(&p, end, &ret->block) ||
	    !take(&p, end, " group=") || !take_number(&p, end, &ret->group))
		return -1;
	if (!jbd2 && take(&p, end, " recovered"))
		*ret_recovered = true;
	/* jbd2 never knows a group, and every line names a block */
	if (p != end || ret->block < 0 || (jbd2 && ret->group >= 0))
		return -1;
	return 1;
}

/* ---- the check ---- */

#define MAX_WRONG 4

/* The lines that did not name the object, each distinct one counted. */
struct wrong {
	char text[MAX_WRONG][128];
	unsigned count[MAX_WRONG];
	size_t n;		/* distinct lines kept */
	size_t more;		/* lines past MAX_WRONG distinct ones */
};

static void add_wrong(struct wrong *w, const char *text)
{
	for (size_t i = 0; i < w->n; i++) {
		if (!strcmp(w->text[i], text)) {
			w->count[i]++;
			return;
		}
	}
	if (w->n == MAX_WRONG) {
		w->more++;
		return;
	}
	snprintf(w->text[w->n], sizeof(w->text[0]), "%s", text);
	w->count[w->n++] = 1;
}

static void print_wrong(const struct wrong *w, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < w->n && used < size; i++) {
		int k = snprintf(buf + used, size - used, "%s%s", i ? "; " : "", w->text[i]);

		used += k > 0 ? (size_t)k : 0;
		if (w->count[i] > 1 && used < size) {
			k = snprintf(buf + used, size - used, " (x%u)", w->count[i]);
			used += k > 0 ? (size_t)k : 0;
		}
	}
	if (w->more && used < size)
		snprintf(buf + used, size - used, "; and %zu more", w->more);
}

static bool same(const struct fb_csum_object *a, const struct fb_csum_object *b)
{
	return !strcmp(a->type, b->type) && a->ino == b->ino && a->block == b->block &&
	       a->group == b->group;
}

/* Skip a dmesg.txt stamp "[   1.234567] "; the line itself if it has none. */
static const char *skip_stamp(const char *p, const char *end)
{
	const char *s = p;

	if (s >= end || *s != '[')
		return p;
	for (s++; s < end && (*s == ' ' || *s == '.' || (*s >= '0' && *s <= '9')); s++)
		;
	if (end - s < 2 || s[0] != ']' || s[1] != ' ')
		return p;
	return s + 2;
}

/* "malformed: TEXT", at most 80 bytes of it, each byte not printable ASCII a '?'. */
static void malformed(char *buf, size_t size, const char *line, size_t n)
{
	size_t k = snprintf(buf, size, "malformed: ");

	for (size_t i = 0; i < n && i < 80 && k + 1 < size; i++)
		buf[k++] = line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '?';
	buf[k] = '\0';
}

enum fb_attrib fb_attrib_check(const char *dmesg, size_t len,
			       const struct fb_csum_object *want,
			       char *detail, size_t size)
{
	const char *pos = dmesg, *end = dmesg + len;
	struct wrong w = { .n = 0 };
	size_t lines = 0, bad = 0;

	while (pos < end) {
		const char *nl = memchr(pos, '\n', end - pos);
		const char *line = skip_stamp(pos, nl ? nl : end);
		size_t n = (nl ? nl : end) - line;
		struct fb_csum_object got;
		char text[128];
		bool recovered;
		int r;

		pos = nl ? nl + 1 : end;
		r = fb_csum_line_parse(line, n, &got, &recovered);
		if (!r)
			continue;
		lines++;
		if (r > 0 && same(&got, want))
			continue;
		bad++;
		if (r > 0)
			fb_csum_object_format(&got, text, sizeof(text));
		else
			malformed(text, sizeof(text), line, n);
		add_wrong(&w, text);
	}
	print_wrong(&w, detail, size);
	if (!lines)
		return FB_ATTRIB_NONE;
	return bad ? FB_ATTRIB_MISMATCH : FB_ATTRIB_MATCH;
}

bool fb_attrib_judge(const struct fb_outcome *out, const char *expect, const char *hit,
		     char *why, size_t len)
{
	if (!expect || !strcmp(expect, "any") || !fb_expect_match(expect, "csum") ||
	    out->detect != FB_DETECT_CSUM)
		return false;
	if (out->attrib == FB_ATTRIB_MISMATCH)
		snprintf(why, len, "csum-error names %s, the fault hit %s", out->attrib_detail, hit);
	else if (out->attrib == FB_ATTRIB_NONE)
		snprintf(why, len, "no csum-error line, the fault hit %s", hit);
	else
		return false;
	return true;
}

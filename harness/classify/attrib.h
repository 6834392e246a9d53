/* SPDX-License-Identifier: MIT */
/*
 * Attribution: whether the patched kernel's csum-error lines name the
 * object the corruptor picked. The line (kernel/README.md, "The
 * csum-error line"):
 *
 *	EXT4-fs csum-error (device vda): type=TYPE ino=INO block=BLOCK group=GROUP[ recovered]
 *	JBD2 csum-error (device vda): type=TYPE ino=INO block=BLOCK group=-
 *
 * fb_csum_object_expect() maps a corruptor object (its type name, owner,
 * group and block) to the line a kernel prints when its checksum fails;
 * fb_attrib_check() compares every csum-error line of a case's kernel log
 * with it. The log is guest-made text: lines are bounded, numbers checked.
 */
#ifndef FLIPBED_ATTRIB_H
#define FLIPBED_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>

#include "outcome.h"

/* No csum-error line is longer (a 32-byte device name, 20-digit numbers). */
#define FB_CSUM_LINE_MAX 256

/* What a csum-error line names; -1 stands for the line's "-". */
struct fb_csum_object {
	char type[24];		/* the kernel's TYPE: "extent-leaf", "journal-commit" */
	long long ino;
	long long block;
	long long group;
};

/*
 * Parse kernel message MSG (LEN bytes, no timestamp). 1: a well-formed
 * csum-error line, *RET filled and *RET_RECOVERED set when it ends in
 * "recovered"; 0: not a csum-error line; -1: a csum-error line that is
 * malformed (overlong, an unknown TYPE, a field missing or out of order,
 * a number with a sign, a leading zero or more than 63 bits, trailing
 * text).
 */
int fb_csum_line_parse(const char *msg, size_t len, struct fb_csum_object *ret,
		       bool *ret_recovered);

/*
 * The object the kernel names when the checksum of the corruptor's object
 * of type TYPE (flipbed-corrupt's names: "inode-extra", "block-bitmap")
 * fails: its owner INO (0: none), GROUP (for bitmaps and descriptors the
 * group they describe, for inodes the inode's, else the group holding
 * PBLK) and PBLK (the filesystem block holding it). 0, or -1 when the
 * kernel verifies no checksum of TYPE ("data", "range", "none").
 */
int fb_csum_object_expect(const char *type, long long ino, long long group,
			  long long pblk, struct fb_csum_object *ret);

/* "type=inode ino=12 block=41 group=0" into BUF. */
void fb_csum_object_format(const struct fb_csum_object *o, char *buf, size_t len);

/*
 * Attribution of the kernel log DMESG (dmesg.txt: one message a line, each
 * after an optional "[    1.234567] " stamp) against WANT:
 *   FB_ATTRIB_NONE      no csum-error line;
 *   FB_ATTRIB_MATCH     every csum-error line names WANT;
 *   FB_ATTRIB_MISMATCH  some line names another object or is malformed.
 * DETAIL gets the lines that did not name WANT, as "type=... ino=...
 * block=... group=..." (or "malformed: TEXT"), each distinct one once with
 * " (xN)" when repeated, joined by "; ", cut with "; and N more"; "" when
 * every line named it.
 */
enum fb_attrib fb_attrib_check(const char *dmesg, size_t len,
			       const struct fb_csum_object *want,
			       char *detail, size_t size);

/*
 * Whether attribution fails a case, and why: it is judged when the detect
 * expectation EXPECT names csum ("csum", "csum|sanity"; not "any") and the
 * kernel caught a checksum (OUT->detect). Then every csum-error line must
 * name the object the fault hit (HIT, fb_csum_object_format()'s text), and
 * one at least must. WHY gets "csum-error names DETAIL, the fault hit HIT"
 * or "no csum-error line, the fault hit HIT".
 *
 * Every line, not one: in the ci matrix no single fault ever made the
 * kernel name a second object. A fault whose effect legitimately fails
 * another object's checksum (a resealed descriptor moving the inode
 * table, a misdirected write) is n/a before this (run/target.h).
 */
bool fb_attrib_judge(const struct fb_outcome *out, const char *expect, const char *hit,
		     char *why, size_t len);

#endif

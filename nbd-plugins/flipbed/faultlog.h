/* SPDX-License-Identifier: MIT */
/* flipbed: the fault log, one JSON object per line per applied fault.
 *
 * {"seq":1,"ns":123,"rule":"r1","op":"read","action":"flip",
 *  "offset":1024,"len":1,"changed":1,
 *  "changes":[{"offset":1024,"old":0,"new":1}]}
 * misdirect adds "to" (where the bytes went), stall "ms" (0: until
 * released); a torn record's offset and len are the part of the write it
 * kept from the image. Other records (the read witness's, witness.h)
 * share the sequence and the ns field. Each record is appended with a
 * single write(2) to a file opened O_APPEND.
 */
#ifndef FLIPBED_FAULTLOG_H
#define FLIPBED_FAULTLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "mutate.h"
#include "rule.h"

struct fb_fault {
	const struct fb_rule *rule;
	const char *op;			/* rest, read, write, zero, trim */
	uint64_t offset, len;		/* the part of the request it hit */
	const struct fb_changes *changes; /* data actions, else NULL */
	/*
	 * torn: whether the stored part changed the image and whether the
	 * part not stored differed from what the image held (the tear lost
	 * a change), when the image could be read first (tear_known).
	 */
	bool tear_known, stored_changed, lost_changed;
};

/* Returns -1 with errno set. */
int fb_faultlog_open(const char *path);
void fb_faultlog_close(void);

/* Count the fault and append it to the log (if one is open). Returns
 * the record's seq.
 */
uint64_t fb_faultlog_write(const struct fb_fault *f);

/* Append a record that is not a fault: {"seq":N,"ns":T, then the fields
 * fmt formats (without braces), then }. Not counted as a fault.
 */
void fb_faultlog_note(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#endif

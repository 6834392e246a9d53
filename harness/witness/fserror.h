/* SPDX-License-Identifier: MIT */
/*
 * fserror, the second witness of ext4's error reports: the guest agent
 * (guest/fserror.c) watches the filesystem under test with fanotify for
 * FAN_FS_ERROR and sends each event as an "fserror" line. fserror.c reads
 * those lines (each checked and bounded: the guest is hostile input),
 * compares them with what the classifier found in the kernel log, and
 * writes the "fanotify" object and the "fanotify_agrees" flag of case.json
 * (harness/RESULTS.md, "The witnesses"); fserror_report.c shows
 * them in the reports.
 */
#ifndef FLIPBED_FSERROR_H
#define FLIPBED_FSERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "outcome.h"

struct json_t;

#define FB_FSERROR_MAX 64		/* events kept per case; the rest are counted */
#define FB_FSERROR_LINE_MAX 160		/* a longer fserror line is malformed */
#define FB_FSERROR_REASON_MAX 96

struct fb_fserror_event {
	char err[24];		/* errno name, canonical: EBADMSG, EUCLEAN, EIO, E1234 */
	long long ino;		/* inode number, -1 when the error names none */
	unsigned long count;	/* errors ext4 reported into this one event */
};

/* What the agent said; all zero (no line seen yet) is the initial state. */
struct fb_fserror {
	bool watched;		/* "fserror-watch PATH": a mount was watched */
	bool unavailable;	/* "fserror-unavailable REASON" */
	char reason[FB_FSERROR_REASON_MAX];
	struct fb_fserror_event ev[FB_FSERROR_MAX];
	int nev;
	unsigned long long dropped;	/* the agent's fserror-dropped K, plus events past
					   FB_FSERROR_MAX */
	bool dropped_seen;
	unsigned malformed;	/* fserror lines refused */
};

/*
 * One agent line (without "A " or its newline). Returns 0 when it is not an
 * fserror line, 1 when it was taken, -1 when it is one but malformed (it is
 * counted, never kept): an unknown form, a field out of range, a repeated
 * fserror-unavailable or fserror-dropped, a line over FB_FSERROR_LINE_MAX.
 *
 *   fserror-watch PATH
 *   fserror-unavailable REASON     printable ASCII, at most 95 bytes
 *   fserror ERRNO INO COUNT        ERRNO an errno name (EFSBADCRC and
 *                                  EFSCORRUPTED are taken as EBADMSG and
 *                                  EUCLEAN) or E<number>; INO decimal or "-";
 *                                  COUNT decimal, at least 1; both 32-bit
 *   fserror-dropped K              K decimal
 */
int fb_fserror_line(struct fb_fserror *f, const char *line);

/*
 * Whether the witness agrees with the kernel log as the classifier read it
 * (OUT's detect and reaction, of the next-mount pass too when it ran):
 * 1 agrees, 0 disagrees, -1 not compared. WHY says which and why (and
 * OUT's signals conflict, when the classes differ and it has one).
 *
 * ext4 recorded an error when a pass detected csum or sanity and did not
 * only recover (reaction recovered: the patched kernel's re-read succeeded
 * and no error was recorded); then at least one event must have come, and
 * one of them must have the detection's class (EBADMSG csum, EUCLEAN
 * sanity): the classes are compared, not only the events' presence. With
 * every event dropped the classes are not compared. When
 * every pass detected nothing (or only recovered), no event may have come.
 * Not compared: the witness is unavailable (or never watched), the case is
 * infra or skipped, a pass panicked, oopsed or hung (the agent may not have
 * sent what was queued), or the detection was io or mount, which ext4 may or may not
 * record as an error.
 */
int fb_fserror_agrees(const struct fb_fserror *f, const struct fb_outcome *out,
		      enum fb_verdict v, char *why, size_t len);

/*
 * The case record's "signals" object (harness/RESULTS.md): the message's
 * class, line and function, the errno's class, name and source, the
 * conflict (null when none) and "compared" or "absent" (the witness).
 */
struct fb_signals;
struct json_t *fb_signals_json(const struct fb_signals *s);

/* Set "fanotify" and "fanotify_agrees" on the case record REC. */
void fb_fserror_record(struct json_t *rec, const struct fb_fserror *f,
		       const struct fb_outcome *out, enum fb_verdict v);

/*
 * The witness of the case record REC in the reports: "agrees",
 * "DISAGREES", "not compared", or NULL when REC has no "fanotify"; its
 * section of the case page and of `flipbed show` (nothing without
 * "fanotify"); and summary.md's list of the cases whose witness disagrees,
 * called for each case in turn: a line for REC (named NAME) when it
 * disagrees, after the list's heading when *ANY is false (then set).
 */
const char *fb_fserror_flag(const struct json_t *rec);
void fb_fserror_page(FILE *out, const struct json_t *rec);
void fb_fserror_show(FILE *out, const struct json_t *rec);
void fb_fserror_summary(FILE *out, const struct json_t *rec, const char *name, bool *any);

#endif

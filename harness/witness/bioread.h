/* SPDX-License-Identifier: MIT */
/*
 * bioread, the guest's witness of how the kernel read the target's bytes
 * (the read-ahead witness): the agent (guest/bioread.c) traces
 * block:block_bio_queue on the case's disk and sends each read bio that
 * overlaps the target ("watch OFFSET LENGTH", sent by the host) with its
 * flags. bioread.c reads those lines (each checked and bounded: the guest
 * is hostile input) into the "bio_reads" object of case.json, which the
 * undetected cause read-ahead is decided from (judge/undetected.h;
 * harness/RESULTS.md, "The witnesses"); bioread_report.c shows
 * that object in the reports.
 */
#ifndef FLIPBED_BIOREAD_H
#define FLIPBED_BIOREAD_H

#include <stdbool.h>
#include <stdio.h>

struct json_t;

#define FB_BIOREAD_MAX 64		/* bios kept per case, as the agent's bound */
#define FB_BIOREAD_LINE_MAX 96		/* a longer bioread line is malformed */
#define FB_BIOREAD_REASON_MAX 96

struct fb_bioread_bio {
	char rwbs[9];		/* the block layer's flags: [F]R then A, S, M ... */
	unsigned long long sector;
	unsigned sectors;
	unsigned step;		/* the step it was submitted in, 0: before the first */
};

/* What the agent said; all zero (no line seen yet) is the initial state. */
struct fb_bioread {
	bool ended;		/* "bioread-end K" came: the list is whole, but for K */
	bool unavailable;	/* "bioread-unavailable REASON" */
	char reason[FB_BIOREAD_REASON_MAX];
	struct fb_bioread_bio bio[FB_BIOREAD_MAX];
	int n;
	unsigned long long dropped;	/* the agent's K, plus bios past FB_BIOREAD_MAX */
	unsigned malformed;	/* bioread lines refused */
};

/*
 * One agent line (without "A " or its newline). Returns 0 when it is not a
 * bioread line, 1 when it was taken, -1 when it is one but malformed (it is
 * counted, never kept): an unknown form, a field out of range, a line after
 * bioread-end or bioread-unavailable, one over FB_BIOREAD_LINE_MAX.
 *
 *   bioread RWBS SECTOR SECTORS STEP
 *                                  RWBS 1 to 8 of the block layer's flag
 *                                  letters, a read (R, after an optional F);
 *                                  SECTOR decimal; SECTORS decimal, 1..65536;
 *                                  STEP decimal, at most 65536
 *   bioread-end K                  K decimal: reads the agent did not send
 *   bioread-unavailable REASON     printable ASCII, at most 95 bytes
 */
int fb_bioread_line(struct fb_bioread *b, const char *line);

/*
 * The step the fault fired in: the first of NSTEPS steps whose result line
 * reached the host (STEP_NS, CLOCK_MONOTONIC ns, 0 for none yet) at or
 * after FAULT_NS, the plugin's time of the fault's first record (same
 * clock); NSTEPS + 1 when none did. A fault at rest fires before step 1.
 */
unsigned fb_bioread_fault_step(long long fault_ns, const long long *step_ns, int nsteps);

/*
 * The "bio_reads" object of case.json, or NULL when the host asked for no
 * witness (WATCHED false): {"state": "complete" | "incomplete" |
 * "unavailable", "bios": [{"rwbs", "sector", "sectors", "step"}...],
 * "dropped": K, "fault_step": S, "reason": ...}. complete: bioread-end
 * came with K 0 and no line was malformed; incomplete: reads may be
 * missing (K > 0, malformed lines, or no bioread-end: the guest died or
 * hung first). FAULT_STEP (fb_bioread_fault_step), or 0 when unknown: the
 * reads of earlier steps saw the bytes before the fault changed them.
 */
struct json_t *fb_bioread_json(const struct fb_bioread *b, bool watched, unsigned fault_step);

/*
 * The witness of the case record REC on its page (HTML) and in `flipbed
 * show`: its state, then one line per read bio. Nothing when REC has no
 * "bio_reads".
 */
void fb_bioread_page(FILE *out, const struct json_t *rec);
void fb_bioread_show(FILE *out, const struct json_t *rec);

#endif

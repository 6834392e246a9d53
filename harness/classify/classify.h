/* SPDX-License-Identifier: MIT */
/*
 * flipbed: the classifier. It reads one case's transcript.log ("C "
 * console, "A " agent, "H " host lines; harness/RESULTS.md) and says what
 * the kernel did, in the closed outcome set of outcome.h. What each kernel
 * message means, with the 6.1 source of every message matched, is in
 * klog.c; how a case is decided from them is at the top of classify.c.
 * harness/tests/classify/ holds golden transcripts.
 *
 * All functions are pure (no I/O) and take the transcript as a byte range
 * that need not end in a NUL.
 */
#ifndef FLIPBED_CLASSIFY_H
#define FLIPBED_CLASSIFY_H

#include <stddef.h>

#include "outcome.h"

/*
 * Fill ret->detect, reaction, warning, detail and infra from TRANSCRIPT.
 * ret->fsck and ret->data are set to FB_FSCK_NOT_RUN and FB_DATA_NOT_CHECKED,
 * ret->attrib to FB_ATTRIB_NA (the runner fills them; attribution needs the
 * target: attrib.h). Returns 0, or -ENOMEM.
 */
int fb_classify(const char *transcript, size_t len, struct fb_outcome *ret);

/*
 * The kernel messages of TRANSCRIPT as dmesg prints them ("[  1.234567]
 * text"), one copy of each message whether it came on the console, through
 * the agent's kmsg lines, or both. fb_dmesg_text() returns them all (for
 * dmesg.txt); fb_transcript_excerpt() starts at the first message that
 * matters (an ext4/jbd2 detection or error, an I/O error,
 * BUG/WARNING/UBSAN/Oops/KASAN/panic, a hung task), or at the "cut
 * here"/"=====" banner just before it, and stops after FB_EXCERPT_MAX_LINES
 * lines with a "[... N more lines]" line. With nothing that matters the
 * excerpt is "". (Not named fb_dmesg_excerpt: report_int.h has that name
 * for the excerpt of a dmesg.txt.)
 *
 * *ret_text is a NUL-terminated string the caller frees. Returns 0, or
 * -ENOMEM.
 */
#define FB_EXCERPT_MAX_LINES 200
int fb_dmesg_text(const char *transcript, size_t len, char **ret_text);
int fb_transcript_excerpt(const char *transcript, size_t len, char **ret_text);

#endif

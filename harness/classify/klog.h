/* SPDX-License-Identifier: MIT */
/*
 * What one kernel message means: the one table of ext4/jbd2 detection
 * rules and the one table of kernel reports (crash markers), shared by the
 * classifier, the reports and the campaign's finding titles.
 *
 * A message is the text of one kernel line without its printk timestamp
 * ("EXT4-fs error (device vda): ...", "BUG: KASAN: ..."). Matching ignores
 * case for the detection rules (ext4's wording varies in case between
 * releases) and is exact for kernel reports (their markers are fixed
 * strings in lib/bug.c, mm/kasan, kernel/panic.c and friends).
 */
#ifndef FLIPBED_KLOG_H
#define FLIPBED_KLOG_H

#include <stdbool.h>
#include <stddef.h>

/* Which family of kernel lines a message belongs to. */
enum fb_klog_family {
	FB_KLOG_FAM_ANY,	/* in rules: any line; as a message's family: none below */
	FB_KLOG_FAM_ERROR,	/* "EXT4-fs error (device D): ..." (ext4_handle_error runs) */
	FB_KLOG_FAM_WARNING,	/* "EXT4-fs warning (device D): ..." */
	FB_KLOG_FAM_MSG,	/* "EXT4-fs (D): ..." (ext4_msg at mount and remount) */
	FB_KLOG_FAM_CSUMERR,	/* the patched series' "EXT4-fs csum-error"/"JBD2 csum-error" */
	FB_KLOG_FAM_JBD2,	/* "JBD2: ..." */
};

/* What a message says about detection. */
enum fb_klog_class {
	FB_KLOG_NONE,		/* nothing */
	FB_KLOG_CSUM,		/* a checksum verification failed */
	FB_KLOG_SANITY,		/* another ext4/jbd2 check failed */
	FB_KLOG_IO,		/* an I/O error reached ext4 */
	FB_KLOG_AMBIGUOUS,	/* a message that does not say which check failed:
				   6.1's "corrupted xattr block N" (a checksum and
				   other checks alike), an "EXT4-fs error" line no
				   rule names: the errno decides */
	FB_KLOG_CONSEQUENCE,	/* an ext4 error line that reports an earlier error */
	FB_KLOG_NOTE,		/* the kernel checking its own state, not the disk
				   (jbd2's warn_dirty_buffer): never a detection */
};

/* Kernel reports a message starts or shows (bits). */
enum {
	FB_KLOG_KASAN = 1 << 0,
	FB_KLOG_OOPS = 1 << 1,
	FB_KLOG_PANIC = 1 << 2,
	FB_KLOG_HANG = 1 << 3,
	FB_KLOG_WARNING = 1 << 4,	/* BUG:, WARNING: or UBSAN: (fstests' dmesg check) */
};

enum fb_klog_family fb_klog_family(const char *msg);

/* The detection class of MSG: the first matching rule of the table. */
enum fb_klog_class fb_klog_class(const char *msg);

/*
 * The same, and the kernel function that prints MSG into FUNC (LEN bytes):
 * the rule's, or for a rule that covers many ("EXT4-fs error" of any other
 * check) the one the line names before its ":LINE:"; "" when neither.
 */
enum fb_klog_class fb_klog_rule(const char *msg, char *func, size_t len);

/*
 * Why the errno ext4 passed on (class ERR; FROM_STEP: a step's, else a
 * FAN_FS_ERROR event's) differs from what the message says (class MSG;
 * FUNC and LINE as fb_klog_rule gave them): the kernel function that
 * explains it, or NULL when the table knows no reason.
 */
const char *fb_klog_conflict(const char *func, const char *line, enum fb_klog_class msg,
			     enum fb_klog_class err, bool from_step);

/* The FB_KLOG_* report bits of MSG (0 for an ordinary message). */
unsigned fb_klog_reactions(const char *msg);

/*
 * Lines of a dmesg.txt (with or without timestamps): whether LINE starts a
 * kernel report, and whether it is one a reader wants to see (ext4, jbd2,
 * block-layer I/O errors).
 */
bool fb_klog_report_start(const char *line, size_t len);
bool fb_klog_notable(const char *line, size_t len);

/*
 * The title of the first kernel report in DMESG (dmesg.txt text), after
 * syzkaller's report titles: "KASAN: slab-out-of-bounds in f", "WARNING
 * in f", "BUG: kernel NULL pointer dereference in f", "INFO: task hung in
 * f", "kernel panic: MSG". Frames that only say how the report was made
 * (dump_stack, kasan_*, __warn, schedule, ...) are skipped. BUF gets ""
 * when there is no report.
 */
void fb_klog_title(const char *dmesg, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * flipbed: the closed set of case outcomes (docs/DESIGN.md, "What a case records"), after IRON
 * file systems (Prabhakaran et al., SOSP 2005) adapted to ext4.
 *
 * Every enum has a stable lower-case name used in scenario files, in
 * cases.jsonl and in reports; *_name() and *_parse() convert both ways.
 */
#ifndef FLIPBED_OUTCOME_H
#define FLIPBED_OUTCOME_H

#include <stdbool.h>

/* What noticed the corruption first. */
enum fb_detect {
	FB_DETECT_NONE,		/* nothing noticed */
	FB_DETECT_CSUM,		/* a metadata checksum verification failed */
	FB_DETECT_SANITY,	/* another ext4/jbd2 check: magic, bounds, entries */
	FB_DETECT_IO,		/* an I/O error reached the filesystem */
	FB_DETECT_MOUNT,	/* mount refused without a more specific message */
	FB_DETECT__COUNT
};

/* How the kernel reacted (the worst observed, in this order of severity). */
enum fb_reaction {
	FB_REACT_NONE,		/* no visible reaction, filesystem writable */
	FB_REACT_RECOVERED,	/* detected, retried (csum_retry), recovered, still writable */
	FB_REACT_ERROR_CONTINUE,/* ext4 error logged, filesystem still writable */
	FB_REACT_REMOUNT_RO,	/* a write after the error failed with EROFS */
	FB_REACT_SHUTDOWN,	/* mounted rw, but a write and a read that cannot
				   reach the fault failed with EIO (6.12's
				   errors=remount-ro): safe as remount-ro for the
				   disk, and every read of the mount fails too */
	FB_REACT_MOUNT_REFUSED,	/* the mount step failed */
	FB_REACT_HANG,		/* timeout or hung-task report */
	FB_REACT_PANIC,		/* kernel panic */
	FB_REACT_OOPS,		/* Oops / BUG / general protection fault */
	FB_REACT_KASAN,		/* KASAN report */
	FB_REACT__COUNT
};

/* e2fsck on the image after the run: -fn, then -fy, then -fn again. */
enum fb_fsck {
	FB_FSCK_CLEAN,		/* first -fn found nothing */
	FB_FSCK_REPAIRED,	/* -fn found errors, -fy fixed them, second -fn clean */
	FB_FSCK_UNREPAIRED,	/* errors remain after -fy */
	FB_FSCK_NOT_RUN,	/* infra: e2fsck could not run */
	FB_FSCK__COUNT
};

/* User files (populated before the fault) after the run and the repair. */
enum fb_data {
	FB_DATA_INTACT,		/* every file present with its content */
	FB_DATA_LOST,		/* some file missing or unreadable */
	FB_DATA_CHANGED,	/* some file readable with different content */
	FB_DATA_NOT_CHECKED,
	FB_DATA__COUNT
};

/*
 * Whether the kernel's csum-error lines name the object the fault hit
 * (classify/attrib.h; judged in run/runcase.c).
 */
enum fb_attrib {
	FB_ATTRIB_NA,		/* not asked: no csum-error lines from this kernel, or a
				   fault that breaks no checksum */
	FB_ATTRIB_MATCH,	/* every csum-error line names the object */
	FB_ATTRIB_MISMATCH,	/* a csum-error line names another object */
	FB_ATTRIB_NONE,		/* no csum-error line */
	FB_ATTRIB__COUNT
};

/*
 * Why a case whose workload and next-mount pass detected nothing went
 * undetected (judge/undetected.h decides it from the fault log, the read
 * witness, the guest's bio witness and the target record).
 */
enum fb_undetected {
	FB_UNDET_NA,		/* detected, no fault, or infra: no cause asked */
	FB_UNDET_NEVER_READ,	/* no request read the changed bytes */
	FB_UNDET_OVERWRITTEN,	/* they were overwritten before any read */
	FB_UNDET_DATA_BLOCK,	/* file data: no checksum covers it */
	FB_UNDET_REDUNDANT_COPY,/* a backup copy the kernel does not use */
	FB_UNDET_RESEALED,	/* the checksum was recomputed over the change */
	FB_UNDET_NOT_COVERED,	/* no metadata_csum, or bytes outside every checksum */
	FB_UNDET_STALE,		/* a lost or misdirected write: the bytes read were
				   once valid, the block's old ones or another's */
	FB_UNDET_NO_CHANGE,	/* a torn write whose lost part the disk already
				   held: the target is as the kernel wrote it */
	FB_UNDET_DISCARDED_READ,/* read into a copy the kernel dropped unverified and
				   read again: the superblock's 1 KiB probe */
	FB_UNDET_LOG_END,	/* a journal block's header changed: recovery takes
				   it for the end of the log before any checksum */
	FB_UNDET_FREED,		/* the inode was freed by the workload: the kernel
				   never loads it again, though its block is read */
	FB_UNDET_READ_AHEAD,	/* read only by read-ahead (the guest's block layer
				   said so), never loaded as the object */
	FB_UNDET_UNEXPLAINED,	/* covered, not resealed, read, and nothing detected:
				   a finding of its own */
	FB_UNDET__COUNT
};

enum fb_verdict {
	FB_VERDICT_PASS,	/* outcome matched the expectation */
	FB_VERDICT_FAIL,	/* outcome differs from the expectation */
	FB_VERDICT_INFRA,	/* QEMU, nbdkit or flipbed failed: no kernel outcome */
	FB_VERDICT_SKIP,	/* a requirement is not met */
	FB_VERDICT_INTERRUPTED,	/* a signal (Ctrl-C) cut the case short: no outcome,
				   and a resumed campaign runs it again */
	FB_VERDICT__COUNT
};

/* A detection class as one signal tells it (harness/RESULTS.md, "signals"). */
enum fb_signal {
	FB_SIGNAL_NONE,		/* the signal says nothing */
	FB_SIGNAL_CSUM,		/* a checksum verification failed */
	FB_SIGNAL_SANITY,	/* another ext4/jbd2 check failed */
	FB_SIGNAL_IO,		/* an I/O error */
	FB_SIGNAL_AMBIGUOUS,	/* the message stands for a checksum and other checks alike */
	FB_SIGNAL__COUNT
};

/*
 * The two signals of the workload's detection: the kernel message (a
 * klog.c rule, and the kernel function that printed it) and the errno
 * ext4 passed on (the first FAN_FS_ERROR event, or before any, the first
 * failing step), and their disagreement (classify.c).
 */
struct fb_signals {
	enum fb_signal msg;
	char msg_line[256];	/* the kernel line that decided it, or "" */
	char msg_func[64];	/* the kernel function that printed it, or "" */
	enum fb_signal err;
	char err_name[24];	/* EBADMSG, EUCLEAN, EIO ...; "" when none */
	char err_source[160];	/* "fanotify" or "step N TEXT"; "" when none */
	char conflict[384];	/* "" or: the two classes and the function that explains them */
	bool fanotify;		/* the FAN_FS_ERROR witness watched the workload */
	/* what the order property reads (classify/order.h) */
	bool csum_line;		/* a csum-error line came */
	char before_line[256];	/* the first ext4/jbd2 error line no checksum failure
				   prints, logged before any csum-error line, or "" */
	char before_func[64];	/* the kernel function that printed it, or "" */
	char fan_first[24];	/* the first FAN_FS_ERROR event's errno, consequence
				   or not, or "" */
};

struct fb_outcome {
	enum fb_detect detect;
	enum fb_reaction reaction;
	enum fb_fsck fsck;
	enum fb_data data;
	bool warning;		/* WARNING:/BUG:/UBSAN: line in the kernel log, or the
				   kernel warning of its own state (note) */
	char detail[256];	/* the kernel line that decided `detect`, or "" */
	struct fb_signals sig;
	char umount_error[256];	/* the first ext4/jbd2 error line of the workload's
				   final umount, or "": never a reaction */
	char note[256];		/* the first line of the kernel checking itself
				   (FB_KLOG_NOTE), or "": never a detection */
	char infra[256];	/* why the case is infra, or "" */
	enum fb_attrib attrib;
	char attrib_detail[512];/* the csum-error lines that did not name the object */
	/*
	 * The next-mount pass (run/runcase.c): after the workload and its
	 * probe, the same boot unmounts, drops caches, mounts again, walks
	 * every file, directory and xattr, probes and unmounts. Its part of
	 * the transcript is classified on its own (classify/split.h).
	 */
	enum fb_undetected undetected;
	int fault_read;		/* -1 no fault; else whether the guest read the
				   changed bytes (undetected.h) */
	bool next_ran;		/* the pass ran: its mark is in the transcript */
	enum fb_detect detect_next;
	enum fb_reaction reaction_next;
	char detail_next[256];
};

const char *fb_detect_name(enum fb_detect d);
const char *fb_reaction_name(enum fb_reaction r);
const char *fb_fsck_name(enum fb_fsck f);
const char *fb_data_name(enum fb_data d);
const char *fb_verdict_name(enum fb_verdict v);
const char *fb_attrib_name(enum fb_attrib a);
const char *fb_undetected_name(enum fb_undetected u);
const char *fb_signal_name(enum fb_signal s);

/* Return the value for NAME, or -1 if NAME is not one of the names above. */
int fb_detect_parse(const char *name);
int fb_reaction_parse(const char *name);
int fb_fsck_parse(const char *name);
int fb_data_parse(const char *name);
int fb_verdict_parse(const char *name);
int fb_attrib_parse(const char *name);
int fb_undetected_parse(const char *name);
int fb_signal_parse(const char *name);

/*
 * Does GOT ("csum") satisfy the expectation EXPECT: "any", a name, or names
 * separated by '|' ("csum|sanity")? A NULL EXPECT is "any"; a NULL GOT
 * satisfies only "any". The name "explained" (undetected's default) is
 * satisfied by every name but "unexplained".
 */
bool fb_expect_match(const char *expect, const char *got);

#endif

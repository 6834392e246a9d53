// SPDX-License-Identifier: MIT
/*
 * The meaning of kernel messages (klog.h): the detection rules for ext4
 * and jbd2 lines, the kernel-report markers, and report titles. Each rule
 * carries the 6.1 source of the message it matches beside it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/klog.h"
#include "util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- detection: which check of ext4 or jbd2 a message reports ---- */

/* A rule's class: a detection class, or "the errno printed decides". */
enum rule_class {
	R_CSUM = FB_KLOG_CSUM,
	R_SANITY = FB_KLOG_SANITY,
	R_IO = FB_KLOG_IO,
	R_CONSEQUENCE = FB_KLOG_CONSEQUENCE,
	R_ERRNO,	/* -74 (EFSBADCRC) csum, -5 io, any other sanity */
};

struct detect_rule {
	enum fb_klog_family fam;	/* FB_KLOG_FAM_ANY: any line */
	const char *needle;		/* a substring, case ignored; "" matches all */
	enum rule_class cls;
};

/*
 * First match wins, so checksum lines come first, then the lines that only
 * report an earlier error, then I/O errors, then every other check.
 */
static const struct detect_rule detect_rules[] = {
	/* the patched series' structured line, at every verification site */
	{ FB_KLOG_FAM_CSUMERR, "", R_CSUM },
	/* __ext4_iget */
	{ FB_KLOG_FAM_ERROR, "iget: checksum invalid", R_CSUM },
	/* ext4_validate_block_bitmap */
	{ FB_KLOG_FAM_ERROR, "bad block bitmap checksum", R_CSUM },
	/* ext4_validate_inode_bitmap: 6.1 prints it only on a bad checksum */
	{ FB_KLOG_FAM_ERROR, "Corrupt inode bitmap", R_CSUM },
	/*
	 * __ext4_ext_check: the only message of its checksum branch; its other
	 * messages ("invalid magic", "invalid eh_entries", ...) are the sanity
	 * checks that run before the checksum
	 */
	{ FB_KLOG_FAM_ERROR, "bad header/extent: extent tree corrupted", R_CSUM },
	/* __ext4_read_dirblock: a leaf, then an htree node */
	{ FB_KLOG_FAM_ERROR, "Directory block failed checksum", R_CSUM },
	{ FB_KLOG_FAM_ERROR, "Directory index failed checksum", R_CSUM },
	/* __ext4_find_entry */
	{ FB_KLOG_FAM_ERROR, "checksumming directory block", R_CSUM },
	/* ext4_readdir */
	{ FB_KLOG_FAM_ERROR, "directory fails checksum at offset", R_CSUM },
	/* ext4_init_orphan_info (the orphan file) */
	{ FB_KLOG_FAM_ERROR, "bad checksum", R_CSUM },
	/* ext4_std_error of -EFSBADCRC */
	{ FB_KLOG_FAM_ERROR, "Filesystem failed CRC", R_CSUM },
	/*
	 * ext4_read_block_bitmap_nowait after ext4_init_block_bitmap found a
	 * bad group descriptor checksum (-74); another errno there is sanity
	 */
	{ FB_KLOG_FAM_ERROR, "Failed to init block bitmap", R_ERRNO },
	/* ext4_check_descriptors, __ext4_remount */
	{ FB_KLOG_FAM_MSG, "Checksum for group", R_CSUM },
	/* ext4_init_metadata_csum */
	{ FB_KLOG_FAM_MSG, "invalid superblock checksum", R_CSUM },
	/* ext4_update_backup_sb */
	{ FB_KLOG_FAM_MSG, "Invalid checksum for backup superblock", R_CSUM },
	/* read_mmp_block: a warning only; -117 there is a bad magic */
	{ FB_KLOG_FAM_WARNING, "while reading MMP block", R_ERRNO },
	/* do_one_pass: a descriptor or data block */
	{ FB_KLOG_FAM_JBD2, "Invalid checksum recovering", R_CSUM },
	/* do_one_pass: a revoke or descriptor block */
	{ FB_KLOG_FAM_JBD2, "Invalid checksum found in transaction", R_CSUM },
	/* journal_get_superblock */
	{ FB_KLOG_FAM_JBD2, "journal checksum error", R_CSUM },
	/*
	 * jbd2_journal_load: j_failed_commit is set only when a commit block's
	 * checksum failed in the scan pass
	 */
	{ FB_KLOG_FAM_JBD2, "is corrupt.", R_CSUM },
	/* jbd2_journal_skip_recovery */
	{ FB_KLOG_FAM_JBD2, "scanning journal", R_ERRNO },

	/* an earlier error's consequence, not a detection of its own */
	{ FB_KLOG_FAM_ERROR, "Detected aborted journal", R_CONSEQUENCE },
	{ FB_KLOG_FAM_ERROR, "Journal has aborted", R_CONSEQUENCE },
	{ FB_KLOG_FAM_ERROR, "Readonly filesystem", R_CONSEQUENCE },
	{ FB_KLOG_FAM_ERROR, "Out of memory", R_CONSEQUENCE },
	/*
	 * ext4_load_journal and jbd2_journal_recover after the journal failed
	 * to load: jbd2 says why in a line of its own (an I/O error, a
	 * checksum, a bad block); without one the refused mount is the
	 * detection
	 */
	{ FB_KLOG_FAM_MSG, "error loading journal", R_CONSEQUENCE },
	{ FB_KLOG_FAM_JBD2, "recovery failed", R_CONSEQUENCE },

	/*
	 * blk_print_req_error ("I/O error, dev vda, sector ..."), "Buffer I/O
	 * error", ext4_end_bio, jbd2 recovery; checked before sanity
	 */
	{ FB_KLOG_FAM_ANY, "I/O error", R_IO },
	{ FB_KLOG_FAM_ANY, "IO error", R_IO },
	/* ext4_std_error of -EIO */
	{ FB_KLOG_FAM_ERROR, "IO failure", R_IO },
	/* __ext4_get_inode_loc */
	{ FB_KLOG_FAM_ERROR, "unable to read itable block", R_IO },
	/* a block or inode bitmap read failed */
	{ FB_KLOG_FAM_ERROR, "Cannot read", R_IO },
	/* __ext4_find_entry, the xattr code */
	{ FB_KLOG_FAM_ERROR, "reading directory lblock", R_IO },
	{ FB_KLOG_FAM_ERROR, "read error", R_IO },
	/* ext4_load_super, ext4_group_desc_init */
	{ FB_KLOG_FAM_MSG, "unable to read superblock", R_IO },
	{ FB_KLOG_FAM_MSG, "Can't read superblock", R_IO },
	{ FB_KLOG_FAM_MSG, "can't read group descriptor", R_IO },
	/* jread */
	{ FB_KLOG_FAM_JBD2, "Failed to read block", R_IO },
	/* "error -5 reading directory (index) block", "Error -5 loading buddy" */
	{ FB_KLOG_FAM_WARNING, "reading directory block", R_ERRNO },
	{ FB_KLOG_FAM_WARNING, "reading directory index block", R_ERRNO },
	{ FB_KLOG_FAM_WARNING, "loading buddy information", R_ERRNO },

	/*
	 * Every other "EXT4-fs error": bad magic, bad header, invalid block,
	 * htree, inline data, bitmap bounds ... In 6.1 "corrupted xattr block
	 * N" (__ext4_xattr_check_block) stands for a bad magic, h_blocks,
	 * checksum or entry alike, so it counts here.
	 */
	{ FB_KLOG_FAM_ERROR, "", R_SANITY },
	/* dx_probe */
	{ FB_KLOG_FAM_WARNING, "Unrecognised inode hash code", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "Hash in dirent", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "Hash code is SIPHASH", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "Unimplemented hash", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "htree depth", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "dx entry:", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "Corrupt directory", R_SANITY },
	/* inline directories, MMP, htree version, xattr and leaf space, groups */
	{ FB_KLOG_FAM_WARNING, "bad inline directory", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "directory missing", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "Invalid MMP block", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "hash tree version", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "> max in inode", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "No space for directory leaf checksum", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "bad group: expected", R_SANITY },
	{ FB_KLOG_FAM_WARNING, "too many links", R_SANITY },
	/* the mount-time checks of ext4_fill_super and its helpers */
	{ FB_KLOG_FAM_MSG, "corrupt", R_SANITY },
	{ FB_KLOG_FAM_MSG, "invalid", R_SANITY },
	{ FB_KLOG_FAM_MSG, "bad ", R_SANITY },
	{ FB_KLOG_FAM_MSG, "insanely", R_SANITY },
	{ FB_KLOG_FAM_MSG, "too big", R_SANITY },
	{ FB_KLOG_FAM_MSG, "too large", R_SANITY },
	{ FB_KLOG_FAM_MSG, "not valid", R_SANITY },
	{ FB_KLOG_FAM_MSG, "inconsistent", R_SANITY },
	{ FB_KLOG_FAM_MSG, "mismatch", R_SANITY },
	{ FB_KLOG_FAM_MSG, "Can't find ext4 filesystem", R_SANITY },
	{ FB_KLOG_FAM_MSG, "ext4_check_descriptors", R_SANITY },
	{ FB_KLOG_FAM_MSG, "unsupported", R_SANITY },
	{ FB_KLOG_FAM_MSG, "unknown", R_SANITY },
	{ FB_KLOG_FAM_MSG, "overlaps", R_SANITY },
	{ FB_KLOG_FAM_MSG, "not in group", R_SANITY },
	{ FB_KLOG_FAM_MSG, "no journal found", R_SANITY },
	{ FB_KLOG_FAM_MSG, "journal inode", R_SANITY },
	{ FB_KLOG_FAM_MSG, "bmap failed", R_SANITY },
	{ FB_KLOG_FAM_MSG, "root inode", R_SANITY },
	{ FB_KLOG_FAM_MSG, "revision level too high", R_SANITY },
	{ FB_KLOG_FAM_MSG, "orphan file", R_SANITY },
	/*
	 * jbd2's own checks; "recovery failed" alone does not say which block
	 * failed. A bad revoke or commit block checksum that ends the log
	 * prints nothing at all.
	 */
	{ FB_KLOG_FAM_JBD2, "corrupt", R_SANITY },
	{ FB_KLOG_FAM_JBD2, "Invalid", R_SANITY },
	{ FB_KLOG_FAM_JBD2, "bad block", R_SANITY },
	{ FB_KLOG_FAM_JBD2, "no valid journal superblock", R_SANITY },
	{ FB_KLOG_FAM_JBD2, "unrecognised", R_SANITY },
	{ FB_KLOG_FAM_JBD2, "too short", R_SANITY },
	{ FB_KLOG_FAM_JBD2, "recovery pass", R_SANITY },
	{ FB_KLOG_FAM_JBD2, "Unknown checksum type", R_SANITY },
	{ FB_KLOG_FAM_JBD2, "Can't enable checksumming", R_SANITY },
};

enum fb_klog_family fb_klog_family(const char *t)
{
	if (!strncmp(t, "EXT4-fs error", 13))
		return FB_KLOG_FAM_ERROR;
	if (!strncmp(t, "EXT4-fs warning", 15))
		return FB_KLOG_FAM_WARNING;
	if (!strncmp(t, "EXT4-fs csum-error", 18) || !strncmp(t, "JBD2 csum-error", 15))
		return FB_KLOG_FAM_CSUMERR;
	if (!strncmp(t, "EXT4-fs (", 9))
		return FB_KLOG_FAM_MSG;
	if (!strncmp(t, "JBD2: ", 6))
		return FB_KLOG_FAM_JBD2;
	return FB_KLOG_FAM_ANY;
}

/* The class an errno printed in T (" -74", ": -5") stands for. */
static enum fb_klog_class errno_class(const char *t)
{
	for (const char *p = strchr(t, '-'); p; p = strchr(p + 1, '-')) {
		const char *s = p + 1;
		unsigned long e = 0;

		if (p == t || (p[-1] != ' ' && p[-1] != ':') ||
		    !isdigit((unsigned char)*s))
			continue;
		while (isdigit((unsigned char)*s) && e < 100000)
			e = e * 10 + (*s++ - '0');
		if (*s && !isspace((unsigned char)*s) && *s != ',' && *s != '.')
			continue;
		if (e == EBADMSG)	/* EFSBADCRC */
			return FB_KLOG_CSUM;
		if (e == EIO)
			return FB_KLOG_IO;
		return FB_KLOG_SANITY;	/* EUCLEAN (EFSCORRUPTED) and the rest */
	}
	return FB_KLOG_SANITY;
}

enum fb_klog_class fb_klog_class(const char *t)
{
	enum fb_klog_family fam = fb_klog_family(t);

	for (size_t i = 0; i < ARRAY_SIZE(detect_rules); i++) {
		const struct detect_rule *r = &detect_rules[i];

		if (r->fam != FB_KLOG_FAM_ANY && r->fam != fam)
			continue;
		if (!strcasestr(t, r->needle))
			continue;
		return r->cls == R_ERRNO ? errno_class(t) : (enum fb_klog_class)r->cls;
	}
	return FB_KLOG_NONE;
}

/* ---- kernel reports: crash markers and their titles ---- */

/* How a report's title is made (see make_title). */
enum title {
	T_NONE,		/* the report has no title of its own */
	T_KASAN,	/* "KASAN: KIND in FUNC" as printed */
	T_UBSAN,	/* "UBSAN: KIND in FRAME" */
	T_WARNING,	/* "WARNING in FUNC" from "at FILE:LINE FUNC+0x.." */
	T_KERNEL_BUG,	/* "kernel BUG in RIP", or "kernel BUG at FILE" */
	T_FAULT,	/* "MESSAGE in RIP" */
	T_BUG,		/* "BUG: KIND in FRAME" */
	T_HUNG,		/* "INFO: task hung in FRAME" */
	T_OOPS,		/* "Oops in RIP" */
	T_PANIC,	/* "kernel panic: MESSAGE" */
};

struct report_rule {
	const char *needle;	/* a substring of the report's first message */
	unsigned bits;		/* the FB_KLOG_* reactions it shows */
	enum title title;	/* made only when the message starts with the needle */
};

/*
 * First match wins. FB_KLOG_WARNING is not in the table: it is set for
 * every message with "BUG:", "WARNING:" or "UBSAN:" (fstests' dmesg check).
 */
static const struct report_rule report_rules[] = {
	/* mm/kasan/report.c: "BUG: KASAN: slab-out-of-bounds in f+0x1c/0x40" */
	{ "BUG: KASAN: ", FB_KLOG_KASAN, T_KASAN },
	/* kernel/watchdog.c, kernel/workqueue.c: stuck, not crashed */
	{ "BUG: soft lockup", FB_KLOG_HANG, T_BUG },
	{ "BUG: workqueue lockup", FB_KLOG_HANG, T_BUG },
	/* kernel/hung_task.c: "INFO: task NAME:PID blocked for more than N seconds." */
	{ "blocked for more than", FB_KLOG_HANG, T_HUNG },
	/* RCU stall warnings */
	{ "self-detected stall", FB_KLOG_HANG, T_NONE },
	{ "detected stalls on CPUs", FB_KLOG_HANG, T_NONE },
	/* kernel/panic.c; after an oops with panic_on_oops, the oops ranks first */
	{ "Kernel panic - not syncing", FB_KLOG_PANIC, T_PANIC },
	/* lib/ubsan.c: "UBSAN: shift-out-of-bounds in FILE:LINE:COL" */
	{ "UBSAN:", 0, T_UBSAN },
	/* kernel/panic.c __warn: "WARNING: CPU: 0 PID: 1 at FILE:LINE f+0x../0x.." */
	{ "WARNING:", 0, T_WARNING },
	/* BUG_ON(): "kernel BUG at fs/ext4/inode.c:123!" */
	{ "kernel BUG at ", FB_KLOG_OOPS, T_KERNEL_BUG },
	{ "Kernel BUG at", FB_KLOG_OOPS, T_NONE },
	/* arch/x86/mm/fault.c page faults, arch/x86/kernel/traps.c GP faults */
	{ "BUG: kernel NULL pointer dereference", FB_KLOG_OOPS, T_FAULT },
	{ "BUG: unable to handle", FB_KLOG_OOPS, T_FAULT },
	{ "general protection fault", FB_KLOG_OOPS, T_FAULT },
	/* every other BUG: (bad page state, scheduling while atomic, ...) */
	{ "BUG:", FB_KLOG_OOPS, T_BUG },
	/* "Oops: 0000 [#1] PREEMPT SMP" and any other Oops line */
	{ "Oops", FB_KLOG_OOPS, T_OOPS },
};

/* x86's die header: "Oops: 0000 [#1] PREEMPT SMP", "invalid opcode: 0000 [#1]" */
static bool die_header(const char *t)
{
	for (const char *p = strstr(t, " [#"); p; p = strstr(p + 1, " [#")) {
		if (p - t >= 6 && p[-6] == ':' && p[-5] == ' ' &&
		    isxdigit((unsigned char)p[-4]) && isxdigit((unsigned char)p[-3]) &&
		    isxdigit((unsigned char)p[-2]) && isxdigit((unsigned char)p[-1]) &&
		    isdigit((unsigned char)p[3]))
			return true;
	}
	return false;
}

static const struct report_rule *report_rule(const char *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(report_rules); i++)
		if (strstr(t, report_rules[i].needle))
			return &report_rules[i];
	return NULL;
}

unsigned fb_klog_reactions(const char *t)
{
	const struct report_rule *r = report_rule(t);
	unsigned bits = r ? r->bits : die_header(t) ? FB_KLOG_OOPS : 0;

	if (strstr(t, "BUG:") || strstr(t, "WARNING:") || strstr(t, "UBSAN:"))
		bits |= FB_KLOG_WARNING;
	return bits;
}

bool fb_klog_report_start(const char *line, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(report_rules); i++) {
		const char *n = report_rules[i].needle;

		if (memmem(line, len, n, strlen(n)))
			return true;
	}
	return false;
}

bool fb_klog_notable(const char *line, size_t len)
{
	static const char *const notable[] = {
		"EXT4-fs", "JBD2", "jbd2", "I/O error", "blk_update_request",
		"Aborting journal",
	};

	for (size_t i = 0; i < ARRAY_SIZE(notable); i++)
		if (memmem(line, len, notable[i], strlen(notable[i])))
			return true;
	return false;
}

/* Frames that say how the report was made, not where the bug is. */
static const char *const boring[] = {
	"dump_stack", "__dump_stack", "dump_stack_lvl", "print_report", "print_address_description",
	"kasan_", "__kasan", "__asan_", "check_memory_region", "kasan_check_range", "memcpy",
	"memmove", "memset", "__memcpy", "__memmove", "__memset", "strlen", "strnlen", "strcmp",
	"__warn", "warn_slowpath", "report_bug", "handle_bug", "exc_invalid_op", "asm_exc_",
	"ubsan_", "__ubsan_", "panic", "__schedule", "schedule", "io_schedule", "bit_wait",
	"__wait_on_bit", "out_of_line_wait_on_bit", "__wait_on_buffer", "wait_on_page",
	"folio_wait", "rwsem_down", "down_read", "down_write", "mutex_lock", "__mutex_lock",
	"schedule_timeout", "wait_for_completion", "kthread", "ret_from_fork", "do_syscall_64",
	"entry_SYSCALL", "__x64_sys", "x64_sys_call", "syscall_exit",
};

static bool is_boring(const char *fn)
{
	for (size_t i = 0; i < ARRAY_SIZE(boring); i++)
		if (!strncmp(fn, boring[i], strlen(boring[i])))
			return true;
	return false;
}

/* The message of a dmesg line: after "[    1.234567] ". */
static const char *msg(const char *line)
{
	const char *p = line;

	if (*p == '[') {
		const char *e = strchr(p, ']');

		if (e)
			p = e + 1;
	}
	return p + strspn(p, " ");
}

/* "ext4_foo+0x12/0x40 ..." -> "ext4_foo" into BUF. */
static void func_name(const char *s, char *buf, size_t len)
{
	size_t n = strcspn(s, "+ \n");

	snprintf(buf, len, "%.*s", (int)n, s);
}

/*
 * The first meaningful function after line START (of NLINES): the RIP line
 * when RIP is true, else the first non-boring frame of the call trace
 * (frames marked '?' are guesses and skipped).
 */
static bool trace_func(char **lines, int start, int nlines, bool rip, char *buf, size_t len)
{
	for (int i = start + 1; i < nlines && i < start + 80; i++) {
		const char *m = msg(lines[i]);

		if (rip) {
			const char *r = strstr(m, "RIP: ");

			if (r && (r = strchr(r, ':')) && (r = strchr(r + 1, ':'))) {
				func_name(r + 1, buf, len);
				if (*buf)
					return true;
			}
			continue;
		}
		const char *plus = strchr(m, '+'), *sp = strchr(m, ' ');
		/* a frame is "func+0x1c/0x40": one word, '?' frames are guesses */
		if (!strncmp(m, "? ", 2) || !plus || (sp && sp < plus))
			continue;
		func_name(m, buf, len);
		if (*buf && !is_boring(buf))
			return true;
	}
	buf[0] = '\0';
	return false;
}

/* Drop "+0x../0x.." and an "address: ..." tail, collapse to one line. */
static void tidy(char *s)
{
	char *p;

	while ((p = strstr(s, "+0x"))) {
		size_t n = strcspn(p, " ");

		memmove(p, p + n, strlen(p + n) + 1);
	}
	if ((p = strstr(s, ", address")))
		*p = '\0';
	s[strcspn(s, "\n\r")] = '\0';
}

/* Append " in FUNC" to T when the trace names one. */
static void in_func(char *t, size_t size, char **lines, int i, int n, bool rip)
{
	char fn[128];

	if (trace_func(lines, i, n, rip, fn, sizeof(fn)))
		snprintf(t + strlen(t), size - strlen(t), " in %s", fn);
}

/* The title of the report rule R matched on line I (message M) into T. */
static bool make_title(const struct report_rule *r, const char *m, char **lines,
		       int i, int n, char *t, size_t size)
{
	const char *at, *f;
	char fn[128];

	switch (r->title) {
	case T_KASAN:
		snprintf(t, size, "KASAN: %s", m + strlen("BUG: KASAN: "));
		return true;
	case T_UBSAN:
		at = strstr(m, " in ");
		snprintf(t, size, "%.*s", at ? (int)(at - m) : (int)strlen(m), m);
		in_func(t, size, lines, i, n, false);
		return true;
	case T_WARNING:
		if (!(at = strstr(m, " at ")))
			return false;
		f = strchr(at + 4, ' ');
		func_name(f ? f + 1 : at + 4, fn, sizeof(fn));
		snprintf(t, size, "WARNING in %s", fn);
		return true;
	case T_KERNEL_BUG:
		if (trace_func(lines, i, n, true, fn, sizeof(fn)))
			snprintf(t, size, "kernel BUG in %s", fn);
		else
			snprintf(t, size, "kernel BUG at %.*s", (int)strcspn(m + 14, ":!"), m + 14);
		return true;
	case T_FAULT:
		snprintf(t, size, "%.*s", (int)strcspn(m, ","), m);
		in_func(t, size, lines, i, n, true);
		return true;
	case T_BUG:
		/* the rule's needle is "BUG:": the line may end there */
		at = m + 4 + strspn(m + 4, " ");
		snprintf(t, size, "BUG: %.*s", (int)strcspn(at, ",:[0123456789"), at);
		in_func(t, size, lines, i, n, false);
		return true;
	case T_HUNG:
		snprintf(t, size, "INFO: task hung");
		in_func(t, size, lines, i, n, false);
		return true;
	case T_OOPS:
		snprintf(t, size, "Oops");
		in_func(t, size, lines, i, n, true);
		return true;
	case T_PANIC:
		snprintf(t, size, "kernel panic: %s", m + strlen("Kernel panic - not syncing: "));
		return true;
	case T_NONE:
		break;
	}
	return false;
}

/* The title of a report starting at line I into BUF; false when none starts there. */
static bool report_title(char **lines, int i, int n, char *buf, size_t len)
{
	const char *m = msg(lines[i]);
	const struct report_rule *r = report_rule(m);
	const char *start;
	char t[256];

	if (!r)
		return false;
	start = r->title == T_HUNG ? "INFO: task " :
		r->title == T_PANIC ? "Kernel panic - not syncing: " : r->needle;
	if (strncmp(m, start, strlen(start)) || !make_title(r, m, lines, i, n, t, sizeof(t)))
		return false;
	tidy(t);
	/* trailing blanks from the console */
	for (size_t k = strlen(t); k && (t[k - 1] == ' ' || t[k - 1] == '.'); k--)
		t[k - 1] = '\0';
	snprintf(buf, len, "%s", t);
	return true;
}

void fb_klog_title(const char *dmesg, char *buf, size_t len)
{
	char *copy = xstrdup(dmesg), **lines = NULL, *save = NULL;
	int n = 0, cap = 0;

	buf[0] = '\0';
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (n == cap)
			lines = xrealloc(lines, (cap = cap ? cap * 2 : 256) * sizeof(char *));
		lines[n++] = l;
	}
	for (int i = 0; i < n && !report_title(lines, i, n, buf, len); i++)
		;
	free(lines);
	free(copy);
}

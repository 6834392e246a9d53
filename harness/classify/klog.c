// SPDX-License-Identifier: MIT
/*
 * The meaning of kernel messages (klog.h): the detection rules for ext4
 * and jbd2 lines, the kernel-report markers, and report titles. Each rule
 * names the kernel function that prints the message it matches (6.1's, and
 * 6.12's where the wording differs).
 *
 * A detection has two signals, and this file gives the first: the MESSAGE,
 * whose wording says which check failed, as far as it says (6.1's
 * "corrupted xattr block N" stands for the checksum, the magic and the
 * entries alike: ambiguous). The second is the ERRNO ext4 passes on with
 * the error (EFSBADCRC for a checksum, EFSCORRUPTED for the other checks,
 * EIO), which the FAN_FS_ERROR event and the failing system call carry
 * (classify.c reads it). Wording changes between releases and says less
 * than the code; the errno is the code's own word, except where a check
 * reports through a path that drops it (ext4_error() passes EFSCORRUPTED
 * whatever failed). When the two disagree, the conflict table below names
 * the kernel function that explains it.
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
	R_AMBIGUOUS = FB_KLOG_AMBIGUOUS,
	R_CONSEQUENCE = FB_KLOG_CONSEQUENCE,
	R_NOTE = FB_KLOG_NOTE,
	R_ERRNO,	/* -74 (EFSBADCRC) csum, -5 io, any other sanity */
};

struct detect_rule {
	enum fb_klog_family fam;	/* FB_KLOG_FAM_ANY: any line */
	/*
	 * A substring, case ignored; "" matches all. "%u" stands for one or
	 * more digits, a final "$" for the end of the message.
	 */
	const char *needle;
	enum rule_class cls;
	/*
	 * The kernel function that prints the message; NULL: the one the
	 * line names ("EXT4-fs error (device D): FUNC:LINE: ...").
	 */
	const char *func;
};

/*
 * First match wins, so checksum lines come first, then the lines that only
 * report an earlier error, then I/O errors, then every other check. Where
 * 6.12 words a message otherwise than 6.1, both wordings are listed.
 */
static const struct detect_rule detect_rules[] = {
	/* the patched series' structured line, at every verification site */
	{ FB_KLOG_FAM_CSUMERR, "EXT4-fs csum-error", R_CSUM, "ext4_csum_error" },
	{ FB_KLOG_FAM_CSUMERR, "JBD2 csum-error", R_CSUM, "jbd2_csum_error" },
	/* __ext4_iget */
	{ FB_KLOG_FAM_ERROR, "iget: checksum invalid", R_CSUM, "__ext4_iget" },
	/* ext4_validate_block_bitmap */
	{ FB_KLOG_FAM_ERROR, "bad block bitmap checksum", R_CSUM, "ext4_validate_block_bitmap" },
	/* ext4_validate_inode_bitmap: 6.1 and 6.12 print it only on a bad checksum */
	{ FB_KLOG_FAM_ERROR, "Corrupt inode bitmap", R_CSUM, "ext4_validate_inode_bitmap" },
	/*
	 * __ext4_ext_check: the only message of its checksum branch; its other
	 * messages ("invalid magic", "invalid eh_entries", ...) are the sanity
	 * checks that run before the checksum
	 */
	{ FB_KLOG_FAM_ERROR, "bad header/extent: extent tree corrupted", R_CSUM, "__ext4_ext_check" },
	/* __ext4_read_dirblock: a leaf, then an htree node */
	{ FB_KLOG_FAM_ERROR, "Directory block failed checksum", R_CSUM, "__ext4_read_dirblock" },
	{ FB_KLOG_FAM_ERROR, "Directory index failed checksum", R_CSUM, "__ext4_read_dirblock" },
	/* __ext4_find_entry */
	{ FB_KLOG_FAM_ERROR, "checksumming directory block", R_CSUM, "__ext4_find_entry" },
	/* ext4_readdir */
	{ FB_KLOG_FAM_ERROR, "directory fails checksum at offset", R_CSUM, "ext4_readdir" },
	/* ext4_init_orphan_info (the orphan file) */
	{ FB_KLOG_FAM_ERROR, "bad checksum", R_CSUM, "ext4_init_orphan_info" },
	/* ext4_std_error of -EFSBADCRC */
	{ FB_KLOG_FAM_ERROR, "Filesystem failed CRC", R_CSUM, "__ext4_std_error" },
	/*
	 * 6.12's check_xattrs names the check after the block: the checksum
	 * ("invalid checksum"), the header, the entries. 6.1's
	 * __ext4_xattr_check_block prints "corrupted xattr block N" and
	 * nothing more for a bad checksum, magic, h_blocks or entry alike.
	 */
	{ FB_KLOG_FAM_ERROR, "corrupted xattr block %u: invalid checksum", R_CSUM, "check_xattrs" },
	{ FB_KLOG_FAM_ERROR, "corrupted xattr block %u: ", R_SANITY, "check_xattrs" },
	{ FB_KLOG_FAM_ERROR, "corrupted xattr block %u$", R_AMBIGUOUS, "__ext4_xattr_check_block" },
	/*
	 * ext4_read_block_bitmap_nowait after ext4_init_block_bitmap found a
	 * bad group descriptor checksum (-74); another errno there is sanity
	 */
	{ FB_KLOG_FAM_ERROR, "Failed to init block bitmap", R_ERRNO, "ext4_read_block_bitmap_nowait" },
	/* ext4_check_descriptors, __ext4_remount */
	{ FB_KLOG_FAM_MSG, "Checksum for group", R_CSUM, "ext4_check_descriptors" },
	/* ext4_init_metadata_csum */
	{ FB_KLOG_FAM_MSG, "invalid superblock checksum", R_CSUM, "ext4_init_metadata_csum" },
	/* ext4_update_backup_sb */
	{ FB_KLOG_FAM_MSG, "Invalid checksum for backup superblock", R_CSUM, "ext4_update_backup_sb" },
	/* read_mmp_block: a warning only; -117 there is a bad magic */
	{ FB_KLOG_FAM_WARNING, "while reading MMP block", R_ERRNO, "read_mmp_block" },
	/* do_one_pass: a descriptor or data block */
	{ FB_KLOG_FAM_JBD2, "Invalid checksum recovering", R_CSUM, "do_one_pass" },
	/* do_one_pass: a revoke or descriptor block */
	{ FB_KLOG_FAM_JBD2, "Invalid checksum found in transaction", R_CSUM, "do_one_pass" },
	/*
	 * do_one_pass (6.12): a commit block whose checksum fails while
	 * jbd2_commit_block_csum_verify_partial() holds over its header is
	 * taken for a commit block torn after its first sector and replayed:
	 * the checksum check failed, and the kernel says so in this notice
	 */
	{ FB_KLOG_FAM_JBD2, "Find incomplete commit block", R_CSUM, "do_one_pass" },
	/* journal_get_superblock (6.1), journal_check_superblock (6.12) */
	{ FB_KLOG_FAM_JBD2, "journal checksum error", R_CSUM, "journal_get_superblock" },
	/*
	 * jbd2_journal_load: j_failed_commit is set only when a commit block's
	 * checksum failed in the scan pass
	 */
	{ FB_KLOG_FAM_JBD2, "is corrupt.", R_CSUM, "jbd2_journal_load" },
	/* jbd2_journal_skip_recovery */
	{ FB_KLOG_FAM_JBD2, "scanning journal", R_ERRNO, "jbd2_journal_skip_recovery" },

	/*
	 * The kernel checking its own state, not the disk's: jbd2's
	 * warn_dirty_buffer finds a buffer dirtied outside the journal
	 * ("Spotted dirty metadata buffer ... risk of filesystem corruption in
	 * case of system crash"). Before the "corrupt" rule below.
	 */
	{ FB_KLOG_FAM_JBD2, "Spotted dirty metadata buffer", R_NOTE, "warn_dirty_buffer" },

	/* an earlier error's consequence, not a detection of its own */
	{ FB_KLOG_FAM_ERROR, "Detected aborted journal", R_CONSEQUENCE, "ext4_journal_check_start" },
	{ FB_KLOG_FAM_ERROR, "Journal has aborted", R_CONSEQUENCE, "__ext4_std_error" },
	{ FB_KLOG_FAM_ERROR, "Readonly filesystem", R_CONSEQUENCE, "__ext4_std_error" },
	{ FB_KLOG_FAM_ERROR, "Out of memory", R_CONSEQUENCE, "__ext4_std_error" },
	/*
	 * ext4_load_journal and jbd2_journal_recover after the journal failed
	 * to load: jbd2 says why in a line of its own (an I/O error, a
	 * checksum, a bad block); without one the refused mount is the
	 * detection
	 */
	{ FB_KLOG_FAM_MSG, "error loading journal", R_CONSEQUENCE, "ext4_load_journal" },
	{ FB_KLOG_FAM_JBD2, "recovery failed", R_CONSEQUENCE, "jbd2_journal_load" },

	/* I/O errors, checked before sanity: the block layer's, then ext4's and jbd2's */
	{ FB_KLOG_FAM_ANY, "I/O error, dev", R_IO, "blk_print_req_error" },
	{ FB_KLOG_FAM_ANY, "Buffer I/O error", R_IO, "buffer_io_error" },
	{ FB_KLOG_FAM_JBD2, "I/O error when updating journal superblock", R_IO,
	  "jbd2_write_superblock" },
	{ FB_KLOG_FAM_JBD2, "IO error reading journal superblock", R_IO, "journal_get_superblock" },
	{ FB_KLOG_FAM_JBD2, "IO error -%u recovering", R_IO, "do_one_pass" },
	{ FB_KLOG_FAM_ANY, "I/O error", R_IO, NULL },		/* ext4_end_bio, "I/O error 10 writing to inode" */
	{ FB_KLOG_FAM_ANY, "IO error", R_IO, NULL },
	/* journal_load_superblock (6.12; 6.1 says "IO error reading journal superblock") */
	{ FB_KLOG_FAM_ANY, "Cannot read journal superblock", R_IO, "journal_load_superblock" },
	/*
	 * ext4_check_bdev_write_error: the block device's writeback of a
	 * metadata buffer failed; ext4_error_err() passes the errseq's -EIO
	 */
	{ FB_KLOG_FAM_ERROR, "Error while async write back metadata", R_IO,
	  "ext4_check_bdev_write_error" },
	/* ext4_std_error of -EIO */
	{ FB_KLOG_FAM_ERROR, "IO failure", R_IO, "__ext4_std_error" },
	/*
	 * ext4_put_super: jbd2_journal_destroy of a journal not aborted before
	 * failed, which only a failed checkpoint or superblock write does
	 */
	{ FB_KLOG_FAM_ERROR, "Couldn't clean up the journal", R_IO, "ext4_put_super" },
	/* __ext4_get_inode_loc */
	{ FB_KLOG_FAM_ERROR, "unable to read itable block", R_IO, "__ext4_get_inode_loc" },
	/* a block or inode bitmap read failed */
	{ FB_KLOG_FAM_ERROR, "Cannot read", R_IO, NULL },
	/* __ext4_find_entry, the xattr code */
	{ FB_KLOG_FAM_ERROR, "reading directory lblock", R_IO, "__ext4_find_entry" },
	{ FB_KLOG_FAM_ERROR, "read error", R_IO, NULL },
	/* ext4_load_super, ext4_group_desc_init */
	{ FB_KLOG_FAM_MSG, "unable to read superblock", R_IO, "ext4_load_super" },
	{ FB_KLOG_FAM_MSG, "Can't read superblock", R_IO, "ext4_load_super" },
	{ FB_KLOG_FAM_MSG, "can't read group descriptor", R_IO, "ext4_group_desc_init" },
	/* jread */
	{ FB_KLOG_FAM_JBD2, "Failed to read block", R_IO, "jread" },
	/* "error -5 reading directory (index) block", "Error -5 loading buddy" */
	{ FB_KLOG_FAM_WARNING, "reading directory block", R_ERRNO, "__ext4_read_dirblock" },
	{ FB_KLOG_FAM_WARNING, "reading directory index block", R_ERRNO, "dx_probe" },
	{ FB_KLOG_FAM_WARNING, "loading buddy information", R_ERRNO, "ext4_mb_load_buddy" },

	/*
	 * Every other "EXT4-fs error": bad magic, bad header, invalid block,
	 * htree, inline data, bitmap bounds, 6.1's "corrupted in-inode
	 * xattr", but also an error passed on from below ("mark_inode_dirty
	 * error" in __ext4_ext_dirty is an EIO when the inode's block could
	 * not be read or written). The line does not say which: the errno
	 * __ext4_error and ext4_error_inode_err pass on decides (ambiguous),
	 * and without the fanotify witness it counts as sanity, as before.
	 * The function is the one the line names.
	 */
	{ FB_KLOG_FAM_ERROR, "", R_AMBIGUOUS, NULL },
	/* dx_probe */
	{ FB_KLOG_FAM_WARNING, "Unrecognised inode hash code", R_SANITY, "dx_probe" },
	{ FB_KLOG_FAM_WARNING, "Hash in dirent", R_SANITY, "dx_probe" },
	{ FB_KLOG_FAM_WARNING, "Hash code is SIPHASH", R_SANITY, "dx_probe" },
	{ FB_KLOG_FAM_WARNING, "Unimplemented hash", R_SANITY, "dx_probe" },
	{ FB_KLOG_FAM_WARNING, "htree depth", R_SANITY, "dx_probe" },
	{ FB_KLOG_FAM_WARNING, "dx entry:", R_SANITY, "dx_probe" },
	{ FB_KLOG_FAM_WARNING, "Corrupt directory", R_SANITY, NULL },
	/* inline directories, MMP, htree version, xattr and leaf space, groups */
	{ FB_KLOG_FAM_WARNING, "bad inline directory", R_SANITY, NULL },
	{ FB_KLOG_FAM_WARNING, "directory missing", R_SANITY, NULL },
	{ FB_KLOG_FAM_WARNING, "Invalid MMP block", R_SANITY, NULL },
	{ FB_KLOG_FAM_WARNING, "hash tree version", R_SANITY, NULL },
	{ FB_KLOG_FAM_WARNING, "> max in inode", R_SANITY, NULL },
	{ FB_KLOG_FAM_WARNING, "No space for directory leaf checksum", R_SANITY, NULL },
	{ FB_KLOG_FAM_WARNING, "bad group: expected", R_SANITY, NULL },
	{ FB_KLOG_FAM_WARNING, "too many links", R_SANITY, NULL },
	/* the mount-time checks of ext4_fill_super and its helpers */
	{ FB_KLOG_FAM_MSG, "corrupt", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "invalid", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "bad ", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "insanely", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "too big", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "too large", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "not valid", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "inconsistent", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "mismatch", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "Can't find ext4 filesystem", R_SANITY, "ext4_load_super" },
	{ FB_KLOG_FAM_MSG, "ext4_check_descriptors", R_SANITY, "ext4_check_descriptors" },
	{ FB_KLOG_FAM_MSG, "unsupported", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "unknown", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "overlaps", R_SANITY, "ext4_check_descriptors" },
	{ FB_KLOG_FAM_MSG, "not in group", R_SANITY, "ext4_check_descriptors" },
	{ FB_KLOG_FAM_MSG, "no journal found", R_SANITY, "ext4_get_journal_inode" },
	{ FB_KLOG_FAM_MSG, "journal inode", R_SANITY, "ext4_get_journal_inode" },
	{ FB_KLOG_FAM_MSG, "bmap failed", R_SANITY, "ext4_get_journal_inode" },
	{ FB_KLOG_FAM_MSG, "root inode", R_SANITY, "__ext4_fill_super" },
	{ FB_KLOG_FAM_MSG, "revision level too high", R_SANITY, "ext4_feature_set_ok" },
	{ FB_KLOG_FAM_MSG, "orphan file", R_SANITY, "ext4_init_orphan_info" },
	/*
	 * jbd2's own checks; "recovery failed" alone does not say which block
	 * failed. A bad revoke or commit block checksum that ends the log
	 * prints nothing at all.
	 */
	{ FB_KLOG_FAM_JBD2, "corrupt", R_SANITY, "do_one_pass" },
	{ FB_KLOG_FAM_JBD2, "Invalid", R_SANITY, "do_one_pass" },
	{ FB_KLOG_FAM_JBD2, "bad block", R_SANITY, "do_one_pass" },
	{ FB_KLOG_FAM_JBD2, "no valid journal superblock", R_SANITY, "journal_get_superblock" },
	{ FB_KLOG_FAM_JBD2, "unrecognised", R_SANITY, "journal_get_superblock" },
	{ FB_KLOG_FAM_JBD2, "too short", R_SANITY, "journal_get_superblock" },
	{ FB_KLOG_FAM_JBD2, "recovery pass", R_SANITY, "do_one_pass" },
	{ FB_KLOG_FAM_JBD2, "Unknown checksum type", R_SANITY, "journal_get_superblock" },
	{ FB_KLOG_FAM_JBD2, "Can't enable checksumming", R_SANITY, "journal_get_superblock" },
};

enum fb_klog_family fb_klog_family(const char *t)
{
	if (!strncmp(t, "EXT4-fs error", 13))
		return FB_KLOG_FAM_ERROR;
	if (!strncmp(t, "EXT4-fs warning", 15))
		return FB_KLOG_FAM_WARNING;
	/*
	 * "(device": a ratelimit's "EXT4-fs csum-error: N callbacks
	 * suppressed" starts as the line does but names no object
	 */
	if (!strncmp(t, "EXT4-fs csum-error (", 20) || !strncmp(t, "JBD2 csum-error (", 17))
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

/* Whether pattern P (a rule's needle) matches T at its start; case ignored. */
static bool match_here(const char *t, const char *p)
{
	for (; *p; p++) {
		if (p[0] == '%' && p[1] == 'u') {
			if (!isdigit((unsigned char)*t))
				return false;
			while (isdigit((unsigned char)*t))
				t++;
			p++;
		} else if (p[0] == '$' && !p[1]) {
			return !*t || ((*t == '\n' || *t == '\r') && !t[1]);
		} else if (tolower((unsigned char)*t++) != tolower((unsigned char)*p)) {
			return false;
		}
	}
	return true;
}

static bool rule_matches(const char *t, const char *needle)
{
	if (!strpbrk(needle, "%$"))
		return strcasestr(t, needle) != NULL;
	for (; *t; t++)
		if (match_here(t, needle))
			return true;
	return false;
}

/* "EXT4-fs error (device D): FUNC:LINE: ..." -> FUNC into BUF ("" if none). */
static void printed_func(const char *t, char *buf, size_t len)
{
	const char *p = strstr(t, "): "), *e;
	size_t n;

	buf[0] = '\0';
	if (!p)
		return;
	p += 3;
	n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	e = p + n;
	if (!n || *e != ':' || !isdigit((unsigned char)e[1]))
		return;
	snprintf(buf, len, "%.*s", (int)n, p);
}

enum fb_klog_class fb_klog_rule(const char *t, char *func, size_t len)
{
	enum fb_klog_family fam = fb_klog_family(t);

	if (len)
		func[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(detect_rules); i++) {
		const struct detect_rule *r = &detect_rules[i];

		if (r->fam != FB_KLOG_FAM_ANY && r->fam != fam)
			continue;
		if (!rule_matches(t, r->needle))
			continue;
		if (len && r->func)
			snprintf(func, len, "%s", r->func);
		else if (len)
			printed_func(t, func, len);
		return r->cls == R_ERRNO ? errno_class(t) : (enum fb_klog_class)r->cls;
	}
	return FB_KLOG_NONE;
}

enum fb_klog_class fb_klog_class(const char *t)
{
	return fb_klog_rule(t, NULL, 0);
}

/* ---- the errno beside the message: disagreements the kernel explains ---- */

/* Where the errno came from: a rule that explains one source only says so. */
enum errno_from { FROM_ANY, FROM_STEP, FROM_FANOTIFY };

struct conflict_rule {
	const char *func;	/* the message's function (fb_klog_rule) */
	const char *needle;	/* and a substring of its line, or "" */
	enum fb_klog_class msg, err;
	const char *why;
	enum errno_from from;	/* FROM_ANY when left out */
};

static const struct conflict_rule conflict_rules[] = {
	/* stock only: patch 0007 passes EFSBADCRC instead */
	{ "ext4_validate_block_bitmap", "", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "ext4_validate_block_bitmap reports through ext4_error(), which passes EFSCORRUPTED" },
	{ "ext4_validate_inode_bitmap", "", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "ext4_validate_inode_bitmap reports through ext4_error(), which passes EFSCORRUPTED" },
	/* stock only: patch 0002 reports it with EXT4_ERROR_INODE_ERR(EFSBADCRC) */
	{ "ext4_readdir", "directory fails checksum", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "ext4_readdir reports through EXT4_ERROR_FILE(), which takes no errno: __ext4_error_file records EFSCORRUPTED" },
	/*
	 * ext4_dx_csum_verify: a flip in a dx block's header leaves no
	 * count/limit for get_dx_countlimit, and it reports "dir seems
	 * corrupt?  Run e2fsck -D." (EXT4_ERROR_INODE: EFSCORRUPTED) before
	 * __ext4_read_dirblock reports the checksum failed (EFSBADCRC). Stock
	 * only: patch 0005 computes the checksum where the block's place in
	 * the tree puts it before it judges the header
	 */
	{ "__ext4_read_dirblock", "Directory index failed checksum", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "ext4_dx_csum_verify finds no dx count/limit and reports \"dir seems corrupt\" (EFSCORRUPTED) before __ext4_read_dirblock reports the checksum" },
	{ "ext4_csum_error", "type=dx-", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "ext4_dx_csum_verify finds no dx count/limit and reports \"dir seems corrupt\" (EFSCORRUPTED) before __ext4_read_dirblock reports the checksum" },
	/* the mount step's errno */
	{ "ext4_check_descriptors", "", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "ext4_group_desc_init fails the mount with EFSCORRUPTED when ext4_check_descriptors fails",
	  FROM_STEP },
	{ "ext4_csum_error", "type=group-desc ", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "ext4_group_desc_init fails the mount with EFSCORRUPTED when ext4_check_descriptors fails",
	  FROM_STEP },
	/*
	 * A read-only mount goes on past a bad descriptor (ext4_check_descriptors
	 * fails only a read-write one); the first error event comes when the
	 * group's block bitmap is built. Stock only: 0007 passes the errno.
	 */
	{ "ext4_check_descriptors", "", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "a read-only mount keeps a group whose descriptor checksum failed; ext4_read_block_bitmap_nowait reports ext4_init_block_bitmap's -EFSBADCRC through ext4_error(), which passes EFSCORRUPTED",
	  FROM_FANOTIFY },
	{ "ext4_read_block_bitmap_nowait", "Failed to init block bitmap", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "ext4_read_block_bitmap_nowait reports ext4_init_block_bitmap's -EFSBADCRC through ext4_error(), which passes EFSCORRUPTED" },
	{ "do_one_pass", "", FB_KLOG_CSUM, FB_KLOG_IO,
	  "jbd2_journal_load fails the mount with EIO whatever made jbd2_journal_recover fail" },
	{ "jbd2_csum_error", "type=journal-", FB_KLOG_CSUM, FB_KLOG_IO,
	  "jbd2_journal_load fails the mount with EIO whatever made jbd2_journal_recover fail" },
	{ "jbd2_journal_load", "", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "jbd2_journal_load fails the mount with EFSCORRUPTED for a commit block whose checksum failed" },
	{ "jbd2_csum_error", "type=journal-commit ", FB_KLOG_CSUM, FB_KLOG_SANITY,
	  "jbd2_journal_load fails the mount with EFSCORRUPTED for a commit block whose checksum failed" },
	{ "ext4_init_orphan_info", "", FB_KLOG_CSUM, FB_KLOG_IO,
	  "ext4_init_orphan_info fails the mount with EIO for a bad orphan block checksum or magic" },
	{ "ext4_init_orphan_info", "", FB_KLOG_SANITY, FB_KLOG_IO,
	  "ext4_init_orphan_info fails the mount with EIO for a bad orphan block checksum or magic" },
	{ "ext4_csum_error", "type=orphan-block ", FB_KLOG_CSUM, FB_KLOG_IO,
	  "ext4_init_orphan_info fails the mount with EIO for a bad orphan block checksum or magic" },
};

const char *fb_klog_conflict(const char *func, const char *line, enum fb_klog_class msg,
			     enum fb_klog_class err, bool from_step)
{
	for (size_t i = 0; i < ARRAY_SIZE(conflict_rules); i++) {
		const struct conflict_rule *r = &conflict_rules[i];

		if (r->msg == msg && r->err == err && !strcmp(r->func, func) &&
		    strstr(line, r->needle) &&
		    (r->from == FROM_ANY || (r->from == FROM_STEP) == from_step))
			return r->why;
	}
	return NULL;
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

// SPDX-License-Identifier: MIT
/*
 * The classifier: one transcript.log in, one outcome out (classify.h).
 *
 * A transcript interleaves "C " console lines, "A " agent lines (among them
 * "A kmsg SEQ LEVEL USEC TEXT", the same kernel messages read from
 * /dev/kmsg) and "H " host lines. Kernel messages are matched on their text
 * with the "C "/"A kmsg ..." prefix and the printk timestamp removed, and
 * kmsg's \xNN escapes decoded. Messages are matched as substrings, ignoring
 * case, and only in the family of lines named in the first column:
 *   error   "EXT4-fs error (device D): ..."   (__ext4_error*, ext4_std_error:
 *                                             these run ext4_handle_error)
 *   warning "EXT4-fs warning (device D): ..." (__ext4_warning*)
 *   msg     "EXT4-fs (D): ..."                (ext4_msg at mount and remount)
 *   csumerr "EXT4-fs csum-error (device D): type=T ino=I block=B group=G [recovered]"
 *           and jbd2's "JBD2 csum-error (device D): type=journal-… ino=I block=B group=-"
 *                                             (the patched series; fields may be "-")
 *   jbd2    "JBD2: ..."
 *   any     any kernel line
 *
 * detect: checksum lines (csum), checked first, in this order
 *   csumerr  (every line)                              patched series
 *   error    "iget: checksum invalid"                  __ext4_iget
 *   error    "bad block bitmap checksum"               ext4_validate_block_bitmap
 *   error    "Corrupt inode bitmap"                    ext4_validate_inode_bitmap (6.1
 *                                                      prints it only on a bad checksum)
 *   error    "bad header/extent: extent tree corrupted" __ext4_ext_check: the only
 *                                                      error_msg of its checksum branch;
 *                                                      its other messages ("invalid magic",
 *                                                      "invalid eh_entries", ...) are the
 *                                                      sanity checks run before the checksum
 *   error    "Directory block failed checksum"         __ext4_read_dirblock (leaf)
 *   error    "Directory index failed checksum"         __ext4_read_dirblock (htree node)
 *   error    "checksumming directory block"            __ext4_find_entry
 *   error    "directory fails checksum at offset"      ext4_readdir
 *   error    "bad checksum"                            ext4_init_orphan_info (orphan file)
 *   error    "Filesystem failed CRC"                   ext4_std_error of -EFSBADCRC
 *   error    "Failed to init block bitmap ...: -74"    ext4_read_block_bitmap_nowait after
 *                                                      ext4_init_block_bitmap found a bad
 *                                                      group descriptor checksum (-EFSBADCRC;
 *                                                      another errno there is sanity)
 *   msg      "Checksum for group"                      ext4_check_descriptors, __ext4_remount
 *   msg      "invalid superblock checksum"             ext4_init_metadata_csum
 *   msg      "Invalid checksum for backup superblock"  ext4_update_backup_sb
 *   warning  "Error -74 while reading MMP block"       read_mmp_block (a warning only;
 *                                                      -117 there is a bad magic: sanity)
 *   jbd2     "Invalid checksum recovering"             do_one_pass (descriptor or data block)
 *   jbd2     "Invalid checksum found in transaction"   do_one_pass (revoke/descriptor)
 *   jbd2     "journal checksum error"                  journal_get_superblock
 *   jbd2     "is corrupt."                             jbd2_journal_load: j_failed_commit is
 *                                                      set only when a commit block checksum
 *                                                      failed in the scan pass
 *   jbd2     "error -74 scanning journal"              jbd2_journal_skip_recovery
 * Ambiguous in 6.1, counted as sanity: "corrupted xattr block N"
 * (__ext4_xattr_check_block prints it for a bad magic, h_blocks, checksum or
 * entry alike) and "JBD2: recovery failed". A bad revoke or commit block
 * checksum that ends the log prints nothing: detect=none.
 *
 * detect: lines that are not detections (an earlier error's consequence)
 *   error    "Detected aborted journal", "Journal has aborted",
 *            "Readonly filesystem", "Out of memory"
 *   msg      everything not listed under sanity or io below ("mounted
 *            filesystem", "Remounting filesystem read-only", "warning: mounting
 *            fs with errors", ...)
 *
 * detect: I/O errors (io), checked before sanity
 *   any      "I/O error", "IO error"                   blk_print_req_error ("I/O error, dev
 *                                                      vda, sector ..."), "Buffer I/O error",
 *                                                      ext4_end_bio, JBD2 recovery
 *   error    "IO failure"                              ext4_std_error of -EIO
 *   error    "unable to read itable block"             __ext4_get_inode_loc
 *   error    "Cannot read"                             block/inode bitmap read failed
 *   error    "reading directory lblock", "read error"  __ext4_find_entry, xattr
 *   msg      "unable to read superblock", "Can't read superblock",
 *            "can't read group descriptor"             ext4_load_super, ext4_group_desc_init
 *   jbd2     "Failed to read block"                    jread
 *   warning  "error -5 reading directory (index) block", "Error -5 loading buddy"
 *            (the errno decides: -74 csum, -5 io, other sanity)
 *   agent    a step that ended "err EIO" (no kernel line: detail is the step line)
 *
 * detect: other ext4/jbd2 checks (sanity)
 *   error    every other "EXT4-fs error" line (bad magic, bad header, invalid
 *            block, corrupted xattr, htree, inline data, bitmap bounds ...)
 *   warning  dx_probe's "Unrecognised inode hash code", "Hash in dirent",
 *            "Hash code is SIPHASH", "Unimplemented hash", "htree depth",
 *            "dx entry:", "Corrupt directory"; "bad inline directory",
 *            "directory missing", "Invalid MMP block", "hash tree version",
 *            "> max in inode", "No space for directory leaf checksum",
 *            "bad group: expected", "too many links"
 *   msg      the mount-time checks of ext4_fill_super & co: "corrupt",
 *            "invalid", "bad ", "insanely", "too big", "too large", "not
 *            valid", "inconsistent", "mismatch", "Can't find ext4 filesystem",
 *            "ext4_check_descriptors", "unsupported", "unknown", "overlaps",
 *            "not in group", "no journal found", "journal inode", "loading
 *            journal", "bmap failed", "root inode", "revision level too high",
 *            "orphan file"
 *   jbd2     "corrupt", "Invalid", "bad block", "no valid journal superblock",
 *            "unrecognised", "too short", "recovery pass", "recovery failed",
 *            "Unknown checksum type", "Can't enable checksumming"
 *
 * detect is the first class present in the order csum, sanity, io, mount
 * (the first "mount" step ended in err), none; detail is the first line of
 * that class (for csum, the first csumerr line when there is one: it names
 * the object).
 *
 * reaction, the most severe present (outcome.h's order):
 *   kasan           "BUG: KASAN:"
 *   oops            "Oops", "general protection fault", "kernel BUG at",
 *                   x86's die header ("NAME: 0000 [#1] ..."), any other "BUG:"
 *   panic           "Kernel panic - not syncing" (after an oops, panic_on_oops:
 *                   the oops wins)
 *   hang            "H exit timeout", "blocked for more than" (hung task),
 *                   "BUG: soft lockup", "BUG: workqueue lockup", RCU stalls
 *   mount-refused   the first "mount" step ended in err
 *   remount-ro      the LAST step whose text contains FB_PROBE_MARK (probe.h)
 *                   ended "err EROFS" ("Remounting filesystem read-only"
 *                   alone proves nothing)
 *   error-continue  an "EXT4-fs error" line and the probe ended ok
 *   recovered       a csumerr line ending in "recovered", no "EXT4-fs error"
 *                   line, and the probe ended ok
 *   none
 * outcome.h ranks error-continue above recovered: a run that recovered one
 * checksum failure and let another error through is error-continue.
 *
 * warning: "WARNING:", "BUG:" or "UBSAN:" in a kernel line.
 *
 * infra: "H exit qemu-error ..." or "H exit nbdkit-error ..." (the rest of
 * that line), or no "A ready" and no panic, oops or KASAN report (the guest
 * never came up, and no kernel crash explains it).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classify.h"
#include "classify/probe.h"

/* printk's longest record is shorter than this (PRINTKRB_RECORD_MAX) */
#define TEXT_MAX 1024

enum family {
	FAM_ANY,	/* in rules: any line; as a line's family: none below */
	FAM_ERROR,
	FAM_WARNING,
	FAM_MSG,
	FAM_CSUMERR,
	FAM_JBD2,
};

enum cls {
	CLS_NONE,
	CLS_CSUM,
	CLS_SANITY,
	CLS_IO,
	CLS_ERRNO,	/* the errno printed in the line decides */
	CLS_CONSEQUENCE,/* an ext4 error line that reports an earlier error */
};

struct rule {
	enum family fam;
	const char *needle;
	enum cls cls;
};

/* First match wins; the comment above is the commented version of this. */
static const struct rule rules[] = {
	{ FAM_CSUMERR, "", CLS_CSUM },
	{ FAM_ERROR, "iget: checksum invalid", CLS_CSUM },
	{ FAM_ERROR, "bad block bitmap checksum", CLS_CSUM },
	{ FAM_ERROR, "Corrupt inode bitmap", CLS_CSUM },
	{ FAM_ERROR, "bad header/extent: extent tree corrupted", CLS_CSUM },
	{ FAM_ERROR, "Directory block failed checksum", CLS_CSUM },
	{ FAM_ERROR, "Directory index failed checksum", CLS_CSUM },
	{ FAM_ERROR, "checksumming directory block", CLS_CSUM },
	{ FAM_ERROR, "directory fails checksum at offset", CLS_CSUM },
	{ FAM_ERROR, "bad checksum", CLS_CSUM },
	{ FAM_ERROR, "Filesystem failed CRC", CLS_CSUM },
	{ FAM_ERROR, "Failed to init block bitmap", CLS_ERRNO },
	{ FAM_MSG, "Checksum for group", CLS_CSUM },
	{ FAM_MSG, "invalid superblock checksum", CLS_CSUM },
	{ FAM_MSG, "Invalid checksum for backup superblock", CLS_CSUM },
	{ FAM_WARNING, "while reading MMP block", CLS_ERRNO },
	{ FAM_JBD2, "Invalid checksum recovering", CLS_CSUM },
	{ FAM_JBD2, "Invalid checksum found in transaction", CLS_CSUM },
	{ FAM_JBD2, "journal checksum error", CLS_CSUM },
	{ FAM_JBD2, "is corrupt.", CLS_CSUM },
	{ FAM_JBD2, "scanning journal", CLS_ERRNO },

	{ FAM_ERROR, "Detected aborted journal", CLS_CONSEQUENCE },
	{ FAM_ERROR, "Journal has aborted", CLS_CONSEQUENCE },
	{ FAM_ERROR, "Readonly filesystem", CLS_CONSEQUENCE },
	{ FAM_ERROR, "Out of memory", CLS_CONSEQUENCE },

	{ FAM_ANY, "I/O error", CLS_IO },
	{ FAM_ANY, "IO error", CLS_IO },
	{ FAM_ERROR, "IO failure", CLS_IO },
	{ FAM_ERROR, "unable to read itable block", CLS_IO },
	{ FAM_ERROR, "Cannot read", CLS_IO },
	{ FAM_ERROR, "reading directory lblock", CLS_IO },
	{ FAM_ERROR, "read error", CLS_IO },
	{ FAM_MSG, "unable to read superblock", CLS_IO },
	{ FAM_MSG, "Can't read superblock", CLS_IO },
	{ FAM_MSG, "can't read group descriptor", CLS_IO },
	{ FAM_JBD2, "Failed to read block", CLS_IO },
	{ FAM_WARNING, "reading directory block", CLS_ERRNO },
	{ FAM_WARNING, "reading directory index block", CLS_ERRNO },
	{ FAM_WARNING, "loading buddy information", CLS_ERRNO },

	{ FAM_ERROR, "", CLS_SANITY },
	{ FAM_WARNING, "Unrecognised inode hash code", CLS_SANITY },
	{ FAM_WARNING, "Hash in dirent", CLS_SANITY },
	{ FAM_WARNING, "Hash code is SIPHASH", CLS_SANITY },
	{ FAM_WARNING, "Unimplemented hash", CLS_SANITY },
	{ FAM_WARNING, "htree depth", CLS_SANITY },
	{ FAM_WARNING, "dx entry:", CLS_SANITY },
	{ FAM_WARNING, "Corrupt directory", CLS_SANITY },
	{ FAM_WARNING, "bad inline directory", CLS_SANITY },
	{ FAM_WARNING, "directory missing", CLS_SANITY },
	{ FAM_WARNING, "Invalid MMP block", CLS_SANITY },
	{ FAM_WARNING, "hash tree version", CLS_SANITY },
	{ FAM_WARNING, "> max in inode", CLS_SANITY },
	{ FAM_WARNING, "No space for directory leaf checksum", CLS_SANITY },
	{ FAM_WARNING, "bad group: expected", CLS_SANITY },
	{ FAM_WARNING, "too many links", CLS_SANITY },
	{ FAM_MSG, "corrupt", CLS_SANITY },
	{ FAM_MSG, "invalid", CLS_SANITY },
	{ FAM_MSG, "bad ", CLS_SANITY },
	{ FAM_MSG, "insanely", CLS_SANITY },
	{ FAM_MSG, "too big", CLS_SANITY },
	{ FAM_MSG, "too large", CLS_SANITY },
	{ FAM_MSG, "not valid", CLS_SANITY },
	{ FAM_MSG, "inconsistent", CLS_SANITY },
	{ FAM_MSG, "mismatch", CLS_SANITY },
	{ FAM_MSG, "Can't find ext4 filesystem", CLS_SANITY },
	{ FAM_MSG, "ext4_check_descriptors", CLS_SANITY },
	{ FAM_MSG, "unsupported", CLS_SANITY },
	{ FAM_MSG, "unknown", CLS_SANITY },
	{ FAM_MSG, "overlaps", CLS_SANITY },
	{ FAM_MSG, "not in group", CLS_SANITY },
	{ FAM_MSG, "no journal found", CLS_SANITY },
	{ FAM_MSG, "journal inode", CLS_SANITY },
	{ FAM_MSG, "loading journal", CLS_SANITY },
	{ FAM_MSG, "bmap failed", CLS_SANITY },
	{ FAM_MSG, "root inode", CLS_SANITY },
	{ FAM_MSG, "revision level too high", CLS_SANITY },
	{ FAM_MSG, "orphan file", CLS_SANITY },
	{ FAM_JBD2, "corrupt", CLS_SANITY },
	{ FAM_JBD2, "Invalid", CLS_SANITY },
	{ FAM_JBD2, "bad block", CLS_SANITY },
	{ FAM_JBD2, "no valid journal superblock", CLS_SANITY },
	{ FAM_JBD2, "unrecognised", CLS_SANITY },
	{ FAM_JBD2, "too short", CLS_SANITY },
	{ FAM_JBD2, "recovery pass", CLS_SANITY },
	{ FAM_JBD2, "recovery failed", CLS_SANITY },
	{ FAM_JBD2, "Unknown checksum type", CLS_SANITY },
	{ FAM_JBD2, "Can't enable checksumming", CLS_SANITY },
};

/* One kernel message, normalised. */
struct kline {
	char text[TEXT_MAX];
	size_t len;
	long long usec;		/* printk time, -1 when the line has none */
	char src;		/* 'C' console, 'A' agent kmsg */
};

/* Reaction bits found in kernel lines. */
enum {
	R_KASAN = 1 << 0,
	R_OOPS = 1 << 1,
	R_PANIC = 1 << 2,
	R_HANG = 1 << 3,
	R_WARNING = 1 << 4,
};

static bool has(const char *s, const char *needle)
{
	return strcasestr(s, needle) != NULL;
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* The next line of [*pos, end) without its "\n" or "\r\n". */
static bool next_line(const char **pos, const char *end,
		      const char **line, size_t *len)
{
	const char *p = *pos, *nl;

	if (p >= end)
		return false;
	nl = memchr(p, '\n', end - p);
	*line = p;
	*len = (nl ? nl : end) - p;
	while (*len && p[*len - 1] == '\r')
		(*len)--;
	*pos = nl ? nl + 1 : end;
	return true;
}

/* Parse an unsigned decimal; advance *p. */
static bool parse_ull(const char **p, const char *end, unsigned long long *v)
{
	const char *s = *p;

	*v = 0;
	while (s < end && isdigit((unsigned char)*s))
		*v = *v * 10 + (*s++ - '0');
	if (s == *p)
		return false;
	*p = s;
	return true;
}

/*
 * Skip a console line's "[    1.234567] " stamp (and a "[    T1] " caller
 * id after it, CONFIG_PRINTK_CALLER); *usec gets the time, or -1.
 */
static const char *skip_stamp(const char *p, const char *end, long long *usec)
{
	const char *s = p + 1;
	unsigned long long sec, frac;

	*usec = -1;
	if (p >= end || *p != '[')
		return p;
	while (s < end && *s == ' ')
		s++;
	if (!parse_ull(&s, end, &sec) || s >= end || *s != '.')
		return p;
	s++;
	if (!parse_ull(&s, end, &frac) || s >= end || *s != ']')
		return p;
	*usec = sec * 1000000 + frac;
	s++;
	if (s < end && *s == '[') {
		const char *c = memchr(s, ']', end - s);

		if (c && c - s < 12)
			s = c + 1;
	}
	if (s < end && *s == ' ')
		s++;
	return s;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Copy [p, end) into k->text, decoding /dev/kmsg's \xNN escapes if asked. */
static void set_text(struct kline *k, const char *p, const char *end,
		     bool unescape)
{
	size_t n = 0;

	while (p < end && n < sizeof(k->text) - 1) {
		if (unescape && *p == '\\' && end - p >= 4 && p[1] == 'x' &&
		    hexval(p[2]) >= 0 && hexval(p[3]) >= 0) {
			k->text[n++] = hexval(p[2]) << 4 | hexval(p[3]);
			p += 4;
			continue;
		}
		k->text[n++] = *p++;
	}
	k->text[n] = '\0';
	k->len = n;
}

/* If LINE is a kernel message ("C ..." or "A kmsg ..."), normalise it. */
static bool kernel_line(const char *line, size_t len, struct kline *k)
{
	const char *end = line + len, *p;
	unsigned long long seq, level, usec;

	if (starts(line, len, "C ")) {
		p = skip_stamp(line + 2, end, &k->usec);
		set_text(k, p, end, false);
		k->src = 'C';
		return true;
	}
	if (!starts(line, len, "A kmsg "))
		return false;
	p = line + 7;
	if (!parse_ull(&p, end, &seq) || p >= end || *p++ != ' ' ||
	    !parse_ull(&p, end, &level) || p >= end || *p++ != ' ' ||
	    !parse_ull(&p, end, &usec))
		return false;
	if (p < end && *p == ' ')
		p++;
	k->usec = usec;
	set_text(k, p, end, true);
	k->src = 'A';
	return true;
}

static enum family family_of(const char *t)
{
	if (!strncmp(t, "EXT4-fs error", 13))
		return FAM_ERROR;
	if (!strncmp(t, "EXT4-fs warning", 15))
		return FAM_WARNING;
	/* the patched kernel's structured line, from ext4 and from jbd2 */
	if (!strncmp(t, "EXT4-fs csum-error", 18) || !strncmp(t, "JBD2 csum-error", 15))
		return FAM_CSUMERR;
	if (!strncmp(t, "EXT4-fs (", 9))
		return FAM_MSG;
	if (!strncmp(t, "JBD2: ", 6))
		return FAM_JBD2;
	return FAM_ANY;
}

/* The class an errno printed in T (" -74", ": -5") stands for. */
static enum cls errno_class(const char *t)
{
	for (const char *p = strchr(t, '-'); p; p = strchr(p + 1, '-')) {
		const char *s = p + 1;
		unsigned long long e;

		if (p == t || (p[-1] != ' ' && p[-1] != ':') ||
		    !parse_ull(&s, s + strlen(s), &e))
			continue;
		if (*s && !isspace((unsigned char)*s) && *s != ',' && *s != '.')
			continue;
		if (e == EBADMSG)	/* EFSBADCRC */
			return CLS_CSUM;
		if (e == EIO)
			return CLS_IO;
		return CLS_SANITY;	/* EUCLEAN (EFSCORRUPTED) and the rest */
	}
	return CLS_SANITY;
}

/* What kernel message T says about detection (the table at the top). */
static enum cls line_class(const char *t)
{
	enum family fam = family_of(t);

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct rule *r = &rules[i];

		if (r->fam != FAM_ANY && r->fam != fam)
			continue;
		if (!has(t, r->needle))
			continue;
		return r->cls == CLS_ERRNO ? errno_class(t) : r->cls;
	}
	return CLS_NONE;
}

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

static unsigned line_reactions(const char *t)
{
	unsigned r = 0;
	bool bug = strstr(t, "BUG:") != NULL;

	if (bug || strstr(t, "WARNING:") || strstr(t, "UBSAN:"))
		r |= R_WARNING;
	if (strstr(t, "BUG: KASAN:"))
		return r | R_KASAN;
	if (strstr(t, "blocked for more than") || strstr(t, "BUG: soft lockup") ||
	    strstr(t, "BUG: workqueue lockup") || strstr(t, "self-detected stall") ||
	    strstr(t, "detected stalls on CPUs"))
		return r | R_HANG;
	if (strstr(t, "Kernel panic - not syncing"))
		return r | R_PANIC;
	if (bug || strstr(t, "Oops") || strstr(t, "general protection fault") ||
	    strstr(t, "kernel BUG at") || strstr(t, "Kernel BUG at") ||
	    die_header(t))
		r |= R_OOPS;
	return r;
}

/* A step result line "A step N TEXT -> ok|err ERRNAME [DETAIL]". */
struct step_line {
	const char *text;	/* TEXT, not NUL-terminated */
	size_t text_len;
	bool ok;
	char err[24];		/* ERRNAME when !ok */
};

static bool parse_step(const char *line, size_t len, struct step_line *s)
{
	const char *end = line + len, *p = line + 7, *arrow;
	unsigned long long n;
	size_t k = 0;

	if (!starts(line, len, "A step ") || !parse_ull(&p, end, &n) ||
	    p >= end || *p++ != ' ')
		return false;
	arrow = memmem(p, end - p, " -> ", 4);
	if (!arrow)
		return false;
	s->text = p;
	s->text_len = arrow - p;
	p = arrow + 4;
	s->ok = starts(p, end - p, "ok");
	s->err[0] = '\0';
	if (s->ok)
		return true;
	if (!starts(p, end - p, "err "))
		return false;
	for (p += 4; p < end && *p != ' ' && k < sizeof(s->err) - 1; p++)
		s->err[k++] = *p;
	s->err[k] = '\0';
	return true;
}

/* Whether step TEXT (after an "expect ERRNAME " or "may " prefix) is a mount. */
static bool is_mount(const char *text, size_t len)
{
	const char *end = text + len, *sp;

	if (starts(text, len, "may ")) {
		text += 4;
	} else if (starts(text, len, "expect ")) {
		sp = memchr(text + 7, ' ', end - text - 7);
		if (!sp)
			return false;
		text = sp + 1;
	}
	return starts(text, end - text, "mount") &&
	       (end - text == 5 || text[5] == ' ');
}

/* Everything fb_classify() collects in one pass. */
struct findings {
	char detail[CLS_IO + 1][256];	/* first line of each class, "" if none */
	bool csumerr_detail;	/* detail[CLS_CSUM] is a csum-error line */
	bool ext4_error;	/* an "EXT4-fs error" line */
	bool recovered;		/* a csum-error line ending in "recovered" */
	unsigned reactions;
	bool ready;
	int mount;		/* first mount step: 0 none, 1 ok, -1 err */
	char mount_line[256];
	int probe;		/* last probe: 0 none, 1 ok, 2 EROFS, -1 other */
	char eio_line[256];	/* first step that ended "err EIO" */
	char exit_kind[32];	/* "H exit KIND" */
	char exit_detail[200];
};

static void copy_line(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static bool ends_with_word(const char *t, size_t len, const char *word)
{
	size_t k = strlen(word);

	while (len && isspace((unsigned char)t[len - 1]))
		len--;
	return len > k && t[len - k - 1] == ' ' && !memcmp(t + len - k, word, k);
}

static void see_kernel(struct findings *f, const struct kline *k)
{
	enum cls c = line_class(k->text);
	enum family fam = family_of(k->text);

	f->reactions |= line_reactions(k->text);
	if (fam == FAM_ERROR)
		f->ext4_error = true;
	if (fam == FAM_CSUMERR && ends_with_word(k->text, k->len, "recovered"))
		f->recovered = true;
	if (c == CLS_NONE || c == CLS_CONSEQUENCE)
		return;
	if (!f->detail[c][0] || (fam == FAM_CSUMERR && !f->csumerr_detail)) {
		copy_line(f->detail[c], sizeof(f->detail[c]), k->text, k->len);
		if (fam == FAM_CSUMERR)
			f->csumerr_detail = true;
	}
}

static void see_step(struct findings *f, const char *line, size_t len,
		     const struct step_line *s)
{
	/* the detail names the agent's line without its "A " */
	const char *text = line + 2;
	size_t n = len - 2;

	if (is_mount(s->text, s->text_len) && !f->mount) {
		f->mount = s->ok ? 1 : -1;
		copy_line(f->mount_line, sizeof(f->mount_line), text, n);
	}
	if (memmem(s->text, s->text_len, FB_PROBE_MARK, strlen(FB_PROBE_MARK)))
		f->probe = s->ok ? 1 : !strcmp(s->err, "EROFS") ? 2 : -1;
	if (!s->ok && !strcmp(s->err, "EIO") && !f->eio_line[0])
		copy_line(f->eio_line, sizeof(f->eio_line), text, n);
}

static void see_exit(struct findings *f, const char *line, size_t len)
{
	const char *p = line + 7, *end = line + len;
	const char *sp = memchr(p, ' ', end - p);

	copy_line(f->exit_kind, sizeof(f->exit_kind), p, (sp ? sp : end) - p);
	if (sp)
		copy_line(f->exit_detail, sizeof(f->exit_detail), sp + 1,
			  end - sp - 1);
}

static void scan(const char *t, size_t len, struct findings *f, struct kline *k)
{
	const char *pos = t, *end = t + len, *line;
	size_t n;

	while (next_line(&pos, end, &line, &n)) {
		struct step_line s;

		if (kernel_line(line, n, k))
			see_kernel(f, k);
		else if (n == 7 && starts(line, n, "A ready"))
			f->ready = true;
		else if (parse_step(line, n, &s))
			see_step(f, line, n, &s);
		else if (starts(line, n, "H exit "))
			see_exit(f, line, n);
	}
}

static enum fb_detect decide_detect(const struct findings *f, char *detail,
				    size_t size)
{
	static const struct { enum cls c; enum fb_detect d; } order[] = {
		{ CLS_CSUM, FB_DETECT_CSUM },
		{ CLS_SANITY, FB_DETECT_SANITY },
		{ CLS_IO, FB_DETECT_IO },
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (f->detail[order[i].c][0]) {
			snprintf(detail, size, "%s", f->detail[order[i].c]);
			return order[i].d;
		}
	}
	if (f->eio_line[0]) {
		snprintf(detail, size, "%s", f->eio_line);
		return FB_DETECT_IO;
	}
	if (f->mount < 0) {
		snprintf(detail, size, "%s", f->mount_line);
		return FB_DETECT_MOUNT;
	}
	detail[0] = '\0';
	return FB_DETECT_NONE;
}

static enum fb_reaction decide_reaction(const struct findings *f)
{
	if (f->reactions & R_KASAN)
		return FB_REACT_KASAN;
	if (f->reactions & R_OOPS)
		return FB_REACT_OOPS;
	if (f->reactions & R_PANIC)
		return FB_REACT_PANIC;
	if ((f->reactions & R_HANG) || !strcmp(f->exit_kind, "timeout"))
		return FB_REACT_HANG;
	if (f->mount < 0)
		return FB_REACT_MOUNT_REFUSED;
	if (f->probe == 2)
		return FB_REACT_REMOUNT_RO;
	if (f->probe == 1 && f->ext4_error)
		return FB_REACT_ERROR_CONTINUE;
	if (f->probe == 1 && f->recovered)
		return FB_REACT_RECOVERED;
	return FB_REACT_NONE;
}

static void decide_infra(const struct findings *f, char *infra, size_t size)
{
	infra[0] = '\0';
	if (!strcmp(f->exit_kind, "qemu-error") ||
	    !strcmp(f->exit_kind, "nbdkit-error"))
		snprintf(infra, size, "%s%s%s", f->exit_kind,
			 f->exit_detail[0] ? " " : "", f->exit_detail);
	else if (!f->ready && !(f->reactions & (R_PANIC | R_OOPS | R_KASAN)))
		snprintf(infra, size,
			 "the guest never came up: no 'ready' from the agent, no kernel crash (exit: %s)",
			 f->exit_kind[0] ? f->exit_kind : "none logged");
}

int fb_classify(const char *transcript, size_t len, struct fb_outcome *ret)
{
	struct findings *f = calloc(1, sizeof(*f));
	struct kline *k = malloc(sizeof(*k));

	if (!f || !k) {
		free(f);
		free(k);
		return -ENOMEM;
	}
	scan(transcript, len, f, k);
	ret->detect = decide_detect(f, ret->detail, sizeof(ret->detail));
	ret->reaction = decide_reaction(f);
	ret->warning = f->reactions & R_WARNING;
	ret->fsck = FB_FSCK_NOT_RUN;
	ret->data = FB_DATA_NOT_CHECKED;
	decide_infra(f, ret->infra, sizeof(ret->infra));
	free(f);
	free(k);
	return 0;
}

/*
 * dmesg: the kernel lines, each message once. The console and kmsg carry
 * the same messages (the console only those above its loglevel), in an
 * order that can differ; a message may also legitimately repeat. So a line
 * is kept when its text has now been seen more often from its own source
 * than from the other one: each copy on one side pairs with one copy on the
 * other, and the output holds max(console, kmsg) copies of every text.
 */
struct seen {
	const char *text;	/* in the arena; NULL = empty slot */
	size_t len;
	unsigned long hash;
	unsigned count[2];	/* [0] console, [1] kmsg */
};

struct dmesg {
	char *arena;		/* the kept texts, NUL-separated */
	size_t used;
	struct seen *table;
	size_t mask;
	struct { size_t off, len; long long usec; bool matters; } *lines;
	size_t nlines;
};

static unsigned long hash_text(const char *s, size_t n)
{
	unsigned long h = 14695981039346656037UL;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211UL;
	return h;
}

/*
 * Count one copy of K; return its entry when it is a new line of the
 * output, NULL when it pairs with a copy from the other source.
 */
static const struct seen *dedup(struct dmesg *d, const struct kline *k)
{
	unsigned long h = hash_text(k->text, k->len);
	int side = k->src == 'A';
	struct seen *e;

	for (size_t i = h & d->mask;; i = (i + 1) & d->mask) {
		e = &d->table[i];
		if (!e->text || (e->hash == h && e->len == k->len &&
				 !memcmp(e->text, k->text, k->len)))
			break;
	}
	if (!e->text) {
		memcpy(d->arena + d->used, k->text, k->len + 1);
		e->text = d->arena + d->used;
		e->len = k->len;
		e->hash = h;
		d->used += k->len + 1;
	}
	return ++e->count[side] > e->count[!side] ? e : NULL;
}

static bool matters(const struct kline *k)
{
	enum cls c = line_class(k->text);

	return c != CLS_NONE || family_of(k->text) == FAM_ERROR ||
	       line_reactions(k->text);
}

static bool banner(const char *t)
{
	return strstr(t, "[ cut here ]") || (t[0] == '=' && t[1] == '=' &&
					      strspn(t, "=") == strlen(t));
}

static int dmesg_collect(const char *t, size_t len, struct dmesg *d)
{
	const char *pos = t, *end = t + len, *line;
	size_t n, nl = 1, cap = 16;
	struct kline *k = malloc(sizeof(*k));

	for (const char *p = t; (p = memchr(p, '\n', end - p)); p++)
		nl++;
	while (cap < 2 * nl)
		cap *= 2;
	d->mask = cap - 1;
	d->table = calloc(cap, sizeof(*d->table));
	d->arena = malloc(len + nl + 1);
	d->lines = malloc(nl * sizeof(*d->lines));
	if (!k || !d->table || !d->arena || !d->lines) {
		free(k);
		return -ENOMEM;
	}
	while (next_line(&pos, end, &line, &n)) {
		const struct seen *e;

		if (!kernel_line(line, n, k) || !(e = dedup(d, k)))
			continue;
		d->lines[d->nlines].off = e->text - d->arena;
		d->lines[d->nlines].len = k->len;
		d->lines[d->nlines].usec = k->usec;
		d->lines[d->nlines].matters = matters(k);
		d->nlines++;
	}
	free(k);
	return 0;
}

static void dmesg_free(struct dmesg *d)
{
	free(d->arena);
	free(d->table);
	free(d->lines);
}

/* Print lines [from, from + count) of D dmesg-style into a new string. */
static int dmesg_print(const struct dmesg *d, size_t from, size_t count,
		       size_t more, char **ret_text)
{
	size_t size = 64, used = 0;
	char *out;

	for (size_t i = from; i < from + count; i++)
		size += d->lines[i].len + 24;
	out = malloc(size);
	if (!out)
		return -ENOMEM;
	out[0] = '\0';
	for (size_t i = from; i < from + count; i++) {
		const char *text = d->arena + d->lines[i].off;
		long long us = d->lines[i].usec;

		if (us >= 0)
			used += sprintf(out + used, "[%5lld.%06lld] %s\n",
					us / 1000000, us % 1000000, text);
		else
			used += sprintf(out + used, "%s\n", text);
	}
	if (more)
		sprintf(out + used, "[... %zu more lines]\n", more);
	*ret_text = out;
	return 0;
}

int fb_dmesg_text(const char *transcript, size_t len, char **ret_text)
{
	struct dmesg d = { 0 };
	int r = dmesg_collect(transcript, len, &d);

	if (!r)
		r = dmesg_print(&d, 0, d.nlines, 0, ret_text);
	dmesg_free(&d);
	return r;
}

int fb_transcript_excerpt(const char *transcript, size_t len, char **ret_text)
{
	struct dmesg d = { 0 };
	size_t from = 0, count = 0, more = 0;
	int r = dmesg_collect(transcript, len, &d);

	if (r)
		goto out;
	while (from < d.nlines && !d.lines[from].matters)
		from++;
	if (from < d.nlines) {
		if (from && banner(d.arena + d.lines[from - 1].off))
			from--;
		count = d.nlines - from;
		if (count > FB_EXCERPT_MAX_LINES) {
			more = count - FB_EXCERPT_MAX_LINES;
			count = FB_EXCERPT_MAX_LINES;
		}
	}
	r = dmesg_print(&d, from, count, more, ret_text);
out:
	dmesg_free(&d);
	return r;
}

// SPDX-License-Identifier: MIT
/*
 * The classifier against golden transcripts (harness/tests/classify/NAME.log:
 * "# key: value" header lines, a blank line, the raw transcript), then a
 * few direct cases for the edge rules.
 *
 * Header keys: detect, reaction, warning (yes|no) are required; infra
 * (default: none expected) and detail (a substring the detail must contain)
 * are optional; other "#" lines are comments. The signals, each checked
 * only when given: message (the message's class), function (the kernel
 * function it names), errno ("CLASS [ERRNAME [SOURCE]]", SOURCE a
 * substring), conflict ("none", or a substring of it), fanotify
 * (compared|absent), umount_error and note ("none", or a substring).
 *
 * Usage: test-classify [GOLDEN_DIR]   (default harness/tests/classify)
 */
#include <errno.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classify/attrib.h"
#include "classify/classify.h"
#include "classify/klog.h"
#include "classify/split.h"
#include "util.h"
#include "classify/probe.h"

struct golden {
	const char *path;
	char detect[32], reaction[32], warning[8], infra[256], detail[256];
	char message[32], function[64], errno_[256], conflict[256], fanotify[16];
	char umount_error[256], note[256];
	const char *body;
	size_t body_len;
	char *text;
};

/* Read PATH's header into G; a malformed header fails the test. */
static void load_golden(const char *path, struct golden *g)
{
	size_t len = 0;
	char *p, *end;
	int line = 0;

	memset(g, 0, sizeof(*g));
	g->path = path;
	g->text = fb_slurp(path, &len);
	if (!g->text)
		fail_msg("%s: cannot read: %s", path, strerror(errno));
	end = g->text + len;
	for (p = g->text; p < end; ) {
		char *nl = memchr(p, '\n', end - p), key[32], *colon, *val;
		size_t n = (nl ? nl : end) - p;

		line++;
		if (!n) {
			p = nl ? nl + 1 : end;
			break;
		}
		if (p[0] != '#')
			fail_msg("%s:%d: header line does not start with '#' (a blank line ends the header)",
				 path, line);
		p[n] = '\0';
		colon = strchr(p, ':');
		if (colon && colon - p - 2 < (long)sizeof(key) && colon > p + 2 &&
		    p[1] == ' ') {
			snprintf(key, sizeof(key), "%.*s", (int)(colon - p - 2), p + 2);
			val = colon + 1 + (colon[1] == ' ');
#define FIELD(name) if (!strcmp(key, #name)) snprintf(g->name, sizeof(g->name), "%s", val)
			FIELD(detect);
			FIELD(reaction);
			FIELD(warning);
			FIELD(infra);
			FIELD(detail);
			FIELD(message);
			FIELD(function);
			FIELD(conflict);
			FIELD(fanotify);
			FIELD(umount_error);
			FIELD(note);
			if (!strcmp(key, "errno"))
				snprintf(g->errno_, sizeof(g->errno_), "%s", val);
#undef FIELD
		}
		p += n + 1;
	}
	if (!g->detect[0] || !g->reaction[0] || !g->warning[0])
		fail_msg("%s: header needs '# detect:', '# reaction:' and '# warning:' lines",
			 path);
	if (fb_detect_parse(g->detect) < 0 || fb_reaction_parse(g->reaction) < 0 ||
	    (strcmp(g->warning, "yes") && strcmp(g->warning, "no")))
		fail_msg("%s: bad header value (detect '%s', reaction '%s', warning '%s'); accepted: the names of outcome.c, warning yes|no",
			 path, g->detect, g->reaction, g->warning);
	g->body = p;
	g->body_len = end - p;
}

static int mismatch(const char *path, const char *field, const char *want,
		    const char *got)
{
	if (!strcmp(want, got))
		return 0;
	print_message("%s: %s: expected '%s', got '%s'\n", path, field, want, got);
	return 1;
}

/* "none" wants VAL empty; anything else, a VAL that contains it. */
static int mismatch_sub(const char *path, const char *field, const char *want,
			const char *got)
{
	if (!want[0] || (!strcmp(want, "none") ? !got[0] : strstr(got, want) != NULL))
		return 0;
	print_message("%s: %s: expected %s'%s', got '%s'\n", path, field,
		      strcmp(want, "none") ? "a text containing " : "", want, got);
	return 1;
}

/* The header's signal keys against O (those the header gives). */
static int check_signals(const struct golden *g, const struct fb_outcome *o)
{
	const struct fb_signals *s = &o->sig;
	char cls[32] = "", name[24] = "", source[200] = "";
	int bad = 0, n = 0;

	if (g->message[0])
		bad += mismatch(g->path, "message", g->message, fb_signal_name(s->msg));
	if (g->function[0])
		bad += mismatch(g->path, "function", g->function, s->msg_func);
	if (g->fanotify[0])
		bad += mismatch(g->path, "fanotify", g->fanotify,
				s->fanotify ? "compared" : "absent");
	if (g->errno_[0]) {
		sscanf(g->errno_, "%31s %23s %n", cls, name, &n);
		if (n)
			snprintf(source, sizeof(source), "%s", g->errno_ + n);
		bad += mismatch(g->path, "errno class", cls, fb_signal_name(s->err));
		if (name[0])
			bad += mismatch(g->path, "errno", name, s->err_name);
		bad += mismatch_sub(g->path, "errno source", source, s->err_source);
	}
	bad += mismatch_sub(g->path, "conflict", g->conflict, s->conflict);
	bad += mismatch_sub(g->path, "umount_error", g->umount_error, o->umount_error);
	bad += mismatch_sub(g->path, "note", g->note, o->note);
	return bad;
}

static void test_golden(void **state)
{
	struct golden g;
	struct fb_outcome o;
	char *ex = NULL;
	int bad = 0;

	load_golden(*state, &g);
	assert_int_equal(fb_classify(g.body, g.body_len, &o), 0);
	bad += mismatch(g.path, "detect", g.detect, fb_detect_name(o.detect));
	bad += mismatch(g.path, "reaction", g.reaction, fb_reaction_name(o.reaction));
	bad += mismatch(g.path, "warning", g.warning, o.warning ? "yes" : "no");
	bad += mismatch(g.path, "infra", g.infra, o.infra);
	bad += mismatch(g.path, "fsck", "not-run", fb_fsck_name(o.fsck));
	bad += mismatch(g.path, "data", "not-checked", fb_data_name(o.data));
	if (g.detail[0] && !strstr(o.detail, g.detail)) {
		print_message("%s: detail: expected a line containing '%s', got '%s'\n",
			      g.path, g.detail, o.detail);
		bad++;
	}
	bad += check_signals(&g, &o);
	/* the deciding kernel line is in the excerpt the reports show */
	assert_int_equal(fb_transcript_excerpt(g.body, g.body_len, &ex), 0);
	if (o.detect >= FB_DETECT_CSUM && o.detect <= FB_DETECT_SANITY &&
	    !strstr(ex, o.detail)) {
		print_message("%s: excerpt: the detail line '%s' is not in it:\n%s\n",
			      g.path, o.detail, ex);
		bad++;
	}
	free(ex);
	free(g.text);
	assert_int_equal(bad, 0);
}

/* --- direct cases ------------------------------------------------------ */

static struct fb_outcome classify(const char *t)
{
	struct fb_outcome o;

	assert_int_equal(fb_classify(t, strlen(t), &o), 0);
	return o;
}

#define READY "A ready\nA step 1 mount -> ok errors=remount-ro\n"
#define PROBE_OK "A step 9 " FB_PROBE_STEP " -> ok user.flipbed-probe\n"
#define PROBE_RO "A step 9 " FB_PROBE_STEP " -> err EROFS\n"
#define EXIT "A done 1 0\nH exit clean\n"
#define IGET "EXT4-fs error (device vda): ext4_lookup:1860: inode #12: comm init: iget: checksum invalid"

static int count(const char *s, const char *needle)
{
	int n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/* A message on the console and in kmsg is one line; a real repeat stays. */
static void test_dedup(void **state)
{
	const char *t = READY
		"C [    1.000000] " IGET "\n"
		"C [    1.100000] EXT4-fs (vda): Remounting filesystem read-only\n"
		"A kmsg 7 2 1000000 " IGET "\n"
		"A kmsg 8 2 1100000 EXT4-fs (vda): Remounting filesystem read-only\n"
		"C [    1.200000] EXT4-fs (vda): Remounting filesystem read-only\n"
		"A kmsg 9 2 1200000 EXT4-fs (vda): Remounting filesystem read-only\n"
		PROBE_RO EXIT;
	char *ex, *all;

	assert_int_equal(fb_transcript_excerpt(t, strlen(t), &ex), 0);
	assert_int_equal(count(ex, "iget: checksum invalid"), 1);
	assert_int_equal(count(ex, "Remounting filesystem read-only"), 2);
	assert_non_null(strstr(ex, "[    1.000000] EXT4-fs error"));
	assert_int_equal(fb_dmesg_text(t, strlen(t), &all), 0);
	assert_string_equal(ex, all);
	free(ex);
	free(all);
}

/* The excerpt starts at the first line that matters, banner included. */
static void test_excerpt_start(void **state)
{
	const char *t = READY
		"A kmsg 1 6 500000 EXT4-fs (vda): mounted filesystem with ordered data mode.\n"
		"A kmsg 2 4 600000 ------------[ cut here ]------------\n"
		"A kmsg 3 4 600000 WARNING: CPU: 0 PID: 1 at fs/ext4/inode.c:100 f+0x1/0x2\n"
		PROBE_OK EXIT;
	char *ex;

	assert_int_equal(fb_transcript_excerpt(t, strlen(t), &ex), 0);
	assert_null(strstr(ex, "mounted filesystem"));
	assert_ptr_equal(strstr(ex, "[    0.600000] ------------[ cut here ]"), ex);
	free(ex);
	assert_int_equal(fb_transcript_excerpt(READY PROBE_OK EXIT,
					  strlen(READY PROBE_OK EXIT), &ex), 0);
	assert_string_equal(ex, "");
	free(ex);
}

/* Without the probe nothing proves read-only, nor writable. */
static void test_probe_missing(void **state)
{
	struct fb_outcome o = classify(READY
		"C " IGET "\nC EXT4-fs (vda): Remounting filesystem read-only\n"
		"A step 2 read /f -> err EBADMSG\nH exit reboot\n");

	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_int_equal(o.reaction, FB_REACT_NONE);
	assert_string_equal(o.infra, "");
}

/*
 * The LAST probe of a mount decides; a probe failing otherwise proves
 * nothing. A later mount's probe says nothing of an earlier mount's
 * reaction: a filesystem that went read-only stays remount-ro.
 */
static void test_probe_last(void **state)
{
	struct fb_outcome o = classify(READY "C " IGET "\n" PROBE_RO
		"A step 10 mount -> ok\n" PROBE_OK EXIT);

	assert_int_equal(o.reaction, FB_REACT_REMOUNT_RO);
	o = classify(READY "C " IGET "\n" PROBE_RO PROBE_OK EXIT);
	assert_int_equal(o.reaction, FB_REACT_ERROR_CONTINUE);
	o = classify(READY "C " IGET "\n"
		     "A step 9 " FB_PROBE_STEP " -> err EIO\n" EXIT);
	assert_int_equal(o.reaction, FB_REACT_NONE);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
}

#define WATCH "A fserror-watch /mnt\n"
#define BITMAP "EXT4-fs error (device vdb): ext4_validate_block_bitmap:420: comm init: bg 0: bad block bitmap checksum"
#define XATTR61 "EXT4-fs error (device vda): ext4_xattr_get_block:2272: inode #12: comm init: corrupted xattr block 3585"
#define XATTR612 "EXT4-fs error (device vda): ext4_xattr_get_block:2330: inode #12: comm init: corrupted xattr block 3585: invalid checksum"

/* The message rules of 6.1 and 6.12, each with the function that prints it. */
static void test_klog_rule(void **state)
{
	static const struct {
		const char *msg;
		enum fb_klog_class c;
		const char *func;
	} cases[] = {
		{ XATTR61, FB_KLOG_AMBIGUOUS, "__ext4_xattr_check_block" },
		{ XATTR612, FB_KLOG_CSUM, "check_xattrs" },
		{ "EXT4-fs error (device vda): ext4_xattr_get_block:2330: inode #12: comm init: corrupted xattr block 3585: invalid header",
		  FB_KLOG_SANITY, "check_xattrs" },
		/* an error line no rule names: the errno decides */
		{ "EXT4-fs error (device vda): ext4_xattr_ibody_get:650: inode #12: comm init: corrupted in-inode xattr",
		  FB_KLOG_AMBIGUOUS, "ext4_xattr_ibody_get" },
		{ BITMAP, FB_KLOG_CSUM, "ext4_validate_block_bitmap" },
		{ IGET, FB_KLOG_CSUM, "__ext4_iget" },
		{ "JBD2: Spotted dirty metadata buffer (dev = vda, blocknr = 2582). There's a risk of filesystem corruption in case of system crash.",
		  FB_KLOG_NOTE, "warn_dirty_buffer" },
		{ "journal_load_superblock: Cannot read journal superblock", FB_KLOG_IO,
		  "journal_load_superblock" },
		{ "JBD2: IO error reading journal superblock", FB_KLOG_IO, "journal_get_superblock" },
		{ "EXT4-fs error (device vda): ext4_put_super:1469: comm init: Couldn't clean up the journal",
		  FB_KLOG_IO, "ext4_put_super" },
		/*
		 * a ratelimit's summary names no object: not a csum-error
		 * line though it starts as one (the series before its own
		 * summary), nor the series' own summary
		 */
		{ "EXT4-fs csum-error: 90 callbacks suppressed", FB_KLOG_NONE, "" },
		{ "JBD2 csum-error: 3 callbacks suppressed", FB_KLOG_NONE, "" },
		{ "EXT4-fs (vda): 90 checksum error reports suppressed", FB_KLOG_NONE, "" },
	};
	char func[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(fb_klog_rule(cases[i].msg, func, sizeof(func)), cases[i].c);
		assert_string_equal(func, cases[i].func);
	}
}

/*
 * The errno signal: the first FAN_FS_ERROR event over any step; without
 * one, the first failing step whose errno names a class; an EIO after the
 * journal aborted, and EROFS, name none.
 */
static void test_errno_signal(void **state)
{
	struct fb_outcome o = classify(READY WATCH "C " BITMAP "\n"
		"A fserror EUCLEAN - 1\nA fserror EIO - 1\n"
		"A step 4 mkdir /d -> err EBADMSG\n" PROBE_RO EXIT);

	assert_int_equal(o.sig.err, FB_SIGNAL_SANITY);
	assert_string_equal(o.sig.err_name, "EUCLEAN");
	assert_string_equal(o.sig.err_source, "fanotify");
	assert_true(o.sig.fanotify);
	o = classify(READY WATCH "A step 2 read /x -> err ENOENT\n"
		     "A step 3 read /f -> err EBADMSG\nA step 4 read /g -> err EUCLEAN\n" EXIT);
	assert_int_equal(o.sig.err, FB_SIGNAL_CSUM);
	assert_string_equal(o.sig.err_source, "step 3 read /f");
	o = classify(READY WATCH "A kmsg 1 3 5 Aborting journal on device vda-8.\n"
		     "A step 4 sync -> err EIO\n" PROBE_RO EXIT);
	assert_int_equal(o.sig.err, FB_SIGNAL_NONE);
	assert_string_equal(o.sig.err_source, "");
	o = classify(READY "A step 4 sync -> err EIO\n" PROBE_RO EXIT);
	assert_int_equal(o.sig.err, FB_SIGNAL_IO);
	assert_false(o.sig.fanotify);
}

/*
 * detect is csum when either signal says so; an ambiguous message takes
 * the errno's class; without the witness the message alone decides.
 */
static void test_errno_decides(void **state)
{
	struct fb_outcome o = classify(READY WATCH "C " XATTR61 "\nA fserror EBADMSG 12 1\n"
				       "A step 4 setxattr /a user.more 16 -> err EBADMSG\n" PROBE_RO EXIT);

	assert_int_equal(o.sig.msg, FB_SIGNAL_AMBIGUOUS);
	assert_string_equal(o.sig.msg_func, "__ext4_xattr_check_block");
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_string_equal(o.sig.conflict, "");
	o = classify(READY WATCH "C " XATTR61 "\nA fserror EUCLEAN 12 1\n" PROBE_RO EXIT);
	assert_int_equal(o.detect, FB_DETECT_SANITY);
	assert_string_equal(o.sig.conflict, "");
	o = classify(READY "C " XATTR61 "\nA step 4 setxattr /a user.more 16 -> err EBADMSG\n"
		     PROBE_RO EXIT);
	assert_false(o.sig.fanotify);
	assert_int_equal(o.sig.err, FB_SIGNAL_CSUM);
	assert_int_equal(o.detect, FB_DETECT_SANITY);
	o = classify(READY WATCH "C " XATTR612 "\nA fserror EBADMSG 12 1\n" PROBE_RO EXIT);
	assert_int_equal(o.sig.msg, FB_SIGNAL_CSUM);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
}

/* Two known classes that differ: explained by the kernel function, or "unexplained". */
static void test_conflict(void **state)
{
	struct fb_outcome o = classify(READY WATCH "C " BITMAP "\nA fserror EUCLEAN - 1\n"
				       PROBE_RO EXIT);

	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_non_null(strstr(o.sig.conflict, "message csum (ext4_validate_block_bitmap), "
			       "errno sanity (EUCLEAN, fanotify): ext4_validate_block_bitmap "
			       "reports through ext4_error(), which passes EFSCORRUPTED"));
	/* stock's ext4_readdir: EXT4_ERROR_FILE passes no errno (patched 0002 passes EFSBADCRC) */
	o = classify(READY WATCH "C EXT4-fs error (device vda): ext4_readdir:221: inode #12: "
		     "comm init: path /mnt/lin: directory fails checksum at offset 0\n"
		     "A fserror EUCLEAN 12 1\n" PROBE_RO EXIT);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_non_null(strstr(o.sig.conflict, "message csum (ext4_readdir), errno sanity "
			       "(EUCLEAN, fanotify): ext4_readdir reports through EXT4_ERROR_FILE()"));
	o = classify(READY WATCH "C EXT4-fs warning (device vda): dx_probe:865: inode #12: "
		     "comm init: htree depth 5 exceeds supported value\nA fserror EBADMSG 12 1\n"
		     PROBE_RO EXIT);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_non_null(strstr(o.sig.conflict, "message sanity (dx_probe), errno csum"));
	assert_non_null(strstr(o.sig.conflict, ": unexplained"));
	/* an error line no rule names says nothing against the errno */
	o = classify(READY WATCH "C EXT4-fs error (device vda): ext4_lookup:1821: inode #12: "
		     "comm init: bad extra_isize 9999\nA fserror EBADMSG 12 1\n" PROBE_RO EXIT);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_string_equal(o.sig.conflict, "");
	o = classify(READY WATCH "C EXT4-fs error (device vdb): __ext4_ext_dirty:202: inode #13: "
		     "comm kworker/u2:1: mark_inode_dirty error\nA fserror EIO 13 1\n" PROBE_OK EXIT);
	assert_int_equal(o.detect, FB_DETECT_IO);
	assert_string_equal(o.sig.conflict, "");
	/*
	 * the journal aborted on a write error: the unnamed error line after
	 * it and its EROFS events are refusals, the I/O error the detection
	 */
	o = classify(READY WATCH "C I/O error, dev vdb, sector 120 op 0x1:(WRITE) flags 0x9800\n"
		     "C Aborting journal on device vdb-8.\n"
		     "C EXT4-fs error (device vdb): __ext4_ext_dirty:202: inode #13: "
		     "comm kworker/u2:0: mark_inode_dirty error\nA fserror EROFS 13 1\n"
		     "A fserror EROFS - 1\n" PROBE_OK EXIT);
	assert_int_equal(o.detect, FB_DETECT_IO);
	assert_int_equal(o.sig.err, FB_SIGNAL_NONE);
	assert_string_equal(o.sig.conflict, "");
	/*
	 * an error that sends no event (__ext4_grp_locked_error) before the
	 * remount: its line decides, the EIO event after the abort does not
	 */
	o = classify(READY WATCH "C EXT4-fs error (device vdg): ext4_mb_generate_buddy:1123: group 0, "
		     "block bitmap and bg descriptor inconsistent: 6699 vs 6700 free clusters\n"
		     "C Aborting journal on device vdg-8.\n"
		     "C EXT4-fs (vdg): Remounting filesystem read-only\n"
		     "A fserror EIO - 1\nA fserror EROFS - 1\n" PROBE_RO EXIT);
	assert_int_equal(o.detect, FB_DETECT_SANITY);
	assert_int_equal(o.sig.err, FB_SIGNAL_NONE);
	o = classify(READY WATCH "C " IGET "\nA fserror EBADMSG 12 1\n" PROBE_RO EXIT);
	assert_string_equal(o.sig.conflict, "");
	/* a dx-root whose header the flip broke: the structure's error is reported first */
	o = classify(READY WATCH "C EXT4-fs error (device vdg): ext4_dx_csum_verify:502: inode #13: "
		     "comm init: dir seems corrupt?  Run e2fsck -D.\n"
		     "C EXT4-fs error (device vdg): dx_probe:823: inode #13: comm init: "
		     "Directory index failed checksum\nA fserror EUCLEAN 13 1\nA fserror EBADMSG 13 1\n"
		     PROBE_RO EXIT);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_non_null(strstr(o.sig.conflict, "ext4_dx_csum_verify finds no dx count/limit"));
}

/*
 * An error logged while the last umount ran is umount_error: no reaction
 * of the workload's mount, and a mount after it starts clean.
 */
static void test_umount_error(void **state)
{
	const char *cleanup = "EXT4-fs error (device vda): ext4_put_super:1469: comm init: "
			      "Couldn't clean up the journal";
	char t[1024];
	struct fb_outcome o;

	snprintf(t, sizeof(t), READY WATCH "A step 4 sync -> err EIO\n"
		 "A kmsg 1 2 5 %s\nA kmsg 2 2 5 EXT4-fs (vda): Remounting filesystem read-only\n"
		 "A step 5 umount -> ok\nA step 6 mount -> ok\n" PROBE_OK EXIT, cleanup);
	o = classify(t);
	assert_string_equal(o.umount_error, cleanup);
	assert_int_equal(o.reaction, FB_REACT_NONE);
	assert_int_equal(o.detect, FB_DETECT_IO);
	o = classify(READY "C " IGET "\nA step 2 read /f -> err EUCLEAN\n"
		     "A step 5 umount -> ok\nA step 6 mount -> ok\n" PROBE_OK EXIT);
	assert_string_equal(o.umount_error, "");
	o = classify(READY "C " IGET "\n" PROBE_OK EXIT);
	assert_int_equal(o.reaction, FB_REACT_ERROR_CONTINUE);
}

/*
 * A mount the probes never reach (the workload unmounts it) went
 * read-only when one of its steps failed with EROFS after its ext4 error;
 * an EROFS with no error before it (a mount made ro) is no reaction.
 */
static void test_step_erofs(void **state)
{
	struct fb_outcome o;

	o = classify(READY "C " IGET "\nA step 2 stat /a -> err EBADMSG\n"
		     "A step 3 write-fd /f 12288 -> err EROFS\nA step 4 umount -> ok\n"
		     "A step 5 mount -> ok\n" PROBE_OK EXIT);
	assert_int_equal(o.reaction, FB_REACT_REMOUNT_RO);
	o = classify(READY "A step 2 write /f 10 -> err EROFS\nA step 4 umount -> ok\n"
		     "A step 5 mount -> ok\n" PROBE_OK EXIT);
	assert_int_equal(o.reaction, FB_REACT_NONE);
}

/*
 * A mount asked for read-only answers writes with EROFS by request: no
 * reaction. A refused remount is a refused mount; a remount that succeeds
 * starts a mount of its own, judged by its own probes.
 */
static void test_read_only_mount(void **state)
{
	const char *ro = "A ready\nA step 1 mount ro -> ok errors=remount-ro flags=ro\n";
	const char *gd = "C EXT4-fs (vda): ext4_check_descriptors: Checksum for group 5 failed (1!=2)\n";
	char t[1024];
	struct fb_outcome o;

	snprintf(t, sizeof(t), "%s%s" PROBE_RO EXIT, ro, gd);
	o = classify(t);
	assert_int_equal(o.reaction, FB_REACT_NONE);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	/* the same lines after a read-write mount went read-only */
	o = classify(READY "C " IGET "\n" PROBE_RO EXIT);
	assert_int_equal(o.reaction, FB_REACT_REMOUNT_RO);
	/* "mount ro" is not "mount rox" nor "norecovery,ro" missed */
	o = classify("A ready\nA step 1 mount noload,ro -> ok\nC " IGET "\n" PROBE_RO EXIT);
	assert_int_equal(o.reaction, FB_REACT_NONE);
	o = classify("A ready\nA step 1 mount roxx -> ok\nC " IGET "\n" PROBE_RO EXIT);
	assert_int_equal(o.reaction, FB_REACT_REMOUNT_RO);
	/* a shutdown shows through a read-only mount */
	snprintf(t, sizeof(t), "%sC %s\nA step 9 %s -> err EIO\nA step 10 %s -> err EIO\n" EXIT,
		 ro, IGET, FB_PROBE_STEP, FB_PROBE_READ_STEP);
	o = classify(t);
	assert_int_equal(o.reaction, FB_REACT_SHUTDOWN);
	/* remount refused: mount-refused, the remount's errno a csum signal */
	snprintf(t, sizeof(t), "%s%sA step 2 remount -> err EBADMSG\nC EXT4-fs (vda): "
		 "ext4_remount: Checksum for group 5 failed (1!=2)\n" PROBE_RO EXIT, ro, gd);
	o = classify(t);
	assert_int_equal(o.reaction, FB_REACT_MOUNT_REFUSED);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	/* remounted read-write, then an error: that mount went read-only */
	snprintf(t, sizeof(t), "%sA step 2 remount rw -> ok\nC %s\n" PROBE_RO EXIT, ro, IGET);
	o = classify(t);
	assert_int_equal(o.reaction, FB_REACT_REMOUNT_RO);
	/*
	 * The descriptor's message beside an errno: the refused read-write
	 * mount's (a step's) and a read-only mount's later bitmap error (an
	 * event's) have different explanations
	 */
	o = classify("A ready\nA step 1 mount -> err EUCLEAN\n"
		     "C EXT4-fs (vda): ext4_check_descriptors: Checksum for group 5 failed (1!=2)\n" EXIT);
	assert_non_null(strstr(o.sig.conflict, "ext4_group_desc_init"));
	snprintf(t, sizeof(t), "%s" WATCH "%sC EXT4-fs error (device vda): "
		 "ext4_read_block_bitmap_nowait:523: comm cat: Failed to init block bitmap for group 5: -74\n"
		 "A fserror EUCLEAN - 1\n" PROBE_RO EXIT, ro, gd);
	o = classify(t);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_non_null(strstr(o.sig.conflict, "a read-only mount keeps a group"));
	/* remounted read-only by request after a clean read-write life */
	o = classify(READY "A step 2 remount ro -> ok\n" PROBE_RO EXIT);
	assert_int_equal(o.reaction, FB_REACT_NONE);
}

/* The kernel checking itself is a note and a warning, never a detection. */
static void test_note(void **state)
{
	struct fb_outcome o = classify(READY "A kmsg 1 4 5 JBD2: Spotted dirty metadata buffer "
				       "(dev = vda, blocknr = 2582). There's a risk of filesystem "
				       "corruption in case of system crash.\n" PROBE_OK EXIT);

	assert_int_equal(o.detect, FB_DETECT_NONE);
	assert_non_null(strstr(o.note, "Spotted dirty metadata buffer"));
	assert_true(o.warning);
}

/*
 * shutdown needs both probes to fail with EIO: a write EIO alone proves
 * nothing, a read probe that answers (ENODATA: the write was refused) is
 * no shutdown, and the last pair decides.
 */
static void test_shutdown(void **state)
{
	const char *w_eio = "A step 9 " FB_PROBE_STEP " -> err EIO\n";
	const char *r_eio = "A step 10 " FB_PROBE_READ_STEP " -> err EIO\n";
	const char *r_nodata = "A step 10 " FB_PROBE_READ_STEP " -> err ENODATA\n";
	char t[1024];
	struct fb_outcome o;

	snprintf(t, sizeof(t), READY "C %s\n%s%s" EXIT, IGET, w_eio, r_eio);
	o = classify(t);
	assert_int_equal(o.reaction, FB_REACT_SHUTDOWN);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	snprintf(t, sizeof(t), READY "C %s\n%s%s" EXIT, IGET, w_eio, r_nodata);
	assert_int_equal(classify(t).reaction, FB_REACT_NONE);
	snprintf(t, sizeof(t), READY "C %s\n" PROBE_RO "%s" EXIT, IGET, r_eio);
	assert_int_equal(classify(t).reaction, FB_REACT_REMOUNT_RO);
	snprintf(t, sizeof(t), READY "C %s\n%s%s" PROBE_OK
		 "A step 10 " FB_PROBE_READ_STEP " -> ok bytes=1\n" EXIT,
		 IGET, w_eio, r_eio);
	assert_int_equal(classify(t).reaction, FB_REACT_ERROR_CONTINUE);
	assert_string_equal(fb_reaction_name(FB_REACT_SHUTDOWN), "shutdown");
	assert_int_equal(fb_reaction_parse("shutdown"), FB_REACT_SHUTDOWN);
}

/* Messages 6.1 shares between checks, decided from their text. */
static void test_ambiguous(void **state)
{
	static const struct { const char *line; enum fb_detect want; } c[] = {
		{ "EXT4-fs error (device vda): ext4_find_extent:936: inode #13: comm init: pblk 2065 bad header/extent: extent tree corrupted - magic f30a, entries 50, max 340(340), depth 0(0)", FB_DETECT_CSUM },
		{ "EXT4-fs error (device vda): ext4_find_extent:936: inode #13: comm init: pblk 2065 bad header/extent: invalid eh_entries - magic f30a, entries 341, max 340(340), depth 0(0)", FB_DETECT_SANITY },
		{ "EXT4-fs error (device vda): ext4_xattr_block_get:545: inode #12: comm init: corrupted xattr block 1234", FB_DETECT_SANITY },
		{ "EXT4-fs warning (device vda): read_mmp_block:114: Error -74 while reading MMP block 1234", FB_DETECT_CSUM },
		{ "EXT4-fs warning (device vda): read_mmp_block:114: Error -117 while reading MMP block 1234", FB_DETECT_SANITY },
		{ "EXT4-fs warning (device vda): read_mmp_block:114: Error -5 while reading MMP block 1234", FB_DETECT_IO },
		{ "EXT4-fs error (device vda): ext4_read_block_bitmap_nowait:522: comm init: Failed to init block bitmap for group 1: -74", FB_DETECT_CSUM },
		{ "EXT4-fs error (device vda): ext4_read_block_bitmap_nowait:522: comm init: Failed to init block bitmap for group 1: -117", FB_DETECT_SANITY },
		{ "EXT4-fs error (device vda): __ext4_get_inode_loc_noinmem:4496: inode #12: block 34: comm init: unable to read itable block", FB_DETECT_IO },
		{ "EXT4-fs (vda): VFS: Found ext4 filesystem with invalid superblock checksum.  Run e2fsck?", FB_DETECT_CSUM },
		{ "EXT4-fs (vda): VFS: Can't find ext4 filesystem", FB_DETECT_SANITY },
		{ "JBD2: journal transaction 5 on vda-8 is corrupt.", FB_DETECT_CSUM },
		{ "JBD2: Invalid checksum recovering data block 1234 in log", FB_DETECT_CSUM },
		/* a failed journal load: jbd2's own line says why, these do not */
		{ "JBD2: recovery failed", FB_DETECT_NONE },
		{ "EXT4-fs (vda): error loading journal", FB_DETECT_NONE },
		{ "JBD2: IO error reading journal superblock", FB_DETECT_IO },
		{ "JBD2: Failed to read block at offset 1", FB_DETECT_IO },
		{ "EXT4-fs warning (device vda): dx_probe:832: inode #14: comm init: Unrecognised inode hash code 9", FB_DETECT_SANITY },
		{ "EXT4-fs (vda): mounted filesystem with ordered data mode. Quota mode: none.", FB_DETECT_NONE },
		{ "EXT4-fs (vda): Remounting filesystem read-only", FB_DETECT_NONE },
		{ "EXT4-fs (vda): warning: mounting fs with errors, running e2fsck is recommended", FB_DETECT_NONE },
		{ "EXT4-fs error (device vda): ext4_journal_check_start:83: comm init: Detected aborted journal", FB_DETECT_NONE },
	};
	char t[1024];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fb_outcome o;

		snprintf(t, sizeof(t), READY "C [    2.000000] %s\n" PROBE_OK EXIT,
			 c[i].line);
		o = classify(t);
		if (o.detect != c[i].want)
			fail_msg("'%s': expected detect %s, got %s", c[i].line,
				 fb_detect_name(c[i].want), fb_detect_name(o.detect));
		if (c[i].want != FB_DETECT_NONE)
			assert_string_equal(o.detail, c[i].line);
	}
}

/* Checksum beats sanity whatever the order; the structured line is the detail. */
static void test_csum_first(void **state)
{
	const char *csumerr = "EXT4-fs csum-error (device vda): type=inode ino=12 block=34 group=0";
	char t[2048];
	struct fb_outcome o;

	snprintf(t, sizeof(t), READY
		 "C EXT4-fs error (device vda): ext4_iget:1: inode #13: comm init: bad extra_isize 999\n"
		 "C " IGET "\nA kmsg 1 2 5 %s\n" PROBE_RO EXIT, csumerr);
	o = classify(t);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_string_equal(o.detail, csumerr);
	assert_int_equal(o.reaction, FB_REACT_REMOUNT_RO);
}

/* jbd2's structured line names the journal object over JBD2's own messages. */
static void test_jbd2_csumerr(void **state)
{
	const char *csumerr = "JBD2 csum-error (device vda): type=journal-commit ino=8 block=5 group=-";
	char t[2048];
	struct fb_outcome o;

	snprintf(t, sizeof(t), READY "A kmsg 1 3 5 JBD2: Invalid checksum found in transaction 1\n"
		 "A kmsg 2 3 5 %s\n" PROBE_OK EXIT, csumerr);
	o = classify(t);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_string_equal(o.detail, csumerr);
}

/* csum_retry: recovered only when nothing went through ext4_error. */
static void test_recovered(void **state)
{
	const char *rec = "C EXT4-fs csum-error (device vda): type=extent ino=13 block=2065 group=- recovered\n";
	char t[2048];
	struct fb_outcome o;

	snprintf(t, sizeof(t), READY "%s" PROBE_OK EXIT, rec);
	o = classify(t);
	assert_int_equal(o.detect, FB_DETECT_CSUM);
	assert_int_equal(o.reaction, FB_REACT_RECOVERED);
	snprintf(t, sizeof(t), READY "%sC " IGET "\n" PROBE_OK EXIT, rec);
	assert_int_equal(classify(t).reaction, FB_REACT_ERROR_CONTINUE);
	snprintf(t, sizeof(t), READY "%s" PROBE_RO EXIT, rec);
	assert_int_equal(classify(t).reaction, FB_REACT_REMOUNT_RO);
}

/*
 * A timeout is a hang only with the kernel's report or a silent guest: the
 * host's timeout line says how long the agent had been quiet, and up to
 * 5 s (beats are 1 s apart) the case is a slow step, infra.
 */
static void test_slow_step(void **state)
{
	const char *before = READY "A beat 2\n"
		"H exit timeout no end within the timeout of 8 s; the agent's last line ";
	char t[512];
	struct fb_outcome o;

	snprintf(t, sizeof(t), "%s5.0 s before\n", before);
	o = classify(t);
	assert_int_equal(o.reaction, FB_REACT_NONE);
	assert_string_equal(o.infra, "slow step: step 2 ran past the timeout while the kernel kept answering (the agent's last line 5.0 s before it, no hang report)");
	snprintf(t, sizeof(t), "%s5.1 s before\n", before);
	o = classify(t);
	assert_int_equal(o.reaction, FB_REACT_HANG);
	assert_string_equal(o.infra, "");
	o = classify(READY "H exit timeout no end within the timeout of 8 s; no line from the agent\n");
	assert_int_equal(o.reaction, FB_REACT_HANG);
	snprintf(t, sizeof(t), READY "C INFO: task init:1 blocked for more than 20 seconds.\n"
		 "A beat 2\nH exit timeout no end within the timeout of 60 s; the agent's last line 0.3 s before\n");
	o = classify(t);
	assert_int_equal(o.reaction, FB_REACT_HANG);
	assert_string_equal(o.infra, "");
}

/* The most severe reaction wins; BUG:/WARNING:/UBSAN: set warning. */
static void test_severity(void **state)
{
	struct fb_outcome o;

	o = classify(READY "C BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
		     "C Oops: 0000 [#1] PREEMPT\n"
		     "C Kernel panic - not syncing: Fatal exception\nH exit reboot\n");
	assert_int_equal(o.reaction, FB_REACT_OOPS);
	assert_true(o.warning);
	o = classify(READY "C invalid opcode: 0000 [#1] PREEMPT\nH exit reboot\n");
	assert_int_equal(o.reaction, FB_REACT_OOPS);
	assert_false(o.warning);
	o = classify(READY "C BUG: KASAN: use-after-free in ext4_foo+0x1/0x2\n"
		     "C INFO: task init:1 blocked for more than 20 seconds.\n" PROBE_OK EXIT);
	assert_int_equal(o.reaction, FB_REACT_KASAN);
	o = classify(READY "C watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [init:1]\nH exit timeout\n");
	assert_int_equal(o.reaction, FB_REACT_HANG);
	assert_true(o.warning);
	o = classify(READY "A kmsg 3 3 9 UBSAN: shift-out-of-bounds in fs/ext4/super.c:1:2\n" PROBE_OK EXIT);
	assert_true(o.warning);
	assert_int_equal(o.reaction, FB_REACT_NONE);
	o = classify("A ready\nA step 1 mount -> err EUCLEAN\n" PROBE_RO EXIT);
	assert_int_equal(o.reaction, FB_REACT_MOUNT_REFUSED);
	assert_int_equal(o.detect, FB_DETECT_MOUNT);
	assert_string_equal(o.detail, "step 1 mount -> err EUCLEAN");
	/*
	 * A workload that writes, unmounts and mounts again: a descriptor
	 * written bad at the umount is refused by the second mount. The
	 * probes then run on no ext4 (EOPNOTSUPP), and the refusal is the
	 * reaction; the sanity line stays the detection.
	 */
	o = classify(READY "A step 2 write /new 5000 -> ok bytes=5000 at=0\n"
		     "A step 3 umount -> ok\n"
		     "A kmsg 20 3 900000 EXT4-fs (vda): ext4_check_descriptors: Inode bitmap for group 0 not in group (block 9007199254741017)!\n"
		     "A step 4 mount -> err EUCLEAN errors=remount-ro\n"
		     "A step 5 read /new 5000 -> err ENOENT\n"
		     "A step 6 may setxattr / user.flipbed-probe 1 -> err EOPNOTSUPP user.flipbed-probe\n"
		     "A step 7 may getxattr / user.flipbed-probe -> err EOPNOTSUPP\n" EXIT);
	assert_int_equal(o.reaction, FB_REACT_MOUNT_REFUSED);
	assert_int_equal(o.detect, FB_DETECT_SANITY);
	/* with no line of ext4, the refused mount is the detection, named */
	o = classify(READY "A step 2 umount -> ok\n"
		     "A step 3 mount -> err EINVAL errors=remount-ro\n" EXIT);
	assert_int_equal(o.reaction, FB_REACT_MOUNT_REFUSED);
	assert_int_equal(o.detect, FB_DETECT_MOUNT);
	assert_string_equal(o.detail, "step 3 mount -> err EINVAL errors=remount-ro");
	/* every mount met: no refusal */
	o = classify(READY "A step 2 umount -> ok\nA step 3 mount -> ok\n" PROBE_OK EXIT);
	assert_int_equal(o.reaction, FB_REACT_NONE);
	assert_int_equal(o.detect, FB_DETECT_NONE);
}

/*
 * A journal superblock that cannot be read (the iron matrix's read EIO):
 * the I/O error is the detection, not the mount's "error loading
 * journal" that follows it.
 */
static void test_journal_eio(void **state)
{
	struct fb_outcome o = classify("A ready\n"
		"A kmsg 120 3 1176057 I/O error, dev vda, sector 120 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2\n"
		"A kmsg 121 3 1176057 JBD2: IO error reading journal superblock\n"
		"A kmsg 122 3 1176057 EXT4-fs (vda): error loading journal\n"
		"A step 1 mount -> err EIO errors=remount-ro\n" EXIT);

	assert_int_equal(o.detect, FB_DETECT_IO);
	assert_int_equal(o.reaction, FB_REACT_MOUNT_REFUSED);
	/* with no reason from jbd2, the refused mount is what was seen */
	o = classify("A ready\nA kmsg 122 3 1176057 EXT4-fs (vda): error loading journal\n"
		     "A kmsg 123 3 1176057 JBD2: recovery failed\n"
		     "A step 1 mount -> err EUCLEAN errors=remount-ro\n" EXIT);
	assert_int_equal(o.detect, FB_DETECT_MOUNT);
}

static void test_io_step(void **state)
{
	struct fb_outcome o = classify(READY "A step 2 read /f -> err EIO after 0 bytes\n" PROBE_OK EXIT);

	assert_int_equal(o.detect, FB_DETECT_IO);
	assert_string_equal(o.detail, "step 2 read /f -> err EIO after 0 bytes");
	assert_int_equal(o.reaction, FB_REACT_NONE);
}

static void test_infra(void **state)
{
	struct fb_outcome o;

	o = classify(READY "H exit nbdkit-error nbdkit exited with status 1\n");
	assert_string_equal(o.infra, "nbdkit-error nbdkit exited with status 1");
	o = classify("");
	assert_string_not_equal(o.infra, "");
	assert_int_equal(o.detect, FB_DETECT_NONE);
	assert_int_equal(o.fsck, FB_FSCK_NOT_RUN);
	assert_int_equal(o.data, FB_DATA_NOT_CHECKED);
	o = classify("C Kernel panic - not syncing: VFS: Unable to mount root fs\nH exit reboot\n");
	assert_string_equal(o.infra, "");
	assert_int_equal(o.reaction, FB_REACT_PANIC);
}

/* kmsg's \xNN escapes and CRLF console lines are normalised. */
static void test_normalise(void **state)
{
	const char *t = READY
		"C [    3.000000] EXT4-fs error (device vda): f:1: comm a\\b: bad\r\n"
		"A kmsg 4 2 3000000 EXT4-fs error (device vda): f:1: comm a\\x5cb: bad\n"
		PROBE_RO EXIT;
	struct fb_outcome o = classify(t);
	char *ex;

	assert_string_equal(o.detail, "EXT4-fs error (device vda): f:1: comm a\\b: bad");
	assert_int_equal(fb_dmesg_text(t, strlen(t), &ex), 0);
	assert_string_equal(ex, "[    3.000000] EXT4-fs error (device vda): f:1: comm a\\b: bad\n");
	free(ex);
}

/* --- attribution (attrib.h) -------------------------------------------- */

/* Lines the patched kernel printed in the ci matrix, parsed field by field. */
static void test_csum_line_real(void **state)
{
	static const struct {
		const char *line;
		struct fb_csum_object want;
		bool recovered;
	} c[] = {
		{ "EXT4-fs csum-error (device vda): type=inode ino=12 block=41 group=0",
		  { "inode", 12, 41, 0 }, false },
		{ "EXT4-fs csum-error (device vda): type=extent-leaf ino=167 block=3578 group=0 recovered",
		  { "extent-leaf", 167, 3578, 0 }, true },
		{ "EXT4-fs csum-error (device vda): type=block-bitmap ino=- block=9 group=0",
		  { "block-bitmap", -1, 9, 0 }, false },
		{ "EXT4-fs csum-error (device vda): type=superblock ino=- block=1 group=0",
		  { "superblock", -1, 1, 0 }, false },
		{ "JBD2 csum-error (device vda): type=journal-commit ino=8 block=20 group=-",
		  { "journal-commit", 8, 20, -1 }, false },
		{ "JBD2 csum-error (device vdb): type=journal-sb ino=- block=1 group=-",
		  { "journal-sb", -1, 1, -1 }, false },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fb_csum_object o;
		bool rec;

		if (fb_csum_line_parse(c[i].line, strlen(c[i].line), &o, &rec) != 1)
			fail_msg("'%s': not parsed", c[i].line);
		assert_string_equal(o.type, c[i].want.type);
		assert_int_equal(o.ino, c[i].want.ino);
		assert_int_equal(o.block, c[i].want.block);
		assert_int_equal(o.group, c[i].want.group);
		assert_int_equal(rec, c[i].recovered);
	}
}

/* Guest-made text: anything off the format is malformed, never a match. */
static void test_csum_line_malformed(void **state)
{
	static const char *const bad[] = {
		"EXT4-fs csum-error (device vda): type=inode ino=12 block=41",
		"EXT4-fs csum-error (device vda): type=inode ino=12 group=0 block=41",
		"EXT4-fs csum-error (device vda): type=inode ino=12 block=41 group=0 ",
		"EXT4-fs csum-error (device vda): type=inode ino=12 block=41 group=0 recovered!",
		"EXT4-fs csum-error (device vda): type=inode ino=+12 block=41 group=0",
		"EXT4-fs csum-error (device vda): type=inode ino=012 block=41 group=0",
		"EXT4-fs csum-error (device vda): type=inode ino=12 block=0x29 group=0",
		"EXT4-fs csum-error (device vda): type=inode ino=12 block=9223372036854775808 group=0",
		"EXT4-fs csum-error (device vda): type=inode ino=12 block=99999999999999999999999 group=0",
		"EXT4-fs csum-error (device vda): type=inode ino=12 block=- group=0",
		"EXT4-fs csum-error (device vda): type=inode ino=12 block=41 group=-0",
		"EXT4-fs csum-error (device vda): type=extent ino=13 block=2065 group=-",
		"EXT4-fs csum-error (device vda): type=journal-commit ino=8 block=20 group=0",
		"JBD2 csum-error (device vda): type=inode ino=12 block=41 group=-",
		"JBD2 csum-error (device vda): type=journal-commit ino=8 block=20 group=0",
		"JBD2 csum-error (device vda): type=journal-commit ino=8 block=20 group=- recovered",
		"EXT4-fs csum-error (device ): type=inode ino=12 block=41 group=0",
		"EXT4-fs csum-error (device v d a): type=inode ino=12 block=41 group=0",
		"EXT4-fs csum-error (device vda) type=inode ino=12 block=41 group=0",
		"EXT4-fs csum-error",
	};
	struct fb_csum_object o;
	char line[2 * FB_CSUM_LINE_MAX];
	bool rec;
	int n;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (fb_csum_line_parse(bad[i], strlen(bad[i]), &o, &rec) != -1)
			fail_msg("'%s': accepted", bad[i]);
	/* overlong: a well-formed line with a device name past any real one */
	n = snprintf(line, sizeof(line), "EXT4-fs csum-error (device %0*d): type=inode ino=12 block=41 group=0",
		     FB_CSUM_LINE_MAX, 7);
	assert_true(n > FB_CSUM_LINE_MAX);
	assert_int_equal(fb_csum_line_parse(line, n, &o, &rec), -1);
	/* the length is LEN, not a NUL: the line below is cut before its group */
	snprintf(line, sizeof(line), "EXT4-fs csum-error (device vda): type=inode ino=12 block=41 group=0");
	assert_int_equal(fb_csum_line_parse(line, strlen(line) - 8, &o, &rec), -1);
	/* not a csum-error line at all */
	assert_int_equal(fb_csum_line_parse(IGET, strlen(IGET), &o, &rec), 0);
	assert_int_equal(fb_csum_line_parse("", 0, &o, &rec), 0);
}

/* The corruptor's object types as the kernel names them. */
static void test_csum_object_expect(void **state)
{
	static const struct {
		const char *type;
		long long ino, group, pblk;
		const char *want;
	} c[] = {
		{ "inode", 12, 0, 41, "type=inode ino=12 block=41 group=0" },
		{ "inode-extra", 21, 0, 42, "type=inode ino=21 block=42 group=0" },
		{ "inline-data", 15, 0, 34, "type=inode ino=15 block=34 group=0" },
		{ "extent-index", 15, 0, 3428, "type=extent-index ino=15 block=3428 group=0" },
		{ "dx-root", 168, 0, 3582, "type=dx-root ino=168 block=3582 group=0" },
		{ "block-bitmap", 0, 3, 3, "type=block-bitmap ino=- block=3 group=3" },
		{ "group-desc", 0, 0, 1, "type=group-desc ino=- block=1 group=0" },
		{ "superblock-backup", 0, 1, 8193, "type=superblock ino=- block=8193 group=1" },
		{ "mmp", 0, 0, 2065, "type=mmp ino=- block=2065 group=0" },
		{ "journal-data", 8, 0, 17, "type=journal-data ino=8 block=17 group=-" },
	};
	struct fb_csum_object o;
	char buf[160];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		assert_int_equal(fb_csum_object_expect(c[i].type, c[i].ino, c[i].group,
						       c[i].pblk, &o), 0);
		fb_csum_object_format(&o, buf, sizeof(buf));
		assert_string_equal(buf, c[i].want);
	}
	assert_int_equal(fb_csum_object_expect("data", 12, 0, 2064, &o), -1);
	assert_int_equal(fb_csum_object_expect("range", 0, 0, 0, &o), -1);
}

#define CSUM_INODE "EXT4-fs csum-error (device vda): type=inode ino=12 block=41 group=0"

/* Attribution on a dmesg.txt: every line must name the object. */
static void test_attrib_check(void **state)
{
	const struct fb_csum_object want = { "inode", 12, 41, 0 };
	char detail[512], log[4096];
	size_t n = 0;

	snprintf(log, sizeof(log), "[    1.000000] %s\n[    1.000100] " IGET "\n"
		 "[    1.000200] EXT4-fs (vda): Remounting filesystem read-only\n", CSUM_INODE);
	assert_int_equal(fb_attrib_check(log, strlen(log), &want, detail, sizeof(detail)),
			 FB_ATTRIB_MATCH);
	assert_string_equal(detail, "");
	/* without stamps (lines kmsg gave no time), and repeated: still a match */
	snprintf(log, sizeof(log), "%s recovered\n%s\n%s", CSUM_INODE, CSUM_INODE, CSUM_INODE);
	assert_int_equal(fb_attrib_check(log, strlen(log), &want, detail, sizeof(detail)),
			 FB_ATTRIB_MATCH);
	/* free text alone names nothing */
	snprintf(log, sizeof(log), "[    1.000100] %s\n", IGET);
	assert_int_equal(fb_attrib_check(log, strlen(log), &want, detail, sizeof(detail)),
			 FB_ATTRIB_NONE);
	assert_int_equal(fb_attrib_check("", 0, &want, detail, sizeof(detail)), FB_ATTRIB_NONE);
	/* one line naming another inode of the same block spoils the match */
	snprintf(log, sizeof(log), "[ 1.0] %s\n[ 1.1] EXT4-fs csum-error (device vda): type=inode ino=13 block=41 group=0\n",
		 CSUM_INODE);
	assert_int_equal(fb_attrib_check(log, strlen(log), &want, detail, sizeof(detail)),
			 FB_ATTRIB_MISMATCH);
	assert_string_equal(detail, "type=inode ino=13 block=41 group=0");
	/* a malformed line counts against it, shown printable and cut */
	snprintf(log, sizeof(log), "%s\nEXT4-fs csum-error (device vda): type=inode ino=\x01\xff%0200d\n",
		 CSUM_INODE, 0);
	assert_int_equal(fb_attrib_check(log, strlen(log), &want, detail, sizeof(detail)),
			 FB_ATTRIB_MISMATCH);
	assert_int_equal(strncmp(detail, "malformed: EXT4-fs csum-error (device vda): type=inode ino=??000", 64), 0);
	assert_int_equal(strlen(detail), strlen("malformed: ") + 80);
	/* ten repeats of one wrong line and five distinct ones: bounded */
	for (int i = 0; i < 10; i++)
		n += snprintf(log + n, sizeof(log) - n,
			      "JBD2 csum-error (device vda): type=journal-data ino=8 block=17 group=-\n");
	for (int i = 0; i < 5; i++)
		n += snprintf(log + n, sizeof(log) - n,
			      "EXT4-fs csum-error (device vda): type=dir-leaf ino=2 block=%d group=0\n", 100 + i);
	assert_int_equal(fb_attrib_check(log, n, &want, detail, sizeof(detail)), FB_ATTRIB_MISMATCH);
	assert_string_equal(detail, "type=journal-data ino=8 block=17 group=- (x10); "
			    "type=dir-leaf ino=2 block=100 group=0; type=dir-leaf ino=2 block=101 group=0; "
			    "type=dir-leaf ino=2 block=102 group=0; and 2 more");
}

/*
 * What judge() adds: a case expecting detect=csum whose kernel names the
 * right inode at the wrong block fails; n/a and other expectations do not.
 */
static void test_attrib_judge(void **state)
{
	const struct fb_csum_object want = { "inode", 12, 41, 0 };
	const char *hit = "type=inode ino=12 block=41 group=0";
	const char *t = READY "C [    1.000000] EXT4-fs csum-error (device vda): type=inode ino=12 block=42 group=0\n"
		"C [    1.000100] " IGET "\n" PROBE_RO EXIT;
	struct fb_outcome o = classify(t);
	char *dm, why[1024];

	assert_int_equal(o.attrib, FB_ATTRIB_NA);
	assert_int_equal(fb_dmesg_text(t, strlen(t), &dm), 0);
	o.attrib = fb_attrib_check(dm, strlen(dm), &want, o.attrib_detail, sizeof(o.attrib_detail));
	free(dm);
	assert_int_equal(o.attrib, FB_ATTRIB_MISMATCH);
	assert_true(fb_attrib_judge(&o, "csum", hit, why, sizeof(why)));
	assert_string_equal(why, "csum-error names type=inode ino=12 block=42 group=0, "
			    "the fault hit type=inode ino=12 block=41 group=0");
	assert_true(fb_attrib_judge(&o, "csum|sanity", hit, why, sizeof(why)));
	assert_false(fb_attrib_judge(&o, "any", hit, why, sizeof(why)));
	assert_false(fb_attrib_judge(&o, "sanity", hit, why, sizeof(why)));
	assert_false(fb_attrib_judge(&o, NULL, hit, why, sizeof(why)));
	/* free text only, on a kernel that prints csum-error lines */
	o.attrib = FB_ATTRIB_NONE;
	assert_true(fb_attrib_judge(&o, "csum", hit, why, sizeof(why)));
	assert_string_equal(why, "no csum-error line, the fault hit type=inode ino=12 block=41 group=0");
	/* a case that caught no checksum is judged by detect alone */
	o.detect = FB_DETECT_SANITY;
	assert_false(fb_attrib_judge(&o, "csum|sanity", hit, why, sizeof(why)));
	o.detect = FB_DETECT_CSUM;
	o.attrib = FB_ATTRIB_MATCH;
	assert_false(fb_attrib_judge(&o, "csum", hit, why, sizeof(why)));
	o.attrib = FB_ATTRIB_NA;
	assert_false(fb_attrib_judge(&o, "csum", hit, why, sizeof(why)));
}

/*
 * The next-mount pass: a write fault unseen by the workload, caught when
 * the next mount reads the block. The console's copy of the detection
 * came after the mark's time, so it belongs to the second part although
 * it arrived before the agent's lines about the mark.
 */
#define CSUMLINE "EXT4-fs csum-error (device vda): type=dir-leaf ino=16 block=3572 group=0"
static void test_split_next_mount(void **state)
{
	const char *t = READY
		"A step 2 write /d/n 10 -> ok bytes=10 at=0\n"
		"A step 3 " FB_PROBE_STEP " -> ok user.flipbed-probe\n"
		"C [    2.000001] " CSUMLINE "\n"
		"A kmsg 300 5 2000000 flipbed-mark next-mount\n"
		"A step 4 mark next-mount -> ok\n"
		"A step 5 may umount -> ok\n"
		"A step 6 may mount -> ok errors=remount-ro\n"
		"A kmsg 301 3 2000001 " CSUMLINE "\n"
		"A step 7 may walk -> err EBADMSG entries=608 failures=1\n"
		"A step 8 " FB_PROBE_STEP " -> err EROFS user.flipbed-probe\n"
		EXIT;
	char *a, *b;
	size_t al, bl;
	struct fb_outcome o1, o2;

	(void)state;
	assert_int_equal(fb_transcript_split(t, strlen(t), "next-mount", &a, &al, &b, &bl), 0);
	assert_non_null(b);
	assert_null(strstr(a, "csum-error"));
	assert_null(strstr(a, "H exit"));
	assert_non_null(strstr(b, "A ready"));
	assert_int_equal(fb_classify(a, al, &o1), 0);
	assert_int_equal(fb_classify(b, bl, &o2), 0);
	assert_int_equal(o1.detect, FB_DETECT_NONE);
	assert_int_equal(o1.reaction, FB_REACT_NONE);
	assert_string_equal(o1.infra, "");
	assert_int_equal(o2.detect, FB_DETECT_CSUM);
	assert_int_equal(o2.reaction, FB_REACT_REMOUNT_RO);
	assert_string_equal(o2.detail, CSUMLINE);
	free(a);
	free(b);

	/* no mark (the guest died before it): all of it is the first part */
	assert_int_equal(fb_transcript_split(READY EXIT, strlen(READY EXIT), "next-mount",
					     &a, &al, &b, &bl), 0);
	assert_null(b);
	assert_string_equal(a, READY EXIT);
	free(a);
}

/*
 * A batch's boot cut at its marks: the boot's lines, each case's own (the
 * agent's stream by place, the console by printk time, a console line that
 * came late still goes to its case), a release's lines apart, and a case
 * whose mark never came gets nothing.
 */
static void test_cut_batch(void **state)
{
	static const char t[] =
		"C [    0.100000] boot line\n"
		"A ready\n"
		"A kmsg 10 5 500000 flipbed-mark case-fb0\n"
		"A step 1 mount -> ok\n"
		"A kmsg 11 3 600000 EXT4-fs error (device vda): case zero\n"
		"A kmsg 11 3 800000 EXT4-fs (vda): late\n"
		"A done 1 0 mounted\n"
		"A kmsg 12 5 700000 flipbed-mark release-fb0\n"
		"A kmsg 13 6 710000 EXT4-fs (vda): unmounting filesystem.\n"
		"A released ok\n"
		"A kmsg 14 5 800000 flipbed-mark case-fb1\n"
		"C [    0.600000] EXT4-fs error (device vda): case zero\n"
		/* the same time as the mark, yet case zero's: its twin says so */
		"C [    0.800000] EXT4-fs (vda): late\n"
		"A step 1 mount -> err EUCLEAN\n"
		"C [    0.900000] EXT4-fs (vdb): case one\n"
		"A done 0 1\n"
		"H exit clean\n";
	const char *words[] = { "case-fb0", "release-fb0", "case-fb1", "release-fb1", "case-fb2" };
	char *parts[6];
	size_t lens[6];

	(void)state;
	assert_int_equal(fb_transcript_cut(t, strlen(t), words, 5, parts, lens), 0);
	assert_non_null(strstr(parts[0], "boot line"));
	assert_non_null(strstr(parts[0], "A ready"));
	assert_null(strstr(parts[0], "mount"));
	/* case 0: its step, its kmsg line, and the console line that came late */
	assert_non_null(strstr(parts[1], "A step 1 mount -> ok"));
	assert_non_null(strstr(parts[1], "C [    0.600000] EXT4-fs error (device vda): case zero"));
	assert_non_null(strstr(parts[1], "A done 1 0 mounted"));
	assert_null(strstr(parts[1], "unmounting"));
	assert_null(strstr(parts[1], "case one"));
	assert_non_null(strstr(parts[1], "C [    0.800000] EXT4-fs (vda): late"));
	assert_null(strstr(parts[3], "late"));
	/* the release: apart */
	assert_non_null(strstr(parts[2], "unmounting filesystem"));
	assert_non_null(strstr(parts[2], "A released ok"));
	/* case 1, to the boot's end */
	assert_non_null(strstr(parts[3], "err EUCLEAN"));
	assert_non_null(strstr(parts[3], "case one"));
	assert_non_null(strstr(parts[3], "H exit clean"));
	assert_null(strstr(parts[3], "case zero"));
	/* no release of case 1, no case 2: nothing */
	assert_string_equal(parts[4], "\n");
	assert_string_equal(parts[5], "\n");
	for (int k = 0; k < 6; k++)
		free(parts[k]);
}

int main(int argc, char **argv)
{
	static const struct CMUnitTest direct[] = {
		cmocka_unit_test(test_dedup),
		cmocka_unit_test(test_split_next_mount),
		cmocka_unit_test(test_cut_batch),
		cmocka_unit_test(test_excerpt_start),
		cmocka_unit_test(test_probe_missing),
		cmocka_unit_test(test_probe_last),
		cmocka_unit_test(test_klog_rule),
		cmocka_unit_test(test_errno_signal),
		cmocka_unit_test(test_errno_decides),
		cmocka_unit_test(test_conflict),
		cmocka_unit_test(test_umount_error),
		cmocka_unit_test(test_step_erofs),
		cmocka_unit_test(test_read_only_mount),
		cmocka_unit_test(test_note),
		cmocka_unit_test(test_shutdown),
		cmocka_unit_test(test_ambiguous),
		cmocka_unit_test(test_csum_first),
		cmocka_unit_test(test_recovered),
		cmocka_unit_test(test_jbd2_csumerr),
		cmocka_unit_test(test_severity),
		cmocka_unit_test(test_slow_step),
		cmocka_unit_test(test_journal_eio),
		cmocka_unit_test(test_io_step),
		cmocka_unit_test(test_infra),
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_csum_line_real),
		cmocka_unit_test(test_csum_line_malformed),
		cmocka_unit_test(test_csum_object_expect),
		cmocka_unit_test(test_attrib_check),
		cmocka_unit_test(test_attrib_judge),
	};
	const char *dir = argc > 1 ? argv[1] : "harness/tests/classify";
	struct CMUnitTest *golden;
	char pattern[4096];
	glob_t g;
	int failed;

	snprintf(pattern, sizeof(pattern), "%s/*.log", dir);
	if (glob(pattern, 0, NULL, &g) || !g.gl_pathc) {
		fprintf(stderr, "test-classify: no golden files %s\n", pattern);
		return 1;
	}
	golden = calloc(g.gl_pathc, sizeof(*golden));
	if (!golden)
		return 1;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/');

		golden[i].name = base ? base + 1 : g.gl_pathv[i];
		golden[i].test_func = test_golden;
		golden[i].initial_state = g.gl_pathv[i];
	}
	failed = _cmocka_run_group_tests("golden", golden, g.gl_pathc, NULL, NULL);
	failed += cmocka_run_group_tests_name("edge rules", direct, NULL, NULL);
	free(golden);
	globfree(&g);
	return failed ? 1 : 0;
}

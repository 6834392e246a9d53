// SPDX-License-Identifier: MIT
/*
 * Unit tests of the fserror witness: the agent's decoding of fanotify
 * events and its bound of FSERROR_MAX lines (guest/fserror.c, its
 * channel replaced by a list of lines), the host's parsing of those lines
 * (bounded, every malformed form refused and counted), the agreement with
 * the classifier's outcome, the case record, and how the reports show it
 * (harness/witness/fserror.c, harness/witness/fserror_report.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <cmocka.h>
#include <jansson.h>

#include "guest/agent.h"
#include "report/report_int.h"
#include "witness/fserror.h"

/* ---- the agent's channel, replaced: the lines it sent ---- */

#define SENT_MAX 256
static char *sent_lines[SENT_MAX];
static int nsent;

void chan_send(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	assert_true(vasprintf(&s, fmt, ap) >= 0);
	va_end(ap);
	assert_true(nsent < SENT_MAX);
	sent_lines[nsent++] = s;
}

/* ---- fanotify events as the kernel lays them out ---- */

#define FILEID_INO32_GEN 1
#define FILEID_INVALID 0xff

/*
 * One event at P: metadata, an error record (when MASK has FAN_FS_ERROR)
 * and a FID record with a handle of TYPE and BYTES bytes whose first four
 * hold INO. Returns its length.
 */
static size_t put_event(unsigned char *p, uint64_t mask, int err, unsigned count,
			unsigned type, unsigned bytes, uint32_t ino)
{
	struct fanotify_event_metadata m = {
		.vers = FANOTIFY_METADATA_VERSION, .metadata_len = sizeof(m),
		.mask = mask, .fd = FAN_NOFD,
	};
	struct fanotify_event_info_error e = {
		.hdr = { .info_type = FAN_EVENT_INFO_TYPE_ERROR, .len = sizeof(e) },
		.error = err, .error_count = count,
	};
	struct fanotify_event_info_fid fid = {
		.hdr = { .info_type = FAN_EVENT_INFO_TYPE_FID },
	};
	unsigned head[2] = { bytes, type };
	unsigned char handle[16] = { 0 };
	size_t off = sizeof(m);

	memcpy(handle, &ino, sizeof(ino));
	fid.hdr.len = (sizeof(fid) + sizeof(head) + bytes + 3) & ~3u;
	if (mask & FAN_FS_ERROR) {
		memcpy(p + off, &e, sizeof(e));
		off += sizeof(e);
		memset(p + off, 0, fid.hdr.len);
		memcpy(p + off, &fid, sizeof(fid));
		memcpy(p + off + sizeof(fid), head, sizeof(head));
		memcpy(p + off + sizeof(fid) + sizeof(head), handle, bytes);
		off += fid.hdr.len;
	}
	m.event_len = off;
	memcpy(p, &m, sizeof(m));
	return off;
}

static void test_decode(void **state)
{
	unsigned char buf[512];
	char line[64];
	size_t n, used;

	n = put_event(buf, FAN_FS_ERROR, 74, 1, FILEID_INO32_GEN, 8, 12);
	assert_int_equal(fserror_decode(buf, n, &used, line, sizeof(line)), FSERROR_EVENT);
	assert_int_equal(used, n);
	assert_string_equal(line, "EBADMSG 12 1");

	/* a filesystem-wide error: no inode, an empty FILEID_INVALID handle */
	n = put_event(buf, FAN_FS_ERROR, 117, 3, FILEID_INVALID, 0, 0);
	assert_int_equal(fserror_decode(buf, n, &used, line, sizeof(line)), FSERROR_EVENT);
	assert_string_equal(line, "EUCLEAN - 3");

	/* __ext4_std_error passes the errno negated */
	n = put_event(buf, FAN_FS_ERROR, -5, 1, FILEID_INO32_GEN, 8, 4000000000u);
	assert_int_equal(fserror_decode(buf, n, &used, line, sizeof(line)), FSERROR_EVENT);
	assert_string_equal(line, "EIO 4000000000 1");

	n = put_event(buf, FAN_Q_OVERFLOW, 0, 0, 0, 0, 0);
	assert_int_equal(fserror_decode(buf, n, &used, line, sizeof(line)), FSERROR_OVERFLOW);
	n = put_event(buf, FAN_MODIFY, 0, 0, 0, 0, 0);
	assert_int_equal(fserror_decode(buf, n, &used, line, sizeof(line)), FSERROR_OTHER);
	assert_int_equal(used, n);
}

static void test_decode_bad(void **state)
{
	unsigned char buf[512];
	struct fanotify_event_metadata m;
	char line[64];
	size_t n, used;

	n = put_event(buf, FAN_FS_ERROR, 74, 1, FILEID_INO32_GEN, 8, 12);
	/* cut short: the event is longer than what was read */
	assert_int_equal(fserror_decode(buf, n - 1, &used, line, sizeof(line)), FSERROR_BAD);
	assert_int_equal(fserror_decode(buf, 10, &used, line, sizeof(line)), FSERROR_BAD);
	/* another metadata version */
	buf[4] = FANOTIFY_METADATA_VERSION + 1;
	assert_int_equal(fserror_decode(buf, n, &used, line, sizeof(line)), FSERROR_BAD);
	/* an info record of length 0 would never end */
	n = put_event(buf, FAN_FS_ERROR, 74, 1, FILEID_INO32_GEN, 8, 12);
	buf[sizeof(m) + 2] = 0;
	buf[sizeof(m) + 3] = 0;
	assert_int_equal(fserror_decode(buf, n, &used, line, sizeof(line)), FSERROR_BAD);
	/* a handle longer than its record */
	n = put_event(buf, FAN_FS_ERROR, 74, 1, FILEID_INO32_GEN, 8, 12);
	buf[sizeof(m) + sizeof(struct fanotify_event_info_error) +
	    sizeof(struct fanotify_event_info_fid)] = 200;
	assert_int_equal(fserror_decode(buf, n, &used, line, sizeof(line)), FSERROR_BAD);
	/* an FS_ERROR event without its error record */
	n = put_event(buf, FAN_FS_ERROR, 74, 1, FILEID_INO32_GEN, 8, 12);
	memcpy(&m, buf, sizeof(m));
	m.event_len = sizeof(m);
	memcpy(buf, &m, sizeof(m));
	assert_int_equal(fserror_decode(buf, sizeof(m), &used, line, sizeof(line)), FSERROR_BAD);
}

/*
 * 70 events in one read: FSERROR_MAX lines, then "fserror-dropped 6" at the
 * end; and the host takes every line the agent sent.
 */
static void test_agent_bound(void **state)
{
	static unsigned char buf[70 * 64];
	struct fb_fserror f = { 0 };
	size_t n = 0;

	for (uint32_t i = 0; i < 70; i++)
		n += put_event(buf + n, FAN_FS_ERROR, 74, 1, FILEID_INO32_GEN, 8, 100 + i);
	nsent = 0;
	fserror_take(buf, n);
	assert_int_equal(nsent, FSERROR_MAX);
	assert_string_equal(sent_lines[0], "fserror EBADMSG 100 1");
	assert_string_equal(sent_lines[63], "fserror EBADMSG 163 1");
	fserror_stop();
	assert_int_equal(nsent, FSERROR_MAX + 1);
	assert_string_equal(sent_lines[64], "fserror-dropped 6");
	for (int i = 0; i < nsent; i++) {
		assert_int_equal(fb_fserror_line(&f, sent_lines[i]), 1);
		free(sent_lines[i]);
	}
	assert_int_equal(f.nev, 64);
	assert_int_equal(f.dropped, 6);
	assert_int_equal(f.malformed, 0);
}

/* ---- the host: fserror lines ---- */

static void test_host_event(void **state)
{
	struct fb_fserror f = { 0 };

	assert_int_equal(fb_fserror_line(&f, "fserror-watch /mnt"), 1);
	assert_true(f.watched);
	assert_int_equal(fb_fserror_line(&f, "fserror EBADMSG 12 1"), 1);
	assert_int_equal(fb_fserror_line(&f, "fserror EFSBADCRC 13 2"), 1);
	assert_int_equal(fb_fserror_line(&f, "fserror EFSCORRUPTED - 4294967295"), 1);
	assert_int_equal(fb_fserror_line(&f, "fserror E4000 4294967295 1"), 1);
	assert_int_equal(f.nev, 4);
	assert_string_equal(f.ev[0].err, "EBADMSG");
	assert_int_equal(f.ev[0].ino, 12);
	assert_int_equal(f.ev[0].count, 1);
	assert_string_equal(f.ev[1].err, "EBADMSG");
	assert_int_equal(f.ev[1].count, 2);
	assert_string_equal(f.ev[2].err, "EUCLEAN");
	assert_int_equal(f.ev[2].ino, -1);
	assert_int_equal(f.ev[2].count, 4294967295UL);
	assert_string_equal(f.ev[3].err, "E4000");
	assert_int_equal(f.ev[3].ino, 4294967295LL);
	/* not fserror lines: left to the other readers */
	assert_int_equal(fb_fserror_line(&f, "step 1 mount -> ok"), 0);
	assert_int_equal(fb_fserror_line(&f, "kmsg 1 3 5 fserror x"), 0);
	assert_int_equal(fb_fserror_line(&f, "fserr"), 0);
	assert_int_equal(f.malformed, 0);
}

static void test_host_malformed(void **state)
{
	static const char *const bad[] = {
		"fserror", "fserror ", "fserror EBADMSG", "fserror EBADMSG 12",
		"fserror EBADMSG 12 1 7", "fserror EBADMSG 12 1 ", "fserror  EBADMSG 12 1",
		"fserror EBADMSG  12 1", "fserror EBADMSG 012 1", "fserror EBADMSG 0 1",
		"fserror EBADMSG -12 1", "fserror EBADMSG +12 1", "fserror EBADMSG 12 0",
		"fserror EBADMSG 12 01", "fserror EBADMSG 4294967296 1",
		"fserror EBADMSG 12 4294967296", "fserror EBADMSG 99999999999999999999999 1",
		"fserror EBADMSG 1x 1", "fserror EBADMSG 12 -", "fserror NOSUCH 12 1",
		"fserror ebadmsg 12 1", "fserror EBADDATA 12 1", "fserror E0 12 1",
		"fserror E4096 12 1", "fserror E 12 1", "fserror - 12 1",
		"fserrorEBADMSG 12 1", "fserror-watch", "fserror-watch ", "fserror-watch mnt",
		"fserror-watch /mnt x", "fserror-dropped", "fserror-dropped -1",
		"fserror-dropped 1e3", "fserror-dropped 999999999999999999999",
		"fserror-unavailable", "fserror-unavailable ", "fserror-unavailable tab\there",
		"fserror-unavailable caf\xc3\xa9", "fserror-other x",
	};
	struct fb_fserror f = { 0 };
	char longline[400];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (fb_fserror_line(&f, bad[i]) != -1)
			fail_msg("accepted: '%s'", bad[i]);
	}
	assert_int_equal(f.malformed, sizeof(bad) / sizeof(*bad));
	/* a line past FB_FSERROR_LINE_MAX, and a reason past its bound */
	memset(longline, '1', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	memcpy(longline, "fserror EBADMSG 1 ", 18);
	assert_int_equal(fb_fserror_line(&f, longline), -1);
	memcpy(longline, "fserror-unavailable ", 20);
	longline[20 + FB_FSERROR_REASON_MAX] = '\0';
	assert_int_equal(fb_fserror_line(&f, longline), -1);
	assert_int_equal(f.nev, 0);
	assert_int_equal(f.dropped, 0);
	assert_false(f.watched);
	assert_false(f.unavailable);
	assert_int_equal(f.malformed, sizeof(bad) / sizeof(*bad) + 2);
}

/* At most FB_FSERROR_MAX events are kept; one fserror-dropped and one reason. */
static void test_host_bound(void **state)
{
	struct fb_fserror f = { 0 };
	char line[64];

	for (int i = 1; i <= 100; i++) {
		snprintf(line, sizeof(line), "fserror EBADMSG %d 1", i);
		assert_int_equal(fb_fserror_line(&f, line), 1);
	}
	assert_int_equal(f.nev, FB_FSERROR_MAX);
	assert_int_equal(f.ev[FB_FSERROR_MAX - 1].ino, FB_FSERROR_MAX);
	assert_int_equal(f.dropped, 36);
	assert_int_equal(fb_fserror_line(&f, "fserror-dropped 10"), 1);
	assert_int_equal(f.dropped, 46);
	assert_int_equal(fb_fserror_line(&f, "fserror-dropped 1"), -1);
	assert_int_equal(f.dropped, 46);
	assert_int_equal(fb_fserror_line(&f, "fserror-unavailable fanotify_init ENOSYS"), 1);
	assert_true(f.unavailable);
	assert_string_equal(f.reason, "fanotify_init ENOSYS");
	assert_int_equal(fb_fserror_line(&f, "fserror-unavailable fanotify_mark EINVAL"), -1);
	assert_string_equal(f.reason, "fanotify_init ENOSYS");
	assert_int_equal(f.malformed, 2);
}

/* ---- agreement with the classifier ---- */

static struct fb_fserror watched(int events)
{
	struct fb_fserror f = { .watched = true };
	char line[64];

	for (int i = 0; i < events; i++) {
		snprintf(line, sizeof(line), "fserror EBADMSG %d 1", 12 + i);
		fb_fserror_line(&f, line);
	}
	return f;
}

static int agrees(const struct fb_fserror *f, enum fb_detect d, enum fb_reaction r,
		  enum fb_verdict v, const char *want_why)
{
	struct fb_outcome out = { .detect = d, .reaction = r };
	char why[256];
	int a = fb_fserror_agrees(f, &out, v, why, sizeof(why));

	if (!strstr(why, want_why))
		fail_msg("agreement '%s' lacks '%s'", why, want_why);
	return a;
}

static void test_agrees(void **state)
{
	struct fb_fserror none = watched(0), one = watched(1), off = { 0 };
	struct fb_fserror dropped_only = watched(0);
	enum fb_verdict P = FB_VERDICT_PASS;

	fb_fserror_line(&off, "fserror-unavailable fanotify_init ENOSYS");
	assert_int_equal(agrees(&off, FB_DETECT_CSUM, FB_REACT_REMOUNT_RO, P,
				"witness unavailable (fanotify_init ENOSYS)"), -1);
	off = (struct fb_fserror){ 0 };
	assert_int_equal(agrees(&off, FB_DETECT_NONE, FB_REACT_NONE, P, "no watch"), -1);

	assert_int_equal(agrees(&one, FB_DETECT_CSUM, FB_REACT_REMOUNT_RO, P,
				"detect csum, 1 FAN_FS_ERROR event"), 1);
	assert_int_equal(agrees(&one, FB_DETECT_SANITY, FB_REACT_ERROR_CONTINUE,
				FB_VERDICT_FAIL, "none of class sanity (the first EBADMSG)"), 0);
	assert_int_equal(agrees(&none, FB_DETECT_CSUM, FB_REACT_REMOUNT_RO, P,
				"detect csum, 0 FAN_FS_ERROR events"), 0);
	assert_int_equal(agrees(&none, FB_DETECT_NONE, FB_REACT_NONE, P,
				"no error in the kernel log, 0"), 1);
	assert_int_equal(agrees(&one, FB_DETECT_NONE, FB_REACT_NONE, P,
				"no error in the kernel log, 1 FAN_FS_ERROR event"), 0);
	fb_fserror_line(&dropped_only, "fserror-dropped 3");
	assert_int_equal(agrees(&dropped_only, FB_DETECT_NONE, FB_REACT_NONE, P,
				"3 FAN_FS_ERROR events"), 0);
	/* recovered: the re-read succeeded, ext4 recorded no error */
	assert_int_equal(agrees(&none, FB_DETECT_CSUM, FB_REACT_RECOVERED, P,
				"no error in the kernel log"), 1);
	assert_int_equal(agrees(&one, FB_DETECT_CSUM, FB_REACT_RECOVERED, P,
				"no error in the kernel log"), 0);
	assert_int_equal(agrees(&one, FB_DETECT_IO, FB_REACT_NONE, P,
				"not compared: detect io"), -1);
	assert_int_equal(agrees(&none, FB_DETECT_MOUNT, FB_REACT_MOUNT_REFUSED, P,
				"not compared: detect mount"), -1);
	assert_int_equal(agrees(&none, FB_DETECT_CSUM, FB_REACT_PANIC, P,
				"may have stopped (panic)"), -1);
	assert_int_equal(agrees(&none, FB_DETECT_CSUM, FB_REACT_HANG, P, "(hang)"), -1);
	assert_int_equal(agrees(&one, FB_DETECT_CSUM, FB_REACT_REMOUNT_RO, FB_VERDICT_INFRA,
				"the case is infra"), -1);
}

/*
 * The classes are compared: the page said "agrees: detect sanity" above
 * "EBADMSG ino 12". The record's conflict, when it has one, is shown.
 */
static void test_agrees_classes(void **state)
{
	struct fb_fserror f = watched(0), dropped = watched(0);
	struct fb_outcome out = { .detect = FB_DETECT_SANITY, .reaction = FB_REACT_REMOUNT_RO };
	char why[640];

	fb_fserror_line(&f, "fserror EUCLEAN - 1");
	fb_fserror_line(&f, "fserror EIO - 1");
	assert_int_equal(fb_fserror_agrees(&f, &out, FB_VERDICT_PASS, why, sizeof(why)), 1);
	out.detect = FB_DETECT_CSUM;
	snprintf(out.sig.conflict, sizeof(out.sig.conflict), "message csum (f), errno sanity "
		 "(EUCLEAN, fanotify): f reports through ext4_error()");
	assert_int_equal(fb_fserror_agrees(&f, &out, FB_VERDICT_PASS, why, sizeof(why)), 0);
	assert_string_equal(why, "detect csum, 2 FAN_FS_ERROR events, none of class csum "
			    "(the first EUCLEAN); message csum (f), errno sanity (EUCLEAN, "
			    "fanotify): f reports through ext4_error()");
	fb_fserror_line(&dropped, "fserror-dropped 2");
	assert_int_equal(fb_fserror_agrees(&dropped, &out, FB_VERDICT_PASS, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "every FAN_FS_ERROR event dropped"));
}

/* The "signals" object of the record: nulls where a signal says nothing. */
static void test_signals_json(void **state)
{
	struct fb_signals sig = { .msg = FB_SIGNAL_AMBIGUOUS, .err = FB_SIGNAL_CSUM,
				  .fanotify = true };
	json_t *j;
	char *s;

	snprintf(sig.msg_line, sizeof(sig.msg_line), "corrupted xattr block 3585");
	snprintf(sig.msg_func, sizeof(sig.msg_func), "__ext4_xattr_check_block");
	snprintf(sig.err_name, sizeof(sig.err_name), "EBADMSG");
	snprintf(sig.err_source, sizeof(sig.err_source), "fanotify");
	j = fb_signals_json(&sig);
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(s, "{\"conflict\":null,\"errno\":{\"class\":\"csum\","
			    "\"errno\":\"EBADMSG\",\"source\":\"fanotify\"},\"fanotify\":"
			    "\"compared\",\"message\":{\"class\":\"ambiguous\",\"function\":"
			    "\"__ext4_xattr_check_block\",\"line\":\"corrupted xattr block 3585\"}}");
	free(s);
	json_decref(j);
	sig = (struct fb_signals){ 0 };
	j = fb_signals_json(&sig);
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(s, "{\"conflict\":null,\"errno\":{\"class\":\"none\","
			    "\"errno\":null,\"source\":null},\"fanotify\":\"absent\","
			    "\"message\":{\"class\":\"none\",\"function\":\"\",\"line\":\"\"}}");
	free(s);
	json_decref(j);
}

static void test_agrees_next_mount(void **state)
{
	struct fb_fserror none = watched(0), one = watched(1);
	struct fb_outcome out = {
		.detect = FB_DETECT_NONE, .reaction = FB_REACT_NONE, .next_ran = true,
		.detect_next = FB_DETECT_CSUM, .reaction_next = FB_REACT_REMOUNT_RO,
	};
	char why[256];

	assert_int_equal(fb_fserror_agrees(&one, &out, FB_VERDICT_PASS, why, sizeof(why)), 1);
	assert_string_equal(why, "detect csum (next mount), 1 FAN_FS_ERROR event");
	assert_int_equal(fb_fserror_agrees(&none, &out, FB_VERDICT_PASS, why, sizeof(why)), 0);
	out.detect_next = FB_DETECT_NONE;
	out.reaction_next = FB_REACT_NONE;
	assert_int_equal(fb_fserror_agrees(&none, &out, FB_VERDICT_PASS, why, sizeof(why)), 1);
	out.detect_next = FB_DETECT_IO;
	assert_int_equal(fb_fserror_agrees(&none, &out, FB_VERDICT_PASS, why, sizeof(why)), -1);
	assert_string_equal(why, "not compared: detect io, which ext4 may or may not record "
			    "as an error");
}

/* ---- the case record ---- */

static void test_record(void **state)
{
	struct fb_fserror f = watched(1), off = { 0 };
	struct fb_outcome out = { .detect = FB_DETECT_CSUM, .reaction = FB_REACT_REMOUNT_RO };
	json_t *rec = json_object(), *fa, *ev;
	char *s;

	fb_fserror_line(&f, "fserror EUCLEAN - 2");
	fb_fserror_record(rec, &f, &out, FB_VERDICT_PASS);
	fa = json_object_get(rec, "fanotify");
	assert_true(json_is_true(json_object_get(fa, "available")));
	assert_string_equal(json_string_value(json_object_get(fa, "reason")), "");
	ev = json_object_get(fa, "events");
	assert_int_equal(json_array_size(ev), 2);
	s = json_dumps(ev, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(s, "[{\"count\":1,\"errno\":\"EBADMSG\",\"ino\":12},"
			    "{\"count\":2,\"errno\":\"EUCLEAN\",\"ino\":null}]");
	free(s);
	assert_int_equal(json_integer_value(json_object_get(fa, "dropped")), 0);
	assert_int_equal(json_integer_value(json_object_get(fa, "malformed")), 0);
	assert_true(json_is_true(json_object_get(rec, "fanotify_agrees")));

	/* the witness unavailable: recorded as such, never as "no events" */
	fb_fserror_line(&off, "fserror-unavailable fanotify_init ENOSYS");
	fb_fserror_record(rec, &off, &out, FB_VERDICT_PASS);
	fa = json_object_get(rec, "fanotify");
	assert_true(json_is_false(json_object_get(fa, "available")));
	assert_string_equal(json_string_value(json_object_get(fa, "reason")),
			    "fanotify_init ENOSYS");
	assert_true(json_is_null(json_object_get(rec, "fanotify_agrees")));
	json_decref(rec);
}

/* ---- the reports ---- */

static char tmpdir[] = "/tmp/flipbed-fserror-test.XXXXXX";

static void load(struct fb_run *run, const char *lines)
{
	char *path = fb_path(tmpdir, NULL, "cases.jsonl");
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(lines, f);
	fclose(f);
	free(path);
	assert_int_equal(fb_run_load(tmpdir, run), 0);
}

#define REC(name, fserror) \
	"{\"case\": \"" name "\", \"verdict\": \"pass\", \"outcome\": " \
	"{\"detect\": \"csum\", \"reaction\": \"remount-ro\", \"fsck\": " \
	"\"repaired\", \"data\": \"intact\"}" fserror "}\n"

static char *captured(void (*fn)(FILE *, const json_t *), const json_t *rec)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	fn(f, rec);
	fclose(f);
	return s;
}

static void test_reports(void **state)
{
	struct fb_run run;
	char *s = NULL;
	size_t len = 0;
	bool any = false;
	FILE *f;

	assert_non_null(mkdtemp(tmpdir));
	load(&run, REC("a", ", \"fanotify_agrees\": false, \"fanotify\": {\"available\": "
		       "true, \"reason\": \"\", \"events\": [], \"dropped\": 0, \"malformed\": 0, "
		       "\"agreement\": \"detect csum, 0 FAN_FS_ERROR events\"}")
		   REC("b", ", \"fanotify_agrees\": true, \"fanotify\": {\"available\": "
		       "true, \"reason\": \"\", \"events\": [{\"errno\": \"EBADMSG\", \"ino\": 12, "
		       "\"count\": 1}], \"dropped\": 2, \"malformed\": 1, "
		       "\"agreement\": \"detect csum, 3 FAN_FS_ERROR events\"}")
		   REC("c", ", \"fanotify_agrees\": null, \"fanotify\": {\"available\": "
		       "false, \"reason\": \"fanotify_init ENOSYS\", \"events\": [], \"dropped\": 0, "
		       "\"malformed\": 0, \"agreement\": \"not compared: witness unavailable "
		       "(fanotify_init ENOSYS)\"}")
		   REC("d", ""));
	assert_int_equal(run.n, 4);
	assert_string_equal(fb_fserror_flag(run.cases[0].rec), "DISAGREES");
	assert_string_equal(fb_fserror_flag(run.cases[1].rec), "agrees");
	assert_string_equal(fb_fserror_flag(run.cases[2].rec), "not compared");
	assert_null(fb_fserror_flag(run.cases[3].rec));

	s = captured(fb_fserror_show, run.cases[0].rec);
	assert_string_equal(s, "  fanotify  DISAGREES: available; detect csum, 0 FAN_FS_ERROR "
			    "events\n");
	free(s);
	s = captured(fb_fserror_show, run.cases[1].rec);
	assert_string_equal(s, "  fanotify  agrees: available; detect csum, 3 FAN_FS_ERROR "
			    "events\n    EBADMSG ino 12 x1\n"
			    "    2 more events not recorded, 1 malformed lines refused\n");
	free(s);
	s = captured(fb_fserror_show, run.cases[2].rec);
	assert_string_equal(s, "  fanotify  not compared: unavailable (fanotify_init ENOSYS)\n");
	free(s);
	s = captured(fb_fserror_show, run.cases[3].rec);
	assert_string_equal(s, "");
	free(s);
	s = captured(fb_fserror_page, run.cases[0].rec);
	assert_non_null(strstr(s, "<span class=\"k unsafe fail\">DISAGREES</span>"));
	free(s);
	s = captured(fb_fserror_page, run.cases[3].rec);
	assert_string_equal(s, "");
	free(s);

	f = open_memstream(&s, &len);
	for (size_t i = 0; i < run.n; i++)
		fb_fserror_summary(f, run.cases[i].rec, run.cases[i].name, &any);
	fclose(f);
	assert_string_equal(s, "\n## fanotify disagrees with the kernel log\n\n"
			    "- `a`: detect csum, 0 FAN_FS_ERROR events\n");
	free(s);
	fb_run_free(&run);
	fb_remove_tree(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_decode_bad),
		cmocka_unit_test(test_agent_bound),
		cmocka_unit_test(test_host_event),
		cmocka_unit_test(test_host_malformed),
		cmocka_unit_test(test_host_bound),
		cmocka_unit_test(test_agrees),
		cmocka_unit_test(test_agrees_classes),
		cmocka_unit_test(test_signals_json),
		cmocka_unit_test(test_agrees_next_mount),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_reports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

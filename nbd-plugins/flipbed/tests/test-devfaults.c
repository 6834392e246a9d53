// SPDX-License-Identifier: MIT
/* flipbed plugin: the device faults storage delivers, under real nbdkit
 * through libnbd. Torn writes store exactly their first N sectors, are
 * acknowledged, leave writes no longer than the tear whole (uncounted),
 * and tear zeros too; stalls hold a request for their time or until
 * release while other requests (on the same connection and others) and
 * the control socket go on, and nbdkit shuts down promptly with a request
 * held; eio fails reads and writes once (count=1) or sticky, by byte
 * range. Bad torn and stall rules in rules=FILE stop nbdkit with the file,
 * the line and the reason.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "helper.h"

#define SIZE (4 << 20)
#define BLK 4096

static uint8_t buf[BLK * 8], file[BLK * 8];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void expect_pattern(const uint8_t *b, size_t len, uint64_t off,
			   const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		fbt_assert(b[i] == fbt_pattern(off + i),
			   "%s: byte %lu is 0x%02x, expected 0x%02x", what,
			   (unsigned long)(off + i), b[i], fbt_pattern(off + i));
}

static void expect_bytes(const uint8_t *b, size_t len, uint8_t v,
			 uint64_t off, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		fbt_assert(b[i] == v, "%s: byte %lu is 0x%02x, expected 0x%02x",
			   what, (unsigned long)(off + i), b[i], v);
}

/* The fault log's records of one rule. */
static size_t records_of(const char *rule, json_t **first)
{
	json_t *log = fbt_faultlog(), *o;
	size_t i, n = 0;

	*first = NULL;
	json_array_foreach(log, i, o) {
		if (strcmp(json_string_value(json_object_get(o, "rule")),
			   rule) != 0)
			continue;
		if (n++ == 0)
			*first = json_incref(o);
	}
	json_decref(log);
	return n;
}

static uint64_t num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	fbt_assert(json_is_integer(v), "field %s is an integer", key);
	return json_integer_value(v);
}

/* Write len bytes of v at off; the file must hold v for the first keep
 * bytes and the pattern after them.
 */
static void write_and_expect(struct nbd_handle *h, uint64_t off, size_t len,
			     size_t keep, uint8_t v, const char *what)
{
	memset(buf, v, len);
	fbt_pwrite(h, buf, len, off, 0);
	fbt_read_image(file, len, off);
	expect_bytes(file, keep, v, off, what);
	expect_pattern(file + keep, len - keep, off + keep, what);
}

static void test_torn(void **state)
{
	struct nbd_handle *h = *state;
	json_t *o;

	/* A write over the range keeps its first 3 sectors, once. */
	fbt_ctl_ok("add id=t1 on=write at=65536 len=16384 torn=3 count=1");
	write_and_expect(h, 65536, 8192, 3 * 512, 0xa1, "torn=3");
	assert_true(records_of("t1", &o) == 1 &&
		    num(o, "offset") == 65536 + 1536 &&
		    num(o, "len") == 8192 - 1536);
	json_decref(o);
	write_and_expect(h, 65536, 8192, 8192, 0xa2, "after count=1");

	/* Not longer than the tear: stored whole, neither counted nor
	 * logged; a longer one is torn, also when it only touches the
	 * range, and always from its own start.
	 */
	fbt_ctl_ok("add id=t2 on=write at=131072 len=16384 torn=4 count=2");
	write_and_expect(h, 139264, 2048, 2048, 0xb1, "a write of 4 sectors");
	write_and_expect(h, 139264 + 512, 512, 512, 0xb2,
			 "a write of 1 sector");
	/* a write no longer than the tear is no fault */
	assert_int_equal(records_of("t2", &o), 0);
	write_and_expect(h, 143360, 2560, 2048, 0xb3, "a write of 5 sectors");
	write_and_expect(h, 131072 - 8192, 8704, 2048, 0xb4,
			 "a write that ends in the range");
	assert_true(records_of("t2", &o) == 2 &&
		    num(o, "offset") == 143360 + 2048 && num(o, "len") == 512);
	json_decref(o);
	/* count=2 used up by the two torn writes, not by the short ones */
	assert_string_equal(fbt_ctl("list"), "ok\n");

	/* Zeros tear too; trims do not; FUA writes tear and are flushed. */
	fbt_ctl_ok("add id=t3 on=write at=262144 len=65536 torn=1");
	fbt_assert(nbd_zero(h, 4096, 262144, 0) == 0, "zero: %s",
		   nbd_get_error());
	fbt_read_image(file, 4096, 262144);
	expect_bytes(file, 512, 0, 262144, "torn zero");
	expect_pattern(file + 512, 4096 - 512, 262144 + 512, "torn zero");
	fbt_assert(nbd_trim(h, 8192, 262144 + 8192, 0) == 0, "trim: %s",
		   nbd_get_error());
	memset(buf, 0xc1, 8192);
	fbt_pwrite(h, buf, 8192, 262144 + 32768, LIBNBD_CMD_FLAG_FUA);
	fbt_read_image(file, 8192, 262144 + 32768);
	expect_bytes(file, 512, 0xc1, 262144 + 32768, "torn FUA write");
	expect_pattern(file + 512, 8192 - 512, 262144 + 33280, "torn FUA");
	/* zero and write torn, trim not */
	assert_int_equal(records_of("t3", &o), 2);
	json_decref(o);

	/* eio wins over torn: nothing is stored, and the tear is no fault. */
	fbt_ctl_ok("add id=t4 on=write at=393216 len=8192 torn=1");
	fbt_ctl_ok("add id=t4e on=write at=393216 eio count=1");
	memset(buf, 0xd1, 8192);
	assert_true(nbd_pwrite(h, buf, 8192, 393216, 0) == -1 &&
		    nbd_get_errno() == EIO);
	fbt_read_image(file, 8192, 393216);
	expect_pattern(file, 8192, 393216, "eio beside torn stores nothing");
	assert_int_equal(records_of("t4", &o), 0);
	fbt_ctl_ok("clear");
}

static bool flag(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	fbt_assert(json_is_boolean(v), "field %s is a boolean", key);
	return json_is_true(v);
}

/*
 * What a tear did, against the image before the write: whether the
 * stored part changed it and whether the part not stored differed from
 * it (the tear lost a change).
 */
static void test_torn_effect(void **state)
{
	struct nbd_handle *h = *state;
	uint64_t off = 524288;
	size_t i;
	json_t *o;

	/* the image's own bytes in the lost part: nothing lost */
	fbt_ctl_ok("add id=e1 on=write at=524288 len=8192 torn=1 count=1");
	for (i = 0; i < 8192; i++)
		buf[i] = i < 512 ? 0xe1 : fbt_pattern(off + i);
	fbt_pwrite(h, buf, 8192, off, 0);
	/* a tear whose lost part the image held */
	assert_true(records_of("e1", &o) == 1 && flag(o, "stored_changed") &&
		    !flag(o, "lost_changed"));
	json_decref(o);

	/* the image's own bytes in the stored part: the whole write lost */
	off += 8192;
	fbt_ctl_ok("add id=e2 on=write at=532480 len=8192 torn=1 count=1");
	for (i = 0; i < 8192; i++)
		buf[i] = i < 512 ? fbt_pattern(off + i) : 0xe2;
	fbt_pwrite(h, buf, 8192, off, 0);
	fbt_read_image(file, 8192, off);
	expect_pattern(file, 8192, off, "a tear that stored only old bytes");
	/* a tear whose stored part changed nothing */
	assert_true(records_of("e2", &o) == 1 && !flag(o, "stored_changed") &&
		    flag(o, "lost_changed"));
	json_decref(o);

	/* both parts new: a mixed block */
	off += 8192;
	fbt_ctl_ok("add id=e3 on=write at=540672 len=8192 torn=2 count=1");
	memset(buf, 0xe3, 8192);
	fbt_pwrite(h, buf, 8192, off, 0);
	/* a tear through a changed block */
	assert_true(records_of("e3", &o) == 1 && flag(o, "stored_changed") &&
		    flag(o, "lost_changed"));
	json_decref(o);

	/* a torn zero compares zeros */
	off += 8192;
	fbt_ctl_ok("add id=e4 on=write at=548864 len=8192 torn=1 count=1");
	fbt_assert(nbd_zero(h, 8192, off, 0) == 0, "zero: %s", nbd_get_error());
	/* a torn zero over the pattern */
	assert_true(records_of("e4", &o) == 1 && flag(o, "stored_changed") &&
		    flag(o, "lost_changed"));
	json_decref(o);
	fbt_ctl_ok("clear");
}

/* Wait up to ms for an aio command; 1 done, -1 failed (or the server
 * went away), 0 still pending.
 */
static int wait_cmd(struct nbd_handle *h, int64_t cookie, int ms)
{
	double end = now() + ms / 1000.0;
	int r;

	for (;;) {
		r = nbd_aio_command_completed(h, cookie);
		if (r != 0 || now() >= end)
			return r;
		if (nbd_poll(h, 10) < 0)
			return -1;
	}
}

/* stats must show n requests held within two seconds. */
static void expect_held(unsigned long n)
{
	double end = now() + 2;
	unsigned long held = ~0UL;

	while (now() < end) {
		fbt_assert(sscanf(fbt_ctl("stats"), "ok reads=%*u writes=%*u "
				  "faults=%*u held=%lu", &held) == 1,
			   "stats: %s", fbt_ctl("stats"));
		if (held == n)
			return;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	fail_msg("stats says held=%lu, expected %lu", held, n);
}

/* The stall cases' second connection, beside fbt_connect_setup's. */
static struct nbd_handle *h2;

static int connect_two(void **state)
{
	h2 = fbt_connect();
	return fbt_connect_setup(state);
}

static int close_two(void **state)
{
	nbd_close(h2);
	return fbt_connect_teardown(state);
}

static void test_stall_time(void **state)
{
	struct nbd_handle *h = *state;
	static uint8_t slow[BLK], other[BLK];
	double t0, t1;
	int64_t c;
	json_t *o;

	fbt_ctl_ok("add id=s1 on=read at=0 len=4096 stall=1000 count=1");
	t0 = now();
	c = nbd_aio_pread(h, slow, BLK, 0, NBD_NULL_COMPLETION, 0);
	fbt_assert(c > 0, "aio pread: %s", nbd_get_error());
	expect_held(1);
	/* Meanwhile: the same connection and another one are served. */
	fbt_pread(h, other, BLK, 1 << 20);
	fbt_pread(h2, other, BLK, 2 << 20);
	expect_pattern(other, BLK, 2 << 20, "a read beside a stalled one");
	/* the stalled read is still held after the others */
	assert_true(nbd_aio_command_completed(h, c) == 0 && now() - t0 < 1);
	fbt_assert(wait_cmd(h, c, 10000) == 1, "stalled read: %s",
		   nbd_get_error());
	t1 = now();
	fbt_assert(t1 - t0 >= 0.99 && t1 - t0 < 6, "stall=1000 held the read "
		   "%.3f s", t1 - t0);
	expect_pattern(slow, BLK, 0, "the stalled read's data");
	expect_held(0);
	assert_true(records_of("s1", &o) == 1 && num(o, "ms") == 1000 &&
		    num(o, "len") == BLK);
	json_decref(o);
}

static void test_stall_release(void **state)
{
	struct nbd_handle *h = *state;
	static uint8_t w1[BLK], w2[BLK];
	int64_t c1, c2;
	double t0;

	fbt_ctl_ok("add id=s2 on=write at=8192 len=8192 stall");
	memset(w1, 0xe1, BLK);
	memset(w2, 0xe2, BLK);
	t0 = now();
	c1 = nbd_aio_pwrite(h, w1, BLK, 8192, NBD_NULL_COMPLETION, 0);
	c2 = nbd_aio_pwrite(h2, w2, BLK, 12288, NBD_NULL_COMPLETION, 0);
	fbt_assert(c1 > 0 && c2 > 0, "aio pwrite: %s", nbd_get_error());
	expect_held(2);
	/* writes held until release */
	assert_true(wait_cmd(h, c1, 600) == 0 && wait_cmd(h2, c2, 10) == 0);
	fbt_read_image(file, 8192, 8192);
	expect_pattern(file, 8192, 8192, "held writes are not stored yet");
	/* del does not release what the rule holds. */
	fbt_ctl_ok("del s2");
	assert_int_equal(wait_cmd(h, c1, 100), 0);
	fbt_assert(strcmp(fbt_ctl("release"), "ok released=2\n") == 0,
		   "release: %s", fbt_ctl("stats"));
	fbt_assert(wait_cmd(h, c1, 5000) == 1 && wait_cmd(h2, c2, 5000) == 1,
		   "released writes complete: %s", nbd_get_error());
	assert_true(now() - t0 > 0.6);
	fbt_read_image(file, 8192, 8192);
	expect_bytes(file, BLK, 0xe1, 8192, "released write");
	expect_bytes(file + BLK, BLK, 0xe2, 12288, "released write");
	/* nothing left to release */
	assert_string_equal(fbt_ctl("release"), "ok released=0\n");

	/* stall=MS ends early on release. */
	fbt_ctl_ok("add id=s3 on=write at=8192 stall=600000 count=1");
	t0 = now();
	c1 = nbd_aio_pwrite(h, w2, BLK, 8192, NBD_NULL_COMPLETION, 0);
	expect_held(1);
	assert_string_equal(fbt_ctl("release"), "ok released=1\n");
	/* a 10-minute stall released early */
	assert_true(wait_cmd(h, c1, 5000) == 1 && now() - t0 < 5);
	fbt_ctl_ok("clear");
}

/* A held request ends when its client leaves, and when nbdkit shuts
 * down: it fails at once (ESHUTDOWN), and nbdkit exits as soon as the
 * client disconnects (nbdkit waits for its connected clients).
 */
static void test_stall_shutdown(void **state)
{
	struct nbd_handle *h = fbt_connect();
	static uint8_t b[BLK];
	FILE *fp;
	double t0;
	int64_t c;
	int pid;

	fbt_ctl_ok("add on=read at=0 stall");
	c = nbd_aio_pread(h, b, BLK, 0, NBD_NULL_COMPLETION, 0);
	fbt_assert(c > 0, "aio pread: %s", nbd_get_error());
	expect_held(1);
	nbd_close(h);
	expect_held(0);

	h = fbt_connect();
	c = nbd_aio_pread(h, b, BLK, 0, NBD_NULL_COMPLETION, 0);
	fbt_assert(c > 0, "aio pread: %s", nbd_get_error());
	expect_held(1);
	fp = fopen(fbt_path("nbd.pid"), "r");
	assert_true(fp && fscanf(fp, "%d", &pid) == 1);
	fclose(fp);
	t0 = now();
	fbt_assert(kill(pid, SIGTERM) == 0, "kill: %m");
	/* the held read failed at shutdown */
	assert_true(wait_cmd(h, c, 3000) == -1 && now() - t0 < 3);
	fbt_assert(nbd_get_errno() == ESHUTDOWN, "ESHUTDOWN: %s",
		   nbd_get_error());
	nbd_close(h);
#ifdef FB_LIBASAN
	/* With libasan preloaded, nbdkit can deadlock in exit() after an
	 * error formatted with %m (see helper.c), as nbdkit_nanosleep's is:
	 * the plain build checks the exit, the cleanup kills this one.
	 */
	return;
#endif
	fbt_stop();
	fbt_assert(now() - t0 < 3, "nbdkit took %.1f s to stop with a request "
		   "held", now() - t0);
}

/* eio on reads and writes, once and sticky, only inside its range. */
static void test_eio(void **state)
{
	struct nbd_handle *h = *state;
	json_t *o;
	int i;

	fbt_ctl_ok("add id=ro on=read at=1048576 len=4096 eio count=1");
	/* read ending where the range starts */
	assert_int_equal(nbd_pread(h, buf, BLK, 1048576 - BLK, 0), 0);
	/* read once: the range's last byte */
	assert_true(nbd_pread(h, buf, 1, 1048576 + 4095, 0) == -1 &&
		    nbd_get_errno() == EIO);
	fbt_pread(h, buf, BLK, 1048576);
	expect_pattern(buf, BLK, 1048576, "read once: then good data");
	assert_int_equal(records_of("ro", &o), 1);
	json_decref(o);

	fbt_ctl_ok("add id=rs on=read at=1114112 len=4096 eio");
	for (i = 0; i < 3; i++)
		fbt_assert(nbd_pread(h, buf, 2 * BLK, 1114112 - BLK, 0) == -1 &&
			   nbd_get_errno() == EIO, "read sticky %d", i);
	fbt_pread(h, buf, BLK, 1114112 + BLK);
	fbt_ctl_ok("del rs");
	fbt_pread(h, buf, BLK, 1114112);
	expect_pattern(buf, BLK, 1114112, "read after del");

	fbt_ctl_ok("add id=wo on=write at=1179648 len=4096 eio count=1");
	memset(buf, 0xf1, BLK);
	assert_true(nbd_pwrite(h, buf, BLK, 1179648, 0) == -1 &&
		    nbd_get_errno() == EIO);
	fbt_read_image(file, BLK, 1179648);
	expect_pattern(file, BLK, 1179648, "a failed write stores nothing");
	write_and_expect(h, 1179648, BLK, BLK, 0xf2, "write once: then stored");
	assert_int_equal(records_of("wo", &o), 1);
	json_decref(o);

	fbt_ctl_ok("add id=ws on=write at=1245184 len=4096 eio");
	memset(buf, 0xf3, 2 * BLK);
	for (i = 0; i < 3; i++)
		fbt_assert(nbd_pwrite(h, buf, 2 * BLK, 1245184 + 2048,
				      0) == -1 && nbd_get_errno() == EIO,
			   "write sticky %d", i);
	assert_true(nbd_zero(h, BLK, 1245184, 0) == -1 &&
		    nbd_get_errno() == EIO);
	fbt_read_image(file, 3 * BLK, 1245184);
	expect_pattern(file, 3 * BLK, 1245184, "sticky failed writes");
	write_and_expect(h, 1245184 + BLK, BLK, BLK, 0xf4, "write past it");
	assert_int_equal(records_of("ws", &o), 4);
	json_decref(o);
	fbt_ctl_ok("clear");
	write_and_expect(h, 1245184, BLK, BLK, 0xf5, "write after clear");
}

static void expect_start_error(const char *rules, const char *want,
			       bool control)
{
	char img[300], rf[300], ctl[300], line[600], *err;
	FILE *fp = fopen(fbt_path("dev.rules"), "w");

	fprintf(fp, "# device faults\n%s\n", rules);
	fclose(fp);
	snprintf(img, sizeof img, "file=%s", fbt_path("image"));
	snprintf(rf, sizeof rf, "rules=%s", fbt_path("dev.rules"));
	snprintf(ctl, sizeof ctl, "control=%s", fbt_path("other.sock"));
	err = fbt_start_fails(img, rf, control ? ctl : NULL, NULL);
	snprintf(line, sizeof line, "rules=%s:2: %s", fbt_path("dev.rules"),
		 want);
	fbt_assert(strstr(err, line) != NULL, "wanted '%s' in: %s", line, err);
	free(err);
}

static void test_bad_rules(void **state)
{
	expect_start_error("on=read at=0 stall", "a bare stall holds requests "
			   "until release, which needs control=SOCKET", false);
	expect_start_error("on=write at=0 len=4096 torn=8", "torn=8 keeps "
			   "4096 bytes, not fewer than len=4096", true);
	expect_start_error("on=write at=0 torn=0", "torn=0: expected", true);
	expect_start_error("on=write at=0 torn=x", "torn=x: expected", true);
	expect_start_error("on=read at=0 stall=700000", "stall=700000: "
			   "expected milliseconds, 1 to 600000", true);
}

FBT_SERVE_SETUP(SIZE)

FBT_MAIN(setup,
	fbt_connected_test(test_torn),
	fbt_connected_test(test_torn_effect),
	fbt_connected_test(test_eio),
	cmocka_unit_test_setup_teardown(test_stall_time, connect_two,
					close_two),
	cmocka_unit_test_setup_teardown(test_stall_release, connect_two,
					close_two),
	cmocka_unit_test(test_stall_shutdown),
	cmocka_unit_test(test_bad_rules))

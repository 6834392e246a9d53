// SPDX-License-Identifier: MIT
/* flipbed plugin: every on= x action under real nbdkit, count=, after=,
 * partial overlap, rest durability across a restart, read transience,
 * rules on zero and trim requests, and the fault log's contents.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "helper.h"

#define SIZE (4 << 20)
#define BLK 4096

static uint8_t buf[BLK * 4], want[BLK * 4], file[BLK * 4];

static void expect_pattern(const uint8_t *b, size_t len, uint64_t off,
			   const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		fbt_assert(b[i] == fbt_pattern(off + i),
			   "%s: byte %lu is 0x%02x, expected 0x%02x", what,
			   (unsigned long)(off + i), b[i], fbt_pattern(off + i));
}

static void pattern(uint8_t *b, size_t len, uint64_t off)
{
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = fbt_pattern(off + i);
}

/* Read flips: partial overlap (request covers only part of the rule),
 * count=1 transience, the file never changes.
 */
static void test_read_flip(void **state)
{
	struct nbd_handle *h = *state;

	fbt_ctl_ok("add id=rf on=read at=8190 len=4 flip=0,17,31 count=1");
	fbt_pread(h, buf, BLK, 8192);	/* sees bytes 8192..8193 of the rule */
	pattern(want, BLK, 8192);
	want[0] ^= 0x02;		/* bit 17 = byte 2 bit 1 */
	want[1] ^= 0x80;		/* bit 31 = byte 3 bit 7 */
	assert_memory_equal(buf, want, BLK);
	fbt_pread(h, buf, BLK, 8192);
	expect_pattern(buf, BLK, 8192, "second read after count=1");
	fbt_read_image(file, BLK, 8192);
	expect_pattern(file, BLK, 8192, "file after a read fault");
}

static void test_read_actions(void **state)
{
	struct nbd_handle *h = *state;
	uint8_t first[16];
	size_t i;

	fbt_ctl_ok("add id=rz on=read at=100 len=3 zero");
	fbt_ctl_ok("add id=ro on=read at=200 len=3 ones");
	fbt_ctl_ok("add id=rr on=read at=300 len=16 random seed=42");
	fbt_ctl_ok("add id=rfr on=read at=400 len=8 flip-random=5 seed=7");
	fbt_pread(h, buf, 512, 0);
	for (i = 0; i < 3; i++)
		assert_true(buf[100 + i] == 0 && buf[200 + i] == 0xff);
	/* zero/ones stay in range */
	assert_true(buf[103] == fbt_pattern(103) &&
		    buf[99] == fbt_pattern(99) && buf[203] == fbt_pattern(203));
	memcpy(first, buf + 300, 16);
	/* The same bytes when the range is read in two pieces. */
	fbt_pread(h, buf, 7, 300);
	fbt_pread(h, buf + 7, 9, 307);
	/* random is a function of offset */
	assert_memory_equal(first, buf, 16);
	fbt_pread(h, buf, 8, 400);
	{
		int bits = 0;

		for (i = 0; i < 8; i++)
			bits += __builtin_popcount(buf[i] ^ fbt_pattern(400 + i));
		fbt_assert(bits == 5, "flip-random=5 flipped %d bits", bits);
	}
	fbt_ctl_ok("add id=re on=read at=1000 eio count=1");
	assert_true(nbd_pread(h, buf, 512, 512, 0) == -1 &&
		    nbd_get_errno() == EIO);
	fbt_pread(h, buf, 512, 512);
	fbt_ctl_ok("clear");
	fbt_read_image(file, 512, 0);
	expect_pattern(file, 512, 0, "file after read faults");
}

/* after=2 count=2: requests 3 and 4 are hit, 1, 2 and 5 are clean. */
static void test_after_count(void **state)
{
	struct nbd_handle *h = *state;
	int i;

	fbt_ctl_ok("add id=ac on=read at=5000 ones after=2 count=2");
	for (i = 1; i <= 5; i++) {
		fbt_pread(h, buf, 1, 5000);
		fbt_assert((buf[0] == 0xff) == (i == 3 || i == 4),
			   "request %d got 0x%02x", i, buf[0]);
	}
	/* used-up rule disarmed */
	assert_string_equal(fbt_ctl("list"), "ok\n");
}

static void test_write_actions(void **state)
{
	struct nbd_handle *h = *state;

	memset(buf, 0x11, BLK);
	fbt_ctl_ok("add id=wf on=write at=65536 len=2 flip=0,15");
	fbt_pwrite(h, buf, BLK, 65536 - 100, 0);
	fbt_read_image(file, BLK, 65536 - 100);
	assert_true(file[99] == 0x11 && file[100] == 0x10 &&
		    file[101] == 0x91 && file[102] == 0x11);
	assert_int_equal(buf[100], 0x11); /* client buffer untouched */

	fbt_ctl_ok("add id=wd on=write at=81920 len=512 drop count=1");
	fbt_pwrite(h, buf, BLK, 81920 - 512, 0);
	fbt_read_image(file, BLK, 81920 - 512);
	assert_true(file[511] == 0x11 && file[1024] == 0x11);
	expect_pattern(file + 512, 512, 81920, "dropped range");

	fbt_ctl_ok("add id=wm on=write at=98304 len=4096 misdirect=-8192");
	memset(buf, 0x22, BLK);
	fbt_pwrite(h, buf, BLK, 98304, 0);
	fbt_read_image(file, BLK, 98304);
	expect_pattern(file, BLK, 98304, "misdirected write's target");
	fbt_read_image(file, BLK, 98304 - 8192);
	assert_true(file[0] == 0x22 && file[BLK - 1] == 0x22);

	fbt_ctl_ok("add id=we on=write at=114688 eio");
	assert_true(nbd_pwrite(h, buf, BLK, 114688, 0) == -1 &&
		    nbd_get_errno() == EIO);
	fbt_read_image(file, BLK, 114688);
	expect_pattern(file, BLK, 114688, "failed write stored nothing");

	fbt_ctl_ok("add id=wz on=write at=131072 len=2 zero");
	fbt_ctl_ok("add id=wo on=write at=131074 len=2 ones");
	fbt_ctl_ok("add id=wr on=write at=131076 len=2 random seed=1");
	fbt_ctl_ok("add id=wfr on=write at=131078 len=2 flip-random=3 seed=9");
	fbt_pwrite(h, buf, 16, 131072, 0);
	fbt_read_image(file, 16, 131072);
	assert_true(file[0] == 0 && file[1] == 0 && file[2] == 0xff &&
		    file[3] == 0xff && file[8] == 0x22);
	assert_int_equal(__builtin_popcount(file[6] ^ 0x22) +
			 __builtin_popcount(file[7] ^ 0x22), 3);
	fbt_ctl_ok("clear");
}

/* zero and trim requests through write rules. */
static void test_zero_trim(void **state)
{
	struct nbd_handle *h = *state;

	fbt_ctl_ok("add id=zo on=write at=200000 len=4 ones");
	fbt_assert(nbd_zero(h, BLK, 200000 - 100, 0) == 0, "zero: %s",
		   nbd_get_error());
	fbt_read_image(file, BLK, 200000 - 100);
	/* ones inside a zeroed range */
	assert_true(file[99] == 0 && file[100] == 0xff && file[103] == 0xff &&
		    file[104] == 0);
	fbt_ctl_ok("add id=td on=write at=300000 len=100 drop");
	fbt_assert(nbd_trim(h, BLK, 300000 - 50, 0) == 0, "trim: %s",
		   nbd_get_error());
	fbt_read_image(file, 100, 300000);
	expect_pattern(file, 100, 300000, "trim dropped over the rule");
	fbt_ctl_ok("add id=ze on=write at=400000 eio");
	assert_true(nbd_zero(h, BLK, 400000, 0) == -1 &&
		    nbd_get_errno() == EIO);
	assert_true(nbd_trim(h, BLK, 400000, 0) == -1 &&
		    nbd_get_errno() == EIO);
	fbt_ctl_ok("clear");
}

/* rest: the file changes once, durably, and the change survives a restart. */
static void test_rest(void **state)
{
	struct nbd_handle *h;

	fbt_ctl_ok("add id=sf on=rest at=500000 len=2 flip=3,8");
	fbt_ctl_ok("add id=sz on=rest at=500010 len=2 zero");
	fbt_ctl_ok("add id=so on=rest at=500020 len=2 ones");
	fbt_ctl_ok("add id=sr on=rest at=500030 len=8 random seed=3");
	fbt_ctl_ok("add id=sfr on=rest at=500040 len=8 flip-random=2 seed=3");
	/* rest rules are not kept */
	assert_string_equal(fbt_ctl("list"), "ok\n");
	fbt_read_image(file, 48, 500000);
	/* rest changed the file */
	assert_true(file[0] == (fbt_pattern(500000) ^ 8) &&
		    file[1] == (fbt_pattern(500001) ^ 1) && file[10] == 0 &&
		    file[21] == 0xff);
	memcpy(want, file, 48);
	fbt_restart();
	h = fbt_connect();
	fbt_pread(h, buf, 48, 500000);
	assert_memory_equal(buf, want, 48); /* rest change survives a restart */
	nbd_close(h);
}

static json_t *find_record(json_t *log, const char *rule)
{
	size_t i;
	json_t *o;

	json_array_foreach(log, i, o) {
		if (strcmp(json_string_value(json_object_get(o, "rule")), rule) == 0)
			return o;
	}
	fail_msg("no fault log record for rule %s", rule);
	return NULL;
}

static uint64_t num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	fbt_assert(json_is_integer(v), "field %s is an integer", key);
	return json_integer_value(v);
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	fbt_assert(json_is_string(v), "field %s is a string", key);
	return json_string_value(v);
}

static void test_faultlog(void **state)
{
	json_t *log = fbt_faultlog(), *o, *c, *ch;
	size_t i;
	uint64_t last_ns = 0;

	json_array_foreach(log, i, o) {
		fbt_assert(num(o, "seq") == i + 1, "seq %zu", i + 1);
		assert_true(num(o, "ns") >= last_ns);
		last_ns = num(o, "ns");
	}
	o = find_record(log, "rf");
	assert_true(strcmp(str(o, "op"), "read") == 0 &&
		    strcmp(str(o, "action"), "flip") == 0 &&
		    num(o, "offset") == 8192 && num(o, "len") == 2 &&
		    num(o, "changed") == 2);
	ch = json_object_get(o, "changes");
	assert_int_equal(json_array_size(ch), 2);
	c = json_array_get(ch, 1);
	assert_true(num(c, "offset") == 8193 &&
		    num(c, "old") == fbt_pattern(8193) &&
		    num(c, "new") == (fbt_pattern(8193) ^ 0x80));
	o = find_record(log, "wm");
	assert_true(strcmp(str(o, "op"), "write") == 0 &&
		    num(o, "to") == 98304 - 8192);
	o = find_record(log, "sf");
	assert_true(strcmp(str(o, "op"), "rest") == 0 &&
		    num(o, "offset") == 500000);
	o = find_record(log, "td");
	assert_true(strcmp(str(o, "op"), "trim") == 0 &&
		    num(o, "offset") == 300000 && num(o, "len") == 100);
	o = find_record(log, "re");
	assert_string_equal(str(o, "action"), "eio");
	json_decref(log);
}

FBT_SERVE_SETUP(SIZE)

FBT_MAIN(setup,
	fbt_connected_test(test_read_flip),
	fbt_connected_test(test_read_actions),
	fbt_connected_test(test_after_count),
	fbt_connected_test(test_write_actions),
	fbt_connected_test(test_zero_trim),
	cmocka_unit_test(test_rest),
	cmocka_unit_test(test_faultlog),
	cmocka_unit_test(fbt_stop_case))

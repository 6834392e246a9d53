// SPDX-License-Identifier: MIT
/* flipbed: unit tests of the pure code (rule.c, mutate.c, command.c,
 * wlog.c): parsing (watch, torn and stall rules too), canonical
 * formatting round trips, each data action on windows that cut the
 * rule's range anywhere, XXH64 against reference values, and the write
 * log's headers: encoded, decoded, and refused when damaged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "command.h"
#include "mutate.h"
#include "rule.h"
#include "wlog.h"

static void round_trip(const char *line, const char *canonical)
{
	struct fb_rule r, r2;
	char err[512], out[512];

	if (fb_rule_parse(line, &r, err, sizeof err) < 0)
		fail_msg("'%s' refused: %s", line, err);
	fb_rule_format(&r, out, sizeof out);
	if (strcmp(out, canonical) != 0)
		fail_msg("'%s' formats as '%s'", line, out);
	if (!(fb_rule_parse(out, &r2, err, sizeof err) == 0 &&
	      fb_rule_equal(&r, &r2)))
		fail_msg("'%s' reparses equal", out);
	fb_rule_free(&r);
	fb_rule_free(&r2);
}

static void refused(const char *line, const char *part)
{
	struct fb_rule r;
	char err[512];

	if (!(fb_rule_parse(line, &r, err, sizeof err) < 0 && strstr(err, part)))
		fail_msg("'%s' should be refused with '%s', got '%s'", line,
			 part, err);
}

/* Applying a rule to a buffer in pieces equals applying it at once. */
static void split_equals_whole(const char *line)
{
	uint8_t whole[256], piece[256];
	struct fb_rule r;
	char err[512];
	size_t cut;

	if (fb_rule_parse(line, &r, err, sizeof err) != 0)
		fail_msg("%s", err);
	for (cut = 0; cut < sizeof whole; cut += 7) {
		memset(whole, 0x5a, sizeof whole);
		memset(piece, 0x5a, sizeof piece);
		fb_mutate(&r, 1000, whole, sizeof whole, NULL);
		fb_mutate(&r, 1000, piece, cut, NULL);
		fb_mutate(&r, 1000 + cut, piece + cut, sizeof piece - cut, NULL);
		if (memcmp(whole, piece, sizeof whole) != 0)
			fail_msg("'%s' cut at %zu", line, cut);
	}
	fb_rule_free(&r);
}

static void test_mutate(void **state)
{
	static struct fb_changes ch;
	uint8_t b[16] = { 0 };
	struct fb_rule r;
	char err[512];
	int bits = 0, i;

	fb_rule_parse("on=read at=0x104 len=4 flip=0,9,31", &r, err, sizeof err);
	fb_mutate(&r, 0x100, b, sizeof b, &ch);
	assert_true(b[4] == 1 && b[5] == 2 && b[7] == 0x80 && b[3] == 0 &&
		    b[8] == 0);
	assert_true(ch.changed == 3 && ch.v[1].offset == 0x105 &&
		    ch.v[1].old == 0 && ch.v[1].new == 2);
	fb_rule_free(&r);

	memset(b, 0, sizeof b);
	fb_rule_parse("on=rest at=0 len=16 flip-random=20 seed=99", &r, err,
		      sizeof err);
	fb_mutate(&r, 0, b, sizeof b, NULL);
	for (i = 0; i < 16; i++)
		bits += __builtin_popcount(b[i]);
	if (bits != 20)
		fail_msg("flip-random=20 set %d distinct bits", bits);
	fb_rule_free(&r);

	fb_rule_parse("on=rest at=0 len=8 flip-random=64 seed=1", &r, err,
		      sizeof err);
	assert_int_equal(r.nbits, 64);	/* flip-random may pick every bit */
	fb_rule_free(&r);

	split_equals_whole("on=read at=1010 len=100 random seed=5");
	split_equals_whole("on=read at=1003 len=200 flip-random=300 seed=5");
	split_equals_whole("on=read at=1100 len=300 ones");
	split_equals_whole("on=read at=900 len=150 zero");
	split_equals_whole("on=read at=1000 len=9 flip=0,8,9,71");
	assert_int_equal(fb_splitmix64(0, 0), 0xe220a8397b1dcdafULL);
}

static void test_commands(void **state)
{
	struct fb_cmd c;
	char err[512];

	assert_true(fb_cmd_parse("add on=read at=0 zero", &c, err,
				 sizeof err) == 0 &&
		    c.kind == FB_CMD_ADD && c.rule.action == FB_ZERO);
	fb_cmd_free(&c);
	assert_true(fb_cmd_parse("del r7", &c, err, sizeof err) == 0 &&
		    strcmp(c.id, "r7") == 0);
	assert_true(fb_cmd_parse("del", &c, err, sizeof err) < 0);
	assert_true(fb_cmd_parse("del a b", &c, err, sizeof err) < 0);
	assert_true(fb_cmd_parse("clear\r", &c, err, sizeof err) == 0 &&
		    c.kind == FB_CMD_CLEAR);
	assert_true(fb_cmd_parse("stats x", &c, err, sizeof err) < 0);
	/* commands are lower case */
	assert_true(fb_cmd_parse("LIST", &c, err, sizeof err) < 0);
	assert_true(fb_cmd_parse("release", &c, err, sizeof err) == 0 &&
		    c.kind == FB_CMD_RELEASE);
	/* release takes no id */
	assert_true(fb_cmd_parse("release r1", &c, err, sizeof err) < 0);
}

/* Reference values of libxxhash's XXH64 (seed 0). */
static void test_xxh64(void **state)
{
	uint8_t b[768];
	struct fb_xxh64 s;
	size_t i;

	for (i = 0; i < sizeof b; i++)
		b[i] = (uint8_t)i;
	assert_int_equal(fb_xxh64("", 0, 0), 0xef46db3751d8e999ULL);
	assert_int_equal(fb_xxh64("a", 1, 0), 0xd24ec4f1a98c6e5bULL);
	assert_int_equal(fb_xxh64("abc", 3, 0), 0x44bc2cf5ad770999ULL);
	/* 0..255 three times */
	assert_int_equal(fb_xxh64(b, sizeof b, 0), 0x8e03c838c596036fULL);
	/* Streamed in pieces that straddle the 32-byte stripes. */
	fb_xxh64_init(&s, 0);
	for (i = 0; i < sizeof b; i += 7)
		fb_xxh64_update(&s, b + i, sizeof b - i < 7 ? sizeof b - i : 7);
	assert_int_equal(fb_xxh64_digest(&s), 0x8e03c838c596036fULL);
}

static void test_wlog(void **state)
{
	struct fb_wlog_header h = { FB_WLOG_VERSION, 1 << 20, 0x1234 }, h2;
	struct fb_wlog_record r = { FB_WLOG_RECORD_SIZE + 512, FB_WLOG_WRITE,
				    FB_WLOG_FUA, 7, 99, 4096, 512 }, r2;
	uint8_t hb[FB_WLOG_HEADER_SIZE], rb[FB_WLOG_RECORD_SIZE];
	char err[256];

	fb_wlog_header_encode(hb, &h);
	assert_memory_equal(hb, "FLIPBEDW", 8);
	if (!(fb_wlog_header_decode(hb, &h2, err, sizeof err) == 0 &&
	      h2.image_size == h.image_size && h2.image_hash == 0x1234))
		fail_msg("header round trip: %s", err);
	hb[20] ^= 1;
	if (!(fb_wlog_header_decode(hb, &h2, err, sizeof err) < 0 &&
	      strstr(err, "damaged")))
		fail_msg("damaged header: %s", err);
	hb[8] = 2;
	if (!(fb_wlog_header_decode(hb, &h2, err, sizeof err) < 0 &&
	      strstr(err, "version 2")))
		fail_msg("version 2: %s", err);

	fb_wlog_record_encode(rb, &r);
	if (!(fb_wlog_record_decode(rb, 1 << 20, &r2, err, sizeof err) == 0 &&
	      memcmp(&r, &r2, sizeof r) == 0))
		fail_msg("record round trip: %s", err);
	if (!(fb_wlog_record_decode(rb, 4096 + 511, &r2, err,
				    sizeof err) < 0 &&
	      strstr(err, "outside the image")))
		fail_msg("outside: %s", err);
	rb[0] ^= 1;
	if (!(fb_wlog_record_decode(rb, 1 << 20, &r2, err, sizeof err) < 0 &&
	      strstr(err, "damaged")))
		fail_msg("damaged record: %s", err);
	r.size = FB_WLOG_RECORD_SIZE;
	fb_wlog_record_encode(rb, &r);
	if (!(fb_wlog_record_decode(rb, 1 << 20, &r2, err, sizeof err) < 0 &&
	      strstr(err, "record size 48")))
		fail_msg("size: %s", err);
	r = (struct fb_wlog_record){ FB_WLOG_RECORD_SIZE, FB_WLOG_ZERO, 0, 1,
				     0, 0, (uint64_t)UINT32_MAX + 1 };
	fb_wlog_record_encode(rb, &r);
	if (!(fb_wlog_record_decode(rb, UINT64_MAX, &r2, err,
				    sizeof err) < 0 &&
	      strstr(err, "at most")))
		fail_msg("bounded zero: %s", err);
	r = (struct fb_wlog_record){ .size = FB_WLOG_RECORD_SIZE,
				     .type = FB_WLOG_FLUSH, .flags = 16 };
	fb_wlog_record_encode(rb, &r);
	if (!(fb_wlog_record_decode(rb, 1 << 20, &r2, err, sizeof err) < 0 &&
	      strstr(err, "unknown record flags 0x10")))
		fail_msg("flags: %s", err);
	r.flags = 0;
	r.type = 9;
	fb_wlog_record_encode(rb, &r);
	if (!(fb_wlog_record_decode(rb, 1 << 20, &r2, err, sizeof err) < 0 &&
	      strstr(err, "unknown record type 9")))
		fail_msg("type: %s", err);
}

static void test_round_trips(void **state)
{
	round_trip("on=read at=0x10 flip=3", "on=read at=16 len=1 flip=3");
	round_trip("  seed=3 len=0x20 random on=rest at=7 id=x.y:z-1_ ",
		   "id=x.y:z-1_ on=rest at=7 len=32 random seed=3");
	round_trip("on=write at=4096 len=512 misdirect=-0x1000 count=2 after=5",
		   "on=write at=4096 len=512 misdirect=-4096 count=2 after=5");
	round_trip("on=write at=1 eio", "on=write at=1 len=1 eio");
	round_trip("on=write at=1 drop count=1", "on=write at=1 len=1 drop count=1");
	round_trip("on=read at=0 len=2 flip=15,0", "on=read at=0 len=2 flip=0,15");
	round_trip("on=read at=0 len=2 flip-random=3 seed=0",
		   "on=read at=0 len=2 flip-random=3 seed=0");
	round_trip("on=read at=9223372036854775806 zero",
		   "on=read at=9223372036854775806 len=1 zero");
	round_trip("watch at=0x10 len=4 id=sb", "id=sb watch at=16 len=4");
	round_trip("at=5 watch", "watch at=5 len=1");
}

static void test_refused(void **state)
{
	refused("on=read at=9223372036854775807 zero", "past 2^63");
	refused("watch at=9223372036854775807", "past 2^63");
	refused("watch at=0 len=0", "len=0");
	refused("watch len=4", "at=OFFSET is required");
	refused("on=rest watch at=0", "watch takes at=, len= and id= only");
	refused("watch at=0 after=1", "watch takes at=, len= and id= only");
	refused("watch at=0 zero", "exactly one action");
	refused("watch=1 at=0", "watch takes no value");
	refused("on=read at=0 len=1 flip-random=9 seed=1", "at most len*8");
	refused("on=read at=0 flip-random=0 seed=1", "flip-random=0");
	refused("on=read at=0 flip=", "not a number");
	refused("on=read at=0 flip=1,,2", "not a number");
	refused("on=read at=0x zero", "expected an unsigned number");
	refused("on=read at=0 zero=1", "takes no value");
	refused("on=read on=write at=0 zero", "on= given twice");
	refused("on=read at=0 zero\non=write", "one line");
	refused("on=write at=0 misdirect=9223372036854775808", "non-zero signed");
}

static void test_torn_stall(void **state)
{
	round_trip("on=write at=0x1000 torn=1", "on=write at=4096 torn=1");
	round_trip("on=write at=0 len=1025 torn=2 count=1",
		   "on=write at=0 len=1025 torn=2 count=1");
	round_trip("on=read at=0 len=512 stall", "on=read at=0 len=512 stall");
	round_trip("stall=600000 on=write at=9",
		   "on=write at=9 len=1 stall=600000");
	refused("on=write at=0 len=1024 torn=2", "torn=2 keeps 1024 bytes");
	refused("on=write at=0 len=1 torn=1", "not fewer than len=1");
	refused("on=write at=0 torn=0", "torn=0");
	refused("on=write at=0 torn=0x", "torn=0x");
	refused("on=write at=0 torn=8388608", "1 to 8388607");
	refused("on=write at=0 torn", "torn needs =N");
	refused("on=read at=0 torn=1", "torn needs on=write");
	refused("on=read at=0 stall=0", "stall=0");
	refused("on=read at=0 stall=600001", "1 to 600000");
	refused("on=read at=0 stall=", "stall=: expected");
	refused("on=rest at=0 stall=5", "stall needs on=read or on=write");
}

/* misdirect= moves a write within the disk only. */
static void test_misdirect_size(void **state)
{
	struct fb_rule r;
	char err[512];

	/* misdirect to 0 fits */
	assert_int_equal(fb_rule_parse("on=write at=100 len=10 misdirect=-100",
				       &r, err, sizeof err), 0);
	assert_int_equal(fb_rule_check_size(&r, 1000, err, sizeof err), 0);
	r.delta = -101;
	/* misdirect below 0 */
	assert_true(fb_rule_check_size(&r, 1000, err, sizeof err) < 0);
	r.delta = 891;
	/* misdirect past the end */
	assert_true(fb_rule_check_size(&r, 1000, err, sizeof err) < 0);
	fb_rule_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_torn_stall),
		cmocka_unit_test(test_misdirect_size),
		cmocka_unit_test(test_mutate),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_xxh64),
		cmocka_unit_test(test_wlog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

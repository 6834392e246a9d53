// SPDX-License-Identifier: MIT
/*
 * Unit tests of the read-ahead witness: the agent's "watch" argument and
 * its reading of block_bio_queue trace lines (guest/bioread.c, its
 * channel replaced by a stand-in), the host's parsing of the agent's
 * bioread lines (bounded, every malformed form refused and counted), the
 * step a fault fired in and the case record's "bio_reads"
 * (harness/witness/bioread.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "guest/agent.h"
#include "witness/bioread.h"

/* ---- the agent's surroundings, replaced ---- */

void chan_send(const char *fmt, ...)
{
	(void)fmt;
}

const char *agent_disk(void)
{
	return "/dev/vda";
}

/* ---- the agent ---- */

static void test_agent_watch(void **state)
{
	unsigned long long off, len;

	(void)state;
	assert_int_equal(bioread_parse("102400 4096", &off, &len), 0);
	assert_int_equal(off, 102400);
	assert_int_equal(len, 4096);
	assert_int_equal(bioread_parse("0 1", &off, &len), 0);
	/* refused: no length, a zero length, signs, junk, huge values */
	assert_int_equal(bioread_parse("102400", &off, &len), -1);
	assert_int_equal(bioread_parse("102400 0", &off, &len), -1);
	assert_int_equal(bioread_parse("-1 4096", &off, &len), -1);
	assert_int_equal(bioread_parse("1 +4", &off, &len), -1);
	assert_int_equal(bioread_parse("1 4 x", &off, &len), -1);
	assert_int_equal(bioread_parse("1  4", &off, &len), -1);
	assert_int_equal(bioread_parse("", &off, &len), -1);
	assert_int_equal(bioread_parse("99999999999999999999999 1", &off, &len), -1);
	assert_int_equal(bioread_parse("1 2147483648", &off, &len), -1);
}

static void test_agent_match(void **state)
{
	char out[64];

	(void)state;
	/* case-01879's read, as 6.1's trace prints it */
	assert_int_equal(bioread_match("             init-1       [000] .....     0.984050: "
				       "block_bio_queue: 254,0 RA 128 + 128 [init]",
				       254, 0, 200, 208, out, sizeof(out)), 1);
	assert_string_equal(out, "RA 128 128");
	assert_int_equal(bioread_match(" kworker/0:1-20 [000] ..... 1.0: block_bio_queue: "
				       "254,16 RM 200 + 8 [kworker/0:1]", 254, 16, 200, 208, out,
				       sizeof(out)), 1);
	assert_string_equal(out, "RM 200 8");
	/* another disk, a write, a bio beside the target, another event */
	assert_int_equal(bioread_match("init-1 [000] ..... 1.0: block_bio_queue: 254,16 RA 128 + 128 [init]",
				       254, 0, 200, 208, out, sizeof(out)), 0);
	assert_int_equal(bioread_match("jbd2-24 [000] ..... 1.1: block_bio_queue: 254,0 WSM 200 + 8 [jbd2/vda-8]",
				       254, 0, 200, 208, out, sizeof(out)), 0);
	assert_int_equal(bioread_match("jbd2-24 [000] ..... 1.1: block_bio_queue: 254,0 FWFSM 200 + 8 [x]",
				       254, 0, 200, 208, out, sizeof(out)), 0);
	assert_int_equal(bioread_match("init-1 [000] ..... 1.0: block_bio_queue: 254,0 RA 120 + 80 [init]",
				       254, 0, 200, 208, out, sizeof(out)), 0);
	assert_int_equal(bioread_match("init-1 [000] ..... 1.0: block_bio_queue: 254,0 RA 208 + 8 [init]",
				       254, 0, 200, 208, out, sizeof(out)), 0);
	assert_int_equal(bioread_match("init-1 [000] ..... 1.0: block_rq_issue: 254,0 R 4096 () 200 + 8 [init]",
				       254, 0, 200, 208, out, sizeof(out)), 0);
	assert_int_equal(bioread_match("init-1 [000] ..... 1.0: block_bio_queue: 254,0 RA 200 + 0 [init]",
				       254, 0, 200, 208, out, sizeof(out)), 0);
	assert_int_equal(bioread_match("garbage", 254, 0, 200, 208, out, sizeof(out)), 0);
}

/* ---- the host ---- */

static void test_host_lines(void **state)
{
	struct fb_bioread b = { 0 };
	json_t *j;
	char line[128];

	(void)state;
	assert_int_equal(fb_bioread_line(&b, "bioread RA 128 128 5"), 1);
	assert_int_equal(fb_bioread_line(&b, "bioread FRSM 200 8 0"), 1);
	/* not ours */
	assert_int_equal(fb_bioread_line(&b, "step 1 mount -> ok"), 0);
	assert_int_equal(fb_bioread_line(&b, "fserror EBADMSG 12 1"), 0);
	assert_int_equal(b.n, 2);
	assert_string_equal(b.bio[0].rwbs, "RA");
	assert_int_equal(b.bio[0].sector, 128);
	assert_int_equal(b.bio[0].sectors, 128);
	assert_int_equal(b.bio[0].step, 5);
	assert_int_equal(fb_bioread_line(&b, "bioread-end 0"), 1);
	j = fb_bioread_json(&b, true, 3);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "complete");
	assert_int_equal(json_integer_value(json_object_get(j, "fault_step")), 3);
	assert_int_equal(json_array_size(json_object_get(j, "bios")), 2);
	json_decref(j);
	/* nothing after the end */
	assert_int_equal(fb_bioread_line(&b, "bioread RA 128 128 5"), -1);
	assert_int_equal(b.n, 2);
	j = fb_bioread_json(&b, true, 3);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "incomplete");
	json_decref(j);
	/* not asked for: no object */
	assert_null(fb_bioread_json(&b, false, 0));

	/* the bound: FB_BIOREAD_MAX kept, the rest counted as dropped */
	memset(&b, 0, sizeof(b));
	for (int i = 0; i < FB_BIOREAD_MAX + 3; i++) {
		snprintf(line, sizeof(line), "bioread RA %d 8 1", i * 8);
		assert_int_equal(fb_bioread_line(&b, line), 1);
	}
	assert_int_equal(b.n, FB_BIOREAD_MAX);
	assert_int_equal(fb_bioread_line(&b, "bioread-end 2"), 1);
	assert_int_equal(b.dropped, 5);
	j = fb_bioread_json(&b, true, 1);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "incomplete");
	json_decref(j);

	/* no bioread-end: the guest stopped first */
	memset(&b, 0, sizeof(b));
	assert_int_equal(fb_bioread_line(&b, "bioread RA 8 8 1"), 1);
	j = fb_bioread_json(&b, true, 1);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "incomplete");
	json_decref(j);

	memset(&b, 0, sizeof(b));
	assert_int_equal(fb_bioread_line(&b, "bioread-unavailable block_bio_queue ENOENT"), 1);
	j = fb_bioread_json(&b, true, 1);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "unavailable");
	assert_string_equal(json_string_value(json_object_get(j, "reason")), "block_bio_queue ENOENT");
	json_decref(j);
	assert_int_equal(fb_bioread_line(&b, "bioread-unavailable again"), -1);
}

static void test_host_malformed(void **state)
{
	static const char *const bad[] = {
		"bioread", "bioread ", "bioread RA", "bioread RA 8", "bioread RA 8 8",
		"bioread RA 8 8 1 x", "bioread W 8 8 1", "bioread WSM 8 8 1", "bioread RX 8 8 1",
		"bioread ARM 8 8 1", "bioread RAAAAAAAA 8 8 1", "bioread RA 08 8 1",
		"bioread RA -8 8 1", "bioread RA 8 0 1", "bioread RA 8 65537 1",
		"bioread RA 8 8 65537", "bioread RA 99999999999999999999 8 1",
		"bioread RA  8 8 1", "bioread-end", "bioread-end x", "bioread-end -1",
		"bioread-unavailable ", "bioread-unavailable \x01",
		"bioread-other 1", "biored RA 8 8 1x",
	};
	struct fb_bioread b = { 0 };
	char longline[FB_BIOREAD_LINE_MAX + 16];
	unsigned expect = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int r = fb_bioread_line(&b, bad[i]);

		if (strncmp(bad[i], "bioread", 7)) {
			assert_int_equal(r, 0);
			continue;
		}
		if (r != -1)
			fail_msg("accepted: '%s'", bad[i]);
		expect++;
	}
	memset(longline, 'A', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	memcpy(longline, "bioread-unavailable ", 20);
	assert_int_equal(fb_bioread_line(&b, longline), -1);
	expect++;
	assert_int_equal(b.malformed, expect);
	assert_int_equal(b.n, 0);
	assert_false(b.ended);
	assert_false(b.unavailable);
}

static void test_fault_step(void **state)
{
	long long ns[4] = { 100, 200, 0, 0 };

	(void)state;
	/* at rest (before any step's result): step 1 */
	assert_int_equal(fb_bioread_fault_step(50, ns, 4), 1);
	assert_int_equal(fb_bioread_fault_step(100, ns, 4), 1);
	assert_int_equal(fb_bioread_fault_step(150, ns, 4), 2);
	/* after every result that came: past the last step */
	assert_int_equal(fb_bioread_fault_step(250, ns, 4), 5);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agent_watch),
		cmocka_unit_test(test_agent_match),
		cmocka_unit_test(test_host_lines),
		cmocka_unit_test(test_host_malformed),
		cmocka_unit_test(test_fault_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

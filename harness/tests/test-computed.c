// SPDX-License-Identifier: MIT
/*
 * The expectation computed from a fault (scenario/computed.h) and the
 * default of undetected (outcome.h fb_expect_match's "explained"): when it
 * applies, how a written detect narrows it (a case must satisfy both), what
 * widens it (a named cause, a cited checked-before-csum), and which written
 * expectations contradict it at load.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "outcome.h"
#include "scenario/computed.h"
#include "scenario/csum_first.h"

/* variant-of chains as kernel/kernels.ini gives them (fb_kernel_chain) */
static const char *const patched[] = { "patched", NULL };
static const char *const patched612[] = { "patched-6.12", "patched", NULL };
static const char *const stock612[] = { "stock-6.12", "stock", NULL };

/* A written expectation with the resolver's defaults. */
static struct fb_expect written(const char *detect, const char *undetected, const char *first)
{
	struct fb_expect e = { 0 };

	for (int f = 0; f < FB_EXP__COUNT; f++)
		e.field[f] = (char *)"any";
	e.field[FB_EXP_DETECT] = (char *)detect;
	e.field[FB_EXP_UNDETECTED] = (char *)(undetected ? undetected : "explained");
	e.field[FB_EXP_CHECKED_FIRST] = (char *)(first ? first : "none");
	return e;
}

static struct fb_outcome outcome(enum fb_detect d, bool next_ran, enum fb_detect dn)
{
	return (struct fb_outcome){ .detect = d, .next_ran = next_ran, .detect_next = dn,
				    .fault_read = 1 };
}

/* Does OUT pass the computed expectation for E on a fault that fired and was read? */
static bool passes(const struct fb_expect *e, const char *type, const struct fb_outcome *out)
{
	struct fb_computed c;
	const char *got;

	fb_computed_expect(e, type, patched, true, true, true, &c);
	assert_true(c.on);
	return fb_computed_match(&c, out, &got);
}

static void explained_default(void **state)
{
	(void)state;
	assert_true(fb_expect_match("explained", "read-ahead"));
	assert_true(fb_expect_match("explained", "n/a"));
	assert_false(fb_expect_match("explained", "unexplained"));
	assert_true(fb_expect_match("unexplained", "unexplained"));
	assert_true(fb_expect_match("explained|unexplained", "unexplained"));
	/* a detect list is not touched by the name */
	assert_false(fb_expect_match("csum", "unexplained"));
}

static void applies_only_when_read(void **state)
{
	struct fb_expect e = written("any", NULL, NULL);
	struct fb_computed c;

	(void)state;
	fb_computed_expect(&e, "inode", patched, false, true, true, &c);
	assert_false(c.on);
	fb_computed_expect(&e, "inode", patched, true, false, true, &c);
	assert_false(c.on);
	fb_computed_expect(&e, "inode", patched, true, true, false, &c);
	assert_false(c.on);
	fb_computed_expect(&e, "inode", patched, true, true, true, &c);
	assert_true(c.on);
	assert_string_equal(c.detect, "csum");
	assert_non_null(strstr(c.why, "checksum-covered"));
}

/* written "none", "any" or "sanity": the computed csum still has to hold */
static void intersection(void **state)
{
	struct fb_expect any = written("any", NULL, NULL);
	struct fb_expect wide = written("csum|sanity", NULL, NULL);
	struct fb_outcome none = outcome(FB_DETECT_NONE, false, FB_DETECT_NONE);
	struct fb_outcome sanity = outcome(FB_DETECT_SANITY, false, FB_DETECT_NONE);
	struct fb_outcome csum = outcome(FB_DETECT_CSUM, false, FB_DETECT_NONE);

	(void)state;
	assert_false(passes(&any, "journal-commit", &none));
	assert_false(passes(&wide, "extent-leaf", &sanity));
	assert_true(passes(&wide, "extent-leaf", &csum));
	assert_true(fb_expect_match(wide.field[FB_EXP_DETECT], "sanity"));
}

/* the next-mount pass's detection counts when the workload's found nothing */
static void first_detection(void **state)
{
	struct fb_expect e = written("none", "n/a", NULL);
	struct fb_outcome next_csum = outcome(FB_DETECT_NONE, true, FB_DETECT_CSUM);
	struct fb_outcome next_none = outcome(FB_DETECT_NONE, true, FB_DETECT_NONE);
	struct fb_outcome work_sanity = outcome(FB_DETECT_SANITY, true, FB_DETECT_CSUM);

	(void)state;
	assert_true(passes(&e, "inline-data", &next_csum));
	assert_false(passes(&e, "inline-data", &next_none));
	assert_false(passes(&e, "inline-data", &work_sanity));
}

static void named_cause_widens(void **state)
{
	struct fb_expect cause = written("none", "log-end", NULL);
	struct fb_expect unexplained = written("none", "unexplained", NULL);
	struct fb_expect dflt = written("none", NULL, NULL);
	struct fb_expect na = written("none", "n/a", NULL);
	struct fb_outcome none = outcome(FB_DETECT_NONE, false, FB_DETECT_NONE);
	struct fb_outcome sanity = outcome(FB_DETECT_SANITY, false, FB_DETECT_NONE);
	struct fb_computed c;

	(void)state;
	assert_true(passes(&cause, "journal-commit", &none));
	assert_false(passes(&cause, "journal-commit", &sanity));
	fb_computed_expect(&cause, "journal-commit", patched, true, true, true, &c);
	assert_string_equal(c.detect, "csum|none");
	/* a line that says unexplained is a line of the scenario: a known finding */
	assert_true(passes(&unexplained, "journal-descriptor", &none));
	/* the default and n/a name no cause */
	assert_false(passes(&dflt, "journal-commit", &none));
	assert_false(passes(&na, "journal-commit", &none));
}

static void checked_first_widens(void **state)
{
	struct fb_expect ext = written("sanity", NULL, "__ext4_ext_check");
	struct fb_outcome sanity = outcome(FB_DETECT_SANITY, false, FB_DETECT_NONE);
	struct fb_outcome none = outcome(FB_DETECT_NONE, false, FB_DETECT_NONE);
	struct fb_computed c;

	(void)state;
	assert_true(passes(&ext, "extent-leaf", &sanity));
	assert_false(passes(&ext, "extent-leaf", &none));
	fb_computed_expect(&ext, "extent-leaf", patched, true, true, true, &c);
	assert_string_equal(c.detect, "csum|sanity");
	assert_non_null(strstr(c.why, "__ext4_ext_check"));
	/* the function never reads an inode: no widening */
	assert_false(passes(&ext, "inode", &sanity));
	assert_null(fb_csum_first_find("dx_probe"));
	assert_true(fb_csum_first_reads(fb_csum_first_find("__ext4_read_dirblock"), "dx-node"));
	assert_false(fb_csum_first_reads(fb_csum_first_find("__ext4_read_dirblock"), "dx-root"));
}

/*
 * __ext4_read_dirblock judges a dx node's rec_len before its checksum on
 * stock 6.1 and 6.12 only: the patched series (0005, both ports) computes
 * the checksum first, so there the written line widens nothing.
 */
static void checked_first_by_kernel(void **state)
{
	struct fb_expect dx = written("any", NULL, "__ext4_read_dirblock");
	const struct fb_csum_first *f = fb_csum_first_find("__ext4_read_dirblock");
	struct fb_computed c;

	(void)state;
	assert_true(fb_csum_first_holds(f, stock612));
	assert_false(fb_csum_first_holds(f, patched));
	assert_false(fb_csum_first_holds(f, patched612));
	fb_computed_expect(&dx, "dx-node", stock612, true, true, true, &c);
	assert_string_equal(c.detect, "csum|sanity");
	assert_true(c.checked_first);
	fb_computed_expect(&dx, "dx-node", patched612, true, true, true, &c);
	assert_string_equal(c.detect, "csum");
	assert_false(c.checked_first);
	/* the others hold on both series */
	assert_true(fb_csum_first_holds(fb_csum_first_find("ext4_check_descriptors"), patched612));
}

static struct fb_scenario scenario(const char *type, const char *region, bool reseal,
				   const char *action)
{
	return (struct fb_scenario){ .type = (char *)type, .region = (char *)region,
				     .reseal = reseal, .action = (char *)action,
				     .features = (char *)"metadata_csum" };
}

static void contradicted_at_load(void **state)
{
	struct fb_scenario flip = scenario("xattr-block", "covered", false, "flip");
	struct fb_scenario resealed = scenario("xattr-block", "h_magic", true, "flip");
	struct fb_scenario field = scenario("xattr-block", "h_magic", false, "flip");
	struct fb_scenario eio = scenario("xattr-block", "covered", false, "eio");
	struct fb_scenario data = scenario("data", "covered", false, "flip");
	struct fb_scenario nocsum = scenario("inode", "covered", false, "flip");
	struct fb_expect sanity = written("sanity", NULL, NULL);
	struct fb_expect none_cause = written("none", "redundant-copy-unused", NULL);
	struct fb_expect first = written("sanity", NULL, "__ext4_xattr_check_block");
	struct fb_expect next = written("none", "n/a", NULL);
	char want[64];

	(void)state;
	nocsum.features = (char *)"^metadata_csum";
	assert_true(fb_computed_contradicted(&flip, &sanity, patched, want, sizeof(want)));
	assert_string_equal(want, "csum");
	assert_false(fb_computed_contradicted(&resealed, &sanity, patched, want, sizeof(want)));
	assert_false(fb_computed_contradicted(&field, &sanity, patched, want, sizeof(want)));
	assert_false(fb_computed_contradicted(&eio, &sanity, patched, want, sizeof(want)));
	assert_false(fb_computed_contradicted(&data, &sanity, patched, want, sizeof(want)));
	assert_false(fb_computed_contradicted(&nocsum, &sanity, patched, want, sizeof(want)));
	assert_false(fb_computed_contradicted(&flip, &none_cause, patched, want, sizeof(want)));
	assert_false(fb_computed_contradicted(&flip, &first, patched, want, sizeof(want)));
	/* the next-mount pass may be the first to detect */
	next.field[FB_EXP_DETECT_NEXT] = (char *)"csum";
	assert_true(fb_computed_contradicted(&flip, &next, patched, want, sizeof(want)));
	flip.next_mount = true;
	assert_false(fb_computed_contradicted(&flip, &next, patched, want, sizeof(want)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(explained_default),
		cmocka_unit_test(applies_only_when_read),
		cmocka_unit_test(intersection),
		cmocka_unit_test(first_detection),
		cmocka_unit_test(named_cause_widens),
		cmocka_unit_test(checked_first_widens),
		cmocka_unit_test(checked_first_by_kernel),
		cmocka_unit_test(contradicted_at_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

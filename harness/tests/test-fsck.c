// SPDX-License-Identifier: MIT
/*
 * The e2fsck oracle's problem lines (judge/fsck.h) on the golden outputs of
 * harness/tests/fsck/ (real e2fsck -fn runs, harness/tests/fsck-oracle.sh)
 * and on hostile text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judge/fsck.h"
#include "util.h"

static int problems(const char *name, char (*lines)[FB_FSCK_LINE], int max)
{
	char path[256];
	size_t len;
	char *text;
	int n;

	snprintf(path, sizeof(path), "harness/tests/fsck/%s.out", name);
	text = fb_slurp(path, &len);
	assert_non_null(text);
	n = fb_fsck_problems(text, len, lines, max);
	free(text);
	return n;
}

static void test_goldens(void **state)
{
	char l[8][FB_FSCK_LINE];

	(void)state;
	assert_int_equal(problems("clean", l, 8), 0);
	/* exit 0 and a message, but no damage: the kernel recomputes it */
	assert_int_equal(problems("free-count", l, 8), 0);
	/* exit 0 and damage: what the exit status hides */
	assert_int_equal(problems("gd-csum", l, 8), 2);
	assert_string_equal(l[0], "One or more block group descriptor checksums are invalid.  Fix? no");
	assert_string_equal(l[1], "Group descriptor 0 checksum is 0xN, should be 0xN.  IGNORED.");
	assert_int_equal(problems("inode-csum", l, 8), 3);
	assert_string_equal(l[0], "Inode 2 passes checks, but checksum does not match inode.  Fix? no");
	assert_string_equal(l[2], "IMAGE: ********** WARNING: Filesystem still has errors **********");
	/*
	 * A superblock time ahead of the host's clock is the guest's clock,
	 * not damage: neither e2fsck's two-line message for less than a day
	 * nor its dated one with "Fix? no" for more
	 */
	assert_int_equal(problems("future-mount", l, 8), 0);
	assert_int_equal(problems("future-far", l, 8), 0);
}

static void test_hostile(void **state)
{
	char l[2][FB_FSCK_LINE], big[4000];
	const char *t = "Pass 1: x\nbad\x01line\nsecond\nthird\n";

	(void)state;
	/* control bytes replaced; only MAX kept, all counted */
	assert_int_equal(fb_fsck_problems(t, strlen(t), l, 2), 3);
	assert_string_equal(l[0], "bad?line");
	assert_string_equal(l[1], "second");
	/* a long line is cut, never overflows */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(fb_fsck_problems(big, strlen(big), l, 2), 1);
	assert_int_equal(strlen(l[0]), FB_FSCK_LINE - 1);
	/* no newline at the end, NUL bytes inside */
	assert_int_equal(fb_fsck_problems("a\0b", 3, l, 2), 1);
	/* a bare answer and blank lines are not problems; a sentence with one is */
	t = "Fix? no\n\n  \nClear inode? no\nBad thing.  Fix? no\n";
	assert_int_equal(fb_fsck_problems(t, strlen(t), l, 2), 1);
	assert_string_equal(l[0], "Bad thing.  Fix? no");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_goldens),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

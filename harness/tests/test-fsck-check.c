// SPDX-License-Identifier: MIT
/*
 * The fsck oracle (harness/judge/fsck_check.c, fb_fsck_check) on real
 * images and the real e2fsck, about which runs it makes:
 *  - a clean image: one e2fsck -fn, verdict clean; -fy and the second -fn
 *    are not run (they could change nothing);
 *  - a clean image whose orphan list names an inode still linked (a
 *    truncate cut short): e2fsck -fn exits 0 and says nothing, yet -fy
 *    truncates the orphan ("FILE SYSTEM WAS MODIFIED"): the three runs
 *    are made, so the data oracle reads the image -fy left, and the
 *    verdict is still clean;
 *  - a damaged image (a block marked free that a file uses): the three
 *    runs, verdict repaired.
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

#include "boot/proc.h"
#include "judge/fsck_check.h"
#include "util.h"

static char dir[] = "/tmp/flipbed-fsck-check.XXXXXX";

static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd))
		fail_msg("'%s' failed", cmd);
}

/* An image NAME with one file /f of 100,000 bytes; the inode number in *INO. */
static void image(const char *name)
{
	sh("mkfs.ext4 -q -F -O metadata_csum %s/%s 16M 2>/dev/null && "
	   "head -c 100000 /dev/urandom > %s/data && "
	   "debugfs -w -R 'write %s/data f' %s/%s >/dev/null 2>&1", dir, name, dir, dir, dir, name);
}

static enum fb_fsck check(const char *name, json_t **codes, int *runs)
{
	char img[256], out[256], why[160], *text;
	json_t *problems = json_array(), *cpu = json_object();
	enum fb_fsck f;
	size_t len;

	snprintf(img, sizeof(img), "%s/%s", dir, name);
	snprintf(out, sizeof(out), "%s/%s.fsck.txt", dir, name);
	*codes = json_object();
	f = fb_fsck_check(img, out, *codes, problems, cpu, why, sizeof(why));
	assert_string_equal(why, "");
	text = fb_slurp(out, &len);
	assert_non_null(text);
	*runs = 0;
	for (char *p = text; (p = strstr(p, "$ e2fsck")); p++)
		(*runs)++;
	/* a CPU figure for every run made, under the name of its exit status */
	assert_int_equal(json_object_size(cpu), json_object_size(*codes));
	free(text);
	json_decref(problems);
	json_decref(cpu);
	return f;
}

static void test_clean_one_run(void **state)
{
	json_t *codes;
	int runs;

	image("clean");
	assert_int_equal(check("clean", &codes, &runs), FB_FSCK_CLEAN);
	assert_int_equal(runs, 1);
	assert_int_equal(json_integer_value(json_object_get(codes, "fn")), 0);
	assert_null(json_object_get(codes, "fy"));
	assert_null(json_object_get(codes, "fn2"));
	json_decref(codes);
}

static void test_orphan_three_runs(void **state)
{
	json_t *codes;
	int runs;

	image("orphan");
	/* inode 12: the first inode of a new filesystem, /f */
	sh("debugfs -w -R 'ssv last_orphan 12' %s/orphan >/dev/null 2>&1", dir);
	sh("e2fsck -fn %s/orphan >/dev/null 2>&1", dir);	/* -fn: clean, exit 0 */
	assert_int_equal(check("orphan", &codes, &runs), FB_FSCK_CLEAN);
	assert_int_equal(runs, 3);
	assert_int_equal(json_integer_value(json_object_get(codes, "fy")), 0);
	assert_non_null(json_object_get(codes, "fn2"));
	json_decref(codes);
}

static void test_damaged_three_runs(void **state)
{
	json_t *codes;
	int runs;

	image("damaged");
	/* free the file's first block in the bitmap: "Block bitmap differences" */
	sh("b=$(debugfs -R 'bmap f 0' %s/damaged 2>/dev/null) && "
	   "debugfs -w -R \"freeb $b\" %s/damaged >/dev/null 2>&1", dir, dir);
	assert_int_equal(check("damaged", &codes, &runs), FB_FSCK_REPAIRED);
	assert_int_equal(runs, 3);
	assert_int_equal(json_integer_value(json_object_get(codes, "fn")), 4);
	json_decref(codes);
}

static int setup(void **state)
{
	if (!mkdtemp(dir) || fb_proc_init() < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	sh("rm -rf %s", dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_one_run),
		cmocka_unit_test(test_orphan_three_runs),
		cmocka_unit_test(test_damaged_three_runs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

// SPDX-License-Identifier: MIT
/*
 * Unit tests of the coverage parts that need no kernel: the checksum
 * verification sites read from C text (sites.c: which calls and
 * comparisons are sites, which branch a failure takes, which have none),
 * a case's counts judged at them (casecov.c: a failure branch without a
 * line of code is unmeasurable, not unreached), and the host's reading of the agent's counter lines (receive.c: a whole
 * transfer, and every malformed or hostile form refused, with nothing left
 * on disk that the guest did not fully and correctly send).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "coverage/casecov.h"
#include "coverage/receive.h"
#include "coverage/sites.h"
#include "guest/agent.h"
#include "util.h"

/* ---- sites ---- */

static struct fb_site *scan(const char *text, size_t *n)
{
	struct fb_site *s = NULL;
	size_t cap = 0;

	*n = 0;
	fb_sites_of_text("fs/ext4/t.c", text, &s, n, &cap);
	return s;
}

static void test_sites_negated_call(void **state)
{
	const char *text =
		"static int f(struct super_block *sb)\n"		/* 1 */
		"{\n"							/* 2 */
		"\tif (!ext4_inode_csum_verify(sb, raw))\n"		/* 3 */
		"\t{\n"							/* 4 */
		"\t\tret = -EFSBADCRC;\n"				/* 5 */
		"\t\tgoto bad;\n"					/* 6 */
		"\t}\n"							/* 7 */
		"\treturn 0;\n"						/* 8 */
		"}\n";
	size_t n;
	struct fb_site *s = scan(text, &n);

	assert_int_equal(n, 1);
	assert_string_equal(s[0].func, "f");
	assert_string_equal(s[0].check, "ext4_inode_csum_verify");
	assert_int_equal(s[0].line, 3);
	assert_int_equal(s[0].how, FB_FAIL_THEN);
	assert_int_equal(s[0].fail_line, 5);
	assert_int_equal(s[0].fail_end, 7);
	assert_false(s[0].joined);
	free(s);
}

static void test_sites_positive_call_else_and_after(void **state)
{
	const char *text =
		"int g(void)\n"						/* 1 */
		"{\n"							/* 2 */
		"\tif (ext4_dx_csum_verify(inode, d) &&\n"		/* 3 */
		"\t    !ext4_simulate_fail(sb, 1))\n"			/* 4 */
		"\t\tset_buffer_verified(bh);\n"			/* 5 */
		"\telse {\n"						/* 6 */
		"\t\text4_error(sb, \"if (!x_csum_verify(\");\n"	/* 7: a string, no site */
		"\t}\n"							/* 8 */
		"\tif (jbd2_commit_block_csum_verify(j, b))\n"		/* 9 */
		"\t\treturn 0;\n"					/* 10 */
		"\tpr_err(\"bad\");\n"					/* 11 */
		"\treturn -EFSBADCRC;\n"				/* 12 */
		"}\n";
	size_t n;
	struct fb_site *s = scan(text, &n);

	assert_int_equal(n, 2);
	assert_int_equal(s[0].how, FB_FAIL_ELSE);
	assert_int_equal(s[0].fail_line, 7);
	assert_true(s[0].joined);
	assert_int_equal(s[1].line, 9);
	assert_int_equal(s[1].how, FB_FAIL_AFTER);
	assert_int_equal(s[1].fail_line, 11);
	assert_int_equal(s[1].fail_end, 11);
	free(s);
}

static void test_sites_negated_group_and_wrappers(void **state)
{
	const char *text =
		"int h(void)\n"
		"{\n"
		"\tif (a || !(get_tail(i, b) && ext4_dirblock_csum_verify(i, b))) {\n"	/* 3 */
		"\t\tfail();\n"								/* 4 */
		"\t}\n"
		"\tif (unlikely(!ext4_block_bitmap_csum_verify(sb, g, d, bh))) {\n"	/* 6 */
		"\t\tfail();\n"								/* 7 */
		"\t}\n"
		"}\n";
	size_t n;
	struct fb_site *s = scan(text, &n);

	assert_int_equal(n, 2);
	assert_int_equal(s[0].how, FB_FAIL_THEN);
	assert_int_equal(s[0].fail_line, 4);
	assert_true(s[0].joined);
	assert_int_equal(s[1].how, FB_FAIL_THEN);
	assert_int_equal(s[1].fail_line, 7);
	assert_false(s[1].joined);
	free(s);
}

static void test_sites_without_branch(void **state)
{
	const char *text =
		"static int ext4_x_csum_verify(struct inode *i)\n"	/* a verifier: its body holds no site */
		"{\n"
		"\treturn t->det_checksum == ext4_x_csum(i);\n"
		"}\n"
		"static int recheck(void *arg)\n"			/* returns a verifier's result: a verifier */
		"{\n"
		"\treturn ext4_x_csum_verify(arg);\n"
		"}\n"
		"static void k(void)\n"
		"{\n"
		"\tok = ext4_x_csum_verify(i);\n"			/* 11: kept, never tested */
		"\tif (!ext4_x_csum_verify(i)) return;\n"		/* 12 */
		"\tif (!recheck(i))\n"					/* 13 */
		"\t\tbad();\n"					/* 14 */
		"}\n"
		"/* ext4_y_csum_verify(i) in a comment */\n"
		"#define Z ext4_z_csum_verify(i)\n";
	size_t n;
	struct fb_site *s = scan(text, &n);

	assert_int_equal(n, 3);
	assert_int_equal(s[0].line, 11);
	assert_int_equal(s[0].how, FB_FAIL_NONE);
	assert_string_equal(s[0].why, "not an if's condition: the result is kept");
	assert_int_equal(s[1].line, 12);
	assert_int_equal(s[1].how, FB_FAIL_NONE);
	assert_string_equal(s[1].why, "the branch starts on the check's line");
	assert_int_equal(s[2].line, 13);
	assert_string_equal(s[2].check, "recheck");
	assert_int_equal(s[2].how, FB_FAIL_THEN);
	assert_int_equal(s[2].fail_line, 14);
	free(s);
}

/* A check whose result a variable keeps: the first if that tests it for success or failure. */
static void test_sites_kept_result(void **state)
{
	const char *text =
		"static bool tail_ok(struct ext4_dir_entry *d)\n"	/* returns a comparison: a verifier */
		"{\n"
		"\treturn t->dt_checksum == ext4_dx_csum(d);\n"
		"}\n"
		"static int dx_check(struct ext4_dir_entry *d)\n"	/* returns a verifier's result */
		"{\n"
		"\tif (bad(d))\n"
		"\t\treturn -EFSCORRUPTED;\n"
		"\treturn tail_ok(d);\n"
		"}\n"
		"static void *read_block(void)\n"			/* 11 */
		"{\n"
		"\tint ok = dx_check(dirent);\n"			/* 13 */
		"\n"
		"\tif (ok == -EFSCORRUPTED) {\n"			/* 15: another outcome */
		"\t\treturn ERR_PTR(-EFSCORRUPTED);\n"
		"\t}\n"
		"\tif (ok == 1 && !sim_fail())\n"			/* 18 */
		"\t\tset_buffer_verified(bh);\n"
		"\telse {\n"
		"\t\tdirblock_csum_error(inode);\n"			/* 21 */
		"\t\treturn ERR_PTR(-EFSBADCRC);\n"
		"\t}\n"
		"}\n";
	size_t n;
	struct fb_site *s = scan(text, &n);

	assert_int_equal(n, 1);
	assert_int_equal(s[0].line, 13);
	assert_string_equal(s[0].check, "dx_check");
	assert_int_equal(s[0].how, FB_FAIL_ELSE);
	assert_int_equal(s[0].fail_line, 21);
	assert_int_equal(s[0].nreport, 1);
	assert_int_equal(s[0].report[0], 21);
	assert_true(s[0].joined);
	free(s);
}

static void test_sites_comparisons(void **state)
{
	const char *text =
		"int j(void)\n"
		"{\n"
		"\tif (sb->s_checksum != jbd2_superblock_csum(j, sb)) {\n"	/* 3 */
		"\t\terr = -EFSBADCRC;\n"					/* 4 */
		"\t}\n"
		"\tif (le32_to_cpu(tail.fc_crc) == state->fc_crc) {\n"		/* 6 */
		"\t\tok();\n"
		"\t} else {\n"
		"\t\tstop();\n"							/* 9 */
		"\t}\n"
		"\tif (es->s_checksum_type != EXT4_CRC32C_CHKSUM)\n"		/* not a checksum */
		"\t\treturn 1;\n"
		"\tif (x->s_csum == 0)\n"					/* a constant */
		"\t\treturn 1;\n"
		"}\n";
	size_t n;
	struct fb_site *s = scan(text, &n);

	assert_int_equal(n, 2);
	assert_int_equal(s[0].line, 3);
	assert_string_equal(s[0].check, "sb->s_checksum != jbd2_superblock_csum(j, sb)");
	assert_int_equal(s[0].how, FB_FAIL_THEN);
	assert_int_equal(s[0].fail_line, 4);
	assert_int_equal(s[1].line, 6);
	assert_int_equal(s[1].how, FB_FAIL_ELSE);
	assert_int_equal(s[1].fail_line, 9);
	free(s);
}

/* ---- a case's counts at the sites ---- */

/*
 * do_one_pass's revoke check as 6.1 has it: the failure branch is a
 * jbd2_debug() (compiled out) and an assignment the compiler folds into
 * the jump, so gcov has no line of it. The branch is then unmeasurable,
 * never "not reached"; a branch with a line of code is judged by its count.
 */
static void test_use_unmeasurable(void **state)
{
	const char *text =
		"static int f(journal_t *j, int pass)\n"			/* 1 */
		"{\n"								/* 2 */
		"\tif (pass == 0 &&\n"					/* 3 */
		"\t    !jbd2_descriptor_block_csum_verify(j, b)) {\n"	/* 4 */
		"\t\tjbd2_debug(1, \"bad\\n\");\n"			/* 5 */
		"\t\tneed = true;\n"						/* 6 */
		"\t}\n"							/* 7 */
		"\tif (!jbd2_commit_block_csum_verify(j, b))\n"		/* 8 */
		"\t\treturn -EFSBADCRC;\n"					/* 9 */
		"\treturn 0;\n"						/* 10 */
		"}\n";
	long long count[12] = { -1, -1, -1, 3, 3, -1, -1, -1, 3, 0, 3, -1 };
	struct fb_cov_file file = { .name = "fs/ext4/t.c", .nlines = 12, .count = count };
	struct fb_cov cov = { .f = &file, .n = 1 };
	struct fb_site_use use[2];
	size_t n;
	struct fb_site *s = scan(text, &n);

	assert_int_equal(n, 2);
	assert_int_equal(s[0].how, FB_FAIL_THEN);
	fb_cov_use(s, n, &cov, use);
	assert_true(use[0].reached);
	assert_true(use[0].unmeasurable);
	assert_false(use[0].failed);
	assert_true(use[1].reached);
	assert_false(use[1].unmeasurable);
	assert_false(use[1].failed);
	/* line 9 ran: the second check's failure branch did */
	count[9] = 1;
	fb_cov_use(s, n, &cov, use);
	assert_true(use[1].failed);
	/* a site not reached says nothing of its branch */
	count[3] = count[4] = 0;
	fb_cov_use(s, n, &cov, use);
	assert_false(use[0].reached);
	assert_false(use[0].unmeasurable);
	free(s);
}

/* ---- receive ---- */

static char dir[4096];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/flipbed-test-coverage-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	return fb_remove_tree(dir);
}

static const char *status_of(struct fb_gcov_recv *r)
{
	static char buf[64];
	json_t *j = fb_gcov_recv_json(r);

	snprintf(buf, sizeof(buf), "%s", j ? json_string_value(json_object_get(j, "status")) : "-");
	json_decref(j);
	return buf;
}

static bool exists(const char *rel)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/gcov/%s", dir, rel);
	return !access(path, F_OK);
}

static void send_all(struct fb_gcov_recv *r, const char *const *lines)
{
	for (; *lines; lines++)
		assert_int_equal(fb_gcov_recv_line(r, *lines), 1);
}

static char hashline[128];

/* "gcda-end PATH HASH" for the bytes "hello" */
static const char *hello_end(const char *path)
{
	snprintf(hashline, sizeof(hashline), "gcda-end %s %016llx", path,
		 (unsigned long long)fnv1a(FNV1A_INIT, "hello", 5));
	return hashline;
}

static void test_recv_whole(void **state)
{
	struct fb_gcov_recv r;
	char path[4200];
	size_t n;
	char *got;

	fb_gcov_recv_init(&r, dir, true);
	assert_int_equal(fb_gcov_recv_line(&r, "step 1 mount -> ok"), 0);
	const char *lines[] = { "gcov-build 0123abcd4567ef89",
				"gcda work/build/kernel/obj/stock-gcov/fs/ext4/super.gcda 5",
				"gcdata aGVs", "gcdata bG8=", NULL };
	send_all(&r, lines);
	assert_int_equal(fb_gcov_recv_line(&r, hello_end("x/fs/ext4/super.gcda")), 1);
	assert_int_equal(fb_gcov_recv_line(&r, "gcov-end 1"), 1);
	assert_string_equal(status_of(&r), "ok");
	snprintf(path, sizeof(path), "%s/gcov/fs/ext4/super.gcda", dir);
	got = fb_slurp(path, &n);
	assert_non_null(got);
	assert_int_equal(n, 5);
	assert_memory_equal(got, "hello", 5);
	free(got);
	/* nothing after the end changes it, and a case that asked nothing has no record */
	fb_gcov_recv_init(&r, dir, false);
	assert_null(fb_gcov_recv_json(&r));
}

/* One hostile or broken transfer: refused, and no file of it left. */
static void refused(const char *const *lines, const char *why_part)
{
	struct fb_gcov_recv r;
	json_t *j;

	fb_remove_tree(dir);
	mkdir(dir, 0700);
	fb_gcov_recv_init(&r, dir, true);
	for (; *lines; lines++)
		fb_gcov_recv_line(&r, *lines);
	j = fb_gcov_recv_json(&r);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "refused");
	if (!strstr(json_string_value(json_object_get(j, "why")), why_part))
		fail_msg("why '%s' lacks '%s'", json_string_value(json_object_get(j, "why")),
			 why_part);
	json_decref(j);
	assert_false(exists("fs/ext4/a.gcda"));
	assert_false(exists("fs/ext4/super.gcda"));
}

static void test_recv_hostile(void **state)
{
	const char *traversal[] = { "gcov-build 0123abcd", "gcda ../../../etc/x.gcda 5", NULL };
	const char *dotdot[] = { "gcov-build 0123abcd", "gcda fs/ext4/../../a.gcda 5", NULL };
	const char *other_dir[] = { "gcov-build 0123abcd", "gcda fs/xfs/a.gcda 5", NULL };
	const char *huge[] = { "gcov-build 0123abcd", "gcda fs/ext4/a.gcda 99999999999", NULL };
	const char *not_b64[] = { "gcov-build 0123abcd", "gcda fs/ext4/a.gcda 5",
				  "gcdata aG$s", NULL };
	const char *bad_pad[] = { "gcov-build 0123abcd", "gcda fs/ext4/a.gcda 5",
				  "gcdata a===", NULL };
	const char *too_many[] = { "gcov-build 0123abcd", "gcda fs/ext4/a.gcda 2",
				   "gcdata aGVsbG8=", NULL };
	const char *short_file[] = { "gcov-build 0123abcd", "gcda fs/ext4/a.gcda 6",
				     "gcdata aGVsbG8=", "gcda-end fs/ext4/a.gcda 0000000000000000",
				     NULL };
	const char *bad_hash[] = { "gcov-build 0123abcd", "gcda fs/ext4/a.gcda 5",
				   "gcdata aGVsbG8=", "gcda-end fs/ext4/a.gcda 0123456789abcdef",
				   NULL };
	const char *no_build[] = { "gcda fs/ext4/a.gcda 5", NULL };
	const char *bad_build[] = { "gcov-build ../x", NULL };
	const char *nested[] = { "gcov-build 0123abcd", "gcda fs/ext4/a.gcda 5",
				 "gcda fs/ext4/super.gcda 5", NULL };
	const char *count[] = { "gcov-build 0123abcd", "gcov-end 3", NULL };

	refused(traversal, "not fs/ext4/NAME.gcda");
	refused(dotdot, "not fs/ext4/NAME.gcda");
	refused(other_dir, "not fs/ext4/NAME.gcda");
	refused(huge, "at most");
	refused(not_b64, "not base64");
	refused(bad_pad, "not base64");
	refused(too_many, "more bytes than");
	refused(short_file, "of the 6 announced");
	refused(bad_hash, "hash to");
	refused(no_build, "before gcov-build");
	refused(bad_build, "not a build id");
	refused(nested, "before its end");
	refused(count, "gcov-end says 3");
}

static void test_recv_twice_unasked_missing(void **state)
{
	struct fb_gcov_recv r;
	json_t *j;

	/* the same file twice: the second is refused, the first stays */
	fb_gcov_recv_init(&r, dir, true);
	const char *once[] = { "gcov-build 0123abcd", "gcda fs/ext4/a.gcda 5", "gcdata aGVsbG8=", NULL };
	send_all(&r, once);
	fb_gcov_recv_line(&r, hello_end("fs/ext4/a.gcda"));
	fb_gcov_recv_line(&r, "gcda fs/ext4/a.gcda 5");
	assert_string_equal(status_of(&r), "refused");
	assert_true(exists("fs/ext4/a.gcda"));
	/* counters nobody asked for */
	fb_gcov_recv_init(&r, dir, false);
	assert_int_equal(fb_gcov_recv_line(&r, "gcov-build 0123abcd"), 1);
	assert_int_equal(r.state, GCOV_REFUSED);
	/* the boot ended inside a file: missing, the part removed */
	fb_remove_tree(dir);
	mkdir(dir, 0700);
	fb_gcov_recv_init(&r, dir, true);
	const char *part[] = { "gcov-build 0123abcd", "gcda fs/ext4/a.gcda 5", "gcdata aGVs", NULL };
	send_all(&r, part);
	assert_string_equal(status_of(&r), "refused");
	assert_false(exists("fs/ext4/a.gcda"));
	fb_gcov_recv_init(&r, dir, true);
	assert_string_equal(status_of(&r), "missing");
	/* unavailable: the guest's reason, kept */
	fb_gcov_recv_init(&r, dir, true);
	fb_gcov_recv_line(&r, "gcov-unavailable cannot open /sys/kernel/debug/gcov/reset: No such file");
	j = fb_gcov_recv_json(&r);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "unavailable");
	assert_non_null(strstr(json_string_value(json_object_get(j, "why")), "reset"));
	json_decref(j);
}

static void test_base64(void **state)
{
	unsigned char out[16];

	assert_int_equal(fb_base64_decode("", out, sizeof(out)), 0);
	assert_int_equal(fb_base64_decode("aGk=", out, sizeof(out)), 2);
	assert_memory_equal(out, "hi", 2);
	assert_int_equal(fb_base64_decode("aGk", out, sizeof(out)), -1);
	assert_int_equal(fb_base64_decode("a=Gk", out, sizeof(out)), -1);
	assert_int_equal(fb_base64_decode("aGk=aGk=", out, sizeof(out)), -1);
	assert_int_equal(fb_base64_decode("aGVsbG8=", out, 4), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sites_negated_call),
		cmocka_unit_test(test_sites_positive_call_else_and_after),
		cmocka_unit_test(test_sites_negated_group_and_wrappers),
		cmocka_unit_test(test_sites_without_branch),
		cmocka_unit_test(test_sites_kept_result),
		cmocka_unit_test(test_sites_comparisons),
		cmocka_unit_test(test_use_unmeasurable),
		cmocka_unit_test_setup_teardown(test_recv_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recv_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recv_twice_unasked_missing, setup, teardown),
		cmocka_unit_test(test_base64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

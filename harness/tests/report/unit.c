// SPDX-License-Identifier: MIT
/*
 * Unit tests of the report helpers: cell text and reaction class of each
 * kind of outcome, expectation matching, escaping, the dmesg excerpt, the
 * run status. The writers themselves are tested end to end by run.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "report/report_int.h"

static char tmpdir[] = "/tmp/flipbed-report-unit.XXXXXX";

/* A run of the given cases.jsonl lines. */
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

#define REC(name, verdict, d, r, a) \
	"{\"case\": \"" name "\", \"verdict\": \"" verdict "\", \"outcome\": " \
	"{\"detect\": \"" d "\", \"reaction\": \"" r "\", \"fsck\": " \
	"\"clean\", \"data\": \"" a "\"}}\n"

static void test_short_and_class(void **state)
{
	static const struct {
		const char *shrt;
		enum fb_class k;
	} want[] = {	/* in name order */
		{ "csum→ro", FB_CLASS_SAFE },
		{ "sanity→refused", FB_CLASS_SAFE },
		{ "none", FB_CLASS_SILENT },
		{ "PANIC", FB_CLASS_UNSAFE },
		{ "sanity→OOPS", FB_CLASS_UNSAFE },
		{ "none+changed", FB_CLASS_UNSAFE },
		{ "csum→continue", FB_CLASS_WEAK },
		{ "none+lost", FB_CLASS_WEAK },
		{ "infra", FB_CLASS_INFRA },
		{ "skip", FB_CLASS_SKIP },
	};
	struct fb_run run;
	char buf[64];

	load(&run, REC("a", "pass", "csum", "remount-ro", "intact")
		   REC("b", "pass", "sanity", "mount-refused", "intact")
		   REC("c", "fail", "none", "none", "intact")
		   REC("d", "fail", "none", "panic", "not-checked")
		   REC("e", "fail", "sanity", "oops", "intact")
		   REC("f", "pass", "none", "none", "changed")
		   REC("g", "fail", "csum", "error-continue", "intact")
		   REC("h", "fail", "none", "none", "lost")
		   "{\"case\": \"i\", \"verdict\": \"infra\"}\n"
		   "{\"case\": \"j\", \"verdict\": \"skip\"}\n");
	assert_int_equal(run.n, 10);
	for (size_t i = 0; i < run.n; i++) {
		assert_string_equal(fb_case_short(&run.cases[i], buf, sizeof(buf)),
				    want[i].shrt);
		assert_int_equal(fb_case_class(&run.cases[i]), want[i].k);
	}
	assert_string_equal(run.cases[0].dir, "cases/a");
	assert_int_equal(fb_run_status(&run), 1);
	fb_run_free(&run);
}

/*
 * Data changed with nothing detected by the workload is silent only when
 * the next-mount pass detected nothing either (campaign 2026, case 213: an
 * inode flipped as it was written, read back only by the next mount, which
 * failed its checksum; e2fsck then repaired the inode with the changed
 * bytes).
 */
static void test_silent_change(void **state)
{
	struct fb_run run;

	load(&run, "{\"case\": \"a\", \"verdict\": \"pass\", \"outcome\": {\"detect\": \"none\", "
		   "\"reaction\": \"none\", \"fsck\": \"repaired\", \"data\": \"changed\", "
		   "\"detect_next\": \"csum\"}}\n"
		   "{\"case\": \"b\", \"verdict\": \"pass\", \"outcome\": {\"detect\": \"none\", "
		   "\"reaction\": \"none\", \"fsck\": \"clean\", \"data\": \"changed\", "
		   "\"detect_next\": \"none\"}}\n"
		   REC("c", "pass", "none", "none", "changed")
		   REC("d", "pass", "csum", "remount-ro", "changed"));
	assert_int_equal(run.n, 4);
	assert_false(fb_case_silent_change(&run.cases[0]));
	assert_true(fb_case_silent_change(&run.cases[1]));
	assert_true(fb_case_silent_change(&run.cases[2]));	/* no next-mount pass */
	assert_false(fb_case_silent_change(&run.cases[3]));
	fb_run_free(&run);
}

static void test_status(void **state)
{
	struct fb_run run;

	load(&run, REC("a", "pass", "csum", "remount-ro", "intact")
		   "{\"case\": \"b\", \"verdict\": \"infra\"}\n");
	assert_int_equal(fb_run_status(&run), 3);
	fb_run_free(&run);
	load(&run, REC("a", "pass", "csum", "remount-ro", "intact")
		   "{\"case\": \"b\", \"verdict\": \"skip\"}\n");
	assert_int_equal(fb_run_status(&run), 0);
	fb_run_free(&run);
}

/*
 * A case cut short by a signal has no kernel outcome, whatever its record
 * holds (e2fsck not-run would read as a failure): it is neither failed nor
 * infra, its class and cell say interrupted, and the run says it was cut
 * short even when run.json is missing.
 */
static void test_interrupted(void **state)
{
	struct fb_run run;
	char buf[160];

	load(&run, REC("a", "pass", "csum", "remount-ro", "intact")
		   REC("b", "interrupted", "csum", "remount-ro", "not-checked"));
	assert_int_equal(run.n, 2);
	assert_false(run.cases[1].has_outcome);
	assert_int_equal(fb_case_class(&run.cases[1]), FB_CLASS_INTERRUPTED);
	assert_string_equal(fb_case_short(&run.cases[1], buf, sizeof(buf)), "interrupted");
	assert_int_equal(fb_run_status(&run), 0);
	assert_true(fb_run_interrupted(&run, buf, sizeof(buf)));
	assert_string_equal(buf, "interrupted: 1 of 2 planned cases ran; 1 cut short, "
			    "0 never started");
	fb_run_free(&run);
	load(&run, REC("a", "pass", "csum", "remount-ro", "intact"));
	assert_false(fb_run_interrupted(&run, buf, sizeof(buf)));
	fb_run_free(&run);
}

static void test_expect_match(void **state)
{
	assert_true(fb_expect_match(NULL, "csum"));
	assert_true(fb_expect_match("any", NULL));
	assert_true(fb_expect_match("csum", "csum"));
	assert_true(fb_expect_match("repaired|clean", "clean"));
	assert_false(fb_expect_match("repaired|clean", "clea"));
	assert_false(fb_expect_match("csum", "csums"));
	assert_false(fb_expect_match("csum", NULL));
}

static char *capture(void (*fn)(FILE *, const char *), const char *in)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	fn(f, in);
	fclose(f);
	return out;
}

static void test_escaping(void **state)
{
	char *s = capture(fb_xml_puts, "a<b>&\"c'\x01\xff é\n");

	assert_string_equal(s, "a&lt;b&gt;&amp;&quot;c&#39;?? é\n");
	free(s);
	s = capture(fb_url_puts, "cases/a b@c%d#e/index.html");
	assert_string_equal(s, "cases/a%20b@c%25d%23e/index.html");
	free(s);
}

static void test_dmesg_excerpt(void **state)
{
	unsigned kept, total;
	char *ex = fb_dmesg_excerpt(
		"[0.1] Linux version 6.1\n"
		"[0.2] EXT4-fs error (device vda): bad\n"
		"[0.3] random: crng init done\n"
		"[0.4] general protection fault: 0000\n"
		"[0.5] RIP: 0010:foo\n"
		"[0.6] ---[ end trace 0 ]---\n"
		"[0.7] random: noise\n", &kept, &total);

	assert_string_equal(ex, "[0.2] EXT4-fs error (device vda): bad\n"
				"[0.4] general protection fault: 0000\n"
				"[0.5] RIP: 0010:foo\n"
				"[0.6] ---[ end trace 0 ]---\n");
	assert_int_equal(kept, 4);
	assert_int_equal(total, 7);
	free(ex);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_and_class),
		cmocka_unit_test(test_silent_change),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_interrupted),
		cmocka_unit_test(test_expect_match),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_dmesg_excerpt),
	};
	char *path;
	int ret;

	if (!mkdtemp(tmpdir))
		return 99;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	path = fb_path(tmpdir, NULL, "cases.jsonl");
	unlink(path);
	free(path);
	rmdir(tmpdir);
	return ret;
}

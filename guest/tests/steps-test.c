// SPDX-License-Identifier: MIT
/*
 * Unit test of the step parser shared by the agent and the host: what is
 * accepted, what is refused (with a reason naming what is accepted), and
 * when a result meets a step's expectation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../steps.h"

static void accepts(const char *text, enum step_id id, int argc)
{
	struct step s;
	char why[512] = "";

	if (step_parse(text, &s, why, sizeof(why)) != 0)
		fail_msg("'%s' refused: %s", text, why);
	if (s.id != id)
		fail_msg("'%s' parsed as %s", text, step_name(s.id));
	if (s.argc != argc)
		fail_msg("'%s' has %d arguments, expected %d", text, s.argc, argc);
}

static void refuses(const char *text, const char *reason)
{
	struct step s;
	char why[512] = "";

	if (step_parse(text, &s, why, sizeof(why)) != -1)
		fail_msg("'%s' accepted", text);
	if (!strstr(why, reason))
		fail_msg("'%s': reason '%s' lacks '%s'", text, why, reason);
}

static void met(const char *text, const char *result, int want)
{
	struct step s;
	char why[512];

	if (step_parse(text, &s, why, sizeof(why)) != 0)
		fail_msg("'%s' refused: %s", text, why);
	if (step_met(&s, result) != want)
		fail_msg("'%s' with result %s: met=%d, expected %d", text, result, !want, want);
}

static void test_accepted(void **state)
{
	accepts("mount", STEP_MOUNT, 0);
	accepts("mount errors=panic,noload", STEP_MOUNT, 1);
	accepts("mount journal_path=/dev/vdb,errors=remount-ro", STEP_MOUNT, 1);
	accepts("remount", STEP_REMOUNT, 0);
	accepts("remount ro", STEP_REMOUNT, 1);
	accepts("setlabel flipbed-1.0", STEP_SETLABEL, 1);
	accepts("crash", STEP_CRASH, 0);
	accepts("overlap rm /f fallocate /n 500", STEP_OVERLAP, 5);
	accepts("write /a 5000", STEP_WRITE, 2);
	accepts("write /a 5000 append", STEP_WRITE, 3);
	accepts("read /f 8192 /c", STEP_READ, 3);
	accepts("  ls  ", STEP_LS, 0);
	accepts("drop-caches", STEP_DROP_CACHES, 0);
	accepts("sleep 0.25", STEP_SLEEP, 1);
	accepts("cat /proc/mounts", STEP_CAT, 1);
	accepts("expect EFSBADCRC read /d/small", STEP_READ, 1);
	accepts("may read /x", STEP_READ, 1);
	accepts("pwrite /s 1048576 4096", STEP_PWRITE, 3);
	accepts("pread /s 0 4096", STEP_PREAD, 3);
	accepts("zeros /s 0 1048576", STEP_ZEROS, 3);
	accepts("fallocate /f 0 65536", STEP_FALLOCATE, 3);
	accepts("punch /f 4096 8192", STEP_PUNCH, 3);
	accepts("inline /d/small", STEP_INLINE, 1);
	accepts("expect ENODATA inline /big", STEP_INLINE, 1);
	accepts("open /f", STEP_OPEN, 1);
	accepts("write-fd /f 12288", STEP_WRITE_FD, 2);
	accepts("expect EROFS fsync-fd /f", STEP_FSYNC_FD, 1);
	accepts("close /f", STEP_CLOSE, 1);
}

static void test_refused(void **state)
{
	refuses("overlap chmod /f stat /n 500", "stat, rm, fallocate, getxattr or setxattr");
	refuses("overlap rm /f stat /n 60001", "MS 60001 is not what the agent runs");
	refuses("", "empty step");
	refuses("frobnicate /a", "accepted: mount, umount");
	refuses("write /a", "usage: write P BYTES");
	refuses("write-fd /f", "usage: write-fd P BYTES");
	refuses("write-fd /f 2000000000", "a byte count");
	refuses("open f", "starting with '/'");
	refuses("fsync-fd /f /g", "wrong number of arguments");
	refuses("mount /dev/vda", "journal_path=/dev/NAME");
	refuses("mount journal_path=/dev/../x", "journal_path=/dev/NAME");
	refuses("mount journal_path=/dev/", "journal_path=/dev/NAME");
	refuses("crash now", "wrong number of arguments");
	refuses("write /a 5000 sync extra", "wrong number of arguments");
	refuses("write a 5000", "starting with '/'");
	refuses("write /a -1", "a byte count");
	refuses("write /a 2000000000", "a byte count");
	refuses("write /a 10 fast", "sync, direct or append");
	refuses("read /d/../../etc/passwd", "no \"..\"");
	refuses("wait a/b", "a word");
	refuses("sleep soon", "seconds");
	refuses("cat proc/mounts", "absolute guest path");
	refuses("setlabel", "setlabel LABEL");
	refuses("setlabel a/b", "word");
	refuses("expect ENOPE read /a", "needs an errno name");
	refuses("expect", "needs an errno name");
	refuses("may", "names no step");
	refuses("write /a\n5000", "control character 0x0a");
	refuses("punch /f 4096", "usage: punch P OFF BYTES");
	refuses("fallocate /f -1 4096", "a byte count");
	refuses("pwrite f 0 10", "starting with '/'");
	refuses("inline", "usage: inline P");
}

static void test_met(void **state)
{
	met("read /a", "ok", 1);
	met("read /a", "EIO", 0);
	met("expect EBADMSG read /a", "EBADMSG", 1);
	met("expect EFSBADCRC read /a", "EBADMSG", 1);
	met("expect EFSCORRUPTED read /a", "EUCLEAN", 1);
	met("expect EBADMSG read /a", "ok", 0);
	met("expect EBADDATA read /a", "EBADDATA", 1);
	met("may read /a", "EIO", 1);
	met("expect-erofs /x", "EROFS", 1);
	met("expect-erofs /x", "ok", 0);
	met("expect-erofs /x", "EIO", 0);
}

static void test_errname(void **state)
{
	assert_string_equal(errname_canon("EROFS"), "EROFS");
	assert_null(errname_canon("EFOO"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_met),
		cmocka_unit_test(test_errname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * The order property (classify/order.h) on real transcripts: the agent's
 * lines of `flipbed boot` on the kernels named, fed through fb_classify()
 * as a case's transcript.log holds them, then fb_order_check().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "classify/classify.h"
#include "classify/order.h"

static bool check(const char *transcript, struct fb_order_violation *v)
{
	struct fb_outcome out;

	assert_int_equal(fb_classify(transcript, strlen(transcript), &out), 0);
	return fb_order_check(&out.sig, v);
}

/*
 * patched before 0005 computed an index block's checksum at its place in
 * the tree: a dx root with dx_root_info.reserved_zero flipped at rest, read
 * by `ls`. get_dx_countlimit() found no count/limit, ext4_dx_csum_check()
 * said EFSCORRUPTED and __ext4_read_dirblock logged "dir seems corrupt?"
 * (EUCLEAN) before the csum-error line.
 */
static const char dx_root_before[] =
	"A ready\n"
	"A fserror-watch /mnt\n"
	"A step 1 mount -> ok errors=remount-ro\n"
	"A fserror EUCLEAN 12 1\n"
	"A kmsg 110 2 1068399 EXT4-fs error (device vda): __ext4_read_dirblock:230: inode #12: comm init: dir seems corrupt?  Run e2fsck -D.\n"
	"A kmsg 111 3 1070542 Aborting journal on device vda-8.\n"
	"A fserror EBADMSG 12 1\n"
	"A kmsg 112 2 1077256 EXT4-fs (vda): Remounting filesystem read-only\n"
	"A kmsg 113 3 1077742 EXT4-fs csum-error (device vda): type=dx-root ino=12 block=2064 group=0\n"
	"A kmsg 114 2 1077953 EXT4-fs error (device vda): dx_probe:922: inode #12: comm init: Directory index failed checksum\n"
	"A step 2 may ls /htree -> err EBADMSG\n"
	"A done 1 0 mounted\n";

/* The same image on patched-6.12 with 0005 as it is now: the checksum first. */
static const char dx_root_after[] =
	"A ready\n"
	"A fserror-watch /mnt\n"
	"A step 1 mount -> ok errors=remount-ro\n"
	"A fserror EBADMSG 12 1\n"
	"A kmsg 123 3 1288958 EXT4-fs csum-error (device vda): type=dx-root ino=12 block=2064 group=0\n"
	"A kmsg 124 2 1290071 EXT4-fs error (device vda): dx_probe:950: inode #12: comm init: Directory index failed checksum\n"
	"A step 2 may ls /htree -> err EBADMSG\n"
	"A done 1 0 mounted\n";

/*
 * patched, a group descriptor's bg_inode_bitmap flipped at rest:
 * ext4_check_descriptors() checks the bitmap's location before
 * ext4_group_desc_csum_verify(), and the mount fails with no csum-error
 * line and no event (nothing is mounted to watch).
 */
static const char group_desc[] =
	"A ready\n"
	"A kmsg 120 3 900000 EXT4-fs (vda): ext4_check_descriptors: Inode bitmap for group 0 not in group (block 69206555)!\n"
	"A kmsg 121 3 900100 EXT4-fs (vda): group descriptors corrupted!\n"
	"A step 1 mount -> err EUCLEAN\n"
	"A done 1 1 not-mounted\n";

/* csum_retry recovered a transient flip: a csum-error line and nothing else. */
static const char recovered[] =
	"A ready\n"
	"A fserror-watch /mnt\n"
	"A step 1 mount csum_retry -> ok errors=remount-ro\n"
	"A kmsg 110 3 1000000 EXT4-fs csum-error (device vda): type=dx-node ino=12 block=2458 group=0 recovered\n"
	"A step 2 ls /big -> ok entries=1800\n"
	"A done 2 0 mounted\n";

static void error_before_csum(void **state)
{
	struct fb_order_violation v;
	char buf[640];

	(void)state;
	assert_true(check(dx_root_before, &v));
	assert_string_equal(v.function, "__ext4_read_dirblock");
	assert_non_null(strstr(v.first_line, "dir seems corrupt?"));
	assert_string_equal(v.fanotify, "EUCLEAN");
	fb_order_title(&v, buf, sizeof(buf));
	assert_string_equal(buf, "error before the checksum in __ext4_read_dirblock");
	fb_order_describe(&v, buf, sizeof(buf));
	assert_non_null(strstr(buf, "__ext4_read_dirblock logged 'EXT4-fs error (device vda): "
				    "__ext4_read_dirblock:230:"));
	assert_non_null(strstr(buf, "the first FAN_FS_ERROR event is EUCLEAN, not EBADMSG"));
}

static void csum_first(void **state)
{
	struct fb_order_violation v;

	(void)state;
	assert_false(check(dx_root_after, &v));
	assert_string_equal(v.first_line, "");
	assert_false(check(recovered, &v));
}

static void no_csum_line_at_all(void **state)
{
	struct fb_order_violation v;
	char buf[256];

	(void)state;
	assert_true(check(group_desc, &v));
	assert_string_equal(v.function, "ext4_check_descriptors");
	assert_string_equal(v.fanotify, "");
	fb_order_title(&v, buf, sizeof(buf));
	assert_string_equal(buf, "error before the checksum in ext4_check_descriptors");
}

/* An event alone (its error line lost, say) still says so, without a function. */
static void event_alone(void **state)
{
	struct fb_signals sig = { 0 };
	struct fb_order_violation v;
	char buf[256];

	(void)state;
	strcpy(sig.fan_first, "EUCLEAN");
	sig.csum_line = true;
	assert_true(fb_order_check(&sig, &v));
	fb_order_title(&v, buf, sizeof(buf));
	assert_string_equal(buf, "error before the checksum (FAN_FS_ERROR EUCLEAN)");
	strcpy(sig.fan_first, "EBADMSG");
	assert_false(fb_order_check(&sig, &v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(error_before_csum),
		cmocka_unit_test(csum_first),
		cmocka_unit_test(no_csum_line_at_all),
		cmocka_unit_test(event_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

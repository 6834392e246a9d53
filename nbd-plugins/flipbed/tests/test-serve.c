// SPDX-License-Identifier: MIT
/* flipbed plugin: serving without rules behaves like the file plugin
 * (read, write, FUA, flush, zero, trim, extents), --help lists the keys,
 * the control socket is 0600, and bad configurations fail with a reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "helper.h"

#define SIZE (8 << 20)

static int extent_flags;

static int record_extent(void *opaque, const char *ctx, uint64_t off,
			 uint32_t *entries, size_t n, int *error)
{
	extent_flags = entries[1];
	return 0;
}

static void test_io(void **state)
{
	static uint8_t buf[3 << 20], file[3 << 20];
	struct nbd_handle *h = *state;
	size_t i;

	assert_int_equal(nbd_get_size(h), SIZE);
	/* flags as the file plugin's */
	assert_true(nbd_can_multi_conn(h) == 1 && nbd_can_fua(h) == 1 &&
		    nbd_can_flush(h) == 1 && nbd_can_zero(h) == 1 &&
		    nbd_can_trim(h) == 1);
	fbt_pread(h, buf, 65536, 12345);
	for (i = 0; i < 65536; i++)
		fbt_assert(buf[i] == fbt_pattern(12345 + i), "byte %zu", i);

	memset(buf, 0xa5, 5000);
	fbt_pwrite(h, buf, 5000, 4093, LIBNBD_CMD_FLAG_FUA);
	fbt_assert(nbd_flush(h, 0) == 0, "flush: %s", nbd_get_error());
	fbt_read_image(file, 5002, 4092);
	/* write reached the file */
	assert_true(file[0] == fbt_pattern(4092) && file[1] == 0xa5 &&
		    file[5000] == 0xa5 &&
		    file[5001] == fbt_pattern(4093 + 5000));

	/* Zero more than one 1 MiB chunk, unaligned, with and without trim. */
	fbt_assert(nbd_zero(h, (2 << 20) + 3, 1000001, 0) == 0, "zero: %s",
		   nbd_get_error());
	fbt_assert(nbd_zero(h, 4096, 6 << 20, LIBNBD_CMD_FLAG_NO_HOLE) == 0,
		   "zero: %s", nbd_get_error());
	fbt_read_image(file, (2 << 20) + 5, 1000000);
	/* zero stayed in its range */
	assert_true(file[0] == fbt_pattern(1000000) &&
		    file[(2 << 20) + 4] ==
		    fbt_pattern(1000000 + (2 << 20) + 4));
	for (i = 1; i < (2 << 20) + 4; i++)
		fbt_assert(file[i] == 0, "zeroed byte %zu", 1000000 + i);
	fbt_read_image(file, 4096, 6 << 20);
	for (i = 0; i < 4096; i++)
		fbt_assert(file[i] == 0, "zeroed byte %zu", (6 << 20) + i);

	fbt_assert(nbd_trim(h, 1 << 20, 4 << 20, LIBNBD_CMD_FLAG_FUA) == 0,
		   "trim: %s", nbd_get_error());
	fbt_pread(h, buf, 4096, (5 << 20));
	/* trim stayed in its range */
	assert_int_equal(buf[0], fbt_pattern(5 << 20));
}

static void test_extents(void **state)
{
	struct nbd_handle *h;
	nbd_extent_callback cb = { .callback = record_extent };

	/* The image's last MiB is a hole after a trim; only extents=on says so. */
	fbt_stop();
	truncate(fbt_path("image"), SIZE + (1 << 20));
	fbt_start("extents=on", NULL);
	h = fbt_connect();
	fbt_assert(nbd_block_status(h, 4096, SIZE + 4096, cb, 0) == 0,
		   "block status: %s", nbd_get_error());
	nbd_close(h);
	/* extents=on reports the hole */
	assert_true(extent_flags & LIBNBD_STATE_HOLE);

	fbt_stop();
	fbt_start(NULL);
	h = fbt_connect();
	extent_flags = -1;
	fbt_assert(nbd_block_status(h, 4096, SIZE + 4096, cb, 0) == 0,
		   "block status: %s", nbd_get_error());
	fbt_assert(extent_flags == 0, "extents=off reports data (flags %d)",
		   extent_flags);
	nbd_close(h);
}

static void expect_start_error(const char *want, const char *a, const char *b,
			       const char *c)
{
	char *err = fbt_start_fails(a, b, c, NULL);

	fbt_assert(strstr(err, want) != NULL, "wanted '%s' in: %s", want, err);
	free(err);
}

/* A second server given the control socket of a live one must refuse to
 * start and leave the socket alone; a socket nobody answers on any more
 * (its server was killed) is replaced.
 */
static void test_control_in_use(void **state)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char img[300], ctl[300], want[400];
	int fd;

	snprintf(img, sizeof img, "file=%s", fbt_path("image"));
	snprintf(ctl, sizeof ctl, "control=%s", fbt_path("ctl.sock"));
	snprintf(want, sizeof want, "control=%s: socket is in use",
		 fbt_path("ctl.sock"));
	fbt_ctl_ok("add id=first on=read at=0 zero");
	expect_start_error(want, img, ctl, NULL);
	/* the first server still owns its control socket */
	assert_non_null(strstr(fbt_ctl_ok("list"), "id=first "));
	fbt_ctl_ok("clear");

	fbt_stop();
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(a.sun_path, fbt_path("ctl.sock"));
	fbt_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0,
		   "bind a stale socket: %m");
	close(fd);
	fbt_start(NULL);
	fbt_ctl_ok("stats");
}

static void test_bad_config(void **state)
{
	char file[300], rules[300], ctl[300], img[300], want[400];
	FILE *fp;

	snprintf(img, sizeof img, "file=%s", fbt_path("image"));
	expect_start_error("file=IMAGE is required", "faultlog=/dev/null",
			   NULL, NULL);
	expect_start_error("no-such-image", "file=/nonexistent/no-such-image",
			   NULL, NULL);
	expect_start_error("unknown parameter 'bogus'", img, "bogus=1", NULL);

	fp = fopen(fbt_path("bad.rules"), "w");
	fprintf(fp, "# comment\n\non=read at=0 flip=1\non=read at=0 wibble=3\n");
	fclose(fp);
	snprintf(rules, sizeof rules, "rules=%s", fbt_path("bad.rules"));
	snprintf(file, sizeof file, "%s:4: unknown key 'wibble'",
		 fbt_path("bad.rules"));
	expect_start_error(file, img, rules, NULL);

	/* Input that never ends, or is not text: refused early, by name. */
	snprintf(want, sizeof want, "rules=/dev/zero: not a regular file");
	expect_start_error(want, img, "rules=/dev/zero", NULL);
	fp = fopen(fbt_path("long.rules"), "w");
	fprintf(fp, "#%04094d\n", 0);	/* 4096 bytes with its newline */
	fprintf(fp, "on=read at=0 %05000d\n", 0);
	fclose(fp);
	snprintf(rules, sizeof rules, "rules=%s", fbt_path("long.rules"));
	snprintf(want, sizeof want, "%s:2: line longer than 4096 bytes",
		 fbt_path("long.rules"));
	expect_start_error(want, img, rules, NULL);
	fp = fopen(fbt_path("nul.rules"), "w");
	fprintf(fp, "on=read at=0 zero%c junk\n", 0);
	fclose(fp);
	snprintf(rules, sizeof rules, "rules=%s", fbt_path("nul.rules"));
	snprintf(want, sizeof want, "%s:1: NUL byte at column 18",
		 fbt_path("nul.rules"));
	expect_start_error(want, img, rules, NULL);
	fbt_assert(truncate(fbt_path("nul.rules"), 0) == 0 &&
		   truncate(fbt_path("nul.rules"), 65536) == 0, "zeros: %m");
	snprintf(want, sizeof want, "%s:1: NUL byte at column 1",
		 fbt_path("nul.rules"));
	expect_start_error(want, img, rules, NULL);

	fp = fopen(fbt_path("far.rules"), "w");
	fprintf(fp, "on=rest at=%d zero\n", 2 * SIZE);
	fclose(fp);
	snprintf(rules, sizeof rules, "rules=%s", fbt_path("far.rules"));
	expect_start_error("is outside the disk", img, rules, NULL);

	fp = fopen(fbt_path("notasocket"), "w");
	fprintf(fp, "keep me\n");
	fclose(fp);
	snprintf(ctl, sizeof ctl, "control=%s", fbt_path("notasocket"));
	expect_start_error("exists and is not a socket", img, ctl, NULL);
	assert_int_equal(access(fbt_path("notasocket"), F_OK), 0);
}

/* --help lists the keys; the control socket is its owner's alone. */
static void test_help(void **state)
{
	char cmd[1000];
	struct stat st;

	snprintf(cmd, sizeof cmd,
		 "%snbdkit %s --help > %s && grep -q 'control=SOCKET' %s && "
		 "grep -q 'faultlog=FILE' %s && grep -q 'rules=FILE' %s && "
		 "grep -q 'writelog=FILE' %s",
		 fbt_nbdkit_env(), FB_PLUGIN, fbt_path("help"),
		 fbt_path("help"), fbt_path("help"), fbt_path("help"),
		 fbt_path("help"));
	/* --help lists control=, faultlog=, rules=, writelog= */
	assert_int_equal(system(cmd), 0);
	fbt_assert(stat(fbt_path("ctl.sock"), &st) == 0 &&
		   (st.st_mode & 0777) == 0600, "control socket mode %o",
		   st.st_mode & 0777);
}

FBT_SERVE_SETUP(SIZE)

FBT_MAIN(setup,
	cmocka_unit_test(test_help),
	fbt_connected_test(test_io),
	cmocka_unit_test(test_extents),
	cmocka_unit_test(test_control_in_use),
	cmocka_unit_test(fbt_stop_case),
	cmocka_unit_test(test_bad_config))

// SPDX-License-Identifier: MIT
/*
 * fb_resolve_paths() (harness/judge/resolve.c) gives every path what
 * ext2fs_namei() gives it, on real images made by mkfs.ext4 -d:
 *  - a directory of 3,000 files (a multi-block, hashed directory), nested
 *    directories, a symlink to a directory on the way, a path through a
 *    regular file, names that are not there, a missing parent, the same
 *    path twice, a relative path and one ending in '/';
 *  - the same image with one block of the big directory overwritten with
 *    garbage: a name before the bad block is found, one after it gets the
 *    error the directory iteration met, exactly as namei says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <ext2fs/ext2fs.h>

#include "judge/resolve.h"

#define NBIG 3000

static char dir[] = "/tmp/flipbed-resolve.XXXXXX";
static char image[sizeof(dir) + 16];
static const char *paths[NBIG + 64];
static int npaths;

static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd))
		fail_msg("'%s' failed", cmd);
}

static void add(const char *p)
{
	paths[npaths++] = p;
}

static int make_image(void **state)
{
	FILE *f;
	char p[256];

	if (!mkdtemp(dir))
		return -1;
	snprintf(image, sizeof(image), "%s/img", dir);
	sh("mkdir -p %s/tree/big %s/tree/a/b/c %s/tree/real", dir, dir, dir);
	for (int i = 0; i < NBIG; i++) {
		snprintf(p, sizeof(p), "%s/tree/big/file-with-a-long-name-%05d", dir, i);
		f = fopen(p, "w");
		if (!f)
			return -1;
		fprintf(f, "%d\n", i);
		fclose(f);
	}
	sh("echo x > %s/tree/a/b/c/deep && echo y > %s/tree/top && echo z > %s/tree/real/in",
	   dir, dir, dir);
	sh("ln -s real %s/tree/link", dir);
	sh("mkfs.ext4 -q -F -b 1024 -O metadata_csum -d %s/tree %s 16M", dir, image);
	for (int i = 0; i < NBIG; i += 7) {
		snprintf(p, sizeof(p), "/big/file-with-a-long-name-%05d", i);
		add(strdup(p));
	}
	add("/big/not-there");
	add("/big/file-with-a-long-name-00007");	/* twice */
	add("/a/b/c/deep");
	add("/a/b/c/nothing");
	add("/a/b/missing/deep");
	add("/link/in");
	add("/link");
	add("/top");
	add("/top/below");
	add("/");
	add("/a/b/");
	add("a/b/c/deep");
	add("/big/file-with-a-long-name-0000");	/* a prefix of real names */
	add("/big/file-with-a-long-name-000000");	/* longer than any */
	*state = NULL;
	return 0;
}

static int remove_image(void **state)
{
	sh("rm -rf %s", dir);
	return 0;
}

/* Every path of PATHS: fb_resolve_paths() against ext2fs_namei(); how many errors. */
static int compare(ext2_filsys fs)
{
	ext2_ino_t ino[NBIG + 64];
	errcode_t err[NBIG + 64];
	int errors = 0;

	fb_resolve_paths(fs, paths, npaths, ino, err);
	for (int i = 0; i < npaths; i++) {
		ext2_ino_t want_ino = 0;
		errcode_t want = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, paths[i], &want_ino);

		if (err[i] != want)
			fail_msg("%s: resolve says %ld (%s), namei %ld (%s)", paths[i], (long)err[i],
				 error_message(err[i]), (long)want, error_message(want));
		if (!want && ino[i] != want_ino)
			fail_msg("%s: resolve says inode %u, namei %u", paths[i], ino[i], want_ino);
		errors += want != 0;
	}
	return errors;
}

static ext2_filsys open_image(void)
{
	ext2_filsys fs;

	assert_int_equal(ext2fs_open2(image, NULL, EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS,
				      0, 0, unix_io_manager, &fs), 0);
	return fs;
}

static void test_same_as_namei(void **state)
{
	ext2_filsys fs = open_image();
	int errors = compare(fs);

	/* not-there, c/nothing, missing/deep, top/below: namei's errors, met too */
	assert_true(errors >= 4);
	ext2fs_close_free(&fs);
}

static void test_corrupted_directory(void **state)
{
	ext2_filsys fs = open_image();
	ext2_ino_t big;
	blk64_t blk = 0;
	struct ext2_inode inode;
	int errors;

	assert_int_equal(ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, "/big", &big), 0);
	assert_int_equal(ext2fs_read_inode(fs, big, &inode), 0);
	/* a block in the middle of the directory: names before it, names after it */
	assert_int_equal(ext2fs_bmap2(fs, big, &inode, NULL, 0, inode.i_size / 1024 / 2, NULL,
				      &blk), 0);
	assert_true(blk > 0);
	ext2fs_close_free(&fs);
	sh("dd if=/dev/urandom of=%s bs=1024 seek=%llu count=1 conv=notrunc status=none", image,
	   (unsigned long long)blk);
	fs = open_image();
	errors = compare(fs);
	/* the bad block hides the names behind it: more errors than on the clean image */
	assert_true(errors > 4);
	ext2fs_close_free(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_namei),
		cmocka_unit_test(test_corrupted_directory),
	};

	initialize_ext2_error_table();
	return cmocka_run_group_tests(tests, make_image, remove_image);
}

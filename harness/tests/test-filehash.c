// SPDX-License-Identifier: MIT
/*
 * The golden image's content hash (golden/filehash.h) reads only the data
 * of a sparse file: it must give what reading every byte gives (the
 * reference below, the hash golden images were first built with, so that
 * their cached hashes stay valid), for holes anywhere, data at unaligned
 * offsets, sizes that are not a multiple of 8 and a file that ends in a
 * hole; and a one-bit change anywhere, in data or in a hole, changes it.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "guest/agent.h"
#include "golden/filehash.h"

/* Every byte read, 1 MiB at a time: words, then each chunk's n % 8 bytes. */
static uint64_t reference(const char *path)
{
	static unsigned char buf[1 << 20];
	uint64_t h = FNV1A_INIT;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		const uint64_t *w = (const uint64_t *)buf;

		for (size_t i = 0; i < (size_t)n / 8; i++)
			h = (h ^ w[i]) * 0x100000001b3ULL;
		h = fnv1a(h, buf + n / 8 * 8, n % 8);
	}
	close(fd);
	return h;
}

static char path[] = "/tmp/flipbed-filehash-XXXXXX";

/* A file of SIZE bytes, holes but for LEN bytes of 0xa5.. at each of OFF[0..N-1]. */
static void make(off_t size, const off_t *off, int n, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	unsigned char *b = malloc(len);

	assert_true(fd >= 0 && b);
	for (size_t i = 0; i < len; i++)
		b[i] = 0xa5 ^ (unsigned char)(i * 7);
	assert_int_equal(ftruncate(fd, size), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(pwrite(fd, b, len, off[i]), (ssize_t)len);
	close(fd);
	free(b);
}

static void same(void)
{
	uint64_t h = 0;

	assert_int_equal(fb_file_hash(path, &h), 0);
	assert_true(h == reference(path));
}

static void test_layouts(void **state)
{
	const off_t some[] = { 0, 4096 * 3 + 100, (1 << 20) - 3, 5 << 20 };
	const off_t end[] = { (8 << 20) - 13 };

	(void)state;
	make(0, NULL, 0, 0);
	same();
	make(13, some, 1, 13);
	same();
	make(64 << 20, NULL, 0, 0);		/* all hole */
	same();
	make((64 << 20) + 5, NULL, 0, 0);	/* all hole, size not a multiple of 8 */
	same();
	make((8 << 20) + 3, some, 4, 5000);	/* data at unaligned places, ends in a hole */
	same();
	make(8 << 20, end, 1, 13);		/* data to the very end, unaligned */
	same();
	make(3 << 20, some, 3, 2 << 20);	/* segments longer than one read */
	same();
}

static void test_one_bit(void **state)
{
	const off_t some[] = { 4096, 1 << 20 };
	const off_t flip[] = { 4096 + 17, 300000, (2 << 20) - 1 };
	uint64_t h0, h;

	(void)state;
	make(2 << 20, some, 2, 4096);
	assert_int_equal(fb_file_hash(path, &h0), 0);
	for (int i = 0; i < 3; i++) {
		int fd = open(path, O_RDWR);
		unsigned char c;

		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &c, 1, flip[i]), 1);
		c ^= 0x10;
		assert_int_equal(pwrite(fd, &c, 1, flip[i]), 1);
		close(fd);
		assert_int_equal(fb_file_hash(path, &h), 0);
		assert_true(h != h0);
		assert_true(h == reference(path));
		h0 = h;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_one_bit),
	};
	int fd = mkstemp(path), rc;

	if (fd < 0)
		return 1;
	close(fd);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return rc;
}

// SPDX-License-Identifier: MIT
/* fuzz.h: the sandbox and file helpers of the harness's fuzz targets. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "util.h"

static char sandbox[PATH_MAX];

static void sandbox_remove(void)
{
	fb_remove_tree(sandbox);
}

const char *fuzz_sandbox(void)
{
	if (sandbox[0])
		return sandbox;
	if (fb_private_dir(sandbox, sizeof(sandbox))) {
		perror("fuzz: cannot make a sandbox under $TMPDIR");
		abort();
	}
	atexit(sandbox_remove);
	return sandbox;
}

void fuzz_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	const char *p = data;

	if (fd < 0) {
		perror(path);
		abort();
	}
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0) {
			perror(path);
			abort();
		}
		p += n;
		len -= n;
	}
	close(fd);
}

void fuzz_copy(const char *from, const char *to)
{
	size_t len;
	char *text = fb_slurp(from, &len);

	if (!text) {
		fprintf(stderr, "fuzz: %s: cannot read it; run the fuzzer from the repository's top\n",
			from);
		abort();
	}
	fuzz_write(to, text, len);
	free(text);
}

void fuzz_split(const uint8_t *data, size_t size, const char *sep,
		const uint8_t **ret_tail, size_t *ret_head_len, size_t *ret_tail_len)
{
	size_t k = strlen(sep);

	*ret_tail = NULL;
	*ret_head_len = size;
	*ret_tail_len = 0;
	for (size_t i = 0; i + k <= size; i++) {
		if ((i && data[i - 1] != '\n') || memcmp(data + i, sep, k) ||
		    (i + k < size && data[i + k] != '\n'))
			continue;
		*ret_head_len = i;
		*ret_tail = data + i + k + (i + k < size);
		*ret_tail_len = size - (*ret_tail - data);
		return;
	}
}

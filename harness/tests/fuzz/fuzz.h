/* SPDX-License-Identifier: MIT */
/*
 * Helpers the harness's libFuzzer targets share: a private sandbox
 * directory for the files a parser reads, removed at exit, and writing one
 * input into it.
 */
#ifndef FLIPBED_FUZZ_H
#define FLIPBED_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/*
 * Make a private directory under $TMPDIR (or /tmp), removed at exit, and
 * return its path. Aborts when it cannot: a fuzzer without its sandbox
 * would report nothing but its own failure.
 */
const char *fuzz_sandbox(void);

/* Write LEN bytes of DATA to PATH (created or truncated); aborts on failure. */
void fuzz_write(const char *path, const void *data, size_t len);

/* Copy the repository file FROM (relative to the current directory) to TO. */
void fuzz_copy(const char *from, const char *to);

/*
 * Split DATA at the first line that is exactly SEP ("=== set"): *ret_head
 * gets the bytes before it, *ret_tail those after (NULL and 0 without the
 * line). Both point into DATA.
 */
void fuzz_split(const uint8_t *data, size_t size, const char *sep,
		const uint8_t **ret_tail, size_t *ret_head_len, size_t *ret_tail_len);

#endif

// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the matrix parser and case expansion. The input is a
 * matrix file, written into a sandbox laid out like the repository (a few
 * real scenarios under scenarios/, their fixtures) and expanded with
 * fb_matrix_expand from the sandbox, so its globs match those scenarios.
 *
 * A glob is a path the expansion walks: an input naming an absolute path
 * or ".." would walk the host's file system, which says nothing about the
 * parser and can take minutes, so such inputs are not run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "scenario/matrix.h"
#include "util.h"

static const char *const files[] = {
	"scenarios/inode/base-flip.scn",
	"scenarios/dir/leaf-flip.scn",
	"scenarios/bigalloc/workload.scn",
	"scenarios/fixtures/base.fix",
	"scenarios/fixtures/bigalloc-16k.fix",
	"scenarios/fixtures/bigalloc-64k.fix",
	"scenarios/fixtures/bigalloc-1m.fix",
};

static char input[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *box = fuzz_sandbox();
	char to[4096], *slash;

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		snprintf(to, sizeof(to), "%s/%s", box, files[i]);
		slash = strrchr(to, '/');
		*slash = '\0';
		if (fb_mkdirs(to))
			abort();
		*slash = '/';
		fuzz_copy(files[i], to);
	}
	snprintf(input, sizeof(input), "%s/fuzz.mat", box);
	/* the globs are relative to the sandbox; libFuzzer's paths must be absolute */
	if (chdir(box))
		abort();
	return 0;
}

/* Whether the input names a path outside the sandbox. */
static bool escapes(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (data[i] == '/' && (!i || strchr(" \t=\n", data[i - 1])))
			return true;
		if (data[i] == '.' && i + 1 < size && data[i + 1] == '.')
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fb_select sel = { 0 };
	struct fb_case_specs specs;

	if (escapes(data, size))
		return -1;
	fuzz_write(input, data, size);
	fb_matrix_expand(input, &sel, &specs);
	fb_case_specs_free(&specs);
	return 0;
}

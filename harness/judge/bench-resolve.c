// SPDX-License-Identifier: MIT
/*
 * make bench-resolve: the data oracle's lookups of a manifest's paths, the
 * two ways side by side on one image in one run: one ext2fs_namei() per
 * path (what the oracle did) and fb_resolve_paths() (each directory read
 * once), ROUNDS rounds each, alternating; prints each one's CPU time per
 * round (min, median, max) and the ratio of the medians. The paths are
 * read from PATHS, one a line.
 *
 *   bench-resolve IMAGE PATHS [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ext2fs/ext2fs.h>

#include "judge/resolve.h"
#include "util.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rounds = argc > 3 ? atoi(argv[3]) : 5, n = 0, cap = 1024;
	const char **paths = xcalloc(cap, sizeof(*paths));
	double *a, *b;
	char line[4096];
	ext2_filsys fs;
	FILE *f;

	if (argc < 3 || rounds < 1 || rounds > 1000) {
		fprintf(stderr, "usage: bench-resolve IMAGE PATHS [ROUNDS (1-1000)]\n");
		return 2;
	}
	f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (n + 1 >= cap)
			paths = xrealloc(paths, (cap *= 2) * sizeof(*paths));
		paths[n++] = xstrdup(line);
	}
	fclose(f);
	initialize_ext2_error_table();
	if (ext2fs_open2(argv[1], NULL, EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			 unix_io_manager, &fs)) {
		fprintf(stderr, "bench-resolve: %s: not an ext4 image\n", argv[1]);
		return 2;
	}
	ext2_ino_t *ino = xcalloc(n + 1, sizeof(*ino)), want;
	errcode_t *err = xcalloc(n + 1, sizeof(*err));
	int differ = 0;

	a = xcalloc(rounds, sizeof(*a));
	b = xcalloc(rounds, sizeof(*b));
	for (int r = 0; r < rounds; r++) {
		double t = cpu_now();

		for (int i = 0; i < n; i++)
			differ += ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, paths[i], &want) !=
				  (r ? err[i] : 0) && r;
		b[r] = cpu_now() - t;
		t = cpu_now();
		fb_resolve_paths(fs, paths, n, ino, err);
		a[r] = cpu_now() - t;
	}
	qsort(a, rounds, sizeof(*a), by_value);
	qsort(b, rounds, sizeof(*b), by_value);
	printf("%d paths, %d rounds, CPU s per round (min / median / max)\n", n, rounds);
	printf("  one ext2fs_namei per path:  %.4f / %.4f / %.4f\n", b[0], b[rounds / 2],
	       b[rounds - 1]);
	printf("  fb_resolve_paths:           %.4f / %.4f / %.4f\n", a[0], a[rounds / 2],
	       a[rounds - 1]);
	printf("  ratio of the medians, resolve / namei: %.4f (%.1fx faster)\n",
	       a[rounds / 2] / b[rounds / 2], b[rounds / 2] / (a[rounds / 2] > 0 ? a[rounds / 2] : 1e-9));
	if (differ)
		printf("  %d answers differ between the two (see test-resolve)\n", differ);
	ext2fs_close_free(&fs);
	return differ ? 1 : 0;
}

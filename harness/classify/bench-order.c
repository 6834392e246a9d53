// SPDX-License-Identifier: MIT
/*
 * make bench-order: what the order property (classify/order.c) costs a
 * case, side by side with what the classifier already spends on it. For
 * each golden transcript given (the .log files of harness/tests/classify: real boots),
 * ROUNDS times: fb_classify(), which gathers the signals the property
 * reads, then fb_order_check() and fb_order_describe() on them. Prints the
 * median nanoseconds of each per transcript and the ratio, and the
 * property's cost as a share of a case of MEDIAN_CASE seconds (a run's
 * median case, from its summary).
 *
 *   bench-order MEDIAN_CASE ROUNDS TRANSCRIPT...
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "classify/classify.h"
#include "classify/order.h"
#include "util.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double median_case = argc > 1 ? atof(argv[1]) : 0;
	int rounds = argc > 2 ? atoi(argv[2]) : 0, n = argc - 3;
	double *c, *o;
	size_t k = 0;

	if (median_case <= 0 || rounds < 1 || rounds > 100000 || n < 1) {
		fprintf(stderr, "usage: bench-order MEDIAN_CASE_SECONDS ROUNDS TRANSCRIPT...\n");
		return 2;
	}
	c = xcalloc((size_t)n * rounds, sizeof(*c));
	o = xcalloc((size_t)n * rounds, sizeof(*o));
	for (int f = 0; f < n; f++) {
		size_t len;
		char *text = fb_slurp(argv[3 + f], &len);

		if (!text) {
			perror(argv[3 + f]);
			return 2;
		}
		for (int r = 0; r < rounds; r++, k++) {
			struct fb_outcome out;
			struct fb_order_violation v;
			char why[512];
			double t = now();

			fb_classify(text, len, &out);
			c[k] = now() - t;
			t = now();
			if (fb_order_check(&out.sig, &v))
				fb_order_describe(&v, why, sizeof(why));
			o[k] = now() - t;
		}
		free(text);
	}
	qsort(c, k, sizeof(*c), by_value);
	qsort(o, k, sizeof(*o), by_value);
	printf("%d transcripts x %d rounds, median per transcript:\n", n, rounds);
	printf("  fb_classify (the signals):        %10.0f ns\n", c[k / 2] * 1e9);
	printf("  the order property on them:      %10.0f ns (%.4f x the classifier)\n",
	       o[k / 2] * 1e9, o[k / 2] / c[k / 2]);
	printf("  share of a %.3f s case:          %10.2e\n", median_case, o[k / 2] / median_case);
	return 0;
}

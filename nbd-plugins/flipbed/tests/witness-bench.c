// SPDX-License-Identifier: MIT
/* flipbed plugin: the read witness's check alone, timed. One thread asks
 * fb_witness_see about 4 KiB reads that touch no watched span, first with
 * nothing watched (the plugin then skips the call: fb_witness_armed is
 * false), then with 10 spans before every request, so that each check
 * scans all 10. Prints nanoseconds per request, side by side. Built with
 * the plugin's own objects, outside nbdkit: the two nbdkit calls the
 * witness makes are stubbed here.
 *
 * Usage: plugin-witness-bench [REQUESTS]
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "witness.h"

void nbdkit_debug(const char *fmt, ...)
{
}

void nbdkit_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Nanoseconds per request of the check flipbed_pread makes. */
static double time_checks(uint64_t n)
{
	volatile bool sink = false;
	double t = now();
	uint64_t i;

	for (i = 0; i < n; i++) {
		uint64_t off = (1 << 20) + (i % 4096) * 4096;

		sink = fb_witness_armed() &&
		       fb_witness_see(FB_OP_READ, off, 4096);
	}
	(void)sink;
	return (now() - t) * 1e9 / n;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
	double none, ten;
	int i;

	none = time_checks(n);
	for (i = 0; i < 10; i++) {
		if (fb_witness_add(i + 1, "r1", i * 65536 + 17, 8) < 0) {
			fprintf(stderr, "witness-bench: cannot watch\n");
			return 1;
		}
	}
	ten = time_checks(n);
	printf("check per request: %.1f ns with nothing watched, %.1f ns with "
	       "10 spans (+%.1f ns)\n", none, ten, ten - none);
	fb_witness_close();
	return 0;
}

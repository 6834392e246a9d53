/* SPDX-License-Identifier: MIT */
/*
 * flipbed crash: power cuts at the flush points of a fault-free workload.
 *
 * The command (crash.c) runs the workload once with the write log on, a
 * barrier before every step and after the last, at which the host counts
 * the flushes in the log (wlogscan.c, below); judge/durable.h says, from
 * those counts and the steps, which content each file must have at every
 * flush point.
 */
#ifndef FLIPBED_CRASH_H
#define FLIPBED_CRASH_H

#include <stdint.h>

/* A write log read as it grows: flushes and FUA writes counted so far. */
struct crash_wlog {
	int fd;
	uint64_t off;
	uint64_t image_size;
	long flushes, fua, records;
};

int crash_wlog_open(struct crash_wlog *w, const char *path);
/* Count the whole records appended since the last call. 0, or -1 (damaged). */
int crash_wlog_scan(struct crash_wlog *w);
void crash_wlog_close(struct crash_wlog *w);

#endif

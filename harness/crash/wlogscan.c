// SPDX-License-Identifier: MIT
/*
 * Counting the flushes of a write log while nbdkit appends to it
 * (crash.h). Only whole records are counted: a record the plugin is
 * still writing reads as a bad header and is left for the next scan.
 * Such a record is not acknowledged yet, so leaving it out keeps every
 * count at or below what the guest saw completed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crash/crash.h"
#include "wlog.h"

int crash_wlog_open(struct crash_wlog *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->fd = open(path, O_RDONLY | O_CLOEXEC);
	return w->fd < 0 ? -1 : 0;
}

static int read_header(struct crash_wlog *w)
{
	uint8_t buf[FB_WLOG_HEADER_SIZE];
	struct fb_wlog_header h;
	char err[256];

	if (pread(w->fd, buf, sizeof(buf), 0) != sizeof(buf))
		return 1;	/* not written yet */
	if (fb_wlog_header_decode(buf, &h, err, sizeof(err)))
		return -1;
	w->image_size = h.image_size;
	w->off = FB_WLOG_HEADER_SIZE;
	return 0;
}

int crash_wlog_scan(struct crash_wlog *w)
{
	uint8_t buf[FB_WLOG_RECORD_SIZE];
	struct fb_wlog_record r;
	char err[256];

	if (!w->off) {
		int rc = read_header(w);

		if (rc)
			return rc < 0 ? -1 : 0;
	}
	while (pread(w->fd, buf, sizeof(buf), w->off) == sizeof(buf)) {
		if (fb_wlog_record_decode(buf, w->image_size, &r, err, sizeof(err)))
			break;
		if (r.seq != (uint64_t)w->records + 1)
			break;
		w->records++;
		w->off += r.size;
		if (r.type == FB_WLOG_FLUSH)
			w->flushes++;
		if (r.flags & FB_WLOG_FUA)
			w->fua++;
	}
	return 0;
}

void crash_wlog_close(struct crash_wlog *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

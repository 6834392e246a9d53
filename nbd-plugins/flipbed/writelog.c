// SPDX-License-Identifier: MIT
/* flipbed: the write log (see writelog.h and wlog.h).
 *
 * One lock orders the records: a record's header and data go out with
 * one pwritev(2) at the log's end while it is held, into blocks reserved
 * ahead in large steps. If the log cannot be
 * written (disk full), it is cut back to its last whole record and no
 * more is logged: a log ends early rather than with a gap, and nbdkit
 * says so in its error log.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "disk.h"
#include "writelog.h"

#define HASH_CHUNK (1024 * 1024)
#define PREALLOC (64 << 20)	/* the log's blocks are reserved this far ahead */

bool fb_writelog_on;
static int fd = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t end;		/* bytes of whole records (and the header) */
static uint64_t seq;		/* the last record's seq */
static uint64_t reserved;	/* blocks are allocated up to here */
static bool broken;

/* XXH64 of the whole disk. */
static int hash_disk(uint64_t *ret)
{
	uint64_t size = fb_disk_size(), off;
	uint8_t *buf = malloc(HASH_CHUNK);
	struct fb_xxh64 s;

	if (!buf)
		return -1;
	fb_xxh64_init(&s, 0);
	for (off = 0; off < size; off += HASH_CHUNK) {
		uint64_t n = size - off < HASH_CHUNK ? size - off : HASH_CHUNK;

		if (fb_disk_pread(buf, n, off) < 0) {
			free(buf);
			return -1;
		}
		fb_xxh64_update(&s, buf, n);
	}
	free(buf);
	*ret = fb_xxh64_digest(&s);
	return 0;
}

/* Write all of iov (n entries) at off, resuming after short writes. */
static int write_at(struct iovec *iov, int n, uint64_t off)
{
	while (n > 0) {
		ssize_t w = pwritev(fd, iov, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		off += w;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
	return 0;
}

int fb_writelog_open(const char *path)
{
	struct fb_wlog_header h = { .version = FB_WLOG_VERSION };
	uint8_t buf[FB_WLOG_HEADER_SIZE];
	struct iovec iov = { buf, sizeof buf };

	h.image_size = fb_disk_size();
	if (hash_disk(&h.image_hash) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	fb_wlog_header_encode(buf, &h);
	if (write_at(&iov, 1, 0) < 0)
		return -1;
	end = sizeof buf;
	fb_writelog_on = true;
	nbdkit_debug("flipbed: write log %s: image of %" PRIu64 " bytes, "
		     "XXH64 %016" PRIx64, path, h.image_size, h.image_hash);
	return 0;
}

void fb_writelog_close(void)
{
	if (fd >= 0 && reserved > end && ftruncate(fd, end) < 0)
		nbdkit_error("flipbed: write log: giving back reserved "
			     "blocks: %m");
	if (fd >= 0)
		close(fd);
	fd = -1;
	fb_writelog_on = false;
}

/* Append one record; the lock is held. */
static void append(unsigned type, unsigned flags, uint64_t off, uint64_t len,
		   const void *data)
{
	struct fb_wlog_record r = {
		.type = type, .flags = flags, .seq = seq + 1, .offset = off,
		.length = len,
	};
	uint8_t head[FB_WLOG_RECORD_SIZE];
	struct iovec iov[2] = { { head, sizeof head }, { (void *)data, 0 } };
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	r.ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (type == FB_WLOG_WRITE)
		iov[1].iov_len = len;
	r.size = FB_WLOG_RECORD_SIZE + iov[1].iov_len;
	fb_wlog_record_encode(head, &r);
	/* Reserving blocks in large steps spares each append the file
	 * system's allocation; KEEP_SIZE leaves the log's size at its last
	 * whole record, and close gives back what was not used.
	 */
	if (end + r.size > reserved &&
	    fallocate(fd, FALLOC_FL_KEEP_SIZE, end, r.size + PREALLOC) == 0)
		reserved = end + r.size + PREALLOC;
	if (write_at(iov, iov[1].iov_len ? 2 : 1, end) < 0) {
		nbdkit_error("flipbed: write log: record %" PRIu64 ": %m; "
			     "nothing more is logged (the log ends with "
			     "record %" PRIu64 ")", seq + 1, seq);
		if (ftruncate(fd, end) < 0)
			nbdkit_error("flipbed: write log: cutting off a "
				     "partial record: %m");
		broken = true;
		return;
	}
	end += r.size;
	seq++;
}

void fb_writelog_store(enum fb_op op, unsigned flags, const void *buf,
		       uint64_t len, uint64_t off)
{
	unsigned type = op == FB_OP_WRITE ? FB_WLOG_WRITE :
			op == FB_OP_ZERO ? FB_WLOG_ZERO : FB_WLOG_TRIM;
	uint64_t max = type == FB_WLOG_WRITE ? FB_WLOG_DATA_MAX :
		       FB_WLOG_EXTENT_MAX;
	const uint8_t *p = buf;

	pthread_mutex_lock(&lock);
	while (len > 0 && !broken) {
		uint64_t n = len < max ? len : max;

		append(type, flags, off, n, p);
		off += n;
		len -= n;
		if (p)
			p += n;
	}
	pthread_mutex_unlock(&lock);
}

unsigned fb_writelog_flags(enum fb_op op, uint32_t flags)
{
	return (flags & NBDKIT_FLAG_FUA ? FB_WLOG_FUA : 0) |
	       (op == FB_OP_ZERO && (flags & NBDKIT_FLAG_MAY_TRIM) ?
		FB_WLOG_MAY_TRIM : 0);
}

void fb_writelog_flush(void)
{
	pthread_mutex_lock(&lock);
	if (!broken)
		append(FB_WLOG_FLUSH, 0, 0, 0, NULL);
	pthread_mutex_unlock(&lock);
}

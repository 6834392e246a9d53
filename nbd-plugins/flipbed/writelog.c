// SPDX-License-Identifier: MIT
/* flipbed: the write log (see writelog.h and wlog.h).
 *
 * Records are committed in groups, and each request waits for its own:
 * under one lock a record gets the next seq and is copied into a batch
 * buffer, and its request then waits until the batch holding it is in
 * the file. The first waiter that finds no write under way writes the
 * whole batch with one pwrite(2) (outside the lock, while the others
 * fill a second buffer), so that requests served at the same time share
 * one system call. A record too large to copy goes out with the batch
 * before it, in one pwritev(2). The log's blocks are reserved ahead in
 * large steps. If the log cannot be written (disk full), it is cut back
 * to its last whole record and no more is logged: a log ends early
 * rather than with a gap, and nbdkit says so in its error log.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "image.h"
#include "writelog.h"

#define HASH_CHUNK (1024 * 1024)
#define PREALLOC (64 << 20)	/* the log's blocks are reserved this far ahead */
#define BATCH (1024 * 1024)	/* bytes of records one buffer holds */
#define COPY_MAX (64 * 1024)	/* larger records are not copied */

bool fb_writelog_on;
static int fd = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t written_cond = PTHREAD_COND_INITIALIZER;
static uint8_t *batch, *spare;	/* records not yet written; the other buffer */
static size_t used;		/* bytes in batch */
static uint64_t end;		/* the log's bytes, batch included */
static uint64_t written;	/* bytes in the file (whole records) */
static uint64_t seq;		/* the last record's seq */
static uint64_t seq_written;	/* the last seq in the file */
static bool writing;		/* a batch is being written, lock not held */
static bool broken;
static uint64_t reserved;	/* blocks are allocated up to here (writer) */

/* XXH64 of the whole image. */
static int hash_image(uint64_t *ret)
{
	uint64_t size = fp_image_size(), off;
	uint8_t *buf = malloc(HASH_CHUNK);
	struct fb_xxh64 s;

	if (!buf)
		return -1;
	fb_xxh64_init(&s, 0);
	for (off = 0; off < size; off += HASH_CHUNK) {
		uint64_t n = size - off < HASH_CHUNK ? size - off : HASH_CHUNK;

		if (fp_image_pread(buf, n, off) < 0) {
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

	batch = malloc(BATCH);
	spare = malloc(BATCH);
	if (!batch || !spare)
		return -1;
	h.image_size = fp_image_size();
	if (hash_image(&h.image_hash) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	fb_wlog_header_encode(buf, &h);
	if (write_at(&iov, 1, 0) < 0)
		return -1;
	end = written = sizeof buf;
	fb_writelog_on = true;
	nbdkit_debug("flipbed: write log %s: image of %" PRIu64 " bytes, "
		     "XXH64 %016" PRIx64, path, h.image_size, h.image_hash);
	return 0;
}

void fb_writelog_close(void)
{
	if (fd >= 0 && reserved > written && ftruncate(fd, written) < 0)
		nbdkit_error("flipbed: write log: giving back reserved "
			     "blocks: %m");
	if (fd >= 0)
		close(fd);
	fd = -1;
	free(batch);
	free(spare);
	batch = spare = NULL;
	fb_writelog_on = false;
}

/* Write the batch (and one more record, more, when not NULL) at the
 * end of the file. Called with the lock held and no write under way;
 * drops the lock while it writes.
 */
static void write_batch(struct iovec *more)
{
	struct iovec iov[3] = { { batch, used } };
	uint64_t at = written, last = seq, n = used;
	uint8_t *out = batch;
	int niov = 1;

	if (more) {
		iov[1] = more[0];
		iov[2] = more[1];
		niov = more[1].iov_len ? 3 : 2;
		n += more[0].iov_len + more[1].iov_len;
	}
	/* Later records go to the other buffer meanwhile. */
	writing = true;
	batch = spare;
	spare = NULL;
	used = 0;
	pthread_mutex_unlock(&lock);
	/* Reserving blocks in large steps spares each write the file
	 * system's allocation; KEEP_SIZE leaves the log's size at its last
	 * whole record, and close gives back what was not used.
	 */
	if (at + n > reserved &&
	    fallocate(fd, FALLOC_FL_KEEP_SIZE, at, n + PREALLOC) == 0)
		reserved = at + n + PREALLOC;
	if (write_at(iov, niov, at) < 0) {
		nbdkit_error("flipbed: write log: records %" PRIu64 " to %"
			     PRIu64 ": %m; nothing more is logged (the log "
			     "ends with record %" PRIu64 ")", seq_written + 1,
			     last, seq_written);
		if (ftruncate(fd, at) < 0)
			nbdkit_error("flipbed: write log: cutting off a "
				     "partial record: %m");
		pthread_mutex_lock(&lock);
		broken = true;
	} else {
		pthread_mutex_lock(&lock);
		written = at + n;
		seq_written = last;
	}
	spare = out;
	writing = false;
	pthread_cond_broadcast(&written_cond);
}

/* Return once the log's first upto bytes are in the file (or the log
 * broke). The lock is held.
 */
static void wait_written(uint64_t upto)
{
	while (written < upto && !broken) {
		if (writing) {
			pthread_cond_wait(&written_cond, &lock);
			continue;
		}
		write_batch(NULL);
	}
}

/* Append one record and wait until it is in the file; the lock is held. */
static void append(unsigned type, unsigned flags, uint64_t off, uint64_t len,
		   const void *data)
{
	struct fb_wlog_record r = {
		.type = type, .flags = flags, .offset = off, .length = len,
	};
	uint64_t dlen = type == FB_WLOG_WRITE ? len : 0;
	uint8_t head[FB_WLOG_RECORD_SIZE];
	struct iovec more[2] = { { head, sizeof head }, { (void *)data, dlen } };
	struct timespec ts;

	r.size = FB_WLOG_RECORD_SIZE + dlen;
	/* A large record waits for the write under way, then goes out
	 * after the batch, in the same write; a small one waits for room.
	 */
	while (!broken && (r.size > COPY_MAX ? writing :
			   used + r.size > BATCH)) {
		if (writing)
			pthread_cond_wait(&written_cond, &lock);
		else
			write_batch(NULL);
	}
	if (broken)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r.ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	r.seq = ++seq;
	end += r.size;
	fb_wlog_record_encode(head, &r);
	if (r.size > COPY_MAX) {
		write_batch(more);
		return;
	}
	memcpy(batch + used, head, sizeof head);
	if (dlen)
		memcpy(batch + used + sizeof head, data, dlen);
	used += r.size;
	wait_written(end);
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

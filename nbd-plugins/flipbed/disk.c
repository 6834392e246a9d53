// SPDX-License-Identifier: MIT
/* flipbed: the disk, the image file the plugin serves (see disk.h). One
 * descriptor serves every connection: pread and pwrite take explicit
 * offsets, and flush is fdatasync of the whole file, which is what makes
 * multi-conn safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/falloc.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "disk.h"

#define ZERO_CHUNK (1024 * 1024)

static int fd = -1;
static bool writable;
static uint64_t size;
static _Atomic bool frozen;

void fb_disk_freeze(void)
{
	frozen = true;
}

bool fb_disk_frozen(void)
{
	return frozen;
}

int fb_disk_open(const char *path)
{
	struct stat st;

	writable = true;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
		writable = false;
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		return -1;
	if (S_ISREG(st.st_mode)) {
		size = st.st_size;
	} else {
		off_t end = lseek(fd, 0, SEEK_END);

		if (end < 0)
			return -1;
		size = end;
	}
	return 0;
}

void fb_disk_close(void)
{
	if (fd >= 0)
		close(fd);
	fd = -1;
}

uint64_t fb_disk_size(void)
{
	return size;
}

bool fb_disk_writable(void)
{
	return writable;
}

int fb_disk_pread(void *buf, uint64_t len, uint64_t off)
{
	char *p = buf;

	while (len > 0) {
		ssize_t r = pread(fd, p, len, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = EIO;	/* the file shrank under us */
			return -1;
		}
		p += r;
		len -= r;
		off += r;
	}
	return 0;
}

int fb_disk_pwrite(const void *buf, uint64_t len, uint64_t off)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t r = pwrite(fd, p, len, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		p += r;
		len -= r;
		off += r;
	}
	return 0;
}

int fb_disk_flush(void)
{
	return fdatasync(fd);
}

static bool unsupported(int e)
{
	return e == EOPNOTSUPP || e == ENOSYS || e == ENODEV;
}

/* Writes every chunk at its own offset (nbdkit 1.32's own fallback for a
 * failed zero writes them all at the same offset).
 */
static int write_zeros(uint64_t len, uint64_t off)
{
	static const char zeros[ZERO_CHUNK];

	while (len > 0) {
		uint64_t n = len < ZERO_CHUNK ? len : ZERO_CHUNK;

		if (fb_disk_pwrite(zeros, n, off) < 0)
			return -1;
		len -= n;
		off += n;
	}
	return 0;
}

int fb_disk_zero(uint64_t len, uint64_t off, bool may_trim)
{
	if (may_trim &&
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) == 0)
		return 0;
	if (fallocate(fd, FALLOC_FL_ZERO_RANGE, off, len) == 0)
		return 0;
	if (!unsupported(errno))
		return -1;
	return write_zeros(len, off);
}

int fb_disk_trim(uint64_t len, uint64_t off)
{
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) == 0)
		return 0;
	return unsupported(errno) ? 0 : -1;
}

int fb_disk_extents(uint64_t len, uint64_t off, bool req_one,
		    struct nbdkit_extents *extents)
{
	uint64_t end = off + len;

	while (off < end) {
		off_t data = lseek(fd, off, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			data = end;	/* only a hole up to the end of file */
		else if (data < 0)
			return -1;
		if ((uint64_t)data > off) {
			if (nbdkit_add_extent(extents, off, data - off,
					      NBDKIT_EXTENT_HOLE |
					      NBDKIT_EXTENT_ZERO) < 0)
				return -1;
			off = data;
			if (req_one || off >= end)
				break;
		}
		hole = lseek(fd, off, SEEK_HOLE);
		if (hole < 0)
			return -1;
		if (nbdkit_add_extent(extents, off, hole - off, 0) < 0)
			return -1;
		off = hole;
		if (req_one)
			break;
	}
	return 0;
}

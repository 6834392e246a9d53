// SPDX-License-Identifier: MIT
/*
 * The content hash of a golden image (filehash.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest/agent.h"
#include "golden/filehash.h"

#define FNV_PRIME 0x100000001b3ULL

/* H after WORDS 8-byte words of zeros: each is h = (h ^ 0) * FNV_PRIME. */
static uint64_t hash_zero_words(uint64_t h, uint64_t words)
{
	uint64_t p = FNV_PRIME, r = 1;

	for (; words; words >>= 1, p *= p)
		if (words & 1)
			r *= p;
	return h * r;
}

/* H after the 8-byte words of FD's bytes [FROM, TO), both multiples of 8. */
static int hash_words(int fd, off_t from, off_t to, uint64_t *h)
{
	static unsigned char buf[1 << 20];

	while (from < to) {
		size_t want = to - from < (off_t)sizeof(buf) ? (size_t)(to - from) : sizeof(buf);
		ssize_t n = pread(fd, buf, want, from);
		const uint64_t *w = (const uint64_t *)buf;

		if (n <= 0 || n % 8) {
			if (n >= 0)
				errno = EIO;
			return -1;
		}
		for (size_t i = 0; i < (size_t)n / 8; i++)
			*h = (*h ^ w[i]) * FNV_PRIME;
		from += n;
	}
	return 0;
}

/*
 * FNV over the file's 8-byte words, then its last size % 8 bytes one by
 * one: a checksum against accidental writes, checked after every case.
 * Only the data is read: a hole's zero words are folded in by arithmetic
 * (hash_zero_words), and a golden image is mostly holes (64 MiB, about
 * 4 MiB of data). Data and holes start at block boundaries, multiples of 8;
 * any other boundary is rounded so that the few bytes of hole around it
 * are read, which hashes the same.
 */
int fb_file_hash(const char *path, uint64_t *ret)
{
	uint64_t h = FNV1A_INIT;
	unsigned char tail[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	off_t pos = 0, end, data, hole;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		goto out;
	end = st.st_size & ~(off_t)7;
	while (pos < end) {
		data = lseek(fd, pos, SEEK_DATA);
		if (data < 0 && errno != ENXIO)
			data = pos;		/* no SEEK_DATA here: read it all */
		else if (data < 0 || data > end)
			data = end;		/* a hole to the end */
		data &= ~(off_t)7;
		h = hash_zero_words(h, (data - pos) / 8);
		pos = data;
		if (pos == end)
			break;
		hole = lseek(fd, pos, SEEK_HOLE);
		if (hole < 0 || hole > end)
			hole = end;
		hole = (hole + 7) & ~(off_t)7;
		if (hole > end)
			hole = end;
		if (hole <= pos)
			hole = pos + 8;
		if (hash_words(fd, pos, hole, &h))
			goto out;
		pos = hole;
	}
	if (st.st_size > end) {
		if (pread(fd, tail, st.st_size - end, end) != st.st_size - end) {
			errno = EIO;
			goto out;
		}
		h = fnv1a(h, tail, st.st_size - end);
	}
	*ret = h;
	rc = 0;
out:
	close(fd);
	return rc;
}

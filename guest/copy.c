// SPDX-License-Identifier: MIT
/*
 * copy-source: populate the disk under test through the booted kernel.
 * The host attaches a second, read-only disk (flipbed boot --source) that
 * holds an ext4 image of a tree; this step mounts it read-only on /src and
 * copies everything in it under the mount point, the way cp -a would:
 * directories, regular files (holes kept as holes), symlinks, hard links,
 * device nodes and fifos, modes, owners and extended attributes. The
 * space the copy takes is then the kernel's own allocation decisions
 * (inline data, delalloc, bigalloc clusters), which is what bench/populate.sh
 * compares with mke2fs -d.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "agent.h"

#define SRC_DISK "/dev/vdb"
#define SRC_DIR "/src"
#define CHUNK (1 << 20)
#define MAX_REPORTED 20		/* out lines for failures; the rest are counted */

/* A source inode with more than one link, and where its first copy went. */
struct link {
	dev_t dev;
	ino_t ino;
	char *dest;
};

struct copy {
	int n;			/* step number, for out lines */
	long long files, dirs, symlinks, links, nodes, bytes, xattrs;
	int failures, first_err;
	struct link *lk;
	size_t nlk, cap;
	unsigned char *buf;
};

static void copy_fail(struct copy *c, const char *path, int e, const char *what)
{
	char b[16];

	if (!c->first_err)
		c->first_err = e;
	if (c->failures++ < MAX_REPORTED)
		chan_send("out %d %s %s %s", c->n, errname(e, b, sizeof(b)), what, path);
}

/*
 * The fault disk must be /dev/vda and the source /dev/vdb: QEMU attaches
 * the source read-only, so a disk that reads back "ro 1" is the source.
 * Anything else means the two were swapped, and nothing is written.
 */
static int check_disks(char *detail, size_t len)
{
	static const struct { const char *name, *want; } d[] = {
		{ "/sys/block/vda/ro", "0" }, { "/sys/block/vdb/ro", "1" },
	};

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		char v[8] = "";
		int fd = open(d[i].name, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			snprintf(detail, len, "%s: %s (is there a source disk? flipbed boot --source IMAGE)",
				 d[i].name, strerror(errno));
			return ENODEV;
		}
		if (read(fd, v, sizeof(v) - 1) < 0)
			v[0] = '\0';
		close(fd);
		if (v[0] != d[i].want[0]) {
			snprintf(detail, len, "%s reads %c, not %s: the disk under test is not /dev/vda",
				 d[i].name, v[0] ? v[0] : '?', d[i].want);
			return ENODEV;
		}
	}
	return 0;
}

static int copy_xattrs(struct copy *c, const char *from, const char *to)
{
	static char names[65536], value[65536];
	ssize_t n = llistxattr(from, names, sizeof(names));

	if (n < 0)
		return errno == ENOTSUP ? 0 : errno;
	for (char *name = names; name < names + n; name += strlen(name) + 1) {
		ssize_t v = lgetxattr(from, name, value, sizeof(value));

		if (v < 0 || lsetxattr(to, name, value, v, 0))
			return errno;
		c->xattrs++;
	}
	return 0;
}

/* Copy the data of IN (SIZE bytes) into the new file OUT, holes kept. */
static int copy_data(struct copy *c, int in, int out, off_t size)
{
	off_t data = 0, hole;

	while (data < size) {
		data = lseek(in, data, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? 0 : errno;
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return errno;
		while (data < hole) {
			size_t want = hole - data < CHUNK ? hole - data : CHUNK;
			ssize_t r = pread(in, c->buf, want, data);
			size_t done = 0;

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return r < 0 ? errno : EIO;
			while (done < (size_t)r) {
				ssize_t w = pwrite(out, c->buf + done, r - done, data + done);

				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					return w < 0 ? errno : EIO;
				done += w;
			}
			data += r;
			c->bytes += r;
		}
	}
	return 0;
}

static int copy_file(struct copy *c, const char *from, const char *to, const struct stat *st)
{
	int in, out, rc;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st->st_mode & 07777);
	if (out < 0) {
		rc = errno;
		close(in);
		return rc;
	}
	rc = copy_data(c, in, out, st->st_size);
	/* a trailing hole: the size comes from truncate, not from data */
	if (!rc && ftruncate(out, st->st_size))
		rc = errno;
	close(in);
	if (close(out) && !rc)
		rc = errno;
	return rc;
}

/* A second name of an inode already copied: link to its first copy. */
static const char *linked(struct copy *c, const struct stat *st)
{
	for (size_t i = 0; i < c->nlk; i++)
		if (c->lk[i].ino == st->st_ino && c->lk[i].dev == st->st_dev)
			return c->lk[i].dest;
	return NULL;
}

static void remember(struct copy *c, const struct stat *st, const char *dest)
{
	if (c->nlk == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		struct link *lk = realloc(c->lk, cap * sizeof(*lk));

		if (!lk)
			return;		/* the next name becomes a copy, not a link */
		c->lk = lk;
		c->cap = cap;
	}
	c->lk[c->nlk++] = (struct link){ st->st_dev, st->st_ino, strdup(dest) };
}

/* Copy the entry FROM (already lstat'ed into ST) to TO. */
static void copy_entry(struct copy *c, const char *from, const char *to, const struct stat *st);

static void copy_dir(struct copy *c, const char *from, const char *to, int top)
{
	DIR *d = opendir(from);
	struct dirent *e;

	if (!d)
		return copy_fail(c, from, errno, "opendir");
	while ((errno = 0, e = readdir(d))) {
		char f[4096], t[4096];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (top && !strcmp(e->d_name, "lost+found")))
			continue;
		if (snprintf(f, sizeof(f), "%s/%s", from, e->d_name) >= (int)sizeof(f) ||
		    snprintf(t, sizeof(t), "%s/%s", to, e->d_name) >= (int)sizeof(t)) {
			copy_fail(c, from, ENAMETOOLONG, "name");
			continue;
		}
		if (lstat(f, &st))
			copy_fail(c, f, errno, "lstat");
		else
			copy_entry(c, f, t, &st);
	}
	if (errno)
		copy_fail(c, from, errno, "readdir");
	closedir(d);
}

static void copy_entry(struct copy *c, const char *from, const char *to, const struct stat *st)
{
	const char *first;
	int rc = 0;

	if (S_ISDIR(st->st_mode)) {
		if (mkdir(to, 0700))
			return copy_fail(c, to, errno, "mkdir");
		c->dirs++;
		copy_dir(c, from, to, 0);
	} else if (S_ISREG(st->st_mode) && st->st_nlink > 1 && (first = linked(c, st))) {
		if (link(first, to))
			return copy_fail(c, to, errno, "link");
		c->links++;
		return;		/* owner, mode and xattrs are the first name's */
	} else if (S_ISREG(st->st_mode)) {
		if ((rc = copy_file(c, from, to, st)))
			return copy_fail(c, to, rc, "copy");
		c->files++;
		if (st->st_nlink > 1)
			remember(c, st, to);
	} else if (S_ISLNK(st->st_mode)) {
		char target[4096];
		ssize_t n = readlink(from, target, sizeof(target) - 1);

		if (n < 0)
			return copy_fail(c, from, errno, "readlink");
		target[n] = '\0';
		if (symlink(target, to))
			return copy_fail(c, to, errno, "symlink");
		c->symlinks++;
	} else {
		if (mknod(to, st->st_mode, st->st_rdev))
			return copy_fail(c, to, errno, "mknod");
		c->nodes++;
	}
	if (lchown(to, st->st_uid, st->st_gid))
		return copy_fail(c, to, errno, "chown");
	if (!S_ISLNK(st->st_mode) && chmod(to, st->st_mode & 07777))
		return copy_fail(c, to, errno, "chmod");
	if ((rc = copy_xattrs(c, from, to)))
		copy_fail(c, to, rc, "xattr");
}

int op_copy_source(int n, const struct step *s, char *detail, size_t len)
{
	struct copy c = { .n = n };
	char to[STEP_MAX_LINE + 8];
	int rc;

	if ((rc = check_disks(detail, len)))
		return rc;
	if (mkdir(SRC_DIR, 0755) && errno != EEXIST)
		return errno;
	/* noload: the source is read-only, its journal is never replayed */
	if (mount(SRC_DISK, SRC_DIR, "ext4", MS_RDONLY, "noload")) {
		rc = errno;
		snprintf(detail, len, "mount %s on %s: %s", SRC_DISK, SRC_DIR, strerror(rc));
		return rc;
	}
	c.buf = malloc(CHUNK);
	if (!c.buf) {
		umount(SRC_DIR);
		return ENOMEM;
	}
	snprintf(to, sizeof(to), "%s%s", MNT, s->argc && strcmp(s->argv[0], "/") ? s->argv[0] : "");
	copy_dir(&c, SRC_DIR, to, 1);
	if (umount(SRC_DIR) && !c.first_err)
		c.first_err = errno;
	free(c.buf);
	for (size_t i = 0; i < c.nlk; i++)
		free(c.lk[i].dest);
	free(c.lk);
	snprintf(detail, len,
		 "files=%lld dirs=%lld symlinks=%lld links=%lld nodes=%lld xattrs=%lld bytes=%lld failures=%d",
		 c.files, c.dirs, c.symlinks, c.links, c.nodes, c.xattrs, c.bytes, c.failures);
	return c.first_err;
}

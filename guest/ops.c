// SPDX-License-Identifier: MIT
/*
 * The steps themselves. Each returns 0 or the errno the kernel gave (or
 * EBADDATA when content differs from the pattern) and fills a short detail
 * for the result line; longer output goes out as "out N TEXT" lines first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define CHUNK (1 << 20)

/* The guest path of P, a path under the mount point. */
static void under_mnt(char *out, size_t len, const char *p)
{
	snprintf(out, len, "%s%s", MNT, p);
}

/* Options that are mount(2) flags, not ext4 data, as mount(8) splits them. */
static const struct {
	const char *name;
	unsigned long flag;
} mount_flags[] = {
	{ "ro", MS_RDONLY }, { "rw", 0 }, { "noatime", MS_NOATIME },
	{ "nodiratime", MS_NODIRATIME }, { "relatime", MS_RELATIME },
	{ "strictatime", MS_STRICTATIME }, { "lazytime", MS_LAZYTIME },
	{ "sync", MS_SYNCHRONOUS }, { "dirsync", MS_DIRSYNC },
	{ "nosuid", MS_NOSUID }, { "nodev", MS_NODEV }, { "noexec", MS_NOEXEC },
};

static int mount_flag(const char *opt, unsigned long *flags)
{
	for (size_t i = 0; i < sizeof(mount_flags) / sizeof(mount_flags[0]); i++) {
		if (!strcmp(opt, mount_flags[i].name)) {
			*flags |= mount_flags[i].flag;
			return 1;
		}
	}
	return 0;
}

/* mount or, with MS_REMOUNT in EXTRA, remount: OPTS split as mount(8) does */
static int op_mount(const struct step *s, unsigned long extra, char *detail, size_t len)
{
	char given[STEP_MAX_LINE], data[STEP_MAX_LINE + 32] = "";
	unsigned long flags = extra;

	snprintf(given, sizeof(given), "%s", s->argc ? s->argv[0] : "");
	for (char *o = strtok(given, ","); o; o = strtok(NULL, ","))
		if (!mount_flag(o, &flags))
			snprintf(data + strlen(data), sizeof(data) - strlen(data), "%s%s",
				 *data ? "," : "", o);
	/* ext4's own default would be errors=continue: nothing would react */
	if (!strstr(data, "errors="))
		snprintf(data + strlen(data), sizeof(data) - strlen(data), "%s%s",
			 *data ? "," : "", "errors=remount-ro");
	snprintf(detail, len, "%s%s%s", data, s->argc ? " flags=" : "",
		 s->argc ? s->argv[0] : "");
	return mount(agent_disk(), MNT, "ext4", flags, data) ? errno : 0;
}

/*
 * Set the label, then read it back: a success that did not store it would
 * otherwise pass unseen. ext4 stores at most EXT4_LABEL_MAX (16) bytes and
 * refuses a longer one with EINVAL.
 */
static int op_setlabel(const struct step *s, char *detail, size_t len)
{
	char label[FSLABEL_MAX] = "", back[FSLABEL_MAX] = "";
	int fd = open(MNT, O_RDONLY | O_DIRECTORY), rc = 0;

	if (fd < 0)
		return errno;
	snprintf(label, sizeof(label), "%s", s->argv[0]);
	if (ioctl(fd, FS_IOC_SETFSLABEL, label) || ioctl(fd, FS_IOC_GETFSLABEL, back))
		rc = errno;
	close(fd);
	if (rc)
		return rc;
	back[sizeof(back) - 1] = '\0';
	snprintf(detail, len, "label=%s", back);
	return strcmp(label, back) ? EBADDATA : 0;
}

static int write_all(int fd, const unsigned char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		if (w == 0)
			return EIO;
		buf += w;
		n -= w;
	}
	return 0;
}

int pattern_write(int fd, const char *p, off_t off, size_t n)
{
	unsigned char *buf;
	int rc = 0;

	/* aligned, so that O_DIRECT writes are accepted */
	if (posix_memalign((void **)&buf, 4096, CHUNK))
		return ENOMEM;
	while (n && !rc) {
		size_t c = n < CHUNK ? n : CHUNK;

		pattern_fill(p, off, buf, c);
		rc = write_all(fd, buf, c);
		off += c;
		n -= c;
	}
	free(buf);
	return rc;
}

static int op_write(const struct step *s, char *detail, size_t len)
{
	const char *mode = s->argc > 2 ? s->argv[2] : "";
	size_t n = strtoull(s->argv[1], NULL, 10);
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
	char path[STEP_MAX_LINE + 8];
	off_t off = 0;
	int fd, rc;

	if (!strcmp(mode, "append"))
		flags |= O_APPEND;
	else
		flags |= O_TRUNC;
	if (!strcmp(mode, "sync"))
		flags |= O_SYNC;
	if (!strcmp(mode, "direct"))
		flags |= O_DIRECT;
	under_mnt(path, sizeof(path), s->argv[0]);
	fd = open(path, flags, 0644);
	if (fd < 0)
		return errno;
	if (flags & O_APPEND)
		off = lseek(fd, 0, SEEK_END);
	rc = pattern_write(fd, s->argv[0], off, n);
	if (close(fd) && !rc)
		rc = errno;
	if (!rc)
		snprintf(detail, len, "bytes=%zu at=%lld", n, (long long)off);
	return rc;
}

/* Compare BUF (C bytes at OFF) with P's pattern; the first bad offset. */
static long long first_bad(const char *p, off_t off, const unsigned char *buf,
			   size_t c, unsigned char *want)
{
	pattern_fill(p, off, want, c);
	for (size_t i = 0; i < c; i++)
		if (buf[i] != want[i])
			return off + i;
	return -1;
}

static int op_read(const struct step *s, char *detail, size_t len)
{
	/* the pattern is the one of the path the file was written at */
	const char *key = s->argc > 2 ? s->argv[2] : s->argv[0];
	char path[STEP_MAX_LINE + 8];
	unsigned char *buf = malloc(CHUNK), *want = malloc(CHUNK);
	long long bad = -1;
	off_t off = 0;
	int fd, rc = 0;

	under_mnt(path, sizeof(path), s->argv[0]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!buf || !want || fd < 0) {
		rc = fd < 0 ? errno : ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf, CHUNK);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = errno;
			snprintf(detail, len, "after %lld bytes", (long long)off);
			break;
		}
		if (r == 0)
			break;
		if (bad < 0)
			bad = first_bad(key, off, buf, r, want);
		off += r;
	}
	if (rc)
		goto out;
	if (bad >= 0) {
		rc = EBADDATA;
		snprintf(detail, len, "first bad byte at %lld of %lld", bad, (long long)off);
	} else if (s->argc > 1 && off != (off_t)strtoull(s->argv[1], NULL, 10)) {
		rc = EBADDATA;
		snprintf(detail, len, "size %lld, expected %s", (long long)off, s->argv[1]);
	} else {
		snprintf(detail, len, "bytes=%lld", (long long)off);
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(want);
	return rc;
}

static int skip_dot(const struct dirent *d)
{
	return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

static int op_ls(int n, const struct step *s, char *detail, size_t len)
{
	char path[STEP_MAX_LINE + 8];
	struct dirent **ents;
	int count;

	under_mnt(path, sizeof(path), s->argc ? s->argv[0] : "/");
	count = scandir(path, &ents, skip_dot, alphasort);
	if (count < 0)
		return errno;
	for (int i = 0; i < count; i++) {
		chan_send("out %d %s", n, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	snprintf(detail, len, "entries=%d", count);
	return 0;
}

static int op_stat(const struct step *s, char *detail, size_t len)
{
	char path[STEP_MAX_LINE + 8];
	struct stat st;

	under_mnt(path, sizeof(path), s->argv[0]);
	if (lstat(path, &st))
		return errno;
	snprintf(detail, len, "size=%lld mode=%o links=%lu blocks=%lld ino=%lu",
		 (long long)st.st_size, st.st_mode, (unsigned long)st.st_nlink,
		 (long long)st.st_blocks, (unsigned long)st.st_ino);
	return 0;
}

static int op_rm(const struct step *s)
{
	char path[STEP_MAX_LINE + 8];
	struct stat st;

	under_mnt(path, sizeof(path), s->argv[0]);
	if (lstat(path, &st))
		return errno;
	if (S_ISDIR(st.st_mode))
		return rmdir(path) ? errno : 0;
	return unlink(path) ? errno : 0;
}

static int op_rename(const struct step *s)
{
	char a[STEP_MAX_LINE + 8], b[STEP_MAX_LINE + 8];

	under_mnt(a, sizeof(a), s->argv[0]);
	under_mnt(b, sizeof(b), s->argv[1]);
	return rename(a, b) ? errno : 0;
}

static int op_setxattr(const struct step *s, char *detail, size_t len)
{
	char path[STEP_MAX_LINE + 8], name[STEP_MAX_LINE + 8], key[2 * STEP_MAX_LINE];
	size_t n = strtoull(s->argv[2], NULL, 10);
	unsigned char *val = malloc(n ? n : 1);
	int rc;

	if (!val)
		return ENOMEM;
	under_mnt(path, sizeof(path), s->argv[0]);
	snprintf(name, sizeof(name), "%s%s", strchr(s->argv[1], '.') ? "" : "user.", s->argv[1]);
	/* the value's pattern is the file's path and the attribute's name */
	snprintf(key, sizeof(key), "%s#%s", s->argv[0], name);
	pattern_fill(key, 0, val, n);
	rc = setxattr(path, name, val, n, 0) ? errno : 0;
	free(val);
	snprintf(detail, len, "%s", name);
	return rc;
}

static int op_getxattr(const struct step *s, char *detail, size_t len)
{
	char path[STEP_MAX_LINE + 8], name[STEP_MAX_LINE + 8];
	char val[256];
	ssize_t n;

	under_mnt(path, sizeof(path), s->argv[0]);
	snprintf(name, sizeof(name), "%s%s", strchr(s->argv[1], '.') ? "" : "user.", s->argv[1]);
	n = lgetxattr(path, name, val, sizeof(val));
	if (n < 0 && errno == ERANGE)
		n = lgetxattr(path, name, NULL, 0);
	if (n < 0)
		return errno;
	snprintf(detail, len, "bytes=%zd", n);
	return 0;
}

static int op_fsync(const struct step *s)
{
	char path[STEP_MAX_LINE + 8];
	int fd, rc;

	under_mnt(path, sizeof(path), s->argv[0]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	rc = fsync(fd) ? errno : 0;
	close(fd);
	return rc;
}

static int op_sync(void)
{
	int fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return errno;
	rc = syncfs(fd) ? errno : 0;
	close(fd);
	return rc;
}

static int op_drop_caches(void)
{
	int fd, rc;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	rc = write_all(fd, (const unsigned char *)"3\n", 2);
	close(fd);
	return rc;
}

static int op_expect_erofs(const struct step *s, char *detail, size_t len)
{
	char path[STEP_MAX_LINE + 8];
	int fd, rc;

	under_mnt(path, sizeof(path), s->argv[0]);
	fd = open(path, O_WRONLY | O_CREAT | O_SYNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(detail, len, "open");
		return errno;
	}
	rc = write_all(fd, (const unsigned char *)"x", 1);
	snprintf(detail, len, rc ? "write" : "wrote 1 byte");
	close(fd);
	return rc;
}

static int op_wait(const struct step *s)
{
	const char *line;
	size_t k = strlen("continue ");

	chan_send("wait %s", s->argv[0]);
	while ((line = chan_recv()))
		if (!strncmp(line, "continue ", k) && !strcmp(line + k, s->argv[0]))
			return 0;
	return EPIPE;
}

static int op_sleep(const struct step *s)
{
	double secs = strtod(s->argv[0], NULL);
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return 0;
}

/* Read all of FD; its digest in *H and size in *SIZE. */
static int digest_fd(int fd, uint64_t *h, long long *size)
{
	static unsigned char buf[CHUNK];
	ssize_t r;

	*h = FNV1A_INIT;
	*size = 0;
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		*h = fnv1a(*h, buf, r);
		*size += r;
	}
	return 0;
}

struct tree {
	int n;		/* step number, for out lines */
	int hash;	/* hash: one out line per file; walk: only failures */
	int entries, failures, first_err;
	long xattrs;	/* walk: extended attributes read */
	long long bytes;	/* walk: file bytes read */
	int capped;	/* walk: files read only up to WALK_FILE_MAX */
};

/*
 * walk reads what the filesystem holds, not what a file's size claims: the
 * data extents (SEEK_DATA, SEEK_HOLE), holes skipped, and at most
 * WALK_FILE_MAX bytes of a file; "out N read bytes= capped= max=" says
 * how much it read and how many files it cut short.
 * A 256 GiB sparse file is a few blocks to read, and a huge dense one does
 * not outlast the case's timeout.
 */
#define WALK_FILE_MAX (64LL << 20)

/* Read LEN bytes of FD at OFF into nothing; the bytes read, or -errno. */
static long long read_range(int fd, off_t off, long long len)
{
	static unsigned char buf[CHUNK];
	long long done = 0;

	while (done < len) {
		size_t want = len - done < CHUNK ? len - done : CHUNK;
		ssize_t r = pread(fd, buf, want, off + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			break;
		done += r;
	}
	return done;
}

/* walk's read of one file: its data extents, within WALK_FILE_MAX. 0 or an errno. */
static int walk_fd(struct tree *t, int fd)
{
	long long budget = WALK_FILE_MAX, want, got;
	off_t data = 0, hole = 0;

	while (budget > 0) {
		data = lseek(fd, hole, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? 0 : errno;	/* ENXIO: no data after HOLE */
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return errno;
		want = hole - data < budget ? hole - data : budget;
		got = read_range(fd, data, want);
		if (got < 0)
			return (int)-got;
		t->bytes += got;
		budget -= got;
		if (got < want)
			return 0;	/* it shrank meanwhile */
	}
	/* the bound is reached: is there more to read? */
	if (data + want < hole || lseek(fd, hole, SEEK_DATA) >= 0)
		t->capped++;
	return 0;
}

static void tree_fail(struct tree *t, const char *rel, int e, const char *what)
{
	char b[16];

	if (!t->first_err)
		t->first_err = e;
	t->failures++;
	chan_send("out %d %s %s %s", t->n, errname(e, b, sizeof(b)), what, rel);
}

static void tree_file(struct tree *t, const char *path, const char *rel)
{
	uint64_t h;
	long long size;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return tree_fail(t, rel, errno, "open");
	if (!t->hash) {
		rc = walk_fd(t, fd);
		close(fd);
		if (rc)
			tree_fail(t, rel, rc, "read");
		return;
	}
	rc = digest_fd(fd, &h, &size);
	close(fd);
	if (rc)
		return tree_fail(t, rel, rc, "read");
	if (t->hash)
		chan_send("out %d %016llx %lld %s", t->n, (unsigned long long)h, size, rel);
}

/*
 * walk: list the extended attributes of PATH and read every one, in the
 * inode and in an xattr block alike (listing reads the block, and ext4
 * verifies its checksum then). A list or a value longer than XATTR_BUF
 * (XATTR_LIST_MAX, XATTR_SIZE_MAX) is a failure with ERANGE. A failed
 * read names the attribute: "out N ERRNAME getxattr PATH#NAME".
 */
#define XATTR_BUF (64 * 1024)
static void tree_xattrs(struct tree *t, const char *path, const char *rel)
{
	static char list[XATTR_BUF + 1], value[XATTR_BUF];
	ssize_t n = llistxattr(path, list, XATTR_BUF);

	if (n < 0)
		return tree_fail(t, rel, errno, "listxattr");
	list[n] = '\0';
	for (char *name = list; name < list + n; name += strlen(name) + 1) {
		char what[4096 + 260];	/* an attribute name is at most 255 bytes */

		if (lgetxattr(path, name, value, sizeof(value)) >= 0) {
			t->xattrs++;
			continue;
		}
		snprintf(what, sizeof(what), "%s#%.255s", rel, name);
		tree_fail(t, what, errno, "getxattr");
	}
}

/* Visit every entry under PATH (REL is its name under the mount point). */
static void tree_walk(struct tree *t, const char *path, const char *rel)
{
	struct dirent **ents;
	int count = scandir(path, &ents, skip_dot, alphasort);

	if (count < 0)
		return tree_fail(t, rel, errno, "readdir");
	for (int i = 0; i < count; i++) {
		char p[4096], r[4096];
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s", path, ents[i]->d_name);
		snprintf(r, sizeof(r), "%s/%s", strcmp(rel, "/") ? rel : "", ents[i]->d_name);
		free(ents[i]);
		t->entries++;
		if (lstat(p, &st)) {
			tree_fail(t, r, errno, "stat");
			continue;
		}
		if (!t->hash)
			tree_xattrs(t, p, r);
		if (S_ISDIR(st.st_mode))
			tree_walk(t, p, r);
		else if (S_ISREG(st.st_mode))
			tree_file(t, p, r);
	}
	free(ents);
}

static int op_tree(int n, const struct step *s, int hash, char *detail, size_t len)
{
	struct tree t = { .n = n, .hash = hash };
	const char *rel = s->argc ? s->argv[0] : "/";
	char path[STEP_MAX_LINE + 8];
	struct stat st;
	int found;

	under_mnt(path, sizeof(path), rel);
	found = stat(path, &st) == 0;
	/* walk reads the attributes of P itself too */
	if (found && !hash)
		tree_xattrs(&t, path, rel);
	/* a regular file is a tree of one: read it through (its extent tree too) */
	if (found && S_ISREG(st.st_mode)) {
		t.entries = 1;
		tree_file(&t, path, rel);
	} else {
		tree_walk(&t, path, rel);
	}
	/* what walk read of the files, within its bound: an out line before the result */
	if (!hash)
		chan_send("out %d read bytes=%lld capped=%d max=%lld", n, t.bytes, t.capped,
			  WALK_FILE_MAX);
	snprintf(detail, len, "entries=%d failures=%d", t.entries, t.failures);
	if (!hash)
		snprintf(detail + strlen(detail), len - strlen(detail), " xattrs=%ld", t.xattrs);
	return t.first_err;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * cat of a directory of one-value files (sysfs: /sys/fs/ext4/vda/csum_errors):
 * one "out N NAME VALUE" line per file, sorted by name, each value's first
 * line (at most 256 bytes).
 */
static int op_cat_dir(int n, const char *path, char *detail, size_t len)
{
	enum { MAX_FILES = 256 };
	static char names[MAX_FILES][256];
	char *sorted[MAX_FILES];
	unsigned count = 0;
	struct dirent *d;
	DIR *dir = opendir(path);

	if (!dir)
		return errno;
	while ((d = readdir(dir)) && count < MAX_FILES) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(names[count], sizeof(names[0]), "%s", d->d_name);
		sorted[count] = names[count];
		count++;
	}
	closedir(dir);
	qsort(sorted, count, sizeof(sorted[0]), cmp_names);
	for (unsigned i = 0; i < count; i++) {
		char file[STEP_MAX_LINE + 260], value[257] = "";
		int fd;

		snprintf(file, sizeof(file), "%s/%s", path, sorted[i]);
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t r = read(fd, value, sizeof(value) - 1);

			value[r > 0 ? r : 0] = '\0';
			close(fd);
		}
		value[strcspn(value, "\n")] = '\0';
		chan_send("out %d %s %s", n, sorted[i], fd < 0 ? "?" : value);
	}
	snprintf(detail, len, "files=%u", count);
	return 0;
}

/*
 * Guest path G with each path component DISK replaced by the kernel's
 * name of the case's disk (vda alone, vdd in a batch): the knobs under
 * /proc/fs/ext4/ and /sys/fs/ext4/ are named after it.
 */
static void guest_path(char *out, size_t len, const char *g)
{
	const char *d = strrchr(agent_disk(), '/');
	size_t n = 0;

	d = d ? d + 1 : agent_disk();
	for (const char *p = g; *p && n + 1 < len;) {
		bool word = p > g && p[-1] == '/' && !strncmp(p, "DISK", 4) &&
			    (p[4] == '/' || p[4] == '-' || !p[4]);

		if (word) {
			n += snprintf(out + n, len - n, "%s", d);
			p += 4;
		} else {
			out[n++] = *p++;
		}
	}
	out[n < len ? n : len - 1] = '\0';
}

static int op_cat(int n, const struct step *s, char *detail, size_t len)
{
	static char buf[65536 + 1];
	char path[STEP_MAX_LINE + 64];
	size_t got = 0;
	struct stat st;
	int fd;

	guest_path(path, sizeof(path), s->argv[0]);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return op_cat_dir(n, path, detail, len);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	while (got < sizeof(buf) - 1) {
		ssize_t r = read(fd, buf + got, sizeof(buf) - 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			return errno;
		}
		if (r == 0)
			break;
		got += r;
	}
	close(fd);
	buf[got] = '\0';
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		chan_send("out %d %s", n, line);
	snprintf(detail, len, "bytes=%zu", got);
	return 0;
}

/*
 * A mark in the kernel log, where the host cuts it (classify/split.c). At
 * level 5 (notice): the console, quiet, does not show it; the host takes
 * its time from the kmsg line and cuts the console by that time.
 */
static int op_mark(const struct step *s)
{
	char line[STEP_MAX_LINE + 32];
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	int n, e = 0;

	if (fd < 0)
		return errno;
	n = snprintf(line, sizeof(line), "<5>flipbed-mark %s", s->argv[0]);
	if (write(fd, line, n) != n)
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

static int op_set(const struct step *s)
{
	char path[STEP_MAX_LINE + 64];
	int fd;

	guest_path(path, sizeof(path), s->argv[0]);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(s->argv[1]);
	int e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s->argv[1], n) != (ssize_t)n)
		e = errno ? errno : EIO;
	if (close(fd) && !e)
		e = errno;
	return e;
}

static int op_truncate(const struct step *s)
{
	char path[STEP_MAX_LINE + 8];

	under_mnt(path, sizeof(path), s->argv[0]);
	return truncate(path, strtoll(s->argv[1], NULL, 10)) ? errno : 0;
}

/* Open P under the mount point with FLAGS; the first two numbers of S. */
static int open_range(const struct step *s, int flags, off_t *off, size_t *n)
{
	char path[STEP_MAX_LINE + 8];

	under_mnt(path, sizeof(path), s->argv[0]);
	*off = strtoll(s->argv[1], NULL, 10);
	*n = strtoull(s->argv[2], NULL, 10);
	return open(path, flags | O_CLOEXEC, 0644);
}

static int op_pwrite(const struct step *s, char *detail, size_t len)
{
	off_t off;
	size_t n;
	int fd = open_range(s, O_WRONLY | O_CREAT, &off, &n), rc;

	if (fd < 0)
		return errno;
	rc = lseek(fd, off, SEEK_SET) < 0 ? errno : pattern_write(fd, s->argv[0], off, n);
	if (close(fd) && !rc)
		rc = errno;
	if (!rc)
		snprintf(detail, len, "bytes=%zu at=%lld", n, (long long)off);
	return rc;
}

/*
 * Read N bytes at OFF of P and compare them with P's pattern, or with zeros
 * when ZERO: a hole, a punched or an unwritten range reads as zeros.
 */
static int op_check_range(const struct step *s, int zero, char *detail, size_t len)
{
	unsigned char *buf = malloc(CHUNK), *want = malloc(CHUNK);
	off_t off, at;
	size_t n;
	int fd = open_range(s, O_RDONLY, &off, &n), rc = 0;

	if (!buf || !want || fd < 0) {
		rc = fd < 0 ? errno : ENOMEM;
		goto out;
	}
	for (at = off; at < off + (off_t)n && !rc;) {
		size_t c = off + n - at < CHUNK ? off + n - at : CHUNK;
		ssize_t r = pread(fd, buf, c, at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? errno : EBADDATA;
			snprintf(detail, len, "%s at %lld", r < 0 ? "read error" : "end of file",
				 (long long)at);
			break;
		}
		if (zero)
			memset(want, 0, r);
		else
			pattern_fill(s->argv[0], at, want, r);
		for (ssize_t i = 0; i < r && !rc; i++) {
			if (buf[i] != want[i]) {
				rc = EBADDATA;
				snprintf(detail, len, "first bad byte at %lld", (long long)at + i);
			}
		}
		at += r;
	}
	if (!rc)
		snprintf(detail, len, "bytes=%zu at=%lld", n, (long long)off);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(want);
	return rc;
}

/* fallocate(1) creates a missing file; punching one is an error. */
static int op_fallocate(const struct step *s, int mode)
{
	off_t off;
	size_t n;
	int fd = open_range(s, mode ? O_WRONLY : O_WRONLY | O_CREAT, &off, &n), rc;

	if (fd < 0)
		return errno;
	rc = fallocate(fd, mode, off, n) ? errno : 0;
	close(fd);
	return rc;
}

/* Whether P is stored in its inode: the flag lsattr shows as N. */
static int op_inline(const struct step *s, char *detail, size_t len)
{
	char path[STEP_MAX_LINE + 8];
	int fd, flags = 0, rc;

	under_mnt(path, sizeof(path), s->argv[0]);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno;
	rc = ioctl(fd, FS_IOC_GETFLAGS, &flags) ? errno : 0;
	close(fd);
	if (rc)
		return rc;
	snprintf(detail, len, "flags=0x%x", flags);
	return flags & FS_INLINE_DATA_FL ? 0 : ENODATA;
}

int op_run(int n, const struct step *s, char *detail, size_t len)
{
	char path[STEP_MAX_LINE + 8];

	detail[0] = '\0';
	switch (s->id) {
	case STEP_MOUNT: return op_mount(s, 0, detail, len);
	case STEP_REMOUNT: return op_mount(s, MS_REMOUNT, detail, len);
	case STEP_SETLABEL: return op_setlabel(s, detail, len);
	case STEP_UMOUNT: return umount(MNT) ? errno : 0;
	case STEP_MKDIR:
		under_mnt(path, sizeof(path), s->argv[0]);
		return mkdir(path, 0755) ? errno : 0;
	case STEP_WRITE: return op_write(s, detail, len);
	case STEP_READ: return op_read(s, detail, len);
	case STEP_LS: return op_ls(n, s, detail, len);
	case STEP_STAT: return op_stat(s, detail, len);
	case STEP_RM: return op_rm(s);
	case STEP_RENAME: return op_rename(s);
	case STEP_SETXATTR: return op_setxattr(s, detail, len);
	case STEP_GETXATTR: return op_getxattr(s, detail, len);
	case STEP_FSYNC: return op_fsync(s);
	case STEP_OPEN: return op_open(s, detail, len);
	case STEP_WRITE_FD: return op_write_fd(s, detail, len);
	case STEP_FSYNC_FD: return op_fsync_fd(s);
	case STEP_CLOSE: return op_close(s);
	case STEP_SYNC: return op_sync();
	case STEP_DROP_CACHES: return op_drop_caches();
	case STEP_EXPECT_EROFS: return op_expect_erofs(s, detail, len);
	case STEP_WAIT: return op_wait(s);
	case STEP_SLEEP: return op_sleep(s);
	case STEP_HASH: return op_tree(n, s, 1, detail, len);
	case STEP_CAT: return op_cat(n, s, detail, len);
	case STEP_SET: return op_set(s);
	case STEP_TRUNCATE: return op_truncate(s);
	case STEP_WALK: return op_tree(n, s, 0, detail, len);
	case STEP_PWRITE: return op_pwrite(s, detail, len);
	case STEP_PREAD: return op_check_range(s, 0, detail, len);
	case STEP_ZEROS: return op_check_range(s, 1, detail, len);
	case STEP_FALLOCATE: return op_fallocate(s, 0);
	case STEP_PUNCH: return op_fallocate(s, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE);
	case STEP_INLINE: return op_inline(s, detail, len);
	case STEP_COPY_SOURCE: return op_copy_source(n, s, detail, len);
	case STEP_MARK: return op_mark(s);
	case STEP_CRASH: return 0;	/* the agent reboots after reporting it */
	case STEP_ATTR_RACE: return op_attr_race(n, s, detail, len);
	case STEP_ATTR_CHECK: return op_attr_check(n, s, detail, len);
	case STEP_UPDATE_LOOKUP: return op_update_lookup(n, s, detail, len);
	case STEP_OVERLAP: return op_overlap(n, s, detail, len);
	case STEP_COUNT: break;
	}
	return EINVAL;
}

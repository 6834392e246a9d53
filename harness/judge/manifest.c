// SPDX-License-Identifier: MIT
/*
 * Manifests (manifest.h), read with libext2fs. The image is opened
 * read-only and checksum errors are ignored while reading: after e2fsck -fy
 * there should be none, and when there still are, what matters here is
 * whether the bytes of each file survived, not whether metadata verifies.
 *
 * A corrupted image is hostile input: one flipped bit of i_size_high makes
 * a valid sparse file of hundreds of GiB. So a digest covers at most
 * FB_MANIFEST_READ_MAX bytes of a file (golden and case alike), a file
 * whose size differs from the golden one is "changed" without a byte read,
 * and the whole comparison stops at its deadline.
 */
#include <ext2fs/ext2fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include "boot/proc.h"
#include "guest/agent.h"
#include "golden/golden.h"
#include "judge/limits.h"
#include "judge/manifest.h"
#include "judge/resolve.h"
#include "util.h"

static errcode_t open_fs(const char *image, ext2_filsys *ret)
{
	return ext2fs_open2(image, NULL, EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS,
			    0, 0, unix_io_manager, ret);
}

/* Returned by file_digest() when DEADLINE passed (not a libext2fs code). */
#define FB_ERR_DEADLINE ((errcode_t)-1)

/*
 * Size and digest of inode INO's content: the digest covers its first
 * FB_MANIFEST_READ_MAX bytes. With WANT_SIZE not UINT64_MAX, a file of
 * another size is not read (*SIZE says so). Past DEADLINE (fb_now()
 * seconds; 0: none) it gives up with FB_ERR_DEADLINE.
 */
static errcode_t file_digest(ext2_filsys fs, ext2_ino_t ino, uint64_t want_size,
			     double deadline, uint64_t *size, uint64_t *hash)
{
	static char buf[1 << 20];
	ext2_file_t f;
	errcode_t err;
	unsigned int got;
	uint64_t h = FNV1A_INIT, left;

	err = ext2fs_file_open(fs, ino, 0, &f);
	if (err)
		return err;
	/* ext2fs_file_get_size() says 0 for a file of 4 GiB or more */
	err = ext2fs_file_get_lsize(f, (__u64 *)size);
	if (err) {
		ext2fs_file_close(f);
		return err;
	}
	*hash = 0;
	if (want_size != UINT64_MAX && *size != want_size) {
		ext2fs_file_close(f);
		return 0;
	}
	left = *size < FB_MANIFEST_READ_MAX ? *size : FB_MANIFEST_READ_MAX;
	while (left) {
		err = ext2fs_file_read(f, buf, left < sizeof(buf) ? left : sizeof(buf), &got);
		if (err || !got)
			break;
		h = fnv1a(h, buf, got);
		left -= got;
		if (deadline && fb_now() > deadline) {
			err = FB_ERR_DEADLINE;
			break;
		}
	}
	ext2fs_file_close(f);
	*hash = h;
	return err;
}

struct walk {
	ext2_filsys fs;
	struct fb_manifest *m;
	char path[4096];
	double deadline;
	errcode_t err;
};

static int walk_dir(struct walk *w, ext2_ino_t dir);

static int on_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *de, int offset,
		    int blocksize, char *buf, void *priv)
{
	struct walk *w = priv;
	int len = ext2fs_dirent_name_len(de);
	size_t at = strlen(w->path);
	struct ext2_inode inode;

	/* by name too: inline directories do not flag their synthesized ".." */
	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE || !de->inode ||
	    (len == 1 && de->name[0] == '.') ||
	    (len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	if (at + len + 2 >= sizeof(w->path))
		return 0;
	snprintf(w->path + at, sizeof(w->path) - at, "/%.*s", len, de->name);
	if (ext2fs_read_inode(w->fs, de->inode, &inode) == 0) {
		if (LINUX_S_ISDIR(inode.i_mode) && strcmp(w->path, "/lost+found")) {
			walk_dir(w, de->inode);
		} else if (LINUX_S_ISREG(inode.i_mode)) {
			struct fb_manifest_entry e = { .path = xstrdup(w->path) };
			if (file_digest(w->fs, de->inode, UINT64_MAX, w->deadline, &e.size,
					&e.hash) == 0) {
				w->m->v = xrealloc(w->m->v, (w->m->n + 1) * sizeof(e));
				w->m->v[w->m->n++] = e;
			} else {
				free(e.path);
			}
		}
	}
	w->path[at] = '\0';
	return 0;
}

static int walk_dir(struct walk *w, ext2_ino_t dir)
{
	errcode_t err = ext2fs_dir_iterate2(w->fs, dir, 0, NULL, on_entry, w);

	if (err && !w->err)
		w->err = err;
	return 0;
}

/*
 * Replay the journal of IMAGE on a copy, COPY, with e2fsck (only the
 * journal: -E journal_only, and no -f, which would run every pass after
 * the replay and repair the copy), within the oracle's time. 0 when COPY
 * holds the replayed image, else -1 with WHY.
 */
static int replay_copy(const char *image, const char *copy, double deadline,
		       char *why, size_t len)
{
	char *argv[] = { "e2fsck", "-y", "-E", "journal_only", (char *)copy, NULL };
	struct fb_proc p;
	int reaped;

	if (fb_image_copy(image, copy)) {
		snprintf(why, len, "cannot copy %s to %s to replay its journal", image, copy);
		return -1;
	}
	if (fb_proc_spawn_bounded(&p, "e2fsck", argv, -1, -1, -1, fb_oracle_mib())) {
		snprintf(why, len, "cannot run e2fsck to replay the journal of %s", image);
		return -1;
	}
	while (!(reaped = fb_proc_reap(&p, 0)) && fb_now() < deadline)
		usleep(10000);
	if (!reaped) {
		fb_proc_kill(&p);
		snprintf(why, len, "replaying the journal of %s took more than %d s", image,
			 fb_oracle_seconds());
		return -1;
	}
	/* 0: nothing to fix, 1: fixed (the replay) */
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) > 1) {
		snprintf(why, len, "e2fsck -E journal_only on a copy of %s: %s", image,
			 fb_proc_describe(&p));
		return -1;
	}
	return 0;
}

int fb_manifest_build(const char *image, struct fb_manifest *ret, char *why, size_t len)
{
	struct walk w = { .m = ret, .deadline = fb_now() + fb_oracle_seconds() };
	char copy[4200] = "";
	errcode_t err;

	memset(ret, 0, sizeof(*ret));
	err = open_fs(image, &w.fs);
	if (err) {
		snprintf(why, len, "cannot open %s with libext2fs: %s", image, error_message(err));
		return -1;
	}
	/* the kernel replays the journal at mount: so does the reference */
	if (ext2fs_has_feature_journal_needs_recovery(w.fs->super)) {
		ext2fs_close_free(&w.fs);
		snprintf(copy, sizeof(copy), "%s.replay-%d", image, (int)getpid());
		if (replay_copy(image, copy, w.deadline, why, len) ||
		    (err = open_fs(copy, &w.fs))) {
			if (err)
				snprintf(why, len, "cannot open %s with libext2fs: %s", copy,
					 error_message(err));
			unlink(copy);
			return -1;
		}
		ret->replayed = true;
	}
	walk_dir(&w, EXT2_ROOT_INO);
	ext2fs_close_free(&w.fs);
	if (*copy)
		unlink(copy);
	if (fb_now() > w.deadline) {
		snprintf(why, len, "reading the files of %s took more than %d s", image,
			 fb_oracle_seconds());
		fb_manifest_free(ret);	/* the files read so far: the caller has no manifest */
		return -1;
	}
	if (w.err) {
		snprintf(why, len, "cannot read every directory of %s: %s", image, error_message(w.err));
		fb_manifest_free(ret);
		return -1;
	}
	return 0;
}

int fb_manifest_save(const struct fb_manifest *m, const char *file)
{
	FILE *f = fopen(file, "w");

	if (!f)
		return -1;
	if (m->replayed)
		fprintf(f, "# after journal replay\n");
	for (int i = 0; i < m->n; i++)
		fprintf(f, "%016llx %llu %s\n", (unsigned long long)m->v[i].hash,
			(unsigned long long)m->v[i].size, m->v[i].path);
	return fclose(f) ? -1 : 0;
}

int fb_manifest_load(const char *file, struct fb_manifest *ret)
{
	FILE *f = fopen(file, "r");
	char path[4096];
	unsigned long long h, sz;

	memset(ret, 0, sizeof(*ret));
	if (!f)
		return -1;
	if (fgets(path, sizeof(path), f) && !strcmp(path, "# after journal replay\n"))
		ret->replayed = true;
	else
		rewind(f);
	while (fscanf(f, "%llx %llu %4095[^\n]", &h, &sz, path) == 3) {
		ret->v = xrealloc(ret->v, (ret->n + 1) * sizeof(*ret->v));
		ret->v[ret->n++] = (struct fb_manifest_entry){ xstrdup(path), sz, h };
	}
	fclose(f);
	return 0;
}

void fb_manifest_free(struct fb_manifest *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static int skipped(const char *path, char *const skip[], int nskip)
{
	for (int i = 0; i < nskip; i++) {
		size_t n = strlen(skip[i]);
		if (!strncmp(path, skip[i], n) && (!path[n] || path[n] == '/'))
			return 1;
	}
	return 0;
}

/*
 * The files W[0..N-1] of IMAGE against what they must be; WHAT ends the
 * detail of a changed file (what it differs from).
 */
static int check_wants(const struct fb_manifest_want *w, int n, const char *image,
		       const char *what, enum fb_data *ret, char *detail, size_t len)
{
	ext2_filsys fs;
	errcode_t err, *errs;
	ext2_ino_t *inos;
	const char **paths;
	int lost = 0, changed = 0;
	double deadline = fb_now() + fb_oracle_seconds();

	*ret = FB_DATA_NOT_CHECKED;
	detail[0] = '\0';
	err = open_fs(image, &fs);
	if (err) {
		snprintf(detail, len, "cannot open the image: %s", error_message(err));
		*ret = FB_DATA_LOST;
		return 0;
	}
	paths = xcalloc(n + 1, sizeof(*paths));
	inos = xcalloc(n + 1, sizeof(*inos));
	errs = xcalloc(n + 1, sizeof(*errs));
	for (int i = 0; i < n; i++)
		paths[i] = w[i].path;
	fb_resolve_paths(fs, paths, n, inos, errs);
	for (int i = 0; i < n; i++) {
		ext2_ino_t ino = inos[i];
		uint64_t size, hash;

		err = errs[i];
		if (w[i].absent) {
			if (!err && !changed++)
				snprintf(detail, len, "%s: still there, removed by the workload",
					 w[i].path);
			continue;
		}
		if (!err)
			err = file_digest(fs, ino, w[i].size, deadline, &size, &hash);
		if (err == FB_ERR_DEADLINE) {
			ext2fs_close_free(&fs);
			snprintf(detail, len, "the data oracle ran past %d s (at %s)",
				 fb_oracle_seconds(), w[i].path);
			free((void *)paths);
			free(inos);
			free(errs);
			return -1;
		}
		if (err) {
			if (!lost++ && !changed)
				snprintf(detail, len, "%s: %s", w[i].path, error_message(err));
		} else if (size != w[i].size || hash != w[i].hash) {
			if (!changed++)
				snprintf(detail, len, "%s: %s differs%s", w[i].path,
					 size != w[i].size ? "size" : "content", what);
		}
	}
	ext2fs_close_free(&fs);
	free((void *)paths);
	free(inos);
	free(errs);
	/* changed is the worse outcome: it names the silent kind first */
	*ret = changed ? FB_DATA_CHANGED : lost ? FB_DATA_LOST : FB_DATA_INTACT;
	return 0;
}

int fb_manifest_check(const struct fb_manifest_want *w, int n, const char *image,
		      enum fb_data *ret, char *detail, size_t len)
{
	return check_wants(w, n, image, " from what the workload wrote", ret, detail, len);
}

int fb_manifest_compare(const struct fb_manifest *m, const char *image,
			char *const skip[], int nskip, enum fb_data *ret,
			char *detail, size_t len)
{
	struct fb_manifest_want *w = xcalloc(m->n + 1, sizeof(*w));
	int n = 0, rc;

	for (int i = 0; i < m->n; i++)
		if (!skipped(m->v[i].path, skip, nskip))
			w[n++] = (struct fb_manifest_want){ .path = m->v[i].path,
							    .size = m->v[i].size,
							    .hash = m->v[i].hash };
	rc = check_wants(w, n, image, "", ret, detail, len);
	free(w);
	return rc;
}

int fb_manifest_lookup(char *const *paths, int n, const char *image,
		       struct fb_manifest_found *ret, char *detail, size_t len)
{
	double deadline = fb_now() + fb_oracle_seconds();
	ext2_filsys fs;
	errcode_t err, *errs;
	ext2_ino_t *inos;

	detail[0] = '\0';
	for (int i = 0; i < n; i++)
		ret[i] = (struct fb_manifest_found){ .state = FB_FOUND_NOT_CHECKED };
	err = open_fs(image, &fs);
	if (err) {
		snprintf(detail, len, "cannot open the image: %s", error_message(err));
		return -1;
	}
	inos = xcalloc(n + 1, sizeof(*inos));
	errs = xcalloc(n + 1, sizeof(*errs));
	fb_resolve_paths(fs, (const char *const *)paths, n, inos, errs);
	for (int i = 0; i < n; i++) {
		struct ext2_inode inode;
		ext2_ino_t ino = inos[i];

		if (!paths[i])
			continue;
		err = errs[i];
		/* only a name that is not there is absent: a directory that cannot be read is not */
		if (err == EXT2_ET_FILE_NOT_FOUND) {
			ret[i].state = FB_FOUND_ABSENT;
			continue;
		}
		if (err || ext2fs_read_inode(fs, ino, &inode) || !LINUX_S_ISREG(inode.i_mode)) {
			ret[i].state = FB_FOUND_UNREADABLE;
			continue;
		}
		err = file_digest(fs, ino, UINT64_MAX, deadline, &ret[i].size, &ret[i].hash);
		if (err == FB_ERR_DEADLINE) {
			ret[i].state = FB_FOUND_NOT_CHECKED;
			snprintf(detail, len, "the data oracle ran past %d s (at %s)",
				 fb_oracle_seconds(), paths[i]);
			ext2fs_close_free(&fs);
			free(inos);
			free(errs);
			return -1;
		}
		ret[i].state = err ? FB_FOUND_UNREADABLE : FB_FOUND_FILE;
	}
	ext2fs_close_free(&fs);
	free(inos);
	free(errs);
	return 0;
}

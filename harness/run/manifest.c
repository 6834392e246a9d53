// SPDX-License-Identifier: MIT
/*
 * Manifests (manifest.h), read with libext2fs. The image is opened
 * read-only and checksum errors are ignored while reading: after e2fsck -fy
 * there should be none, and when there still are, what matters here is
 * whether the bytes of each file survived, not whether metadata verifies.
 */
#include <ext2fs/ext2fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/agent.h"
#include "run/manifest.h"
#include "util.h"

static errcode_t open_fs(const char *image, ext2_filsys *ret)
{
	return ext2fs_open2(image, NULL, EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS,
			    0, 0, unix_io_manager, ret);
}

/* Size and digest of inode INO's content. */
static errcode_t file_digest(ext2_filsys fs, ext2_ino_t ino, uint64_t *size, uint64_t *hash)
{
	static char buf[65536];
	ext2_file_t f;
	errcode_t err;
	unsigned int got;
	uint64_t h = FNV1A_INIT;

	err = ext2fs_file_open(fs, ino, 0, &f);
	if (err)
		return err;
	*size = ext2fs_file_get_size(f);
	do {
		err = ext2fs_file_read(f, buf, sizeof(buf), &got);
		if (err)
			break;
		h = fnv1a(h, buf, got);
	} while (got);
	ext2fs_file_close(f);
	*hash = h;
	return err;
}

struct walk {
	ext2_filsys fs;
	struct fb_manifest *m;
	char path[4096];
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
			if (file_digest(w->fs, de->inode, &e.size, &e.hash) == 0) {
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

int fb_manifest_build(const char *image, struct fb_manifest *ret, char *why, size_t len)
{
	struct walk w = { .m = ret };
	errcode_t err;

	memset(ret, 0, sizeof(*ret));
	err = open_fs(image, &w.fs);
	if (err) {
		snprintf(why, len, "cannot open %s with libext2fs: %s", image, error_message(err));
		return -1;
	}
	walk_dir(&w, EXT2_ROOT_INO);
	ext2fs_close_free(&w.fs);
	if (w.err) {
		snprintf(why, len, "cannot read every directory of %s: %s", image, error_message(w.err));
		return -1;
	}
	return 0;
}

int fb_manifest_save(const struct fb_manifest *m, const char *file)
{
	FILE *f = fopen(file, "w");

	if (!f)
		return -1;
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

int fb_manifest_compare(const struct fb_manifest *m, const char *image,
			char *const skip[], int nskip, enum fb_data *ret,
			char *detail, size_t len)
{
	ext2_filsys fs;
	errcode_t err;
	int lost = 0, changed = 0;

	*ret = FB_DATA_NOT_CHECKED;
	detail[0] = '\0';
	err = open_fs(image, &fs);
	if (err) {
		snprintf(detail, len, "cannot open the image: %s", error_message(err));
		*ret = FB_DATA_LOST;
		return 0;
	}
	for (int i = 0; i < m->n; i++) {
		const struct fb_manifest_entry *e = &m->v[i];
		ext2_ino_t ino;
		uint64_t size, hash;

		if (skipped(e->path, skip, nskip))
			continue;
		err = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, e->path, &ino);
		if (!err)
			err = file_digest(fs, ino, &size, &hash);
		if (err) {
			if (!lost++ && !changed)
				snprintf(detail, len, "%s: %s", e->path, error_message(err));
		} else if (size != e->size || hash != e->hash) {
			if (!changed++)
				snprintf(detail, len, "%s: %s differs", e->path,
					 size != e->size ? "size" : "content");
		}
	}
	ext2fs_close_free(&fs);
	/* changed is the worse outcome: it names the silent kind first */
	*ret = changed ? FB_DATA_CHANGED : lost ? FB_DATA_LOST : FB_DATA_INTACT;
	return 0;
}

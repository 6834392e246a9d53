// SPDX-License-Identifier: MIT
/*
 * Many paths to their inodes, each parent directory read once (resolve.h).
 *
 * ext2fs_namei() resolves a path's parent directory, then ext2fs_lookup()
 * iterates the parent's entries in block order and stops at the first
 * whose name matches; an error reading the directory (a corrupted block)
 * before that entry is what the lookup returns. Here the paths are grouped
 * by parent; the parent is resolved once with ext2fs_namei_follow() (namei
 * follows symlinks up to the last component: symlinks and errors on the
 * way are namei's own), then iterated once in full: a
 * name takes the first entry that matches it, as the lookup would; a name
 * not met before the iteration's error gets that error, as its lookup
 * would have met the bad block first; a name not met at all is
 * EXT2_ET_FILE_NOT_FOUND.
 */
#include <stdlib.h>
#include <string.h>

#include "judge/resolve.h"
#include "util.h"

struct ref {
	const char *path;
	size_t dirlen;		/* the parent's length in path ("/d/x": 2; "/x": 0) */
	const char *name;	/* the last component */
	size_t namelen;
	int i;			/* its index in the caller's arrays */
};

/* By parent, then name: a directory's paths next to each other, searchable by name. */
static int by_dir_name(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	size_t n = x->dirlen < y->dirlen ? x->dirlen : y->dirlen;
	int c = memcmp(x->path, y->path, n);

	if (c)
		return c;
	if (x->dirlen != y->dirlen)
		return x->dirlen < y->dirlen ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : x->i - y->i;
}

struct group {
	struct ref *r;		/* one parent's paths, sorted by name */
	int n;
	ext2_ino_t *ino;
	errcode_t *err;
	char *met;		/* met[k]: r[k]'s name was found */
};

/*
 * R's name against an entry's NAME of LEN bytes (not NUL-terminated): the
 * order strcmp gives names without a NUL byte.
 */
static int name_cmp(const struct ref *r, const char *name, size_t len)
{
	int c = memcmp(r->name, name, r->namelen < len ? r->namelen : len);

	return c ? c : (r->namelen > len) - (r->namelen < len);
}

/* The first of G's paths named NAME (LEN bytes), or -1. */
static int find(const struct group *g, const char *name, size_t len)
{
	int lo = 0, hi = g->n - 1, at = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = name_cmp(&g->r[mid], name, len);

		if (c < 0) {
			lo = mid + 1;
		} else {
			if (!c)
				at = mid;
			hi = mid - 1;
		}
	}
	return at;
}

static int on_entry(struct ext2_dir_entry *de, int offset, int blocksize, char *buf,
		    void *priv)
{
	struct group *g = priv;
	size_t len = ext2fs_dirent_name_len(de);
	int k = find(g, de->name, len);

	/* every path of that name (the same path twice) takes this first entry */
	for (; k >= 0 && k < g->n && !name_cmp(&g->r[k], de->name, len); k++) {
		if (g->met[k])
			continue;
		g->met[k] = 1;
		g->ino[g->r[k].i] = de->inode;
		g->err[g->r[k].i] = 0;
	}
	return 0;
}

static void resolve_group(ext2_filsys fs, struct group *g)
{
	const struct ref *first = &g->r[0];
	char *dir = NULL;
	ext2_ino_t dino = EXT2_ROOT_INO;
	errcode_t err = 0;

	if (first->dirlen) {
		dir = xstrndup(first->path, first->dirlen);
		/* namei follows a symlink anywhere before the last component */
		err = ext2fs_namei_follow(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, dir, &dino);
		free(dir);
	}
	if (!err)
		err = ext2fs_dir_iterate(fs, dino, 0, NULL, on_entry, g);
	for (int k = 0; k < g->n; k++)
		if (!g->met[k])
			g->err[g->r[k].i] = err ? err : EXT2_ET_FILE_NOT_FOUND;
}

void fb_resolve_paths(ext2_filsys fs, const char *const *paths, int n, ext2_ino_t *ino,
		      errcode_t *err)
{
	struct ref *r = xcalloc(n + 1, sizeof(*r));
	char *met = xcalloc(n + 1, 1);
	int m = 0;

	for (int i = 0; i < n; i++) {
		const char *slash;

		if (!paths[i])
			continue;
		ino[i] = 0;
		slash = strrchr(paths[i], '/');
		/* not absolute, or ending in '/': namei's own answer */
		if (paths[i][0] != '/' || !slash[1]) {
			err[i] = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, paths[i], &ino[i]);
			continue;
		}
		r[m++] = (struct ref){ .path = paths[i], .dirlen = slash - paths[i],
				       .name = slash + 1, .namelen = strlen(slash + 1), .i = i };
	}
	qsort(r, m, sizeof(*r), by_dir_name);
	for (int a = 0, b; a < m; a = b) {
		for (b = a + 1; b < m && r[b].dirlen == r[a].dirlen &&
		     !memcmp(r[b].path, r[a].path, r[a].dirlen); b++)
			;
		resolve_group(fs, &(struct group){ .r = r + a, .n = b - a, .ino = ino,
						   .err = err, .met = met + a });
	}
	free(r);
	free(met);
}

// SPDX-License-Identifier: MIT
/*
 * Golden images (golden.h). A recipe is the mkfs command plus the populate
 * lines; its hash names the cache directory, so two scenarios with the same
 * recipe share one image and a changed recipe never reuses a stale one.
 * Files are written into a staging tree with the guest agent's pattern and
 * put into the image by mkfs.ext4 -d; xattrs and raw changes go through
 * debugfs; e2fsck -fyD builds htrees. The result must pass e2fsck -fn.
 */
#include <errno.h>
#include <signal.h>
#include <glob.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest/agent.h"
#include "golden/golden.h"
#include "golden/filehash.h"
#include "boot/proc.h"
#include "util.h"


/*
 * Run ARGV with its output appended to LOG; return its exit status, or -1
 * when it could not run, died by a signal or flipbed was interrupted (the
 * tool is killed at once then: a Ctrl-C does not wait for mkfs or e2fsck).
 * A tool still running after TOOL_SECONDS on a fresh image is stuck.
 */
#define TOOL_SECONDS 3600
static int run_logged(const char *log, char *const argv[])
{
	int rc = fb_proc_run_logged(argv, NULL, log, TOOL_SECONDS, 0, NULL);

	return rc < 0 ? -1 : rc;
}

/* Write BYTES of PATH's pattern (PATH as the guest sees it) to TREE/PATH. */
static int write_pattern(const char *tree, const char *path, long long bytes,
			 bool sparse)
{
	char full[4096], *slash;
	unsigned char buf[4096];
	int fd;

	snprintf(full, sizeof(full), "%s%s", tree, path);
	slash = strrchr(full, '/');
	*slash = '\0';
	if (fb_mkdirs(full))
		return -1;
	*slash = '/';
	fd = open(full, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (long long off = 0; off < bytes && !fb_proc_interrupted(); off += sizeof(buf)) {
		size_t n = bytes - off < (long long)sizeof(buf) ? (size_t)(bytes - off) : sizeof(buf);
		/* sparse files: data in every other 4 KiB block, holes between */
		if (sparse && (off / sizeof(buf)) % 2)
			continue;
		pattern_fill(path, off, buf, n);
		if (pwrite(fd, buf, n, off) != (ssize_t)n) {
			close(fd);
			return -1;
		}
	}
	if (sparse && ftruncate(fd, bytes)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int populate_tree(const struct fb_scenario *s, const char *tree)
{
	char path[4096];

	if (fb_mkdirs(tree))
		return -1;
	for (int i = 0; i < s->npop && !fb_proc_interrupted(); i++) {
		const struct fb_populate *p = &s->pop[i];
		switch (p->kind) {
		case FB_POP_FILE:
			if (write_pattern(tree, p->path, p->bytes, false))
				return -1;
			break;
		case FB_POP_DIR:
			snprintf(path, sizeof(path), "%s%s", tree, p->path);
			if (fb_mkdirs(path))
				return -1;
			break;
		case FB_POP_FILES:
			for (long long k = 0; k < p->count && !fb_proc_interrupted(); k++) {
				fb_files_name(p, k, path, sizeof(path));
				if (write_pattern(tree, path, p->bytes, false))
					return -1;
			}
			break;
		case FB_POP_SPARSE:
			if (write_pattern(tree, p->path, p->count * 2 * 4096 - 4096, true))
				return -1;
			break;
		default:
			break;
		}
	}
	return 0;
}

/*
 * A journal transaction: the blocks' new content (the pattern of
 * "journal:BLOCKS", 4 KiB each: journal fixtures use 4 KiB blocks) in a
 * file debugfs journal_write reads.
 */
static int journal_line(FILE *f, const struct fb_populate *p, const char *dir, int i)
{
	char val[4200];
	unsigned char buf[4096];
	size_t nblocks = 1;
	FILE *v;

	if (!strcmp(p->name, "revoke")) {
		fprintf(f, "jw -r %s\n", p->blocks);
		return 0;
	}
	for (const char *c = p->blocks; *c; c++)
		nblocks += *c == ',';
	snprintf(val, sizeof(val), "%s/journal%d", dir, i);
	v = fopen(val, "w");
	if (!v)
		return -1;
	for (size_t b = 0; b < nblocks; b++) {
		pattern_fill("journal", b * sizeof(buf), buf, sizeof(buf));
		fwrite(buf, 1, sizeof(buf), v);
	}
	if (fclose(v))
		return -1;
	fprintf(f, "jw -b %s %s\n", p->blocks, val);
	return 0;
}

/* xattr, journal and debugfs lines, in order, through one debugfs -w -f script. */
static int debugfs_steps(const struct fb_scenario *s, const char *dir,
			 const char *img, const char *log)
{
	char script[4096], val[4096];
	FILE *f;
	int n = 0, journal_open = 0;

	snprintf(script, sizeof(script), "%s/debugfs.cmds", dir);
	f = fopen(script, "w");
	if (!f)
		return -1;
	for (int i = 0; i < s->npop; i++) {
		const struct fb_populate *p = &s->pop[i];
		if (p->kind == FB_POP_XATTR) {
			unsigned char buf[65536];
			size_t len = p->bytes < (long long)sizeof(buf) ? (size_t)p->bytes : sizeof(buf);
			snprintf(val, sizeof(val), "%s/xattr%d", dir, i);
			pattern_fill(p->name, 0, buf, len);
			FILE *v = fopen(val, "w");
			if (!v || fwrite(buf, 1, len, v) != len || fclose(v)) {
				fclose(f);
				return -1;
			}
			fprintf(f, "ea_set -f %s %s %s\n", val, p->path, p->name);
			n++;
		} else if (p->kind == FB_POP_JOURNAL) {
			if (!journal_open++)
				fprintf(f, "jo -c\n");
			if (journal_line(f, p, dir, i)) {
				fclose(f);
				return -1;
			}
			n++;
		} else if (p->kind == FB_POP_DEBUGFS) {
			fprintf(f, "%s\n", p->name);
			n++;
		}
	}
	if (journal_open)
		fprintf(f, "jc\n");
	if (fclose(f) || !n)
		return n ? -1 : 0;
	char *argv[] = { "debugfs", "-w", "-f", script, (char *)img, NULL };
	return run_logged(log, argv) == 0 ? 0 : -1;
}

static bool wants_index(const struct fb_scenario *s)
{
	for (int i = 0; i < s->npop; i++)
		if (s->pop[i].kind == FB_POP_INDEX)
			return true;
	return false;
}

/* The recipe: everything that decides the image's bytes, as text. */
static void recipe(const struct fb_scenario *s, char *buf, size_t len)
{
	struct stat st;
	size_t n;

	/* a given image: its path, size and mtime name it (a changed file is rebuilt) */
	if (s->image && stat(s->image, &st) == 0)
		n = snprintf(buf, len, "image %s %lld %lld.%09ld\n", s->image, (long long)st.st_size,
			     (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	else
		n = snprintf(buf, len, "mkfs -O %s %s size %s\n", s->features,
			     s->mkfs_options, s->size);
	static const char *const kinds[] = {
		"file", "dir", "files", "sparse", "xattr", "debugfs", "index-dirs", "journal",
	};

	for (int i = 0; i < s->npop && n < len; i++) {
		const struct fb_populate *p = &s->pop[i];
		n += snprintf(buf + n, len - n, "%s %s %s %s %lld %lld", kinds[p->kind],
			      p->path ? p->path : "", p->name ? p->name : "",
			      p->blocks ? p->blocks : "", p->count, p->bytes);
		/* only when given: the recipes written before it keep their hash */
		if (p->name_bytes && n < len)
			n += snprintf(buf + n, len - n, " names %lld", p->name_bytes);
		if (n < len)
			n += snprintf(buf + n, len - n, "\n");
	}
}

__attribute__((format(printf, 2, 3)))
static int fail(const struct fb_golden *g, const char *fmt, ...)
{
	va_list ap;

	/* a step cut short by Ctrl-C did not fail: fb_golden_get says what was cut */
	if (fb_proc_interrupted())
		return -1;
	fprintf(stderr, "flipbed: golden image %s: ", g->key);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (log: %s/build.log)\n", g->dir);
	return -1;
}

/*
 * A given image is copied as it is (it may be corrupt: that is the point),
 * then the debugfs populate lines, if any, change the copy.
 */
static int build_from_image(const struct fb_scenario *s, struct fb_golden *g,
			    const char *tmp, const char *img, const char *log)
{
	if (fb_image_copy(s->image, img))
		return fail(g, "cannot copy %s: %s", s->image, strerror(errno));
	if (debugfs_steps(s, tmp, img, log))
		return fail(g, "a debugfs populate step failed");
	snprintf(g->mkfs, sizeof(g->mkfs), "image %s", s->image);
	return 0;
}

static int build(const struct fb_scenario *s, struct fb_golden *g, const char *tmp)
{
	char tree[4200], img[4200], log[4200], uuid[40], hs[80], *argv[64];
	int argc = 0, rc;
	char **opts;

	snprintf(tree, sizeof(tree), "%s/tree", tmp);
	snprintf(img, sizeof(img), "%s/golden.raw", tmp);
	snprintf(log, sizeof(log), "%s/build.log", tmp);
	if (s->image)
		return build_from_image(s, g, tmp, img, log);
	if (populate_tree(s, tree) || fb_proc_interrupted())
		return fail(g, "cannot write the staging tree %s: %s", tree, strerror(errno));
	/* A UUID and hash seed from the recipe: the same recipe, the same image layout. */
	snprintf(uuid, sizeof(uuid), "%.8s-%.4s-4%.3s-8%.3s-%.12s", g->key, g->key + 8,
		 g->key + 12, g->key + 1, g->key + 4);
	snprintf(hs, sizeof(hs), "hash_seed=%s", uuid);
	argv[argc++] = "mkfs.ext4";
	argv[argc++] = "-q";
	argv[argc++] = "-F";
	argv[argc++] = "-U";
	argv[argc++] = uuid;
	argv[argc++] = "-E";
	argv[argc++] = hs;
	if (s->features[0]) {
		argv[argc++] = "-O";
		argv[argc++] = s->features;
	}
	opts = fb_strv_split(s->mkfs_options, NULL);
	for (char **o = opts; *o && argc < 56; o++)
		argv[argc++] = *o;
	argv[argc++] = "-d";
	argv[argc++] = tree;
	argv[argc++] = img;
	argv[argc++] = s->size;
	argv[argc] = NULL;
	snprintf(g->mkfs, sizeof(g->mkfs), "mkfs.ext4 -F%s%s %s IMG %s",
		 s->features[0] ? " -O " : "", s->features, s->mkfs_options, s->size);
	rc = run_logged(log, argv);
	fb_strv_free(opts);
	if (rc)
		return fail(g, "mkfs.ext4 failed (exit %d)", rc);
	if (debugfs_steps(s, tmp, img, log))
		return fail(g, "a debugfs populate step failed");
	if (wants_index(s)) {
		char *fy[] = { "e2fsck", "-fyD", img, NULL };
		rc = run_logged(log, fy);
		if (rc < 0 || rc > 1)
			return fail(g, "e2fsck -fyD failed (exit %d)", rc);
	}
	char *fn[] = { "e2fsck", "-fn", img, NULL };
	rc = run_logged(log, fn);
	if (rc)
		return fail(g, "e2fsck -fn finds the fresh image unclean (exit %d): the recipe is wrong", rc);
	return 0;
}

static int read_hash(const char *path, uint64_t *ret)
{
	FILE *f = fopen(path, "r");
	unsigned long long v;
	int ok = f && fscanf(f, "%llx", &v) == 1;

	if (f)
		fclose(f);
	if (ok)
		*ret = v;
	return ok ? 0 : -1;
}

void fb_golden_sweep(const char *cachedir)
{
	char pattern[4200];
	glob_t gl;

	snprintf(pattern, sizeof(pattern), "%s/*.tmp-*", cachedir);
	if (glob(pattern, 0, NULL, &gl))
		return;
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		long pid = strtol(strrchr(gl.gl_pathv[i], '-') + 1, NULL, 10);

		if (pid > 0 && kill((pid_t)pid, 0) && errno == ESRCH)
			fb_remove_tree(gl.gl_pathv[i]);
	}
	globfree(&gl);
}

int fb_golden_get(const struct fb_scenario *s, const char *cachedir,
		  struct fb_golden *g)
{
	char text[16384], tmp[4200], hashfile[4200];
	uint64_t key;

	recipe(s, text, sizeof(text));
	key = fnv1a(FNV1A_INIT, text, strlen(text));
	memset(g, 0, sizeof(*g));
	snprintf(g->key, sizeof(g->key), "%016llx", (unsigned long long)key);
	snprintf(g->dir, sizeof(g->dir), "%s/%s", cachedir, g->key);
	snprintf(g->path, sizeof(g->path), "%s/golden.raw", g->dir);
	snprintf(hashfile, sizeof(hashfile), "%s/golden.hash", g->dir);
	if (s->image)
		snprintf(g->mkfs, sizeof(g->mkfs), "image %s", s->image);
	else
		snprintf(g->mkfs, sizeof(g->mkfs), "mkfs.ext4 -F%s%s %s IMG %s",
			 s->features[0] ? " -O " : "", s->features, s->mkfs_options, s->size);
	if (!read_hash(hashfile, &g->hash) && !access(g->path, R_OK))
		return 0;

	/* Build in a private directory, then rename: a cache entry is whole or absent. */
	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", g->dir, getpid());
	if (fb_mkdirs(tmp))
		return fail(g, "cannot create %s: %s", tmp, strerror(errno));
	FILE *r = fopen(strcat(strcpy(hashfile, tmp), "/recipe.txt"), "w");
	if (r) {
		fputs(text, r);
		fclose(r);
	}
	if (build(s, g, tmp) || fb_proc_interrupted()) {
		/* kept for its build.log, unless the build was cut short by a signal */
		if (fb_proc_interrupted()) {
			fb_remove_tree(tmp);
			fprintf(stderr, "flipbed: interrupted (%s) while building golden image %s for %s: its partial build %s is removed, nothing is cached\n",
				strsignal(fb_proc_interrupted()), g->key, s->file, tmp);
			return -1;
		}
		snprintf(g->dir, sizeof(g->dir), "%s", tmp);
		return -1;
	}
	snprintf(hashfile, sizeof(hashfile), "%s/tree", tmp);
	fb_remove_tree(hashfile);
	snprintf(hashfile, sizeof(hashfile), "%s/golden.raw", tmp);
	if (fb_file_hash(hashfile, &g->hash) || chmod(hashfile, 0444))
		return fail(g, "cannot hash %s: %s", hashfile, strerror(errno));
	snprintf(hashfile, sizeof(hashfile), "%s/golden.hash", tmp);
	FILE *h = fopen(hashfile, "w");
	if (!h || fprintf(h, "%016llx\n", (unsigned long long)g->hash) < 0 || fclose(h))
		return fail(g, "cannot write %s", hashfile);
	if (rename(tmp, g->dir)) {
		if (errno != ENOTEMPTY && errno != EEXIST)
			return fail(g, "cannot rename %s: %s", tmp, strerror(errno));
		/* another run built the same recipe first: use its image */
		snprintf(hashfile, sizeof(hashfile), "%s/golden.hash", g->dir);
		if (read_hash(hashfile, &g->hash))
			return fail(g, "cannot read %s", hashfile);
		fb_remove_tree(tmp);
	}
	return 0;
}

int fb_golden_check(const struct fb_golden *g)
{
	uint64_t h;

	if (fb_file_hash(g->path, &h)) {
		fprintf(stderr, "flipbed: golden image %s: %s\n", g->path, strerror(errno));
		return -1;
	}
	if (h != g->hash) {
		fprintf(stderr, "flipbed: golden image %s changed (hash %016llx, built as %016llx): something wrote to it\n",
			g->path, (unsigned long long)h, (unsigned long long)g->hash);
		return -1;
	}
	return 0;
}

int fb_image_copy(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1;
	struct stat st;
	off_t data = 0, hole;
	int rc = -1;

	if (in < 0 || fstat(in, &st))
		goto out;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || ftruncate(out, st.st_size))
		goto out;
	/* copy only the data segments: the holes stay holes */
	while ((data = lseek(in, data, SEEK_DATA)) >= 0) {
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			goto out;
		loff_t off_in = data, off_out = data;
		size_t left = hole - data;
		while (left) {
			ssize_t n = copy_file_range(in, &off_in, out, &off_out, left, 0);
			if (n <= 0)
				goto out;
			left -= n;
		}
		data = hole;
	}
	rc = errno == ENXIO ? 0 : -1;
out:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		rc = -1;
	return rc;
}


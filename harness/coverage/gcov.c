// SPDX-License-Identifier: MIT
/*
 * gcov's JSON for one case (gcov.h). The case's .gcda files and the
 * kernel's .gcno files meet, as symbolic links, in a private directory;
 * gcov runs there once per source directory with its stdout in a file,
 * within GCOV_MIB of address space and GCOV_SECONDS.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot/proc.h"
#include "coverage/gcov.h"
#include "util.h"

#define GCOV_MIB 2048
#define GCOV_SECONDS 120
#define GCOV_MAX_JSON (512u << 20)
#define GCOV_MAX_LINE 200000
#define GCOV_MAX_BRANCHES 2000000
#define FB_GCOV_MAX_ARGS 256	/* objects of one directory (ext4 has about 40) */

static const char *const dirs[] = { "fs/ext4", "fs/jbd2" };

int fb_gcov_bundle_id(const char *bundle, char *id, size_t idlen, char *why, size_t len)
{
	char path[4200];
	size_t n;
	char *s;

	snprintf(path, sizeof(path), "%s/build-id", bundle);
	s = fb_slurp(path, &n);
	if (!s) {
		snprintf(why, len, "%s: %s (build the kernel again: make kernels-gcov)", path,
			 strerror(errno));
		return -1;
	}
	s[strcspn(s, "\n")] = '\0';
	snprintf(id, idlen, "%s", s);
	free(s);
	return 0;
}

/* The stamp of a .gcno or .gcda file (bytes 8-11), or -1. */
static long long stamp_of(const char *path, const char *magic)
{
	unsigned char h[12];
	uint32_t v;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n != sizeof(h) || memcmp(h, magic, 4))
		return -1;
	memcpy(&v, h + 8, 4);
	return v;
}

/* Link CASE's .gcda of DIR and the bundle's .gcno into TMP/DIR: the count, or -1. */
static bool wanted(const char *const *only, const char *dir, const char *base)
{
	char obj[256];

	if (!only)
		return true;
	snprintf(obj, sizeof(obj), "%s/%s", dir, base);
	for (; *only; only++)
		if (!strcmp(*only, obj))
			return true;
	return false;
}

static int link_dir(const char *bundle, const char *gcovdir, const char *tmp, const char *dir,
		    const char *const *only, char *why, size_t len)
{
	char from[4200], to[4200], gcno[4200];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(from, sizeof(from), "%s/%s", gcovdir, dir);
	d = opendir(from);
	if (!d)
		return errno == ENOENT ? 0 : (snprintf(why, len, "%s: %s", from, strerror(errno)), -1);
	snprintf(to, sizeof(to), "%s/%s", tmp, dir);
	if (fb_mkdirs(to)) {
		closedir(d);
		snprintf(why, len, "cannot make %s", to);
		return -1;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char src[4500], dst[4500], base[256];
		long long a, b;

		if (l < 6 || l > 200 || strcmp(e->d_name + l - 5, ".gcda"))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(l - 5), e->d_name);
		if (!wanted(only, dir, base))
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, e->d_name);
		snprintf(gcno, sizeof(gcno), "%s/obj/%s/%s.gcno", bundle, dir, base);
		a = stamp_of(src, "adcg");
		b = stamp_of(gcno, "oncg");
		if (b < 0) {
			closedir(d);
			snprintf(why, len, "%s/%s.gcda: the kernel has no %s (another build?)", dir,
				 base, gcno);
			return -1;
		}
		if (a != b) {
			closedir(d);
			snprintf(why, len, "%s/%s.gcda has stamp %08llx, the kernel's notes %08llx: "
				 "counters of another build", dir, base, a < 0 ? 0 : a, b);
			return -1;
		}
		snprintf(dst, sizeof(dst), "%s/%s", to, e->d_name);
		if (symlink(src, dst)) {
			closedir(d);
			snprintf(why, len, "%s: %s", dst, strerror(errno));
			return -1;
		}
		snprintf(dst, sizeof(dst), "%s/%s.gcno", to, base);
		if (symlink(gcno, dst)) {
			closedir(d);
			snprintf(why, len, "%s: %s", dst, strerror(errno));
			return -1;
		}
		n++;
	}
	closedir(d);
	return n;
}

/* Run gcov in TMP on DIR's files, its JSON to OUT: 0, or -1 with WHY. */
static int run_gcov(const char *tmp, const char *dir, const char *out, char *why, size_t len)
{
	static const char *const opts[] = { "gcov", "--json-format", "--stdout",
					     "--branch-probabilities", "--object-directory" };
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct fb_proc p = { 0 };
	char dpath[4200], **args;
	struct dirent *e;
	size_t na = 0;
	int fd, cwd, rc = -1;
	DIR *d;

	snprintf(dpath, sizeof(dpath), "%s/%s", tmp, dir);
	d = opendir(dpath);
	if (!d) {
		snprintf(why, len, "%s: %s", dpath, strerror(errno));
		return -1;
	}
	/* gcov DIR/NAME.gcda...: gcov takes each object by name, no shell globs */
	args = xcalloc(8 + FB_GCOV_MAX_ARGS, sizeof(*args));
	for (int i = 0; i < 5; i++)
		args[na++] = xstrdup(opts[i]);
	args[na++] = xstrdup(dir);
	while ((e = readdir(d)) && na < 6 + FB_GCOV_MAX_ARGS) {
		size_t l = strlen(e->d_name);

		if (l > 5 && !strcmp(e->d_name + l - 5, ".gcda")) {
			args[na] = xmalloc(strlen(dir) + l + 2);
			sprintf(args[na++], "%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && cwd >= 0 && !chdir(tmp)) {
		rc = fb_proc_spawn_bounded(&p, "gcov", args, -1, fd, -1, GCOV_MIB);
		if (fchdir(cwd))
			rc = -1;
	}
	if (rc)
		snprintf(why, len, "cannot run gcov in %s: %s", tmp, strerror(errno));
	if (cwd >= 0)
		close(cwd);
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < na; i++)
		free(args[i]);
	free(args);
	if (rc)
		return -1;
	for (int i = 0; i < GCOV_SECONDS * 100 && !fb_proc_reap(&p, 0); i++)
		nanosleep(&ts, NULL);
	if (!fb_proc_reap(&p, 0)) {
		fb_proc_kill(&p);
		snprintf(why, len, "gcov ran past %d s on %s and was killed", GCOV_SECONDS, dir);
		return -1;
	}
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status)) {
		snprintf(why, len, "gcov on %s: %s", dir, fb_proc_describe(&p));
		return -1;
	}
	return 0;
}

static struct fb_cov_file *file_of(struct fb_cov *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].name, name))
			return &c->f[i];
	c->f = xrealloc(c->f, (c->n + 1) * sizeof(*c->f));
	memset(&c->f[c->n], 0, sizeof(*c->f));
	snprintf(c->f[c->n].name, sizeof(c->f[c->n].name), "%s", name);
	return &c->f[c->n++];
}

/* "…/fs/ext4/inode.c" to "fs/ext4/inode.c" when it is one of ours; else NULL. */
static const char *ours(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t l;

	if (!base)
		return NULL;
	base++;
	l = strlen(base);
	if (l < 3 || l > 40 || strcmp(base + l - 2, ".c"))
		return NULL;
	for (int d = 0; d < 2; d++) {
		size_t dl = strlen(dirs[d]);

		if ((size_t)(base - path) >= dl + 1 && !strncmp(base - dl - 1, dirs[d], dl) &&
		    (base - dl - 1 == path || base[-dl - 2] == '/')) {
			snprintf(buf, len, "%s/%s", dirs[d], base);
			return buf;
		}
	}
	return NULL;
}

/* One object's JSON document (gcov prints one a line): 0, or -1 with WHY. */
static int parse_doc(json_t *root, struct fb_cov *cov, char *why, size_t len)
{
	json_t *files = json_object_get(root, "files"), *f;
	size_t i;

	json_array_foreach(files, i, f) {
		const char *path = json_string_value(json_object_get(f, "file"));
		char name[64];
		json_t *lines = json_object_get(f, "lines"), *l;
		size_t k;

		if (!path || !ours(path, name, sizeof(name)) || !json_is_array(lines))
			continue;
		struct fb_cov_file *cf = file_of(cov, name);

		json_array_foreach(lines, k, l) {
			json_int_t ln = json_integer_value(json_object_get(l, "line_number"));
			json_int_t cnt = json_integer_value(json_object_get(l, "count"));
			json_t *brs = json_object_get(l, "branches"), *b;
			size_t m;

			if (ln < 1 || ln > GCOV_MAX_LINE || cnt < 0) {
				snprintf(why, len, "gcov's output: %s: a line %lld or count %lld out of range",
					 name, (long long)ln, (long long)cnt);
				return -1;
			}
			if (ln >= cf->nlines) {
				int n = ln + 256;

				cf->count = xrealloc(cf->count, n * sizeof(*cf->count));
				for (int j = cf->nlines; j < n; j++)
					cf->count[j] = -1;
				cf->nlines = n;
			}
			cf->count[ln] = (cf->count[ln] < 0 ? 0 : cf->count[ln]) + cnt;
			json_array_foreach(brs, m, b) {
				json_int_t bc = json_integer_value(json_object_get(b, "count"));

				if (cf->nbr >= GCOV_MAX_BRANCHES || bc < 0)
					continue;
				cf->br_line = xrealloc(cf->br_line, (cf->nbr + 1) * sizeof(int));
				cf->br = xrealloc(cf->br, (cf->nbr + 1) * sizeof(long long));
				cf->br_line[cf->nbr] = ln;
				cf->br[cf->nbr++] = bc;
			}
		}
	}
	return 0;
}

static int parse_json(const char *out, struct fb_cov *cov, char *why, size_t len)
{
	struct stat st;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0, docs = 0;
	FILE *f;

	if (stat(out, &st) || st.st_size > GCOV_MAX_JSON) {
		snprintf(why, len, "gcov's output %s: missing or larger than %u MiB", out,
			 GCOV_MAX_JSON >> 20);
		return -1;
	}
	f = fopen(out, "r");
	if (!f) {
		snprintf(why, len, "%s: %s", out, strerror(errno));
		return -1;
	}
	while (!rc && (n = getline(&line, &cap, f)) > 0) {
		json_error_t err;
		json_t *root;

		if (n == 1)
			continue;
		root = json_loadb(line, n, 0, &err);
		if (!root) {
			snprintf(why, len, "gcov's output %s: %s (document %d)", out, err.text, docs + 1);
			rc = -1;
			break;
		}
		rc = parse_doc(root, cov, why, len);
		json_decref(root);
		docs++;
	}
	free(line);
	fclose(f);
	return rc;
}

void fb_cov_free(struct fb_cov *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->f[i].count);
		free(c->f[i].br_line);
		free(c->f[i].br);
	}
	free(c->f);
	c->f = NULL;
	c->n = 0;
}

int fb_gcov_read_case(const char *bundle, const char *gcovdir, const char *const *only,
		      struct fb_cov *cov, char *why, size_t len)
{
	char tmp[4096], out[4200], *gabs, *babs;
	int rc = 0, total = 0;

	fb_cov_free(cov);
	/* the links of the private directory must name them from anywhere */
	gabs = realpath(gcovdir, NULL);
	babs = realpath(bundle, NULL);
	if (!gabs || !babs) {
		snprintf(why, len, "%s: %s", gabs ? bundle : gcovdir, strerror(errno));
		free(gabs);
		free(babs);
		return -1;
	}
	bundle = babs;
	gcovdir = gabs;
	if (fb_private_dir(tmp, sizeof(tmp))) {
		snprintf(why, len, "cannot make a private directory: %s", strerror(errno));
		return -1;
	}
	for (int d = 0; d < 2 && !rc; d++) {
		int n = link_dir(bundle, gcovdir, tmp, dirs[d], only, why, len);

		if (n < 0) {
			rc = -1;
			break;
		}
		if (!n)
			continue;
		total += n;
		snprintf(out, sizeof(out), "%s/%s.json", tmp, d ? "jbd2" : "ext4");
		rc = run_gcov(tmp, dirs[d], out, why, len);
		if (!rc)
			rc = parse_json(out, cov, why, len);
	}
	if (!rc && !total) {
		snprintf(why, len, "%s has no .gcda file", gcovdir);
		rc = -1;
	}
	fb_remove_tree(tmp);
	free(gabs);
	free(babs);
	if (rc)
		fb_cov_free(cov);
	return rc;
}

void fb_cov_add(struct fb_cov *sum, const struct fb_cov *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct fb_cov_file *cf = &c->f[i];
		struct fb_cov_file *sf = file_of(sum, cf->name);

		if (cf->nlines > sf->nlines) {
			sf->count = xrealloc(sf->count, cf->nlines * sizeof(*sf->count));
			for (int j = sf->nlines; j < cf->nlines; j++)
				sf->count[j] = -1;
			sf->nlines = cf->nlines;
		}
		for (int j = 0; j < cf->nlines; j++)
			if (cf->count[j] >= 0)
				sf->count[j] = (sf->count[j] < 0 ? 0 : sf->count[j]) + cf->count[j];
		if (!sf->nbr && cf->nbr) {
			sf->br_line = xcalloc(cf->nbr, sizeof(int));
			sf->br = xcalloc(cf->nbr, sizeof(long long));
			memcpy(sf->br_line, cf->br_line, cf->nbr * sizeof(int));
			sf->nbr = cf->nbr;
		}
		for (int j = 0; j < cf->nbr && j < sf->nbr; j++)
			if (sf->br_line[j] == cf->br_line[j])
				sf->br[j] += cf->br[j];
	}
}

long long fb_cov_line(const struct fb_cov *c, const char *file, int line)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].name, file))
			return line > 0 && line < c->f[i].nlines ? c->f[i].count[line] : -1;
	return -1;
}

int fb_cov_first_code(const struct fb_cov *c, const char *file, int first, int last,
		      long long *count)
{
	for (int l = first; l > 0 && l <= last; l++) {
		long long n = fb_cov_line(c, file, l);

		if (n >= 0) {
			*count = n;
			return l;
		}
	}
	*count = 0;
	return 0;
}

void fb_cov_write_info(const struct fb_cov *c, const char *src, FILE *out)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct fb_cov_file *f = &c->f[i];
		int lf = 0, lh = 0, brf = 0, brh = 0, prev = -1, idx = 0;

		fprintf(out, "TN:\nSF:%s/%s\n", src, f->name);
		for (int j = 0; j < f->nbr; j++) {
			idx = f->br_line[j] == prev ? idx + 1 : 0;
			prev = f->br_line[j];
			fprintf(out, "BRDA:%d,0,%d,%lld\n", f->br_line[j], idx, f->br[j]);
			brf++;
			brh += f->br[j] > 0;
		}
		fprintf(out, "BRF:%d\nBRH:%d\n", brf, brh);
		for (int l = 1; l < f->nlines; l++) {
			if (f->count[l] < 0)
				continue;
			fprintf(out, "DA:%d,%lld\n", l, f->count[l]);
			lf++;
			lh += f->count[l] > 0;
		}
		fprintf(out, "LF:%d\nLH:%d\nend_of_record\n", lf, lh);
	}
}

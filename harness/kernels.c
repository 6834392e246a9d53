// SPDX-License-Identifier: MIT
/*
 * The kernel registry (kernels.h): kernel/kernels.ini, one section per
 * kernel. The text flipbed was built with is fb_kernels_ini[], which
 * harness/harness.mk makes from the file (kernels_ini.h in the build
 * folder); FLIPBED_KERNELS_INI=FILE reads FILE instead.
 * A variant takes every key it does not give from the kernel it is a
 * variant of (make excepted), so that kernel must come first.
 */
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "kernel_image.h"
#include "kernel_modules.h"
#include "kernels_ini.h"
#include "paths.h"
#include "util.h"

#define MAX_KERNELS 32
#define MAX_NAME 32
#define MAX_FILE 65536
#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

const struct fb_kernel *fb_kernels;
size_t fb_nkernels;

/* What a section gave, before variant-of fills the rest. */
struct entry {
	struct fb_kernel k;
	int line;
	bool has_mem, has_csum, has_gcov;
	char *config, *patches;
};

struct reader {
	const char *origin;	/* kernel/kernels.ini or $FLIPBED_KERNELS_INI */
	const char *text, *next;
	int line;
	int sec_line;		/* the line of the last [NAME] */
	int errors;
	struct entry v[MAX_KERNELS];
	int n;
	char *sec;		/* the section of the last line seen */
	struct entry *cur;	/* its kernel, NULL when the section was refused */
};

static void bad(struct reader *r, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", r->origin, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	r->errors++;
}

/* libinih reads one line per call: count them for the messages. */
static char *read_line(char *str, int num, void *stream)
{
	struct reader *r = stream;
	size_t n = strcspn(r->next, "\n");

	if (!*r->next)
		return NULL;
	r->line++;
	if (n >= (size_t)num - 1) {
		bad(r, r->line, "line longer than %d characters", num - 2);
		n = num - 2;
	}
	memcpy(str, r->next, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	if (str[strspn(str, " \t")] == '[')
		r->sec_line = r->line;
	r->next += strcspn(r->next, "\n");
	r->next += *r->next == '\n';
	return str;
}

/*
 * A kernel name becomes a folder of build/kernel/ and a word of matrix
 * lines: letters, digits, '.', '_', '-', not the folders kernel/build.sh
 * keeps there for itself.
 */
static bool name_valid(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > MAX_NAME || !strchr(ALNUM, s[0]) || strspn(s, ALNUM "._-") != n)
		return false;
	return strcmp(s, "src") && strcmp(s, "obj") && strcmp(s, "check") &&
	       strncmp(s, "check-", 6);
}

static struct entry *find_entry(struct reader *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].k.name, name))
			return &r->v[i];
	return NULL;
}

static struct entry *section(struct reader *r, const char *name)
{
	struct entry *e;

	if (!*name) {
		bad(r, r->sec_line, "a key before the first [NAME] section");
		return NULL;
	}
	if (!name_valid(name)) {
		bad(r, r->sec_line, "[%s]: a kernel name is 1 to %d letters, digits, '.', '_' or '-', starting with a letter or digit, and not src, obj, check or check-*",
		    name, MAX_NAME);
		return NULL;
	}
	if (find_entry(r, name)) {
		bad(r, r->sec_line, "[%s]: given twice (first on line %d)", name,
		    find_entry(r, name)->line);
		return NULL;
	}
	if (r->n == MAX_KERNELS) {
		bad(r, r->sec_line, "[%s]: more than %d kernels", name, MAX_KERNELS);
		return NULL;
	}
	e = &r->v[r->n++];
	memset(e, 0, sizeof(*e));
	e->k.name = xstrdup(name);
	e->line = r->sec_line;
	return e;
}

static void set_str(struct reader *r, const char *key, const char **dst, const char *value)
{
	if (*dst)
		bad(r, r->line, "%s: given twice in this section", key);
	else
		*dst = xstrdup(value);
}

/* debian-image:PACKAGE=VERSION: a binary package, its drivers modules */
static bool image_source(const char *value)
{
	const char *spec = value + 13, *eq = strchr(spec, '=');

	return !strncmp(value, "debian-image:", 13) && eq && eq > spec && eq[1];
}

static int on_entry(void *user, const char *sec, const char *key, const char *value)
{
	struct reader *r = user;
	struct entry *e;
	char *end;

	if (!r->sec || strcmp(r->sec, sec)) {
		free(r->sec);
		r->sec = xstrdup(sec);
		r->cur = section(r, sec);
	}
	e = r->cur;
	if (!e)
		return 1;
	if (!strcmp(key, "source")) {
		if (strncmp(value, "debian:linux-source-", 20) && (strncmp(value, "git:", 4) || !value[4]) &&
		    !image_source(value))
			bad(r, r->line, "source = %s: expected debian:linux-source-X.Y, debian-image:PACKAGE=VERSION or git:PATH",
			    value);
		set_str(r, key, &e->k.source, value);
	} else if (!strcmp(key, "patches")) {
		set_str(r, key, (const char **)&e->patches, value);
	} else if (!strcmp(key, "config")) {
		if (!*value)
			bad(r, r->line, "config = : expected fragments of kernel/config/");
		set_str(r, key, (const char **)&e->config, value);
	} else if (!strcmp(key, "variant-of")) {
		const struct entry *of = find_entry(r, value);
		if (!of || of == e)
			bad(r, r->line, "variant-of = %s: not a kernel above this one", value);
		set_str(r, key, &e->k.variant_of, value);
	} else if (!strcmp(key, "image")) {
		if (strcmp(value, "vmlinux") && strcmp(value, "bzImage"))
			bad(r, r->line, "image = %s: expected vmlinux or bzImage", value);
		set_str(r, key, &e->k.image, value);
	} else if (!strcmp(key, "memory")) {
		long mb;
		errno = 0;
		mb = strtol(value, &end, 10);
		if (!*value || *end || errno || mb < 64 || mb > 16384)
			bad(r, r->line, "memory = %s: expected MiB, 64 to 16384", value);
		else if (e->has_mem)
			bad(r, r->line, "memory: given twice in this section");
		e->k.mem_mb = (int)mb;
		e->has_mem = true;
	} else if (!strcmp(key, "csum-lines")) {
		if (strcmp(value, "yes") && strcmp(value, "no"))
			bad(r, r->line, "csum-lines = %s: expected yes or no", value);
		else if (e->has_csum)
			bad(r, r->line, "csum-lines: given twice in this section");
		e->k.csum_lines = !strcmp(value, "yes");
		e->has_csum = true;
	} else if (!strcmp(key, "coverage")) {
		if (strcmp(value, "gcov") && strcmp(value, "no"))
			bad(r, r->line, "coverage = %s: expected gcov or no", value);
		else if (e->has_gcov)
			bad(r, r->line, "coverage: given twice in this section");
		e->k.gcov = !strcmp(value, "gcov");
		e->has_gcov = true;
	} else if (!strcmp(key, "make")) {
		set_str(r, key, &e->k.make_target, value);
	} else {
		bad(r, r->line, "[%s] unknown key '%s'; accepted: source, patches, config, variant-of, image, memory, csum-lines, coverage, make",
		    sec, key);
	}
	return 1;
}

/* Fill what a variant does not give from its kernel; check what must be there. */
static void complete(struct reader *r, struct entry *e)
{
	const struct entry *of = e->k.variant_of ? find_entry(r, e->k.variant_of) : NULL;

	if (of && of < e) {
		if (!e->k.source)
			e->k.source = of->k.source;
		if (!e->patches)
			e->patches = of->patches;
		if (!e->config)
			e->config = of->config;
		if (!e->k.image)
			e->k.image = of->k.image;
		if (!e->has_mem) {
			e->k.mem_mb = of->k.mem_mb;
			e->has_mem = of->has_mem;
		}
		if (!e->has_csum)
			e->k.csum_lines = of->k.csum_lines;
		if (!e->has_gcov)
			e->k.gcov = of->k.gcov;
	}
	if (!e->k.make_target) {
		char t[MAX_NAME + 8];
		snprintf(t, sizeof(t), "kernel-%s", e->k.name);
		e->k.make_target = xstrdup(t);
	}
	if (!e->k.source)
		bad(r, e->line, "[%s]: no source; give debian:linux-source-X.Y, debian-image:PACKAGE=VERSION or git:PATH",
		    e->k.name);
	if (e->k.source && image_source(e->k.source)) {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s/kernel/%s/modules", build_dir(), e->k.name);
		e->k.modules = xstrdup(dir);
	} else if (!e->config)
		bad(r, e->line, "[%s]: no config; give fragments of kernel/config/", e->k.name);
	if (!e->k.image)
		bad(r, e->line, "[%s]: no image; give vmlinux or bzImage", e->k.name);
	if (!e->has_mem)
		bad(r, e->line, "[%s]: no memory; give the guest's MiB", e->k.name);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f) {
		fprintf(stderr, "%s: %s (FLIPBED_KERNELS_INI)\n", path, strerror(errno));
		return NULL;
	}
	buf = xrealloc(NULL, MAX_FILE + 1);
	n = fread(buf, 1, MAX_FILE + 1, f);
	fclose(f);
	if (n > MAX_FILE || memchr(buf, '\0', n)) {
		fprintf(stderr, "%s: %s; the kernel registry is a text file of at most %d bytes (FLIPBED_KERNELS_INI)\n",
			path, n > MAX_FILE ? "too large" : "a NUL byte", MAX_FILE);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

int fb_kernels_load(void)
{
	static int result = 1;
	static struct fb_kernel table[MAX_KERNELS];
	static struct reader r;
	const char *env = getenv("FLIPBED_KERNELS_INI");
	int rc;

	if (result <= 0)
		return result;
	result = -1;
	r.origin = env && *env ? env : "kernel/kernels.ini";
	r.text = env && *env ? read_file(env) : fb_kernels_ini;
	if (!r.text)
		return result;
	r.next = r.text;
	rc = ini_parse_stream(read_line, &r, on_entry, &r);
	if (rc > 0)
		bad(&r, rc, "not a [NAME] line, a 'key = value' line or a comment");
	for (int i = 0; i < r.n; i++)
		complete(&r, &r.v[i]);
	if (!r.n && !r.errors)
		bad(&r, r.line, "no kernel; give one [NAME] section per kernel");
	if (r.errors)
		return result;
	for (int i = 0; i < r.n; i++)
		table[i] = r.v[i].k;
	fb_kernels = table;
	fb_nkernels = r.n;
	result = 0;
	return result;
}

static char *added;		/* --kernel-image's path, absolute */
static char *modules_dir;	/* --modules DIR */
static int image_lacking;	/* its drivers not built in, for --modules */

int fb_kernel_add_modules(const char *dir)
{
	if (modules_dir && strcmp(modules_dir, dir)) {
		fprintf(stderr, "flipbed: --modules %s: one folder per command (already %s)\n",
			dir, modules_dir);
		return -1;
	}
	modules_dir = xstrdup(dir);
	return 0;
}

int fb_kernel_image_finish(void)
{
	struct fb_kernel *k = (struct fb_kernel *)fb_kernel_find("image");
	struct fb_kernel_image img;

	if (!modules_dir)
		/* the image's check deferred what a module may give: say it now */
		return !added || !image_lacking ? 0 : (fb_kernel_image_check(added, false, &img), -1);
	if (!added || !k) {
		fprintf(stderr, "flipbed: --modules %s: the modules of --kernel-image's kernel; give --kernel-image too\n",
			modules_dir);
		return -1;
	}
	return fb_modules_attach(k, modules_dir);
}

int fb_kernel_add_image(const char *path, const char **ret_name)
{
	struct fb_kernel_image img;
	struct fb_kernel *k;
	char *abs;

	if (fb_kernels_load())
		return -1;
	if (added) {
		abs = realpath(path, NULL);
		bool same = abs && !strcmp(abs, added);
		free(abs);
		if (same) {
			*ret_name = "image";
			return 0;
		}
		fprintf(stderr, "flipbed: --kernel-image %s: one image per command (already %s)\n",
			path, added);
		return -1;
	}
	if (fb_kernel_find("image")) {
		fprintf(stderr, "flipbed: --kernel-image %s: the registry already has a kernel named 'image'; rename it there\n",
			path);
		return -1;
	}
	if (fb_nkernels == MAX_KERNELS) {
		fprintf(stderr, "flipbed: --kernel-image %s: the registry is full (%d kernels)\n",
			path, MAX_KERNELS);
		return -1;
	}
	/* what a module may give is left to fb_kernel_image_finish() */
	if (fb_kernel_image_check(path, true, &img))
		return -1;
	image_lacking = img.lacking;
	abs = realpath(path, NULL);
	if (!abs) {
		fprintf(stderr, "flipbed: --kernel-image %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* fb_kernels points into fb_kernels_load()'s table, which has room */
	k = (struct fb_kernel *)&fb_kernels[fb_nkernels];
	*k = (struct fb_kernel){
		.name = "image",
		.source = "image",
		.image = img.format,
		/* enough for a debug kernel (KASAN's shadow) as well */
		.mem_mb = 512,
		.make_target = "",
		.csum_lines = img.csum_lines,
		.variant_of = img.csum_lines ? "patched" : "stock",
		.path = abs,
		.release = xstrdup(img.release),
	};
	if (!fb_kernel_find(k->variant_of))
		k->variant_of = NULL;
	fb_nkernels++;
	added = abs;
	*ret_name = k->name;
	return 0;
}

const struct fb_kernel *fb_kernel_find(const char *name)
{
	fb_kernels_load();
	for (size_t i = 0; i < fb_nkernels; i++)
		if (!strcmp(fb_kernels[i].name, name))
			return &fb_kernels[i];
	return NULL;
}

const char *fb_kernel_names(void)
{
	static char *names;
	size_t len = 1;

	fb_kernels_load();
	if (names)
		return names;
	for (size_t i = 0; i < fb_nkernels; i++)
		len += strlen(fb_kernels[i].name) + 2;
	names = xrealloc(NULL, len);
	names[0] = '\0';
	for (size_t i = 0; i < fb_nkernels; i++)
		strcat(strcat(names, i ? ", " : ""), fb_kernels[i].name);
	return names;
}

size_t fb_kernel_rank(const char *name)
{
	const struct fb_kernel *k = fb_kernel_find(name);

	return k ? (size_t)(k - fb_kernels) : fb_nkernels;
}

void fb_kernel_chain(const char *name, const char **chain, size_t n)
{
	const struct fb_kernel *k = fb_kernel_find(name);
	size_t i = 0;

	if (!n)
		return;
	if (!k && n > 1)
		chain[i++] = name;
	for (; k && i + 1 < n; k = k->variant_of ? fb_kernel_find(k->variant_of) : NULL)
		chain[i++] = k->name;
	chain[i] = NULL;
}

int fb_kernel_distance(const char *name, const char *listed)
{
	const struct fb_kernel *k = fb_kernel_find(name);
	int d = 0;

	if (!k)
		return strcmp(name, listed) ? -1 : 0;
	/* variant-of names a kernel above: the walk ends */
	for (; k; k = k->variant_of ? fb_kernel_find(k->variant_of) : NULL, d++)
		if (!strcmp(k->name, listed))
			return d;
	return -1;
}

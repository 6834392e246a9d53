// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "util.h"

static void out_of_memory(void)
{
	perror("flipbed");
	exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		out_of_memory();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s ? s : "", n);

	if (!d)
		out_of_memory();
	return d;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p && n)
		out_of_memory();
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		out_of_memory();
	return d;
}

char *fb_slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096)
			buf = xrealloc(buf, cap = cap * 2 + 8192);
		r = fread(buf + n, 1, cap - n - 1 < FB_SLURP_MAX - n ? cap - n - 1 :
			  FB_SLURP_MAX - n, f);
		n += r;
	} while (r && n < FB_SLURP_MAX);
	fclose(f);
	buf[n] = '\0';
	if (ret_len)
		*ret_len = n;
	return buf;
}

int fb_mkdirs(const char *path)
{
	char *p = strdup(path);
	int ret = 0;

	if (!p)
		return -1;
	for (char *s = p + 1; !ret; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			fprintf(stderr, "flipbed: %s: mkdir: %s\n", p,
				strerror(errno));
			ret = -1;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

int fb_private_dir(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	if ((size_t)snprintf(buf, len, "%s/flipbed-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(buf) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *f)
{
	return remove(path);
}

int fb_remove_tree(const char *path)
{
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

bool fb_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned c = *p, n, cp;

		if (c < 0x80) {
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return false;
		for (unsigned i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		p += n + 1;
	}
	return true;
}

int fb_image_is_ext4(const char *path, char *why, size_t len)
{
	unsigned char m[2];
	struct stat st;
	int fd, ok;

	if (stat(path, &st)) {
		snprintf(why, len, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "not a regular file");
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return -1;
	}
	ok = pread(fd, m, 2, 1080) == 2 && m[0] == 0x53 && m[1] == 0xef;
	close(fd);
	if (!ok) {
		snprintf(why, len, "not an ext4 image (no superblock magic 0xEF53 at byte 1080)");
		return -1;
	}
	return 0;
}

double fb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void fb_utc_stamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char sec[24];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ldZ", sec, ts.tv_nsec / 1000000);
}

int fb_parse_dec(const char *s, unsigned long long max, unsigned long long *ret)
{
	unsigned long long v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*ret = v;
	return 0;
}

void fb_vbad_input(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int fb_bad_input(const char *prefix, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fb_vbad_input(prefix, fmt, ap);
	va_end(ap);
	return EXIT_BADINPUT;
}

// SPDX-License-Identifier: MIT
/* Escaping, paths and atomic output files for the report writers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "report/report_int.h"

/*
 * Length of the valid UTF-8 sequence at S (at most LEN bytes) that XML 1.0
 * can carry, or 0. Console logs hold stray bytes; a report must still parse.
 */
static size_t utf8_ok(const unsigned char *s, size_t len)
{
	unsigned cp;
	size_t n;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' ||
		       s[0] == '\r';
	if (s[0] >= 0xf5 || s[0] < 0xc2)
		return 0;
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	if (n > len)
		return 0;
	cp = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

void fb_xml_write(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	while (len) {
		size_t n = utf8_ok(p, len);

		switch (n ? *p : 0) {
		case 0:
			fputc('?', f);
			n = 1;
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fwrite(p, 1, n, f);
		}
		p += n;
		len -= n;
	}
}

void fb_plain_write(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	while (len) {
		size_t n = utf8_ok(p, len);

		if (n)
			fwrite(p, 1, n, f);
		else
			fputc('?', f);
		n += !n;
		p += n;
		len -= n;
	}
}

void fb_xml_puts(FILE *f, const char *s)
{
	fb_xml_write(f, s, strlen(s));
}

/* Characters left as they are in a relative URL path (RFC 3986 pchar and '/'). */
void fb_url_puts(FILE *f, const char *path)
{
	static const char keep[] = "-._~!$&'()*+,;=:@/";

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		char enc[4];

		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || (*p && strchr(keep, *p))) {
			enc[0] = *p;
			enc[1] = '\0';
		} else {
			snprintf(enc, sizeof(enc), "%%%02X", *p);
		}
		fb_xml_puts(f, enc);
	}
}

char *fb_path(const char *dir, const char *rel, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s%s%s", dir, rel ? rel : "", rel ? "/" : "",
		     name) < 0)
		return NULL;
	return p;
}

bool fb_is_file(const char *path)
{
	struct stat st;

	return path && !stat(path, &st) && S_ISREG(st.st_mode);
}

FILE *fb_out_open(const char *path)
{
	char *tmp;
	FILE *f;

	if (asprintf(&tmp, "%s.tmp", path) < 0)
		return NULL;
	f = fopen(tmp, "w");
	if (!f)
		fprintf(stderr, "flipbed: %s: %s\n", tmp, strerror(errno));
	free(tmp);
	return f;
}

int fb_out_close(FILE *f, const char *path)
{
	char *tmp;
	int err = ferror(f);

	if (fclose(f) || err) {
		fprintf(stderr, "flipbed: %s.tmp: write failed\n", path);
		return -1;
	}
	if (asprintf(&tmp, "%s.tmp", path) < 0)
		return -1;
	if (rename(tmp, path)) {
		fprintf(stderr, "flipbed: %s: %s\n", path, strerror(errno));
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

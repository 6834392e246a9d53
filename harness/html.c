// SPDX-License-Identifier: MIT
/*
 * Text for the pages and the terminal (html.h): escaped for XML and HTML,
 * any byte XML cannot carry replaced by '?', and the head and tail of a
 * self-contained page (inline CSS, no script).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "html.h"

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

/* Bytes written as they are: no markup, and XML can carry them. */
static bool plain(unsigned char c)
{
	return (c >= 0x20 && c < 0x80 && !strchr("&<>\"'", c)) || c == '\t' || c == '\n' ||
	       c == '\r';
}

void fb_xml_write(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	while (len) {
		size_t n = 0;

		/* a run of plain ASCII in one write: pages are mostly that */
		while (n < len && plain(p[n]))
			n++;
		if (n) {
			fwrite(p, 1, n, f);
			p += n;
			len -= n;
			continue;
		}
		n = utf8_ok(p, len);
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
static bool url_keep(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("-._~!$&'()*+,;=:@/", c));
}

void fb_url_puts(FILE *f, const char *path)
{
	const unsigned char *p = (const unsigned char *)path;

	while (*p) {
		size_t n = 0;

		while (url_keep(p[n]))
			n++;
		if (n) {	/* '&' and '\'' still need their XML escapes */
			fb_xml_write(f, (const char *)p, n);
			p += n;
			continue;
		}
		fprintf(f, "%%%02X", *p++);
	}
}

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:1.5em;color:#222}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"th,td{border:1px solid #bbb;padding:2px 6px;text-align:left;"
	"vertical-align:top}"
	"th{background:#f0f0f0}"
	"pre{background:#f7f7f7;border:1px solid #ddd;padding:.5em;"
	"overflow-x:auto;white-space:pre-wrap}"
	"a.k{display:block;margin:1px 0;padding:1px 4px;color:#000;"
	"text-decoration:none;white-space:nowrap}"
	".safe{background:#b9e4b9}.silent{background:#e4e4e4}"
	".weak{background:#ffd98a}.unsafe{background:#f49a9a}"
	".infra{background:#c9bfe8}.skip{background:#fff;color:#777}"
	".interrupted{background:#fff;color:#777;font-style:italic}"
	".fail{outline:2px solid #c00;font-weight:bold}"
	"span.k{padding:1px 4px}"
	"tr.mismatch td{background:#fde0e0}"
	".wide{overflow-x:auto;max-width:100%}"
	"code{overflow-wrap:anywhere}"
	"td.series{border:3px solid #1f5fd6}"
	"span.series{border:2px solid #1f5fd6;padding:0 3px}"
	"li a.k,p.cases a.k{display:inline-block}"
	"table.num td{text-align:right}"
	".hms{display:flex;flex-wrap:wrap;gap:1em}"
	"svg.hm{flex:none}"
	"td.chg{outline:3px solid #1f5fd6;outline-offset:-3px}"
	"span.chg{outline:2px solid #1f5fd6;padding:0 3px}"
	".cut{color:#a00}";

void fb_html_head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n<title>", out);
	fb_xml_puts(out, title);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>",
		css);
	fb_xml_puts(out, title);
	fputs("</h1>\n", out);
}

void fb_html_tail(FILE *out)
{
	fputs("</body>\n</html>\n", out);
}

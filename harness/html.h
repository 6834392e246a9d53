/* SPDX-License-Identifier: MIT */
/*
 * flipbed's HTML and terminal text: what the reports (report/) and the
 * witnesses' parts of them (witness/) write text with.
 */
#ifndef FLIPBED_HTML_H
#define FLIPBED_HTML_H

#include <stddef.h>
#include <stdio.h>

/* Text for XML/HTML: escapes markup, replaces bytes XML cannot carry with '?'. */
void fb_xml_puts(FILE *f, const char *s);
void fb_xml_write(FILE *f, const char *s, size_t len);
/* Text for a terminal: the same bytes replaced by '?', nothing escaped. */
void fb_plain_write(FILE *f, const char *s, size_t len);
/* A relative path as a URL (percent-encoded), then XML-escaped. */
void fb_url_puts(FILE *f, const char *path);

/* A page's start, TITLE its title and heading, with the CSS inline; its end. */
void fb_html_head(FILE *out, const char *title);
void fb_html_tail(FILE *out);

#endif

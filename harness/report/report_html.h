/* SPDX-License-Identifier: MIT */
/* flipbed: shared by the two HTML writers, report_html.c and report_page.c. */
#ifndef FLIPBED_REPORT_HTML_H
#define FLIPBED_REPORT_HTML_H

#include "report/report_int.h"

void fb_html_head(FILE *out, const char *title);
void fb_html_tail(FILE *out);
void fb_html_case_link(FILE *out, const struct fb_case *c, const char *prefix,
		       const char *text);
/* RUN_DIR/<case dir>/index.html */
int fb_html_case_page(const struct fb_run *run, const struct fb_case *c);

#endif

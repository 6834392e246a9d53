// SPDX-License-Identifier: MIT
/*
 * Charts as inline SVG for the HTML reports (report_int.h, fb_svg_*): a
 * horizontal bar chart and a line chart, drawn by flipbed itself so a
 * page needs no script and fetches nothing. Each <svg> starts a line and
 * each </svg> ends one (harness/tests/report/html-lib takes them out of
 * the page to parse them as XML).
 */
#include <stdio.h>
#include "report/report_int.h"

#define W 640		/* every chart's width */
#define LABEL_W 170	/* bar labels */
#define BAR_H 16
#define PLOT_H 200	/* line charts' plot area */
#define MARGIN 40

static void open_svg(FILE *out, int h, const char *title)
{
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		"font-size=\"11\" role=\"img\">\n<title>", W, h, W, h);
	fb_xml_puts(out, title);
	fputs("</title>\n", out);
}

void fb_svg_bars(FILE *out, const char *title, const struct fb_bar *bars, size_t n,
		 double max, const char *fill)
{
	int span = W - LABEL_W - 90;

	open_svg(out, (int)n * (BAR_H + 4) + 4, title);
	for (size_t i = 0; i < n; i++) {
		int y = 2 + (int)i * (BAR_H + 4);
		int len = max > 0 ? (int)(span * bars[i].value / max + 0.5) : 0;

		fprintf(out, "<g><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 6,
			y + BAR_H - 4);
		fb_xml_puts(out, bars[i].label);
		fprintf(out, "</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			"fill=\"%s\"/><text x=\"%d\" y=\"%d\">", LABEL_W, y, len, BAR_H, fill,
			LABEL_W + len + 4, y + BAR_H - 4);
		fb_xml_puts(out, bars[i].text);
		fputs("</text><title>", out);
		fb_xml_puts(out, bars[i].label);
		fputs(": ", out);
		fb_xml_puts(out, bars[i].text);
		fputs("</title></g>\n", out);
	}
	fputs("</svg>\n", out);
}

static void axis_label(FILE *out, int x, int y, const char *anchor, double v)
{
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\">%g</text>\n", x, y, anchor, v);
}

void fb_svg_line(FILE *out, const struct fb_line *l)
{
	int x0 = MARGIN + 10, y0 = 10 + PLOT_H, pw = W - x0 - 20;

	open_svg(out, PLOT_H + 50, l->title);
	fprintf(out, "<path d=\"M%d 10V%dH%d\" fill=\"none\" stroke=\"#555\"/>\n", x0, y0,
		x0 + pw);
	axis_label(out, x0 - 4, y0, "end", 0);
	axis_label(out, x0 - 4, 18, "end", l->ymax);
	axis_label(out, x0, y0 + 14, "middle", 0);
	axis_label(out, x0 + pw, y0 + 14, "end", l->xmax);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", x0 + pw / 2, y0 + 30);
	fb_xml_puts(out, l->xlabel);
	fprintf(out, "</text>\n<text x=\"0\" y=\"0\" transform=\"translate(12 %d) rotate(-90)\" "
		"text-anchor=\"middle\">", 10 + PLOT_H / 2);
	fb_xml_puts(out, l->ylabel);
	fputs("</text>\n<polyline fill=\"none\" stroke=\"#1f5fd6\" stroke-width=\"2\" points=\"",
	      out);
	for (size_t i = 0; i < l->n; i++) {
		double px = l->xmax > 0 ? x0 + pw * l->x[i] / l->xmax : x0;
		double py = l->ymax > 0 ? y0 - PLOT_H * l->y[i] / l->ymax : y0;

		if (l->step && i)	/* hold the previous value up to this x */
			fprintf(out, "%.1f,%.1f ", px,
				l->ymax > 0 ? y0 - PLOT_H * l->y[i - 1] / l->ymax : y0);
		fprintf(out, "%.1f,%.1f ", px, py);
	}
	fputs("\"/>\n</svg>\n", out);
}

// SPDX-License-Identifier: MIT
/*
 * The coverage of the checksum checks in a run's reports: what
 * `flipbed coverage DIR` left in DIR/coverage.json (harness/coverage/),
 * per coverage kernel the count of failure branches reached and the site
 * table, in summary.md and index.html, with links to coverage.md and
 * genhtml's pages. Nothing when the run has no coverage.json.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "html.h"
#include "report/report.h"
#include "report/report_int.h"

static json_t *load(const struct fb_run *run)
{
	char path[4200];
	struct stat st;

	snprintf(path, sizeof(path), "%s/coverage.json", run->dir);
	if (stat(path, &st) || st.st_size > (64 << 20))
		return NULL;
	return json_load_file(path, 0, NULL);
}

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static long long num(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/* A reached site whose failure branch has no line with code (coverage.json). */
static bool unmeasurable(json_t *site)
{
	return json_is_false(json_object_get(site, "measurable"));
}

void fb_coverage_md(FILE *out, const struct fb_run *run)
{
	json_t *cov = load(run), *k, *s;
	size_t i, j;

	if (!json_is_array(cov)) {
		json_decref(cov);
		return;
	}
	fprintf(out, "\n## Coverage of the checksum checks\n\n"
		"From `flipbed coverage` ([coverage.md](coverage.md): the branches, "
		"the cases as repro commands).\n");
	json_array_foreach(cov, i, k) {
		fprintf(out, "\n**%s: failure branches reached %lld of %lld** (sites reached "
			"%lld of %lld, %lld cases)\n\n| site | function | reached | failed | reported |\n"
			"|---|---|---:|---:|---:|\n", str(k, "kernel"),
			num(k, "failure_branches_reached"), num(k, "failure_branches"),
			num(k, "sites_reached"), num(k, "sites"), num(k, "cases"));
		json_array_foreach(json_object_get(k, "sites_table"), j, s) {
			bool none = !strcmp(str(s, "failure_branch"), "none");

			fprintf(out, "| `%s:%lld` | `%s` | %lld | ", str(s, "file"), num(s, "line"),
				str(s, "function"), num(s, "reached"));
			if (none)
				fputs("- | - |\n", out);
			else if (unmeasurable(s))
				fputs("no line | - |\n", out);
			else
				fprintf(out, "%lld | %lld |\n", num(s, "failed"), num(s, "reported"));
		}
	}
	json_decref(cov);
}

void fb_coverage_html(FILE *out, const struct fb_run *run)
{
	json_t *cov = load(run), *k, *s;
	size_t i, j;

	if (!json_is_array(cov)) {
		json_decref(cov);
		return;
	}
	fputs("<h2 id=\"coverage\">Coverage of the checksum checks</h2>\n<p>From "
	      "<code>flipbed coverage</code>: <a href=\"coverage.md\">coverage.md</a> "
	      "(the branches, the cases as repro commands).</p>\n", out);
	json_array_foreach(cov, i, k) {
		fputs("<p><strong>", out);
		fb_xml_puts(out, str(k, "kernel"));
		fprintf(out, ": failure branches reached %lld of %lld</strong> (sites reached "
			"%lld of %lld, %lld cases) · <a href=\"coverage/", num(k,
			"failure_branches_reached"), num(k, "failure_branches"),
			num(k, "sites_reached"), num(k, "sites"), num(k, "cases"));
		fb_xml_puts(out, str(k, "kernel"));
		fputs("/index.html\">lines</a></p>\n<table>\n<tr><th>site</th><th>function</th>"
		      "<th>reached</th><th>failed</th><th>reported</th></tr>\n", out);
		json_array_foreach(json_object_get(k, "sites_table"), j, s) {
			bool none = !strcmp(str(s, "failure_branch"), "none");

			fputs("<tr><td><code>", out);
			fb_xml_puts(out, str(s, "file"));
			fprintf(out, ":%lld</code></td><td><code>", num(s, "line"));
			fb_xml_puts(out, str(s, "function"));
			fprintf(out, "</code></td><td>%lld</td>", num(s, "reached"));
			if (none)
				fputs("<td>-</td><td>-</td></tr>\n", out);
			else if (unmeasurable(s))
				fputs("<td title=\"the failure branch has no line of code of its own: "
				      "gcov's line counts cannot tell\">no line</td><td>-</td></tr>\n", out);
			else
				fprintf(out, "<td>%lld</td><td>%lld</td></tr>\n", num(s, "failed"),
					num(s, "reported"));
		}
		fputs("</table>\n", out);
	}
	json_decref(cov);
}

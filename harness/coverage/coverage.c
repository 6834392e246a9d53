// SPDX-License-Identifier: MIT
/*
 * `flipbed coverage DIR`: which of the kernel's checksum checks the cases
 * of a run reached, and which failure branches (README.md). Per coverage
 * kernel of the run: the sites of its source (sites.h), each case's
 * counters read by gcov (gcov.h), and what the case's kernel log says from
 * the branch. Writes DIR/coverage.md, DIR/coverage.json and, per kernel,
 * DIR/coverage/KERNEL.info with genhtml's pages in DIR/coverage/KERNEL/;
 * then rebuilds the run's reports, which carry the table.
 *
 * `flipbed coverage --sites KERNEL`: the site table of a coverage kernel.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/proc.h"
#include "cmd.h"
#include "coverage/gcov.h"
#include "coverage/sites.h"
#include "kernels.h"
#include "paths.h"
#include "report/report.h"
#include "util.h"

#define DMESG_MAX (8u << 20)	/* what is read of a case's kernel log */
#define SHOWN_CASES 5		/* repro commands per site on the terminal */

struct site_use {
	int reached, failed, reported, csum_lines;
	json_t *cases;		/* [{case, repro, failed, reported}] */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: flipbed coverage DIR [--no-html]\n"
		   "       flipbed coverage --sites KERNEL\n"
		   "Per checksum verification site of fs/ext4 and fs/jbd2: how many cases of\n"
		   "the run DIR reached it, its failure branch, and what the kernel reported\n"
		   "from there; the run must have been made on a coverage kernel\n"
		   "(kernels.ini coverage = gcov: make kernels-gcov). --sites prints the\n"
		   "sites of KERNEL's source. See harness/coverage/README.md.\n");
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "flipbed coverage: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static void bundle_of(const char *kernel, char *buf, size_t len)
{
	snprintf(buf, len, "%s/kernel/%s/gcov", build_dir(), kernel);
}

static const char *gcov_kernels(char *buf, size_t len)
{
	size_t o = 0;

	fb_kernels_load();
	buf[0] = '\0';
	for (size_t i = 0; i < fb_nkernels && o + 1 < len; i++)
		if (fb_kernels[i].gcov)
			o += snprintf(buf + o, len - o, "%s%s", o ? ", " : "", fb_kernels[i].name);
	return *buf ? buf : "none";
}

/* The sites of KERNEL's bundle: 0, or 2 after a message. */
static int load_sites(const char *kernel, struct fb_site **sites, size_t *n)
{
	char bundle[4096], src[4200], why[512], list[256];
	const struct fb_kernel *k;

	fb_kernels_load();
	k = fb_kernel_find(kernel);
	if (!k)
		return bad("no kernel '%s' in kernels.ini", kernel);
	if (!k->gcov)
		return bad("kernel %s counts nothing (kernels with coverage = gcov: %s)", kernel,
			   gcov_kernels(list, sizeof(list)));
	bundle_of(kernel, bundle, sizeof(bundle));
	snprintf(src, sizeof(src), "%s/src", bundle);
	if (fb_sites_scan(src, sites, n, why, sizeof(why)))
		return bad("%s (build it: make %s)", why, k->make_target);
	if (!*n)
		return bad("%s: no checksum verification site found", src);
	return 0;
}

static json_t *report_json(const struct fb_site *s)
{
	json_t *a = json_array();

	for (int i = 0; i < s->nreport; i++)
		json_array_append_new(a, json_integer(s->report[i]));
	return a;
}

static void site_name(const struct fb_site *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%d", s->file, s->line);
}

static void branch_text(const struct fb_site *s, char *buf, size_t len)
{
	if (s->how == FB_FAIL_NONE)
		snprintf(buf, len, "none: %s", s->why);
	else
		snprintf(buf, len, "%s, lines %d-%d%s", fb_site_fail_name(s->how), s->fail_line,
			 s->fail_end, s->joined ? " (the condition tests more)" : "");
}

static int print_sites(const char *kernel)
{
	struct fb_site *s;
	size_t n;
	int rc = load_sites(kernel, &s, &n), with = 0;

	if (rc)
		return rc;
	printf("%-28s %-30s %-40s %s\n", "site", "function", "check", "failure branch");
	for (size_t i = 0; i < n; i++) {
		char name[80], br[160];

		site_name(&s[i], name, sizeof(name));
		branch_text(&s[i], br, sizeof(br));
		printf("%-28s %-30s %-40s %s\n", name, s[i].func, s[i].check, br);
		with += s[i].how != FB_FAIL_NONE;
	}
	printf("%zu sites, %d with a failure branch\n", n, with);
	free(s);
	return 0;
}

/*
 * Whether the case's kernel log holds csum-error lines (the series' own
 * report, kernel/README.md: it names the object, not the site): evidence
 * shown beside the counts.
 */
static bool csum_lines(const char *rundir, const struct fb_case *c)
{
	char path[4200];
	struct stat st;
	size_t len;
	char *log;
	bool found;

	snprintf(path, sizeof(path), "%s/%s/dmesg.txt", rundir, c->dir);
	if (stat(path, &st) || st.st_size > DMESG_MAX)
		return false;
	log = fb_slurp(path, &len);
	if (!log)
		return false;
	found = strstr(log, " csum-error (device ") != NULL;
	free(log);
	return found;
}

/* Whether a report call of the site's failure branch ran (gcov's count). */
static bool report_ran(const struct fb_cov *cov, const struct fb_site *s)
{
	for (int i = 0; i < s->nreport; i++)
		if (fb_cov_line(cov, s->file, s->report[i]) > 0)
			return true;
	return false;
}

/* One kernel's cases: 0, or 2 after a message. */
static int cover_kernel(const struct fb_run *run, const char *kernel, bool html, FILE *md,
			json_t *out)
{
	char bundle[4096], id[128], why[1024], info[4200], src[4200];
	struct fb_site *sites;
	size_t nsites;
	struct fb_cov sum = { 0 }, cov = { 0 };
	struct site_use *use;
	int rc = load_sites(kernel, &sites, &nsites), ncases = 0, nfail = 0, with = 0, hit = 0;
	json_t *without = json_array(), *jsites = json_array();

	if (rc)
		return rc;
	bundle_of(kernel, bundle, sizeof(bundle));
	snprintf(src, sizeof(src), "%s/src", bundle);
	if (fb_gcov_bundle_id(bundle, id, sizeof(id), why, sizeof(why))) {
		free(sites);
		return bad("%s", why);
	}
	use = xcalloc(nsites, sizeof(*use));
	for (size_t i = 0; i < nsites; i++)
		use[i].cases = json_array();
	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];
		json_t *cr = json_object_get(c->rec, "coverage");
		const char *status = json_string_value(json_object_get(cr, "status"));
		const char *cid = json_string_value(json_object_get(cr, "build_id"));
		char gdir[4200];

		if (strcmp(c->kernel, kernel))
			continue;
		if (!status || strcmp(status, "ok")) {
			json_array_append_new(without, json_pack("{s:s, s:s}", "case", c->name, "why",
				status ? json_string_value(json_object_get(cr, "why")) ?: status :
				"no coverage record"));
			continue;
		}
		if (!cid || strcmp(cid, id)) {
			rc = bad("%s: its counters come from kernel build %s, build/kernel/%s is build %s: "
				 "refused (run the case again on this build)", c->name, cid ? cid : "(none)",
				 kernel, id);
			goto out;
		}
		snprintf(gdir, sizeof(gdir), "%s/%s/gcov", run->dir, c->dir);
		if (fb_gcov_read_case(bundle, gdir, &cov, why, sizeof(why))) {
			rc = bad("%s: %s", c->name, why);
			goto out;
		}
		ncases++;
		fb_cov_add(&sum, &cov);
		for (size_t k = 0; k < nsites; k++) {
			const struct fb_site *s = &sites[k];
			long long at = fb_cov_line(&cov, s->file, s->line), fc = 0;
			bool rep = false, csum = false;

			if (at <= 0)
				continue;
			use[k].reached++;
			if (s->how != FB_FAIL_NONE && fb_cov_first_code(&cov, s->file, s->fail_line,
								   s->fail_end, &fc) && fc > 0) {
				use[k].failed++;
				rep = report_ran(&cov, s);
				csum = csum_lines(run->dir, c);
				use[k].reported += rep;
				use[k].csum_lines += csum;
			}
			json_array_append_new(use[k].cases, json_pack("{s:s, s:s, s:b, s:b, s:b}",
				"case", c->name, "repro", fb_case_str(c, "repro") ?: "",
				"failed", fc > 0, "reported", rep, "csum_lines", csum));
		}
	}
	if (!ncases) {
		rc = bad("%s: no case on %s brought its counters back (%zu without)", run->dir,
			 kernel, json_array_size(without));
		goto out;
	}
	for (size_t k = 0; k < nsites; k++) {
		with += sites[k].how != FB_FAIL_NONE;
		hit += use[k].reached > 0;
		nfail += use[k].failed > 0;
	}
	printf("kernel %s (build %.12s), %d cases with counters, %zu without\n", kernel, id,
	       ncases, json_array_size(without));
	fprintf(md, "## %s\n\nBuild id %s; %d cases with counters, %zu without. Sites from "
		"the kernel's own source (`flipbed coverage --sites %s`).\n\n"
		"**Failure branches reached: %d of %d** (sites reached: %d of %zu).\n\n"
		"| site | function | check | reached | failure branch | failed | reported |\n"
		"|---|---|---|---:|---|---:|---|\n", kernel, id, ncases,
		json_array_size(without), kernel, nfail, with, hit, nsites);
	printf("%-28s %-28s %8s %7s %16s  %s\n", "site", "function", "reached", "failed",
	       "reported", "check");
	for (size_t k = 0; k < nsites; k++) {
		const struct fb_site *s = &sites[k];
		char name[80], br[160], rep[64], failed[16];

		site_name(s, name, sizeof(name));
		branch_text(s, br, sizeof(br));
		snprintf(rep, sizeof(rep), "-");
		snprintf(failed, sizeof(failed), "-");
		if (s->how != FB_FAIL_NONE) {
			if (s->nreport)
				snprintf(rep, sizeof(rep), "%d (%d csum-error)", use[k].reported,
					 use[k].csum_lines);
			else
				snprintf(rep, sizeof(rep), "no call (%d csum-error)",
					 use[k].csum_lines);
			snprintf(failed, sizeof(failed), "%d", use[k].failed);
		}
		printf("%-28s %-28s %8d %7s %16s  %s\n", name, s->func, use[k].reached, failed, rep,
		       s->check);
		fprintf(md, "| `%s` | `%s` | `%s` | %d | %s | %s | %s |\n", name, s->func, s->check,
			use[k].reached, br, failed, rep);
		json_array_append_new(jsites, json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:i, s:b, s:s,"
			" s:o, s:i, s:i, s:i, s:i, s:O}", "file", s->file, "line", s->line, "function", s->func,
			"check", s->check, "failure_branch", fb_site_fail_name(s->how),
			"fail_line", s->fail_line, "fail_end", s->fail_end, "joined", s->joined,
			"why", s->why, "report_lines", report_json(s), "reached", use[k].reached, "failed", use[k].failed,
			"reported", use[k].reported, "csum_lines", use[k].csum_lines,
			"cases", use[k].cases));
	}
	printf("failure branches reached: %d of %d (sites reached: %d of %zu)\n", nfail, with,
	       hit, nsites);
	/* the cases, as repro commands */
	fprintf(md, "\nThe cases that reached each site's failure branch:\n\n");
	for (size_t k = 0; k < nsites; k++) {
		json_t *e;
		size_t j;
		int shown = 0;
		char name[80];

		if (!use[k].failed)
			continue;
		site_name(&sites[k], name, sizeof(name));
		fprintf(md, "- `%s` (%s):\n", name, sites[k].func);
		json_array_foreach(use[k].cases, j, e) {
			if (!json_is_true(json_object_get(e, "failed")))
				continue;
			fprintf(md, "  - `%s`\n", json_string_value(json_object_get(e, "repro")));
			if (shown++ < SHOWN_CASES && shown == 1)
				printf("  %s failed in %d cases, e.g. %s\n", name, use[k].failed,
				       json_string_value(json_object_get(e, "repro")));
		}
	}
	if (json_array_size(without)) {
		json_t *e;
		size_t j;

		fprintf(md, "\nCases without counters:\n\n");
		json_array_foreach(without, j, e)
			fprintf(md, "- `%s`: %s\n", json_string_value(json_object_get(e, "case")),
				json_string_value(json_object_get(e, "why")));
	}
	/* the lines, for those who want them */
	snprintf(info, sizeof(info), "%s/coverage", run->dir);
	if (fb_mkdirs(info)) {
		rc = 2;
		goto out;
	}
	snprintf(info, sizeof(info), "%s/coverage/%s.info", run->dir, kernel);
	FILE *f = fopen(info, "w");

	if (!f) {
		rc = bad("%s: %s", info, strerror(errno));
		goto out;
	}
	fb_cov_write_info(&sum, src, f);
	fclose(f);
	fprintf(md, "\nLines and branches: [`coverage/%s.info`](coverage/%s.info)", kernel, kernel);
	if (html) {
		char outdir[4200];
		char *argv[] = { "genhtml", "--quiet", "--branch-coverage", "--output-directory",
				 outdir, info, NULL };

		snprintf(outdir, sizeof(outdir), "%s/coverage/%s", run->dir, kernel);
		char log[4300];

		snprintf(log, sizeof(log), "%s/coverage/%s.genhtml.log", run->dir, kernel);
		unlink(log);
		if (fb_proc_run_logged(argv, NULL, log, 600, 0, NULL) == 0)
			fprintf(md, ", per file: [`coverage/%s/index.html`](coverage/%s/index.html)",
				kernel, kernel);
		else
			fprintf(md, " (genhtml failed: `coverage/%s.genhtml.log`)", kernel);
	}
	fprintf(md, ".\n\n");
	json_array_append_new(out, json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:I, s:o, s:o}",
		"kernel", kernel, "build_id", id, "cases", ncases, "failure_branches", with,
		"failure_branches_reached", nfail, "sites_reached", hit, "sites", (json_int_t)nsites,
		"without_counters", json_incref(without), "sites_table", json_incref(jsites)));
out:
	for (size_t i = 0; i < nsites; i++)
		json_decref(use[i].cases);
	free(use);
	free(sites);
	json_decref(without);
	json_decref(jsites);
	fb_cov_free(&cov);
	fb_cov_free(&sum);
	return rc;
}

int cmd_coverage(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sites", required_argument, NULL, 's' },
		{ "no-html", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *sites = NULL;
	bool html = true;
	struct fb_run run = { 0 };
	char path[4200], list[256];
	const char *kernels[64];
	size_t nk = 0;
	int c, rc = 0;
	FILE *md;
	json_t *out;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sites = optarg;
			break;
		case 'n':
			html = false;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (fb_kernels_load())
		return 2;
	if (sites)
		return optind == argc ? print_sites(sites) : (usage(stderr), 2);
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	if (fb_run_load(argv[optind], &run))
		return 2;
	for (size_t i = 0; i < run.n; i++) {
		const struct fb_kernel *k = fb_kernel_find(run.cases[i].kernel);
		size_t j;

		if (!k || !k->gcov)
			continue;
		for (j = 0; j < nk && strcmp(kernels[j], k->name); j++)
			;
		if (j == nk && nk < sizeof(kernels) / sizeof(*kernels))
			kernels[nk++] = k->name;
	}
	if (!nk) {
		rc = bad("%s: no case ran on a coverage kernel (kernels with coverage = gcov: %s), "
			 "so there is nothing to count; run the cases with --kernel one of them",
			 run.dir, gcov_kernels(list, sizeof(list)));
		fb_run_free(&run);
		return rc;
	}
	snprintf(path, sizeof(path), "%s/coverage.md.tmp", run.dir);
	md = fopen(path, "w");
	if (!md) {
		rc = bad("%s: %s", path, strerror(errno));
		fb_run_free(&run);
		return rc;
	}
	fprintf(md, "# Coverage of the checksum checks\n\n"
		"Per checksum verification site of fs/ext4 and fs/jbd2 (a call of a `*csum_verify*`"
		" function, or a comparison with a stored checksum): the cases that ran its line, "
		"those that ran its failure branch, those in which a report call of that branch ran "
		"(all three gcov's line counts), and of those, the cases whose kernel log has "
		"csum-error lines (the series' report: it names an object, not a site). "
		"`harness/coverage/README.md` says how sites and branches are found.\n\n");
	out = json_array();
	for (size_t i = 0; i < nk && !rc; i++)
		rc = cover_kernel(&run, kernels[i], html, md, out);
	fclose(md);
	if (!rc) {
		char final[4200];

		snprintf(final, sizeof(final), "%s/coverage.md", run.dir);
		rename(path, final);
		snprintf(path, sizeof(path), "%s/coverage.json", run.dir);
		if (json_dump_file(out, path, JSON_INDENT(1) | JSON_SORT_KEYS))
			rc = bad("%s: cannot write", path);
		else if (fb_report_write(&run))
			rc = 2;
		else
			printf("coverage: %s/coverage.md\n", run.dir);
	} else {
		unlink(path);
	}
	json_decref(out);
	fb_run_free(&run);
	return rc;
}

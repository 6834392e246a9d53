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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot/proc.h"
#include "cmd.h"
#include "coverage/casecov.h"
#include "kernels.h"
#include "options.h"
#include "paths.h"
#include "report/report.h"
#include "util.h"

#define DMESG_MAX (8u << 20)	/* what is read of a case's kernel log */
#define SHOWN_CASES 5		/* repro commands per site on the terminal */

struct site_use {
	int reached, failed, reported, csum_lines;
	bool unmeasurable;	/* no line of the failure branch has code */
	json_t *cases;		/* [{case, repro, failed, reported}] */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: flipbed coverage DIR [--no-html [--jobs N]]\n"
		   "       flipbed coverage --sites KERNEL\n"
		   "Per checksum verification site of fs/ext4 and fs/jbd2: how many cases of\n"
		   "the run DIR reached it, its failure branch, and what the kernel reported\n"
		   "from there; the run must have been made on a coverage kernel\n"
		   "(kernels.ini coverage = gcov: make kernels-gcov). --sites prints the\n"
		   "sites of KERNEL's source. --no-html: the table alone, from the files\n"
		   "that hold a site, read by N workers (default: the cores), without the\n"
		   "tracefile and genhtml's pages. See harness/coverage/README.md.\n");
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
	struct fb_cov_kernel k;
	int rc = fb_cov_kernel_load("coverage", kernel, &k);

	if (rc)
		return rc;
	printf("%-28s %-30s %-40s %s\n", "site", "function", "check", "failure branch");
	for (size_t i = 0; i < k.nsites; i++) {
		char name[80], br[160];

		site_name(&k.sites[i], name, sizeof(name));
		branch_text(&k.sites[i], br, sizeof(br));
		printf("%-28s %-30s %-40s %s\n", name, k.sites[i].func, k.sites[i].check, br);
	}
	printf("%zu sites, %d with a failure branch\n", k.nsites, k.with_branch);
	fb_cov_kernel_free(&k);
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

/* One kernel's cases: 0, or 2 after a message. */
/*
 * Read the counters of the cases TODO (indices into RUN) with JOBS worker
 * processes, each its share of the cases, into shared memory: one
 * fb_site_use per site per case, in TODO's order. NULL with WHY (the first
 * case a worker could not read) on failure.
 */
static struct fb_site_use *read_parallel(const struct fb_run *run, const struct fb_cov_kernel *k,
					 const size_t *todo, size_t ntodo, int jobs, char *why,
					 size_t len)
{
	size_t bytes = ntodo * k->nsites * sizeof(struct fb_site_use) + 1;
	struct fb_site_use *pre = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *err = mmap(NULL, (size_t)jobs * 1024, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pids[64];
	int n = jobs < 64 ? jobs : 64, failed = 0;

	if (pre == MAP_FAILED || err == MAP_FAILED) {
		snprintf(why, len, "cannot map %zu bytes: %s", bytes, strerror(errno));
		return NULL;
	}
	fflush(NULL);
	for (int w = 0; w < n; w++) {
		pids[w] = fork();
		if (pids[w] < 0) {
			snprintf(why, len, "fork: %s", strerror(errno));
			n = w;
			failed = 1;
			break;
		}
		if (pids[w])
			continue;
		/* a worker: cases w, w + n, ... */
		for (size_t t = w; t < ntodo; t += n) {
			const struct fb_case *c = &run->cases[todo[t]];
			json_t *cr = json_object_get(c->rec, "coverage");
			char gdir[4200], e[900];

			snprintf(gdir, sizeof(gdir), "%s/%s/gcov", run->dir, c->dir);
			if (fb_cov_case(k, json_string_value(json_object_get(cr, "build_id")), gdir,
					pre + t * k->nsites, NULL, e, sizeof(e))) {
				snprintf(err + w * 1024, 1024, "%s: %s", c->name, e);
				_exit(1);
			}
		}
		_exit(0);
	}
	for (int w = 0; w < n; w++) {
		int st;

		if (waitpid(pids[w], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			if (!failed && err[w * 1024])
				snprintf(why, len, "%s", err + w * 1024);
			else if (!failed)
				snprintf(why, len, "a worker reading counters failed");
			failed = 1;
		}
	}
	munmap(err, (size_t)jobs * 1024);
	if (failed) {
		munmap(pre, bytes);
		return NULL;
	}
	return pre;
}

static int cover_kernel(const struct fb_run *run, const char *kernel, bool html, int jobs,
			FILE *md, json_t *out)
{
	char why[1024], info[4200], src[4200];
	struct fb_cov_kernel k;
	struct fb_cov sum = { 0 }, cov = { 0 };
	struct fb_site_use *now;
	struct site_use *use;
	int rc = fb_cov_kernel_load("coverage", kernel, &k), ncases = 0, nfail = 0, hit = 0, nunmeasured = 0;
	json_t *without = json_array(), *jsites = json_array(), *curve = json_array();
	int so_far = 0;		/* failure branches reached by the cases so far */
	const struct fb_site *sites;
	size_t nsites;

	if (rc) {
		json_decref(without);
		json_decref(jsites);
		json_decref(curve);
		return rc;
	}
	sites = k.sites;
	nsites = k.nsites;
	snprintf(src, sizeof(src), "%s/src", k.bundle);
	use = xcalloc(nsites, sizeof(*use));
	now = xcalloc(nsites, sizeof(*now));
	for (size_t i = 0; i < nsites; i++)
		use[i].cases = json_array();
	/* the cases with counters, in order; read now by workers when lines are not wanted */
	size_t *todo = xcalloc(run->n + 1, sizeof(*todo)), ntodo = 0;
	struct fb_site_use *pre = NULL;

	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];
		json_t *cr = json_object_get(c->rec, "coverage");
		const char *status = json_string_value(json_object_get(cr, "status"));

		if (strcmp(c->kernel, kernel))
			continue;
		if (!status || strcmp(status, "ok")) {
			json_array_append_new(without, json_pack("{s:s, s:s}", "case", c->name, "why",
				status ? json_string_value(json_object_get(cr, "why")) ?: status :
				"no coverage record"));
			continue;
		}
		todo[ntodo++] = i;
	}
	if (!html && jobs > 1 && ntodo > 1) {
		pre = read_parallel(run, &k, todo, ntodo, jobs, why, sizeof(why));
		if (!pre) {
			rc = bad("%s", why);
			free(todo);
			goto out;
		}
	}
	for (size_t t = 0; t < ntodo; t++) {
		const struct fb_case *c = &run->cases[todo[t]];
		json_t *cr = json_object_get(c->rec, "coverage");
		char gdir[4200];

		if (pre) {
			memcpy(now, pre + t * nsites, nsites * sizeof(*now));
		} else {
			snprintf(gdir, sizeof(gdir), "%s/%s/gcov", run->dir, c->dir);
			if (fb_cov_case(&k, json_string_value(json_object_get(cr, "build_id")), gdir,
					now, html ? &cov : NULL, why, sizeof(why))) {
				rc = bad("%s: %s", c->name, why);
				free(todo);
				goto out;
			}
		}
		ncases++;
		if (html)
			fb_cov_add(&sum, &cov);
		for (size_t j = 0; j < nsites; j++)
			if (now[j].failed && !use[j].failed)
				so_far++;
		json_array_append_new(curve, json_pack("[i, i]", ncases, so_far));
		for (size_t j = 0; j < nsites; j++) {
			bool csum = false;

			if (!now[j].reached)
				continue;
			use[j].reached++;
			use[j].unmeasurable |= now[j].unmeasurable;
			if (now[j].failed) {
				csum = csum_lines(run->dir, c);
				use[j].failed++;
				use[j].reported += now[j].reported;
				use[j].csum_lines += csum;
			}
			json_array_append_new(use[j].cases, json_pack("{s:s, s:s, s:b, s:b, s:b}",
				"case", c->name, "repro", fb_case_str(c, "repro") ?: "",
				"failed", now[j].failed, "reported", now[j].reported, "csum_lines", csum));
		}
	}
	free(todo);
	if (pre)
		munmap(pre, ntodo * nsites * sizeof(*pre) + 1);
	if (!ncases) {
		rc = bad("%s: no case on %s brought its counters back (%zu without)", run->dir,
			 kernel, json_array_size(without));
		goto out;
	}
	for (size_t j = 0; j < nsites; j++) {
		hit += use[j].reached > 0;
		nfail += use[j].failed > 0;
		nunmeasured += use[j].unmeasurable;
	}
	printf("kernel %s (build %.12s), %d cases with counters, %zu without\n", kernel, k.id,
	       ncases, json_array_size(without));
	fprintf(md, "## %s\n\nBuild id %s; %d cases with counters, %zu without. Sites from "
		"the kernel's own source (`flipbed coverage --sites %s`).\n\n"
		"**Failure branches reached: %d of %d** (sites reached: %d of %zu).\n\n",
		kernel, k.id, ncases, json_array_size(without), kernel, nfail, k.with_branch, hit, nsites);
	if (nunmeasured)
		fprintf(md, "%d reached site%s ha%s a failure branch with no line of code of its "
			"own (the compiler folded it into the jump): line counts cannot tell whether "
			"it ran, so it counts as not reached (`no line` below).\n\n", nunmeasured,
			nunmeasured > 1 ? "s" : "", nunmeasured > 1 ? "ve" : "s");
	fprintf(md, "| site | function | check | reached | failure branch | failed | reported |\n"
		"|---|---|---|---:|---|---:|---|\n");
	{
		static const int at[] = { 200, 500, 1000, 2000 };
		bool any = false;

		for (size_t j = 0; j < sizeof(at) / sizeof(*at); j++) {
			json_t *p = json_array_get(curve, at[j] - 1);

			if (!p)
				continue;
			fprintf(md, "%s%d after %d cases", any ? ", " : "Failure branches reached in case order: ",
				(int)json_integer_value(json_array_get(p, 1)), at[j]);
			any = true;
		}
		if (any)
			fprintf(md, " (every case: `coverage.json`, `curve`).\n\n");
	}
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
			if (use[k].unmeasurable)
				snprintf(failed, sizeof(failed), "no line");
			else
				snprintf(failed, sizeof(failed), "%d", use[k].failed);
		}
		printf("%-28s %-28s %8d %7s %16s  %s\n", name, s->func, use[k].reached, failed, rep,
		       s->check);
		fprintf(md, "| `%s` | `%s` | `%s` | %d | %s | %s | %s |\n", name, s->func, s->check,
			use[k].reached, br, failed, rep);
		json_array_append_new(jsites, json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:i, s:b, s:s,"
			" s:o, s:i, s:i, s:i, s:i, s:b, s:O}", "file", s->file, "line", s->line, "function", s->func,
			"check", s->check, "failure_branch", fb_site_fail_name(s->how),
			"fail_line", s->fail_line, "fail_end", s->fail_end, "joined", s->joined,
			"why", s->why, "report_lines", report_json(s), "reached", use[k].reached, "failed", use[k].failed,
			"reported", use[k].reported, "csum_lines", use[k].csum_lines,
			"measurable", !use[k].unmeasurable, "cases", use[k].cases));
	}
	printf("failure branches reached: %d of %d (sites reached: %d of %zu)%s\n", nfail,
	       k.with_branch, hit, nsites,
	       nunmeasured ? "; 'no line': a failure branch without code of its own, not counted" : "");
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
	/* the lines, for those who want them (not read without the pages) */
	if (!html) {
		fprintf(md, "\n");
		goto done;
	}
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
	{
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
done:
	json_array_append_new(out, json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:I, s:o, s:o, s:O}",
		"kernel", kernel, "build_id", k.id, "cases", ncases, "failure_branches", k.with_branch,
		"failure_branches_reached", nfail, "failure_branches_unmeasurable", nunmeasured,
		"sites_reached", hit, "sites", (json_int_t)nsites,
		"without_counters", json_incref(without), "sites_table", json_incref(jsites),
		"curve", curve));
out:
	for (size_t i = 0; i < nsites; i++)
		json_decref(use[i].cases);
	free(use);
	free(now);
	fb_cov_kernel_free(&k);
	json_decref(without);
	json_decref(jsites);
	json_decref(curve);
	fb_cov_free(&cov);
	fb_cov_free(&sum);
	return rc;
}

int cmd_coverage(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sites", required_argument, NULL, 's' },
		{ "no-html", no_argument, NULL, 'n' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *sites = NULL;
	bool html = true;
	int jobs = fb_default_jobs();
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
		case 'j':
			if (fb_opt_jobs("coverage", optarg, &jobs))
				return 2;
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
			 run.dir, fb_cov_kernel_names(list, sizeof(list)));
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
		rc = cover_kernel(&run, kernels[i], html, jobs, md, out);
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

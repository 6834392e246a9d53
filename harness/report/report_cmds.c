// SPDX-License-Identifier: MIT
/*
 * The results commands: flipbed report, show, diff, merge (see
 * harness/RESULTS.md). Each parses its arguments, then calls report*.c;
 * bad input is one line on stderr and exit status 2.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd.h"
#include "report/report_int.h"

#define RUNS_DIR "results/runs"

static int usage(const char *u, const char *bad)
{
	if (bad)
		fprintf(stderr, "flipbed: unexpected argument '%s'; usage: %s\n",
			bad, u);
	else
		fprintf(stderr, "flipbed: usage: %s\n", u);
	return 2;
}

static bool is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help");
}

/*
 * --loose RUN...: every run loaded, then the expectations no case needed;
 * --order RUN...: the violations of the order property (report_order.c).
 */
static int report_runs(char **dirs, int n, bool order)
{
	struct fb_run *runs = xcalloc(n, sizeof(*runs));
	int ret = 0, loaded;

	for (loaded = 0; loaded < n && !ret; loaded++)
		ret = fb_run_load(dirs[loaded], &runs[loaded]);
	if (!ret)
		ret = order ? fb_report_order(runs, n, stdout) : fb_report_loose(runs, n, stdout);
	for (int i = 0; i < loaded; i++)
		fb_run_free(&runs[i]);
	free(runs);
	return ret < 0 ? 2 : ret;
}

/*
 * --iron RUN [--out FILE]: the IRON table on stdout, or into FILE. It is
 * made in memory first, so a run that is refused leaves FILE as it was.
 */
static int report_iron(const char *dir, const char *out)
{
	struct fb_run run;
	char *buf = NULL;
	size_t len = 0;
	FILE *m, *f;
	int ret = fb_run_load(dir, &run);

	if (!ret) {
		m = open_memstream(&buf, &len);
		ret = m ? fb_report_iron(&run, m, out) : -1;
		if (m && fclose(m))
			ret = -1;
	}
	if (!ret && out) {
		f = fb_out_open(out);
		ret = f ? (fwrite(buf, 1, len, f), fb_out_close(f, out)) : -1;
	} else if (!ret) {
		fwrite(buf, 1, len, stdout);
	}
	free(buf);
	fb_run_free(&run);
	return ret < 0 ? 2 : 0;
}

/* --history DIR... --out OUT: OUT/history.html. */
static int report_history(char **dirs, int n, const char *out, const char *u)
{
	if (!n || !out)
		return usage(u, NULL);
	return fb_report_history(dirs, n, out) ? 2 : 0;
}

/* The summary.md just written, on stdout. */
static int print_summary(const struct fb_run *run)
{
	char *path = fb_path(run->dir, NULL, "summary.md");
	size_t len = 0;
	char *text = path ? fb_slurp(path, &len) : NULL;

	if (text)
		fwrite(text, 1, len, stdout);
	free(text);
	free(path);
	return text ? 0 : -1;
}

int cmd_report(int argc, char **argv)
{
	static const char u[] = "flipbed report DIR [--ktap] | flipbed report --loose RUN... | flipbed report --order RUN...";
	static const char u_iron[] = "flipbed report --iron RUN [--out FILE]";
	static const char u_hist[] = "flipbed report --history DIR... --out OUT";
	const char *dir = NULL;
	char **dirs = xcalloc(argc, sizeof(*dirs));
	const char *out = NULL;
	bool ktap = false, loose = false, order = false, iron = false, hist = false;
	struct fb_run run;
	int ret, n = 0;

	for (int i = 1; i < argc; i++) {
		bool one = !ktap && !loose && !order && !iron && !hist;	/* no mode yet */

		if (is_help(argv[i]))
			return free(dirs), printf("usage: %s | %s | %s\n", u, u_iron, u_hist), 0;
		if (!strcmp(argv[i], "--ktap") && !loose && !order && !iron && !hist)
			ktap = true;
		else if (!strcmp(argv[i], "--loose") && one)
			loose = true;
		else if (!strcmp(argv[i], "--order") && one)
			order = true;
		else if (!strcmp(argv[i], "--iron") && one)
			iron = true;
		else if (!strcmp(argv[i], "--history") && one && !n)
			hist = true;
		else if (!strcmp(argv[i], "--out") && (iron || hist) && !out && i + 1 < argc)
			out = argv[++i];
		else if (argv[i][0] != '-' && (loose || order || hist || !n))
			dirs[n++] = argv[i];
		else
			return free(dirs), usage(hist ? u_hist : iron || !strcmp(argv[i], "--out") ?
						 u_iron : u, argv[i]);
	}
	if (hist) {
		ret = report_history(dirs, n, out, u_hist);
		free(dirs);
		return ret;
	}
	if (loose || order) {
		ret = n ? report_runs(dirs, n, order) : usage(u, NULL);
		free(dirs);
		return ret;
	}
	dir = dirs[0];
	free(dirs);
	if (!dir)
		return usage(iron ? u_iron : u, NULL);
	if (iron)
		return report_iron(dir, out);
	ret = fb_run_load(dir, &run);
	if (!ret)
		ret = fb_report_write(&run);
	if (!ret)
		ret = ktap ? fb_report_ktap_run(&run, stdout) : print_summary(&run);
	if (!ret)
		ret = fb_run_status(&run);
	fb_run_free(&run);
	return ret < 0 ? 2 : ret;
}

/* results/runs/latest, else the most recently changed directory in results/runs. */
static char *newest_run(void)
{
	struct stat st;
	struct dirent *e;
	char *best = NULL;
	time_t best_t = 0;
	DIR *d;

	if (!stat(RUNS_DIR "/latest", &st) && S_ISDIR(st.st_mode))
		return xstrdup(RUNS_DIR "/latest");
	d = opendir(RUNS_DIR);
	while (d && (e = readdir(d))) {
		char *p = e->d_name[0] == '.' ? NULL : fb_path(RUNS_DIR, NULL, e->d_name);

		if (p && !stat(p, &st) && S_ISDIR(st.st_mode) &&
		    (!best || st.st_mtime > best_t ||
		     (st.st_mtime == best_t && strcmp(p, best) > 0))) {
			free(best);
			best = p;
			best_t = st.st_mtime;
		} else {
			free(p);
		}
	}
	if (d)
		closedir(d);
	if (!best)
		fprintf(stderr, "flipbed: no run in %s/; accepted: --run DIR\n",
			RUNS_DIR);
	return best;
}

static bool case_matches(const struct fb_case *c, const char *pat)
{
	const char *base = strrchr(c->dir, '/');

	return !fnmatch(pat, c->name, 0) ||
	       !fnmatch(pat, base ? base + 1 : c->dir, 0);
}

static int show_matches(const struct fb_run *run, const char *pat)
{
	size_t found = 0;

	for (size_t i = 0; i < run->n; i++) {
		if (!case_matches(&run->cases[i], pat))
			continue;
		if (found++)
			fputs("\n\n", stdout);
		fb_report_show(run, &run->cases[i], stdout);
	}
	if (!found) {
		fprintf(stderr, "flipbed: no case matches '%s' in %s; accepted: "
			"a case name or a glob (flipbed report %s lists them)\n",
			pat, run->cases_path, run->dir);
		return 2;
	}
	return 0;
}

/* --inspect / --debugfs: the one case PAT names, its kept image opened by TOOL. */
static int inspect_match(const struct fb_run *run, const char *pat, const char *tool,
			 char **args, int nargs)
{
	const struct fb_case *c = NULL;

	for (size_t i = 0; i < run->n; i++) {
		if (!case_matches(&run->cases[i], pat))
			continue;
		if (c) {
			fprintf(stderr, "flipbed: %s opens one case, but '%s' matches %s and %s; "
				"accepted: a case name\n", tool, pat, c->name, run->cases[i].name);
			return 2;
		}
		c = &run->cases[i];
	}
	if (!c) {
		fprintf(stderr, "flipbed: no case matches '%s' in %s\n", pat, run->cases_path);
		return 2;
	}
	return fb_report_inspect(run, c, tool, args, nargs);
}

int cmd_show(int argc, char **argv)
{
	static const char u[] = "flipbed show CASE [--run DIR] [--inspect|--debugfs [-- ARGS...]]";
	const char *pat = NULL, *tool = NULL;
	char *dir = NULL, **args = NULL;
	int nargs = 0;
	struct fb_run run;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i]))
			return printf("usage: %s\n", u), 0;
		if (!strcmp(argv[i], "--run") && i + 1 < argc && !dir)
			dir = xstrdup(argv[++i]);
		else if ((!strcmp(argv[i], "--inspect") || !strcmp(argv[i], "--debugfs")) && !tool)
			tool = argv[i] + 2;
		else if (!strcmp(argv[i], "--") && tool) {
			args = argv + i + 1;
			nargs = argc - i - 1;
			break;
		} else if (!pat && argv[i][0] != '-')
			pat = argv[i];
		else
			return free(dir), usage(u, argv[i]);
	}
	if (!pat)
		return free(dir), usage(u, NULL);
	if (!dir && !(dir = newest_run()))
		return 2;
	if (fb_run_load(dir, &run))
		ret = 2;
	else
		ret = tool ? inspect_match(&run, pat, tool, args, nargs) : show_matches(&run, pat);
	fb_run_free(&run);
	free(dir);
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	static const char u[] = "flipbed diff DIR1 DIR2 [--by kernel] | flipbed diff DIR --by PARAM";
	const char *dirs[2] = { NULL, NULL }, *by = NULL;
	struct fb_run a, b;
	int n = 0, ret;

	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i]))
			return printf("usage: %s\n", u), 0;
		if (!strcmp(argv[i], "--by") && i + 1 < argc && !by)
			by = argv[++i];
		else if (n < 2 && argv[i][0] != '-')
			dirs[n++] = argv[i];
		else
			return usage(u, argv[i]);
	}
	if (n != (by ? 1 : 2) && !(n == 2 && by && !strcmp(by, "kernel"))) {
		fprintf(stderr, "flipbed: diff takes two runs (by kernel with "
			"--by kernel), or one run with --by PARAM (got %d run%s%s%s); "
			"usage: %s\n", n, n == 1 ? "" : "s", by ? " with --by " : "",
			by ? by : "", u);
		return 2;
	}
	if (fb_run_load(dirs[0], &a)) {
		fb_run_free(&a);
		return 2;
	}
	if (n == 1) {
		ret = fb_diff_by(&a, by, stdout);
	} else {
		ret = fb_run_load(dirs[1], &b) ? -1 :
		      by ? fb_diff_runs_by_kernel(&a, &b, stdout) :
			   fb_diff_runs(&a, &b, stdout);
		fb_run_free(&b);
	}
	fb_run_free(&a);
	return ret < 0 ? 2 : ret;
}

int cmd_merge(int argc, char **argv)
{
	static const char u[] = "flipbed merge OUT DIR...";
	int ret;

	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i]))
			return printf("usage: %s\n", u), 0;
		if (argv[i][0] == '-')
			return usage(u, argv[i]);
	}
	if (argc < 3)
		return usage(u, NULL);
	ret = fb_merge(argv[1], argv + 2, argc - 2, argc, argv);
	if (ret >= 0) {
		char *path = fb_path(argv[1], NULL, "summary.md");
		char *text = path ? fb_slurp(path, NULL) : NULL;

		fputs(text ? text : "", stdout);
		free(text);
		free(path);
	}
	return ret < 0 ? 2 : ret;
}

// SPDX-License-Identifier: MIT
/*
 * `flipbed run SCENARIO…` and `flipbed matrix NAME`: expand cases, build
 * their golden images, run each case in a worker process (--jobs at a time),
 * append its record to cases.jsonl as it ends, show progress, then write the
 * reports. A worker per case keeps one case's crash or hang from touching
 * another; workers die with flipbed (PDEATHSIG), and their QEMU and nbdkit
 * die with them.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "run/manifest.h"
#include "boot/proc.h"
#include "report/report.h"
#include "run/run.h"
#include "run/runcase.h"
#include "run/target.h"
#include "boot/vm.h"
#include "options.h"
#include "util.h"
#include "paths.h"
#include "kernels.h"

#define MAX_SETS 32

struct run_args {
	struct fb_select sel;
	struct fb_entry sets[MAX_SETS];
	int nsets;
	int jobs;
	const char *out;
	bool failed;
	bool keep;
	bool verbose;
	bool ktap;
	bool list;
	char kernels[256];
};

struct worker {
	pid_t pid;
	int index;
	double start;
	char priv[PATH_MAX];	/* its private directory, "" if none */
};

static void usage(FILE *f, const char *cmd)
{
	fprintf(f,
"usage: flipbed %s %s [options]\n"
"  --kernel K[,K]   kernels to run (stock, patched, kasan); default: the matrix's or scenario's\n"
"  --jobs N         cases at a time (default: number of cores)\n"
"  --group G        only scenarios in group G\n"
"  --filter GLOB    only cases whose name matches GLOB\n"
"  --shard K/N      only every N-th case starting at the K-th (1 <= K <= N)\n"
"  --set S.KEY=VAL  override a scenario key in every case (repeatable)\n"
"  --seed S         same as --set target.seed=S\n"
"  --failed         only the cases that failed or were infra in the latest run\n"
"  --out DIR        run directory (default results/runs/<UTC time>)\n"
"  --keep           keep every case image (default: only failed and infra ones)\n"
"  --ktap           print KTAP results on stdout at the end\n"
"  --verbose        stream every console and agent line to stderr\n"
"  --list           print the cases (name, then the repro command) and run nothing;\n"
"                   with --verbose, each case's scenario as it will run\n",
		cmd, !strcmp(cmd, "matrix") ? "NAME" : "SCENARIO...");
}

static int parse_args(int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "group", required_argument, NULL, 'g' },
		{ "filter", required_argument, NULL, 'f' },
		{ "shard", required_argument, NULL, 'S' },
		{ "set", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'e' },
		{ "failed", no_argument, NULL, 'F' },
		{ "out", required_argument, NULL, 'o' },
		{ "keep", no_argument, NULL, 'K' },
		{ "ktap", no_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *end, buf[64];
	int c;

	memset(a, 0, sizeof(*a));
	a->jobs = fb_default_jobs();
	while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (fb_opt_kernels(argv[0], optarg, a->kernels, sizeof(a->kernels)))
				return -1;
			break;
		case 'j':
			if (fb_opt_jobs(argv[0], optarg, &a->jobs))
				return -1;
			break;
		case 'g':
			a->sel.group = optarg;
			break;
		case 'f':
			a->sel.filter = optarg;
			break;
		case 'S': {
			int used = 0;

			if (sscanf(optarg, "%d/%d%n", &a->sel.shard_k, &a->sel.shard_n, &used) != 2 ||
			    optarg[used] ||
			    a->sel.shard_n < 1 || a->sel.shard_k < 1 || a->sel.shard_k > a->sel.shard_n) {
				fprintf(stderr, "flipbed %s: --shard %s: expected K/N with 1 <= K <= N\n",
					argv[0], optarg);
				return -1;
			}
			break;
		}
		case 's':
		case 'e':
			if (a->nsets == MAX_SETS) {
				fprintf(stderr, "flipbed %s: at most %d --set\n", argv[0], MAX_SETS);
				return -1;
			}
			if (c == 'e') {
				strtoull(optarg, &end, 0);
				if (*end || !*optarg) {
					fprintf(stderr, "flipbed %s: --seed %s: expected a number\n", argv[0], optarg);
					return -1;
				}
				snprintf(buf, sizeof(buf), "target.seed=%s", optarg);
			}
			if (fb_entry_parse_set(c == 'e' ? buf : optarg, &a->sets[a->nsets]) < 0)
				return -1;
			a->nsets++;
			break;
		case 'F':
			a->failed = true;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'K':
			a->keep = true;
			break;
		case 't':
			a->ktap = true;
			break;
		case 'v':
			a->verbose = true;
			break;
		case 'l':
			a->list = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			usage(stderr, argv[0]);
			return -1;
		}
	}
	if (a->kernels[0])
		a->sel.kernels = a->kernels;
	a->sel.sets = a->sets;
	a->sel.nsets = a->nsets;
	return 0;
}

/* --failed: keep the cases that failed or were infra in results/runs/latest. */
static int keep_failed(struct fb_case_specs *cases)
{
	struct fb_run last;
	int kept = 0;

	if (fb_run_load("results/runs/latest", &last) < 0) {
		fprintf(stderr, "flipbed: --failed: no previous run in results/runs/latest\n");
		return -1;
	}
	for (int i = 0; i < cases->n; i++) {
		bool again = false;
		for (size_t k = 0; k < last.n; k++)
			if (!strcmp(last.cases[k].name, cases->v[i].name))
				again = last.cases[k].verdict == FB_VERDICT_FAIL ||
					last.cases[k].verdict == FB_VERDICT_INFRA;
		if (again)
			cases->v[kept++] = cases->v[i];
		else
			fb_case_spec_free(&cases->v[i]);
	}
	cases->n = kept;
	fb_run_free(&last);
	return 0;
}

/* Everything the cases need must be built: say which make target builds what is missing. */
static int check_built(const struct fb_case_specs *cases)
{
	char path[PATH_MAX];
	int bad = 0;

	if (access(fb_path_plugin(path, sizeof(path)), R_OK)) {
		fprintf(stderr, "flipbed: %s is not built; run 'make'\n", path);
		bad++;
	}
	if (access(fb_path_initrd(path, sizeof(path)), R_OK)) {
		fprintf(stderr, "flipbed: %s is not built; run 'make'\n", path);
		bad++;
	}
	for (int i = 0; i < cases->n; i++) {
		const struct fb_kernel *k = fb_kernel_find(cases->v[i].kernel);

		if (access(fb_path_kernel(k, path, sizeof(path)), R_OK)) {
			fprintf(stderr, "flipbed: kernel '%s' is not built (%s); run 'make %s'\n",
				k->name, path, k->make_target);
			bad++;
			break;
		}
	}
	return bad ? -1 : 0;
}

/* Whether directory PATH holds anything (a missing one holds nothing). */
static bool has_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool any = false;

	if (!d)
		return false;
	while (!any && (de = readdir(d)))
		any = strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return any;
}

/*
 * A given --out must be new or empty unless RESUME: records appended to
 * another run's cases.jsonl would be counted with it.
 */
static int check_outdir(const char *out, bool resume)
{
	if (out && !resume && has_entries(out)) {
		fprintf(stderr, "flipbed: --out %s: not empty; give a new or empty directory\n", out);
		return -1;
	}
	return 0;
}

/* The run directory: OUT, or results/runs/<UTC time> with results/runs/latest at it. */
static int make_outdir(const char *out, char *dir, size_t len)
{
	char sub[PATH_MAX + 8];

	if (out) {
		snprintf(dir, len, "%s", out);
	} else {
		time_t t = time(NULL);
		struct tm tm;
		char stamp[32];
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		mkdir("results", 0755);
		mkdir("results/runs", 0755);
		snprintf(dir, len, "results/runs/%s", stamp);
	}
	snprintf(sub, sizeof(sub), "%s/cases", dir);
	if ((mkdir(dir, 0755) && errno != EEXIST) || (mkdir(sub, 0755) && errno != EEXIST)) {
		fprintf(stderr, "flipbed: cannot create %s: %s\n", sub, strerror(errno));
		return -1;
	}
	if (!out) {
		unlink("results/runs/latest");
		if (symlink(dir + strlen("results/runs/"), "results/runs/latest"))
			fprintf(stderr, "flipbed: warning: cannot link results/runs/latest: %s\n",
				strerror(errno));
	}
	return 0;
}

/* Golden images, built once per recipe, with the manifest of their files. */
static int prepare_goldens(struct fb_case_specs *cases, struct fb_golden *g)
{
	char cache[PATH_MAX], mf[PATH_MAX + 16], why[512];

	fb_path_image_cache(cache, sizeof(cache));
	fb_golden_sweep(cache);
	for (int i = 0; i < cases->n; i++) {
		if (fb_proc_interrupted() || fb_golden_get(cases->v[i].scn, cache, &g[i]))
			return -1;
		snprintf(mf, sizeof(mf), "%s/" FB_MANIFEST_FILE, g[i].dir);
		if (access(mf, R_OK) == 0)
			continue;
		struct fb_manifest m;
		if (fb_manifest_build(g[i].path, &m, why, sizeof(why))) {
			/* a given, corrupt image may not walk: its cases say data not-checked */
			fprintf(stderr, "flipbed: %s: no manifest, user data will not be checked: %s\n",
				cases->v[i].name, why);
			continue;
		}
		fb_manifest_save(&m, mf);
		fb_manifest_free(&m);
	}
	return fb_proc_interrupted() ? -1 : 0;
}

/*
 * Every case's target resolved on its golden image before anything boots:
 * a path the image lacks, a region the object does not have or an index
 * past the count is the scenario's mistake (exit 2, nothing booted), not a
 * case that failed. A campaign generates targets blindly and counts the
 * missing ones itself, so it does not call this.
 */
static int check_targets(const struct fb_case_specs *cases, const struct fb_golden *g)
{
	int bad = 0;

	for (int i = 0; i < cases->n; i++) {
		const struct fb_scenario *s = cases->v[i].scn;
		struct fb_target t;
		char why[512];

		if (fb_target_rules(s, g[i].path, &t, why, sizeof(why))) {
			fprintf(stderr, "%s: case %s: %s\n", s->file, cases->v[i].name, why);
			bad++;
			continue;
		}
		fb_target_free(&t);
	}
	return bad ? -1 : 0;
}

static json_t *run_info(const struct fb_exec *e)
{
	struct utsname u;
	json_t *av = json_array(), *kernels = json_object();
	char path[PATH_MAX], ver[128];

	for (int i = 0; i < e->argc; i++)
		json_array_append_new(av, json_string(e->argv[i]));
	uname(&u);
	for (size_t i = 0; i < fb_nkernels; i++) {
		FILE *f = fopen(fb_path_kernel_version(&fb_kernels[i], path, sizeof(path)), "r");
		if (!f)
			continue;
		if (fgets(ver, sizeof(ver), f))
			ver[strcspn(ver, "\n")] = '\0';
		fclose(f);
		json_object_set_new(kernels, fb_kernels[i].name, json_pack("{s:s}", "source_version", ver));
	}
	time_t t = time(NULL);
	char stamp[32];
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	return json_pack("{s:s, s:o, s:s?, s:i, s:o, s:o, s:{s:s, s:i}}",
			 "started", stamp, "argv", av, "matrix", e->label, "jobs", e->jobs,
			 "shard", e->shard_n ? json_sprintf("%d/%d", e->shard_k, e->shard_n) : json_null(),
			 "kernels", kernels, "host", "uname", u.release,
			 "nproc", (int)sysconf(_SC_NPROCESSORS_ONLN));
}

/*
 * A worker runs one case. Its private directory (nbdkit's and QEMU's
 * sockets) is made here, by mkdtemp under $TMPDIR, and removed by the
 * parent once the worker is reaped, however the worker ended.
 */
static pid_t start_worker(const struct fb_case_spec *c, const struct fb_golden *g,
			  const struct fb_run_opts *o, char *priv, size_t len)
{
	pid_t pid;

	if (fb_private_dir(priv, len)) {
		fprintf(stderr, "flipbed: %s: cannot make a private directory under %s: %s\n",
			c->name, getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
		priv[0] = '\0';
	}
	pid = fork();
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fb_proc_init();
	_exit(fb_case_run(c, g, o, priv) ? 1 : 0);
}

/* Seconds a case spent in each phase, from its record's "durations". */
enum { PH_TOTAL, PH_IMAGE, PH_BOOT, PH_WORKLOAD, PH_FSCK, PH__COUNT };
static const char *const phase_names[PH__COUNT] = { "total", "image", "boot", "workload", "fsck" };

/* Append the worker's record to cases.jsonl; write an infra record if it left none. */
static enum fb_verdict collect(const struct fb_case_spec *c, const char *outdir,
			       FILE *jsonl, int status, double *phases)
{
	char sub[PATH_MAX], path[PATH_MAX * 2];
	json_t *rec;

	fb_case_dirname(c->name, sub, sizeof(sub));
	snprintf(path, sizeof(path), "%s/cases/%s/case.json", outdir, sub);
	rec = json_load_file(path, 0, NULL);
	if (!rec) {
		char *repro = fb_case_repro(c);
		rec = json_pack("{s:s, s:s, s:s, s:{s:s}, s:s, s:s, s:[s], s:{s:s, s:s, s:s, s:s, s:s}, s:s}",
				"case", c->name, "scenario", c->scn->file, "kernel", c->kernel,
				"params", "kernel", c->kernel, "verdict", "infra",
				"dir", "", "mismatch", "worker died",
				"outcome", "detect", "none", "reaction", "none", "fsck", "not-run",
				"data", "not-checked", "infra",
				WIFSIGNALED(status) ? "the case worker was killed by a signal" :
						      "the case worker exited without a record",
				"repro", repro);
		json_object_set_new(rec, "dir", json_sprintf("cases/%s", sub));
		free(repro);
	}
	for (int i = 0; i < PH__COUNT; i++)
		phases[i] = json_number_value(json_object_get(json_object_get(rec, "durations"),
							      phase_names[i]));
	json_dumpf(rec, jsonl, JSON_COMPACT | JSON_SORT_KEYS);
	fputc('\n', jsonl);
	fflush(jsonl);
	enum fb_verdict v = fb_verdict_parse(json_string_value(json_object_get(rec, "verdict")));
	json_decref(rec);
	return (int)v < 0 ? FB_VERDICT_INFRA : v;
}

struct progress {
	int total, done, count[FB_VERDICT__COUNT];
	double start;
	bool tty;
	double *phases;		/* PH__COUNT per finished case */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double phase_median(const struct progress *p, int ph)
{
	double v[p->done];

	for (int i = 0; i < p->done; i++)
		v[i] = p->phases[i * PH__COUNT + ph];
	qsort(v, p->done, sizeof(double), cmp_double);
	return p->done % 2 ? v[p->done / 2] : (v[p->done / 2 - 1] + v[p->done / 2]) / 2;
}

/* The median of each phase over the finished cases, and the throughput. */
static void print_timing(const struct progress *p, double elapsed)
{
	if (!p->done)
		return;
	fprintf(stderr, "flipbed: median case %.2f s (", phase_median(p, PH_TOTAL));
	for (int ph = PH_IMAGE; ph < PH__COUNT; ph++)
		fprintf(stderr, "%s%s %.2f", ph > PH_IMAGE ? ", " : "", phase_names[ph],
			phase_median(p, ph));
	fprintf(stderr, "); %.1f cases/min\n", elapsed > 0 ? p->done * 60 / elapsed : 0);
}

static void show_progress(struct progress *p, const struct fb_case_spec *c,
			  enum fb_verdict v, double secs)
{
	double el = fb_now() - p->start;
	double eta = p->done ? el / p->done * (p->total - p->done) : 0;

	if (p->tty) {
		fprintf(stderr, "\r\033[K[%d/%d] pass %d fail %d infra %d skip %d | %.0fs, ETA %.0fs | %s %s",
			p->done, p->total, p->count[FB_VERDICT_PASS], p->count[FB_VERDICT_FAIL],
			p->count[FB_VERDICT_INFRA], p->count[FB_VERDICT_SKIP], el, eta,
			fb_verdict_name(v), c->name);
		if (v == FB_VERDICT_FAIL || v == FB_VERDICT_INFRA)
			fprintf(stderr, "\n");
	} else {
		fprintf(stderr, "[%d/%d] %-5s %s (%.1fs)\n", p->done, p->total, fb_verdict_name(v),
			c->name, secs);
	}
}

static int run_cases(struct fb_case_specs *cases, struct fb_golden *g,
		     const struct fb_run_opts *o, int jobs)
{
	struct worker w[64] = { 0 };
	struct progress p = { .total = cases->n, .start = fb_now(), .tty = isatty(2) };
	double phases[PH__COUNT];
	char path[PATH_MAX + 16];
	FILE *jsonl;
	int next = 0, running = 0, evfd = fb_proc_init();

	snprintf(path, sizeof(path), "%s/cases.jsonl", o->outdir);
	jsonl = fopen(path, "a");
	if (!jsonl) {
		fprintf(stderr, "flipbed: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (next < cases->n || running) {
		while (!fb_proc_interrupted() && running < jobs && next < cases->n) {
			for (int s = 0; s < jobs; s++) {
				if (w[s].pid)
					continue;
				w[s].pid = start_worker(&cases->v[next], &g[next], o,
							w[s].priv, sizeof(w[s].priv));
				w[s].index = next++;
				w[s].start = fb_now();
				running++;
				break;
			}
		}
		if (fb_proc_interrupted()) {
			for (int s = 0; s < jobs; s++)
				if (w[s].pid)
					kill(w[s].pid, SIGTERM);
		}
		struct pollfd pf = { .fd = evfd, .events = POLLIN };
		poll(&pf, 1, 500);
		fb_proc_clear_events();
		for (int s = 0; s < jobs; s++) {
			int status;
			if (!w[s].pid || waitpid(w[s].pid, &status, WNOHANG) != w[s].pid)
				continue;
			if (w[s].priv[0] && fb_remove_tree(w[s].priv))
				fprintf(stderr, "flipbed: could not remove %s: %s\n", w[s].priv,
					strerror(errno));
			const struct fb_case_spec *c = &cases->v[w[s].index];
			enum fb_verdict v = collect(c, o->outdir, jsonl, status, phases);
			p.phases = xrealloc(p.phases, (p.done + 1) * PH__COUNT * sizeof(double));
			memcpy(p.phases + p.done * PH__COUNT, phases, sizeof(phases));
			p.done++;
			p.count[v]++;
			show_progress(&p, c, v, fb_now() - w[s].start);
			w[s].pid = 0;
			running--;
		}
		if (fb_proc_interrupted() && !running)
			break;
	}
	if (p.tty)
		fprintf(stderr, "\n");
	fclose(jsonl);
	fprintf(stderr, "flipbed: %d cases in %.0f s: %d passed, %d failed, %d infra, %d skipped\n",
		p.done, fb_now() - p.start, p.count[FB_VERDICT_PASS], p.count[FB_VERDICT_FAIL],
		p.count[FB_VERDICT_INFRA], p.count[FB_VERDICT_SKIP]);
	print_timing(&p, fb_now() - p.start);
	free(p.phases);
	return fb_proc_interrupted() ? -1 : 0;
}

static int finish(const char *outdir, json_t *info, bool ktap, bool interrupted)
{
	char path[PATH_MAX + 16], stamp[32];
	struct fb_run run;
	int status;
	time_t t = time(NULL);

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	json_object_set_new(info, "finished", json_string(stamp));
	json_object_set_new(info, "interrupted", json_boolean(interrupted));
	snprintf(path, sizeof(path), "%s/run.json", outdir);
	json_dump_file(info, path, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (fb_run_load(outdir, &run) < 0)
		return EXIT_INFRA;
	fb_report_write(&run);
	fb_report_summary(&run, stdout);
	if (ktap)
		fb_report_ktap_run(&run, stdout);
	status = fb_run_status(&run);
	fb_run_free(&run);
	printf("\nresults: %s/summary.md, %s/index.html\n", outdir, outdir);
	return interrupted ? EXIT_INTERRUPTED : status;
}

/*
 * The same scenario file given twice would run its cases twice, and a path
 * that is not UTF-8 could not be recorded: refuse both.
 */
static int check_distinct(char *const files[], int n)
{
	char a[PATH_MAX], b[PATH_MAX];

	for (int i = 0; i < n; i++) {
		if (!fb_utf8_valid(files[i])) {
			fprintf(stderr, "flipbed: a scenario path that is not UTF-8 (cases are recorded as JSON); rename it\n");
			return -1;
		}
		if (!realpath(files[i], a))
			continue;	/* the parser names a missing file */
		for (int j = 0; j < i; j++) {
			if (!realpath(files[j], b) || strcmp(a, b))
				continue;
			fprintf(stderr, "flipbed: %s is given twice (also as %s); give each scenario once\n",
				files[i], files[j]);
			return -1;
		}
	}
	return 0;
}

static int run_parsed(int argc, char **argv, const char *matrix, struct run_args *ap);

/* The --set values parse_args() allocated are freed whatever happens. */
static int run_main(int argc, char **argv, const char *matrix)
{
	struct run_args a;
	int rc = parse_args(argc, argv, &a) < 0 ? EXIT_BADINPUT :
		 run_parsed(argc, argv, matrix, &a);

	for (int i = 0; i < a.nsets; i++) {
		free(a.sets[i].section);
		free(a.sets[i].key);
		free(a.sets[i].value);
	}
	return rc;
}

static int run_parsed(int argc, char **argv, const char *matrix, struct run_args *ap)
{
	struct run_args a = *ap;
	struct fb_case_specs cases;
	int rc;

	if (matrix ? optind != argc - 1 : optind >= argc) {
		usage(stderr, argv[0]);
		return EXIT_BADINPUT;
	}
	if (!matrix && check_distinct(argv + optind, argc - optind))
		return EXIT_BADINPUT;
	if (matrix)
		rc = fb_matrix_expand(argv[optind], &a.sel, &cases);
	else
		rc = fb_scenarios_expand(argv + optind, argc - optind, &a.sel, &cases);
	if (rc < 0)
		return EXIT_BADINPUT;
	if (a.failed && keep_failed(&cases) < 0)
		return EXIT_BADINPUT;
	if (!cases.n) {
		fprintf(stderr, "flipbed: no case to run (check --group, --filter, --kernel, --shard)\n");
		return EXIT_BADINPUT;
	}
	if (a.list) {
		for (int i = 0; i < cases.n; i++) {
			char *repro = fb_case_repro(&cases.v[i]);
			printf("%s\t%s\n", cases.v[i].name, repro);
			free(repro);
			if (a.verbose) {
				fb_scenario_print(stdout, cases.v[i].scn, cases.v[i].kernel);
				putchar('\n');
			}
		}
		fb_case_specs_free(&cases);
		return EXIT_MET;
	}
	struct fb_exec e = {
		.out = a.out, .jobs = a.jobs, .keep = a.keep, .verbose = a.verbose,
		.ktap = a.ktap, .label = matrix ? argv[optind] : NULL,
		.argc = argc, .argv = argv,
		.shard_k = a.sel.shard_k, .shard_n = a.sel.shard_n,
	};
	rc = fb_run_execute(&cases, &e);
	fb_case_specs_free(&cases);
	return rc;
}

int fb_run_execute(struct fb_case_specs *cases, const struct fb_exec *e)
{
	struct fb_golden *g;
	struct fb_run_opts o = { 0 };
	char outdir[PATH_MAX];
	json_t *info;
	int rc;

	if (check_built(cases) < 0 || check_outdir(e->out, e->resume) < 0)
		return EXIT_BADINPUT;
	/* the handlers first: a Ctrl-C while golden images are built is noted,
	 * the build in progress removes its directory, and nothing else starts */
	fb_proc_init();
	g = xcalloc(cases->n, sizeof(*g));
	if (prepare_goldens(cases, g) < 0) {
		free(g);
		return fb_proc_interrupted() ? EXIT_INTERRUPTED : EXIT_INFRA;
	}
	if (!e->resume && check_targets(cases, g) < 0) {
		free(g);
		return EXIT_BADINPUT;
	}
	if (make_outdir(e->out, outdir, sizeof(outdir)) < 0) {
		free(g);
		return EXIT_BADINPUT;
	}
	fprintf(stderr, "flipbed: %d cases, %d at a time, results in %s\n", cases->n, e->jobs, outdir);
	info = run_info(e);
	json_object_set_new(info, "run_id", json_string(strrchr(outdir, '/') ? strrchr(outdir, '/') + 1 : outdir));
	o.outdir = outdir;
	o.keep = e->keep;
	o.verbose = e->verbose;
	rc = run_cases(cases, g, &o, e->jobs);
	rc = finish(outdir, info, e->ktap, rc < 0);
	json_decref(info);
	free(g);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	return run_main(argc, argv, NULL);
}

int cmd_matrix(int argc, char **argv)
{
	return run_main(argc, argv, "matrix");
}

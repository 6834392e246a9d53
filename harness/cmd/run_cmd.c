// SPDX-License-Identifier: MIT
/*
 * `flipbed run SCENARIO…` and `flipbed matrix NAME`: their arguments, and
 * the case list they make. The options, --shard (K/N, or from the job
 * engine), --set and --seed are read here; the scenario files or the
 * matrix are expanded with the selection (--kernel, --group, --filter,
 * --shard), whose id the shards of one run share; --failed keeps the
 * failures of the latest run, --list prints the cases. The list is then
 * run by the engine, fb_run_execute (run/run.h).
 */
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/vm.h"
#include "cmd.h"
#include "guest/agent.h"
#include "kernels.h"
#include "options.h"
#include "report/report.h"
#include "run/run.h"
#include "run/runcase.h"
#include "scenario/matrix.h"
#include "util.h"

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
	int watchdog;
	int batch;
	char shard_from[256];
	char kernels[256];
};

static void usage(FILE *f, const char *cmd)
{
	fprintf(f,
"usage: flipbed %s %s [options]\n"
"  --kernel K[,K]   kernels to run (stock, patched, kasan); default: the matrix's or scenario's\n"
"  --kernel-image PATH  also run a vmlinux or bzImage built elsewhere, as kernel\n"
"                   'image' (checked first; patched's expectations if it prints\n"
"                   the csum-error lines, stock's otherwise)\n"
"  --modules DIR    its modules (lib/modules/RELEASE, with modules.dep): the\n"
"                   drivers it does not build in, loaded by the guest\n"
"  --jobs N         guests at a time (default: number of cores); the checks of\n"
"                   the images run beside them\n"
"  --batch N        at most N cases per boot, each on its own disk (1 to 7;\n"
"                   default 7; 1: a boot per case); [scenario] batch = no\n"
"                   and a case that may have changed the kernel end a boot\n"
"  --group G        only scenarios in group G\n"
"  --filter GLOB    only cases whose name matches GLOB\n"
"  --shard K/N      only every N-th case starting at the K-th (1 <= K <= N)\n"
"  --shard auto     K/N from the job engine: a Slurm array task; auto/N: a\n"
"                   Kubernetes Indexed Job's pod (N = the Job's completions)\n"
"  --set S.KEY=VAL  override a scenario key in every case (repeatable)\n"
"  --seed S         same as --set target.seed=S\n"
"  --failed         only the cases that failed or were infra in the latest run\n"
"  --out DIR        run directory (default results/runs/<UTC time>); with --shard,\n"
"                   this shard's earlier run there is replaced\n"
"  --watchdog S     when no case finishes for S seconds, stop the cases and\n"
"                   record every unfinished one as infra\n"
"  --keep           keep every case image (default: only failed and infra ones)\n"
"  --ktap           print KTAP results on stdout at the end\n"
"  --verbose        stream every console and agent line to stderr\n"
"  --list           print the cases (name, then the repro command) and run nothing;\n"
"                   with --verbose, each case's scenario as it will run\n",
		cmd, !strcmp(cmd, "matrix") ? "NAME" : "SCENARIO...");
}

/*
 * A whole number at S (digits only, no sign or blank), its end in *END.
 * -1 when S does not start with a digit or the number is past INT_MAX.
 */
static long whole(const char *s, const char **end)
{
	long v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++)
		if ((v = v * 10 + (*s - '0')) > INT_MAX)
			return -1;
	*end = s;
	return v;
}

/* Environment variable NAME as a whole number: 1, 0 when unset, -1 (said) when not a number. */
static int env_whole(const char *cmd, const char *name, long *ret)
{
	const char *s = getenv(name), *end = NULL;

	if (!s)
		return 0;
	*ret = whole(s, &end);
	if (*ret < 0 || *end) {
		fprintf(stderr, "flipbed %s: --shard auto: %s=%s: expected a whole number\n",
			cmd, name, s);
		return -1;
	}
	return 1;
}

/*
 * --shard auto and auto/N (GIVEN_N, 0 for auto): the shard from the job
 * engine that started flipbed, K in *K (not checked here) and N in *N,
 * how it was found in FROM. A Slurm array task: K is SLURM_ARRAY_TASK_ID -
 * SLURM_ARRAY_TASK_MIN + 1 of N = SLURM_ARRAY_TASK_COUNT, for an array of
 * consecutive ids. A Kubernetes Indexed Job's pod: K is
 * JOB_COMPLETION_INDEX + 1 (the index is 0-based); the pod is not told the
 * Job's completions, so N must be given. Slurm is looked at first.
 */
static int shard_from_env(const char *cmd, int given_n, int *k, int *n,
			  char *from, size_t len)
{
	long id, count, min, v;
	int r;

	if ((r = env_whole(cmd, "SLURM_ARRAY_TASK_ID", &id)) < 0)
		return -1;
	if (r) {
		int rc = env_whole(cmd, "SLURM_ARRAY_TASK_COUNT", &count);
		int rm = rc < 0 ? -1 : env_whole(cmd, "SLURM_ARRAY_TASK_MIN", &min);

		if (rc < 0 || rm < 0)
			return -1;
		if (!rc || !rm) {
			fprintf(stderr, "flipbed %s: --shard auto: SLURM_ARRAY_TASK_ID is set but not "
				"SLURM_ARRAY_TASK_COUNT and SLURM_ARRAY_TASK_MIN; expected a Slurm job "
				"array task (sbatch --array=1-N)\n", cmd);
			return -1;
		}
		if ((r = env_whole(cmd, "SLURM_ARRAY_TASK_STEP", &v)) < 0)
			return -1;
		if (r && v != 1) {
			fprintf(stderr, "flipbed %s: --shard auto: SLURM_ARRAY_TASK_STEP=%ld: expected "
				"an array of consecutive task ids (sbatch --array=1-N)\n", cmd, v);
			return -1;
		}
		if ((r = env_whole(cmd, "SLURM_ARRAY_TASK_MAX", &v)) < 0)
			return -1;
		if (r && v - min + 1 != count) {
			fprintf(stderr, "flipbed %s: --shard auto: the Slurm array's %ld tasks are not "
				"the consecutive ids %ld-%ld; expected an array of consecutive task ids "
				"(sbatch --array=1-N)\n", cmd, count, min, v);
			return -1;
		}
		if (given_n && given_n != count) {
			fprintf(stderr, "flipbed %s: --shard auto/%d: the Slurm array has %ld tasks; "
				"give --shard auto, or an array of %d tasks\n", cmd, given_n, count, given_n);
			return -1;
		}
		*k = (int)(id - min + 1);
		*n = (int)count;
		snprintf(from, len, "Slurm array: SLURM_ARRAY_TASK_ID=%ld - SLURM_ARRAY_TASK_MIN=%ld + 1 "
			 "of SLURM_ARRAY_TASK_COUNT=%ld", id, min, count);
		return 0;
	}
	if ((r = env_whole(cmd, "JOB_COMPLETION_INDEX", &id)) < 0)
		return -1;
	if (r && !given_n) {
		fprintf(stderr, "flipbed %s: --shard auto: JOB_COMPLETION_INDEX=%ld (a Kubernetes "
			"Indexed Job) does not say how many shards; give --shard auto/N, N the Job's "
			"completions\n", cmd, id);
		return -1;
	}
	if (r) {
		*k = (int)(id + 1);
		*n = given_n;
		snprintf(from, len, "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=%ld + 1 of auto/%d",
			 id, given_n);
		return 0;
	}
	fprintf(stderr, "flipbed %s: --shard auto: no job engine in the environment (neither "
		"SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set); give the shard as K/N\n", cmd);
	return -1;
}

/* --shard K/N, auto or auto/N into SEL; how auto found it in FROM ("" for K/N). */
static int parse_shard(const char *cmd, const char *arg, struct fb_select *sel,
		       char *from, size_t len)
{
	const char *end = arg;
	long k = -1, n = 0;

	from[0] = '\0';
	if (!strcmp(arg, "auto") || !strncmp(arg, "auto/", 5)) {
		if (arg[4] && ((n = whole(arg + 5, &end)) < 1 || *end))
			goto bad;
		if (shard_from_env(cmd, (int)n, &sel->shard_k, &sel->shard_n, from, len))
			return -1;
		if (sel->shard_k < 1 || sel->shard_k > sel->shard_n) {
			fprintf(stderr, "flipbed %s: --shard %s: shard %d is outside 1..%d (%s); "
				"accepted: a shard from 1 to N\n", cmd, arg, sel->shard_k, sel->shard_n, from);
			return -1;
		}
		return 0;
	}
	if ((k = whole(arg, &end)) < 1 || *end != '/' || (n = whole(end + 1, &end)) < k || *end)
		goto bad;
	sel->shard_k = (int)k;
	sel->shard_n = (int)n;
	return 0;
bad:
	fprintf(stderr, "flipbed %s: --shard %s: expected K/N with 1 <= K <= N, auto or auto/N\n",
		cmd, arg);
	return -1;
}

static int parse_args(int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "kernel-image", required_argument, NULL, 'I' },
		{ "modules", required_argument, NULL, 'M' },
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
		{ "watchdog", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *end_c = NULL;
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
		case 'I': {
			const char *name;

			if (fb_kernel_add_image(optarg, &name) ||
			    fb_opt_kernels(argv[0], name, a->kernels, sizeof(a->kernels)))
				return -1;
			break;
		}
		case 'M':
			if (fb_kernel_add_modules(optarg))
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
		case 'S':
			if (parse_shard(argv[0], optarg, &a->sel, a->shard_from, sizeof(a->shard_from)))
				return -1;
			break;
		case 'b':
			a->batch = (int)whole(optarg, &end_c);
			if (a->batch < 1 || a->batch > FB_VM_MAX_DISKS || *end_c) {
				fprintf(stderr, "flipbed %s: --batch %s: expected cases per boot, 1 to %d\n",
					argv[0], optarg, FB_VM_MAX_DISKS);
				return -1;
			}
			break;
		case 'w':
			a->watchdog = (int)whole(optarg, &end_c);
			if (a->watchdog < 1 || *end_c) {
				fprintf(stderr, "flipbed %s: --watchdog %s: expected seconds, at least 1\n",
					argv[0], optarg);
				return -1;
			}
			break;
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
			/* "" is no directory: the paths made from it would start at / */
			if (!*optarg) {
				fprintf(stderr, "flipbed %s: --out '': empty; give a directory\n", argv[0]);
				return -1;
			}
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
	if (fb_kernel_image_finish())
		return -1;
	if (a->kernels[0])
		a->sel.kernels = a->kernels;
	a->sel.sets = a->sets;
	a->sel.nsets = a->nsets;
	return 0;
}

/*
 * --failed: keep the cases that failed or were infra in results/runs/latest;
 * not those a signal cut short (interrupted) or that never started (no
 * record): nothing is known against them.
 */
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

static int expand(const char *matrix, char *const args[], int nargs,
		  const struct fb_select *sel, struct fb_case_specs *cases)
{
	return matrix ? fb_matrix_expand(args[0], sel, cases) :
			fb_scenarios_expand(args, nargs, sel, cases);
}

/*
 * The selection id: what makes a run's case list. Every case of the
 * selection before --shard (its repro command: scenario, kernel, axes,
 * --set values) and the bytes of its scenario file, hashed in expansion
 * order, as 16 hex digits in ID; the number of those cases in *TOTAL. The
 * shards of one run share it, whatever their K; `flipbed merge` refuses
 * runs whose ids differ. CASES is this run's expansion (with SEL).
 */
static int selection_id(const char *matrix, char *const args[], int nargs,
			const struct fb_select *sel, const struct fb_case_specs *cases,
			char *id, size_t len, int *total)
{
	struct fb_select all = *sel;
	struct fb_case_specs every = *cases;
	uint64_t h = FNV1A_INIT;

	all.shard_k = all.shard_n = 0;
	if (sel->shard_n && expand(matrix, args, nargs, &all, &every) < 0)
		return -1;
	for (int i = 0; i < every.n; i++) {
		char *repro = fb_case_repro(&every.v[i]), *text;
		size_t n = 0;

		h = fnv1a(h, repro, strlen(repro) + 1);
		free(repro);
		if ((text = fb_slurp(every.v[i].scn->file, &n)))
			h = fnv1a(h, text, n);
		free(text);
	}
	*total = every.n;
	if (sel->shard_n)
		fb_case_specs_free(&every);
	snprintf(id, len, "%016llx", (unsigned long long)h);
	return 0;
}

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
	char selection[32];
	int rc, total;

	if (matrix ? optind != argc - 1 : optind >= argc) {
		usage(stderr, argv[0]);
		return EXIT_BADINPUT;
	}
	if (!matrix && check_distinct(argv + optind, argc - optind))
		return EXIT_BADINPUT;
	if (expand(matrix, argv + optind, argc - optind, &a.sel, &cases) < 0)
		return EXIT_BADINPUT;
	if (selection_id(matrix, argv + optind, argc - optind, &a.sel, &cases,
			 selection, sizeof(selection), &total) < 0) {
		fb_case_specs_free(&cases);
		return EXIT_BADINPUT;
	}
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
		.shard_k = a.sel.shard_k, .shard_n = a.sel.shard_n, .shard_from = a.shard_from,
		.selection = selection, .cases_total = total, .watchdog = a.watchdog,
		.batch = a.batch,
	};
	rc = fb_run_execute(&cases, &e);
	fb_case_specs_free(&cases);
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

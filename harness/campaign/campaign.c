// SPDX-License-Identifier: MIT
/*
 * `flipbed campaign`: generate the scenario files of a seed, run them with
 * the ordinary runner (run.h) into DIR/run, then collect findings and the
 * summary (campaign_find.c). Running it again with the same arguments
 * resumes: cases already in DIR/run/cases.jsonl are not run again.
 * The format and the outputs are described in harness/campaign/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "classify/classify.h"
#include "classify/klog.h"
#include "coverage/casecov.h"
#include "cmd.h"
#include "run/run.h"
#include "boot/vm.h"
#include "util.h"
#include "paths.h"
#include "kernels.h"
#include "options.h"

#define MAX_LIST 32

/* --batch: cases per boot of every run the campaign starts; 0: the default */
static int batch;

struct campaign_args {
	struct fb_campaign_opts o;
	char *typev[MAX_LIST + 1];
	char *timingv[MAX_LIST + 1];
	const char *out;
	const char *minimize;
	const char *title;
	int jobs;
	bool keep;
	bool generate_only;
	bool have_seed;
	bool have_profile;	/* --profile given */
	bool guided;		/* --guided: rounds drawn by the coverage so far */
	int round;		/* --round: cases per round of a guided campaign */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: flipbed campaign --seed S --count N [options]\n"
"       flipbed campaign --minimize FINDING_DIR [--jobs N]\n"
"       flipbed campaign --title LOG   (a finding's title from a dmesg.txt or transcript.log)\n"
"  --kernel K          kasan (default when build/kernel/kasan is built), patched, stock\n"
"  --kernel-image PATH a vmlinux or bzImage built elsewhere, as kernel 'image', instead\n"
"  --modules DIR       its modules (lib/modules/RELEASE, with modules.dep)\n"
"  --types T,...       object types to corrupt (default: every type a recipe holds)\n"
"  --timing T,...      rest, read, read-sticky, write (default rest,read,write)\n"
"  --bits 1..K         flip 1 to K bits per case (default 1..4; --bits K is the same)\n"
"  --reseal-ratio R    share of cases whose checksum is recomputed (default 0.25)\n"
"  --next-mount yes|no each case mounts again and walks it all after its workload (default yes)\n"
"  --profile P         the images' fixture: full, or kasan (the small-blocks htree in\n"
"                      602 entries, not 12000; the same draws). Default: kasan on\n"
"                      the kasan kernel, full on any other\n"
"  --jobs N            guests at a time (default: number of cores); the checks\n"
"                      of the images run beside them\n"
"  --batch N           at most N cases per boot (1 to 7, default 7; 1: a boot per case)\n"
"  --out DIR           campaign directory (default results/campaigns/seed-S)\n"
"  --keep              keep every case image (default: none; findings get theirs)\n"
"  --generate          write DIR/scenarios and stop\n"
"  --guided            (a coverage kernel) draw each round's cases by the coverage of\n"
"                      the cases so far: prefer the types, recipes, timings and regions\n"
"                      whose cases reached rarely reached failure branches\n"
"  --round N           cases per round of --guided (default 50)\n");
}

/* "a,b,c" into V (at most MAX_LIST), each checked by OK. */
static int split_list(const char *opt, char *arg, char **v, bool (*ok)(const char *),
		      const char *accepted)
{
	int n = 0;

	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		if (n == MAX_LIST || !ok(tok)) {
			fprintf(stderr, "flipbed campaign: %s %s: %s; accepted: %s\n", opt, tok,
				n == MAX_LIST ? "too many" : "unknown", accepted);
			return -1;
		}
		v[n++] = tok;
	}
	v[n] = NULL;
	return n ? 0 : -1;
}

static bool type_ok(const char *t)
{
	for (const char *const *p = fb_campaign_types(); *p; p++)
		if (!strcmp(*p, t))
			return true;
	return false;
}

static bool timing_ok(const char *t)
{
	return fb_timing_parse(t) >= 0;
}

static char *type_list(void)
{
	static char buf[1024];

	buf[0] = '\0';
	for (const char *const *p = fb_campaign_types(); *p; p++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", *p, p[1] ? ", " : "");
	return buf;
}

static int parse_number(const char *opt, const char *s, double lo, double hi, double *ret)
{
	char *end;

	errno = 0;
	*ret = strtod(s, &end);
	if (errno || *end || !*s || *ret < lo || *ret > hi) {
		fprintf(stderr, "flipbed campaign: %s %s: expected a number from %g to %g\n",
			opt, s, lo, hi);
		return -1;
	}
	return 0;
}

static int parse_bits(const char *s, unsigned *ret)
{
	double v;

	if (!strncmp(s, "1..", 3))
		s += 3;
	if (parse_number("--bits", s, 1, 64, &v) || v != (unsigned)v)
		return -1;
	*ret = (unsigned)v;
	return 0;
}

static const char *default_kernel(void)
{
	char path[PATH_MAX];

	return access(fb_path_kernel(fb_kernel_find("kasan"), path, sizeof(path)), R_OK) ?
	       "patched" : "kasan";
}

static int parse_args(int argc, char **argv, struct campaign_args *a)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "kernel-image", required_argument, NULL, 'I' },
		{ "modules", required_argument, NULL, 'M' },
		{ "types", required_argument, NULL, 'T' },
		{ "timing", required_argument, NULL, 't' },
		{ "bits", required_argument, NULL, 'b' },
		{ "reseal-ratio", required_argument, NULL, 'r' },
		{ "next-mount", required_argument, NULL, 'N' },
		{ "profile", required_argument, NULL, 'P' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "batch", required_argument, NULL, 'B' },
		{ "out", required_argument, NULL, 'o' },
		{ "keep", no_argument, NULL, 'K' },
		{ "generate", no_argument, NULL, 'g' },
		{ "guided", no_argument, NULL, 'G' },
		{ "round", required_argument, NULL, 'R' },
		{ "minimize", required_argument, NULL, 'm' },
		{ "title", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static char timings[] = "rest,read,write";
	double v;
	char *end;
	int c;

	a->o.max_bits = 4;
	a->o.reseal_ratio = 0.25;
	a->jobs = fb_default_jobs();
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			a->o.seed = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg || *optarg == '-') {
				fprintf(stderr, "flipbed campaign: --seed %s: expected a number from 0 to 2^64-1\n",
					optarg);
				return -1;
			}
			a->have_seed = true;
			break;
		case 'M':
			if (fb_kernel_add_modules(optarg))
				return -1;
			break;
		case 'n':
			if (parse_number("--count", optarg, 1, 99999, &v) || v != (int)v)
				return -1;
			a->o.count = (int)v;
			break;
		case 'k':
		case 'I':
			if (a->o.kernel) {
				fprintf(stderr, "flipbed campaign: --kernel%s %s: a campaign runs one "
					"kernel, and %s was given\n", c == 'I' ? "-image" : "", optarg,
					a->o.kernel);
				return -1;
			}
			if (c == 'I' ? fb_kernel_add_image(optarg, &a->o.kernel) :
				       fb_opt_kernel("campaign", optarg, &a->o.kernel))
				return -1;
			break;
		case 'T':
			if (split_list("--types", optarg, a->typev, type_ok, type_list()))
				return -1;
			a->o.types = a->typev;
			break;
		case 't':
			if (split_list("--timing", optarg, a->timingv, timing_ok,
				       "rest, read, read-sticky, write"))
				return -1;
			a->o.timings = a->timingv;
			break;
		case 'b':
			if (parse_bits(optarg, &a->o.max_bits))
				return -1;
			break;
		case 'r':
			if (parse_number("--reseal-ratio", optarg, 0, 1, &a->o.reseal_ratio))
				return -1;
			break;
		case 'N':
			if (strcmp(optarg, "yes") && strcmp(optarg, "no")) {
				fprintf(stderr, "flipbed campaign: --next-mount %s: expected yes or no\n",
					optarg);
				return -1;
			}
			a->o.no_next_mount = !strcmp(optarg, "no");
			break;
		case 'P': {
			int p = fb_campaign_profile_parse(optarg);

			if (p < 0) {
				fprintf(stderr, "flipbed campaign: --profile %s: expected full or kasan\n",
					optarg);
				return -1;
			}
			a->o.profile = p;
			a->have_profile = true;
			break;
		}
		case 'j':
			if (fb_opt_jobs("campaign", optarg, &a->jobs))
				return -1;
			break;
		case 'G':
			a->guided = true;
			break;
		case 'R':
			if (parse_number("--round", optarg, 1, 10000, &v) || v != (int)v)
				return -1;
			a->round = (int)v;
			break;
		case 'B': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 1 || v > FB_VM_MAX_DISKS) {
				fprintf(stderr, "flipbed campaign: --batch %s: expected cases per boot, 1 to %d\n",
					optarg, FB_VM_MAX_DISKS);
				return -1;
			}
			batch = (int)v;
			break;
		}
		case 'o':
			a->out = optarg;
			break;
		case 'K':
			a->keep = true;
			break;
		case 'g':
			a->generate_only = true;
			break;
		case 'm':
			a->minimize = optarg;
			break;
		case 'i':
			a->title = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "flipbed campaign: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (fb_kernel_image_finish())
		return -1;
	if (a->minimize || a->title)
		return 0;
	if (!a->have_seed || !a->o.count) {
		fprintf(stderr, "flipbed campaign: --seed and --count are required (or --minimize DIR)\n");
		usage(stderr);
		return -1;
	}
	if (!a->o.timings)
		split_list("--timing", timings, a->timingv, timing_ok, "");
	a->o.timings = a->timingv;
	if (!a->o.kernel)
		a->o.kernel = default_kernel();
	/* a KASAN kernel walks the full small-blocks htree at a few cases a minute */
	if (!a->have_profile)
		a->o.profile = strcmp(a->o.kernel, "kasan") ? FB_PROFILE_FULL : FB_PROFILE_KASAN;
	return 0;
}

int fb_campaign_execute(char *const files[], int n, const char *kernel,
			const char *out, int jobs, bool keep, bool quiet,
			const char *label, int argc, char **argv)
{
	char kernels[256] = "";
	struct fb_select sel = { .kernels = kernel ? kernels : NULL };
	struct fb_case_specs cases;
	int saved = -1, rc;

	if (kernel && fb_opt_kernels(label, kernel, kernels, sizeof(kernels)))
		return EXIT_BADINPUT;
	if (fb_scenarios_expand(files, n, &sel, &cases) < 0)
		return EXIT_BADINPUT;
	struct fb_exec e = {
		.out = out, .resume = true, .jobs = jobs, .keep = keep, .label = label,
		.argc = argc, .argv = argv, .batch = batch,
	};
	if (quiet) {
		/* the run's summary.md would be thousands of lines: campaign.md replaces it */
		fflush(stdout);
		saved = dup(1);
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 1);
			close(null);
		}
	}
	rc = fb_run_execute(&cases, &e);
	if (saved >= 0) {
		fflush(stdout);
		dup2(saved, 1);
		close(saved);
	}
	fb_case_specs_free(&cases);
	return rc;
}

/*
 * A resumed campaign runs again the cases an interrupt cut short: their
 * records (verdict "interrupted"; infra "interrupted by …" from a flipbed
 * that had no such verdict) leave cases.jsonl first, so no case is
 * recorded twice.
 */
static int drop_interrupted(const char *jsonl)
{
	char tmp[PATH_MAX + 8], *line = NULL;
	size_t cap = 0;
	FILE *in = fopen(jsonl, "r"), *out;
	int dropped = 0;

	if (!in)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", jsonl);
	out = fopen(tmp, "w");
	if (!out) {
		fclose(in);
		return -1;
	}
	while (getline(&line, &cap, in) > 0) {
		json_t *rec = json_loads(line, 0, NULL);
		const char *why = json_string_value(json_object_get(json_object_get(rec, "outcome"), "infra"));
		const char *v = json_string_value(json_object_get(rec, "verdict"));

		if (v && (fb_verdict_parse(v) == FB_VERDICT_INTERRUPTED ||
			  (fb_verdict_parse(v) == FB_VERDICT_INFRA && why && strstr(why, "interrupted by"))))
			dropped++;
		else
			fputs(line, out);
		json_decref(rec);
	}
	free(line);
	fclose(in);
	if (fclose(out) || rename(tmp, jsonl)) {
		unlink(tmp);
		return -1;
	}
	return dropped;
}

/* The case files of the campaign not yet in DIR/run/cases.jsonl (a resumed campaign). */
static char **pending_files(const struct campaign_args *a, const char *dir, int *ret_n)
{
	char sdir[PATH_MAX + 16], jsonl[PATH_MAX + 32], path[PATH_MAX + 64], name[64];
	struct fb_run done = { 0 };
	bool have = false;
	char **v = xcalloc(a->o.count + 1, sizeof(char *));
	int n = 0;

	snprintf(sdir, sizeof(sdir), "%s/scenarios", dir);
	snprintf(jsonl, sizeof(jsonl), "%s/run/cases.jsonl", dir);
	if (drop_interrupted(jsonl) < 0)
		fprintf(stderr, "flipbed campaign: cannot rewrite %s: %s\n", jsonl, strerror(errno));
	if (!access(jsonl, R_OK))
		have = fb_run_load(jsonl, &done) == 0;
	for (int i = 1; i <= a->o.count; i++) {
		bool ran = false;
		snprintf(name, sizeof(name), "case-%05d@%s", i, a->o.kernel);
		for (size_t k = 0; have && k < done.n && !ran; k++)
			ran = !strcmp(done.cases[k].name, name);
		if (ran)
			continue;
		fb_campaign_case_file(sdir, i, path, sizeof(path));
		v[n++] = xstrdup(path);
	}
	if (have)
		fb_run_free(&done);
	*ret_n = n;
	return v;
}

/* Without --keep, no case image stays (the runner keeps infra ones). */
static void drop_images(const char *dir)
{
	char cmd[PATH_MAX + 128];

	snprintf(cmd, sizeof(cmd), "find '%s/run/cases' -name image.raw -delete 2>/dev/null", dir);
	if (system(cmd))
		fprintf(stderr, "flipbed campaign: could not delete case images under %s/run/cases\n", dir);
}

/*
 * A guided campaign's rounds (--guided): round 1 is the seed's uniform
 * draws; every later round is drawn with the weights learned from the
 * coverage of every case so far (campaign_guide.c). Each case's draw is
 * kept in DIR/guide.jsonl, so a resumed campaign neither draws a case
 * again nor forgets what its cases taught. *N: the cases this invocation
 * ran. EXIT_MET, or the runner's status when it stopped.
 */
static int run_guided(struct campaign_args *a, const char *dir, const char *sdir,
		      const char *rdir, int argc, char **argv, int *ran)
{
	struct fb_cov_kernel k;
	struct fb_guide_state st;
	struct fb_guide g;
	struct fb_campaign_draw *draws = xcalloc(a->o.count + 1, sizeof(*draws));
	bool *known = xcalloc(a->o.count + 1, sizeof(bool)), *learned = xcalloc(a->o.count + 1, sizeof(bool));
	char path[PATH_MAX + 32], jsonl[PATH_MAX + 32], name[64], why[1024];
	int rc = EXIT_MET, round = a->round ? a->round : 50;
	FILE *gf;

	*ran = 0;
	/* --guided learns from the coverage of its cases: a coverage kernel only */
	if (fb_cov_kernel_load("campaign --guided", a->o.kernel, &k)) {
		free(draws);
		free(known);
		free(learned);
		return EXIT_BADINPUT;
	}
	fb_guide_init(&st, (int)k.nsites);
	bool *failed = xcalloc(k.nsites + 1, sizeof(bool));
	struct fb_site_use *use = xcalloc(k.nsites + 1, sizeof(*use));
	/* failure branches reached after each case learned from, in case order */
	int *curve = xcalloc(a->o.count + 1, sizeof(int));

	/* the draws of an earlier invocation */
	snprintf(path, sizeof(path), "%s/guide.jsonl", dir);
	gf = fopen(path, "r");
	if (gf) {
		char *line = NULL;
		size_t cap = 0;

		while (getline(&line, &cap, gf) > 0) {
			json_t *j = json_loads(line, 0, NULL), *v = json_object_get(j, "v");
			json_int_t i = json_integer_value(json_object_get(j, "case"));

			if (i >= 1 && i <= a->o.count && json_array_size(v) == FB_GUIDE__DIMS) {
				for (int d = 0; d < FB_GUIDE__DIMS; d++)
					draws[i].v[d] = (int)json_integer_value(json_array_get(v, d));
				known[i] = true;
			}
			json_decref(j);
		}
		free(line);
		fclose(gf);
	}
	gf = fopen(path, "a");
	if (!gf) {
		fprintf(stderr, "flipbed campaign: cannot write %s: %s\n", path, strerror(errno));
		rc = EXIT_INFRA;
		goto out;
	}
	snprintf(jsonl, sizeof(jsonl), "%s/cases.jsonl", rdir);
	for (int start = 1; start <= a->o.count && rc == EXIT_MET; start += round) {
		int end = start + round - 1 < a->o.count ? start + round - 1 : a->o.count;
		char **files = xcalloc(round + 1, sizeof(char *));
		int nf = 0;
		struct fb_run done = { 0 };
		bool have;

		if (start > 1)
			fb_guide_weights(&st, &g);
		for (int i = start; i <= end; i++) {
			if (known[i])
				continue;
			if (fb_campaign_write_case(&a->o, i, sdir, start > 1 ? &g : NULL, &draws[i],
						   false)) {
				rc = EXIT_BADINPUT;
				break;
			}
			known[i] = true;
			fprintf(gf, "{\"case\": %d, \"round\": %d, \"v\": [", i, (start - 1) / round + 1);
			for (int d = 0; d < FB_GUIDE__DIMS; d++)
				fprintf(gf, "%s%d", d ? ", " : "", draws[i].v[d]);
			fputs("]}\n", gf);
			fflush(gf);
		}
		have = !access(jsonl, R_OK) && fb_run_load(jsonl, &done) == 0;
		for (int i = start; i <= end && rc == EXIT_MET; i++) {
			bool ran_before = false;

			snprintf(name, sizeof(name), "case-%05d@%s", i, a->o.kernel);
			for (size_t c = 0; have && c < done.n && !ran_before; c++)
				ran_before = !strcmp(done.cases[c].name, name);
			if (ran_before)
				continue;
			fb_campaign_case_file(sdir, i, path, sizeof(path));
			files[nf++] = xstrdup(path);
		}
		if (have)
			fb_run_free(&done);
		if (nf && rc == EXIT_MET) {
			int r = fb_campaign_execute(files, nf, a->o.kernel, rdir, a->jobs, a->keep, true,
						    "campaign", argc, argv);

			*ran += nf;
			if (r == EXIT_INTERRUPTED || r == EXIT_BADINPUT)
				rc = r;
		}
		for (int i = 0; i < nf; i++)
			free(files[i]);
		free(files);
		/* learn from every case recorded and not learned from yet */
		if (rc == EXIT_MET && !access(jsonl, R_OK) && fb_run_load(jsonl, &done) == 0) {
			for (size_t c = 0; c < done.n; c++) {
				const struct fb_case *cs = &done.cases[c];
				json_t *cr = json_object_get(cs->rec, "coverage");
				int i = 0;
				char gdir[PATH_MAX + 64];

				if (sscanf(cs->name, "case-%d@", &i) != 1 || i < 1 || i > end ||
				    learned[i] || !known[i])
					continue;
				learned[i] = true;
				if (strcmp(json_string_value(json_object_get(cr, "status")) ?: "", "ok"))
					continue;	/* no counters: nothing to learn */
				snprintf(gdir, sizeof(gdir), "%s/%s/gcov", rdir, cs->dir);
				if (fb_cov_case(&k, json_string_value(json_object_get(cr, "build_id")),
						gdir, use, NULL, why, sizeof(why))) {
					fprintf(stderr, "flipbed campaign: %s: %s\n", cs->name, why);
					rc = EXIT_BADINPUT;
					break;
				}
				for (size_t j = 0; j < k.nsites; j++)
					failed[j] = use[j].failed;
				fb_guide_learn(&st, &draws[i], failed);
				curve[st.ncases] = st.reached;
			}
			fb_run_free(&done);
		}
		fprintf(stderr, "flipbed campaign: guided, after %d cases: %d of %d failure branches reached\n",
			end, st.reached, k.with_branch);
	}
	fclose(gf);
	/* the curve campaign.html draws (report_campaign_html.c) */
	snprintf(path, sizeof(path), "%s/guide-curve.tsv", dir);
	gf = fopen(path, "w");
	if (gf) {
		fprintf(gf, "# cases learned from, failure branches reached (of %d)\n", k.with_branch);
		for (int c = 1; c <= st.ncases; c++)
			fprintf(gf, "%d\t%d\n", c, curve[c]);
		fclose(gf);
	}
	/* what it learned: guide.md */
	snprintf(path, sizeof(path), "%s/guide.md", dir);
	gf = fopen(path, "w");
	if (gf) {
		static const char *const dims[] = { "type", "recipe", "timing", "region" };

		fb_guide_weights(&st, &g);
		fprintf(gf, "# What the guided campaign learned\n\n%d cases learned from (kernel %s); "
			"%d of %d failure branches reached. The weights the next round would draw "
			"with (harness/campaign/README.md, Guided campaigns):\n", st.ncases,
			a->o.kernel, st.reached, k.with_branch);
		for (int d = 0; d < FB_GUIDE__DIMS; d++) {
			fprintf(gf, "\n| %s | cases | score | weight |\n|---|---:|---:|---:|\n", dims[d]);
			for (int v = 0; v < fb_campaign_dim_size(&a->o, d) && v < FB_GUIDE_MAX; v++)
				if (st.uses[d][v] > 0)
					fprintf(gf, "| %s | %.0f | %.2f | %.3f |\n",
						fb_campaign_dim_value(&a->o, d, v), st.uses[d][v],
						st.score[d][v], g.w[d][v]);
		}
		fclose(gf);
	}
out:
	free(curve);
	free(failed);
	free(use);
	fb_guide_free(&st);
	fb_cov_kernel_free(&k);
	free(draws);
	free(known);
	free(learned);
	return rc;
}

static int run_campaign(struct campaign_args *a, int argc, char **argv)
{
	char dir[PATH_MAX], sdir[PATH_MAX + 16], rdir[PATH_MAX + 16], path[PATH_MAX + 32];
	int n, rc = EXIT_MET;
	char **files;
	double t0;

	if (a->out)
		snprintf(dir, sizeof(dir), "%s", a->out);
	else
		snprintf(dir, sizeof(dir), "results/campaigns/seed-%llu",
			 (unsigned long long)a->o.seed);
	snprintf(sdir, sizeof(sdir), "%s/scenarios", dir);
	snprintf(rdir, sizeof(rdir), "%s/run", dir);
	if (a->guided) {
		const struct fb_kernel *k = fb_kernel_find(a->o.kernel);
		char list[256];

		if (!k || !k->gcov) {
			fprintf(stderr, "flipbed campaign: --guided learns from the coverage of its cases: "
				"kernel %s counts nothing (kernels with coverage = gcov: %s)\n",
				a->o.kernel, fb_cov_kernel_names(list, sizeof(list)));
			return EXIT_BADINPUT;
		}
	}
	if (fb_mkdirs(sdir)) {
		fprintf(stderr, "flipbed campaign: cannot create %s: %s\n", sdir, strerror(errno));
		return EXIT_INFRA;
	}
	if (a->guided) {
		if (a->generate_only) {
			fprintf(stderr, "flipbed campaign: --guided draws each round from the last one's "
				"coverage: it cannot --generate ahead\n");
			return EXIT_BADINPUT;
		}
		t0 = fb_now();
		rc = run_guided(a, dir, sdir, rdir, argc, argv, &n);
		if (rc == EXIT_BADINPUT)
			return rc;
		goto collect;
	}
	/* a campaign with records resumes: its case files must be the ones they ran */
	snprintf(path, sizeof(path), "%s/cases.jsonl", rdir);
	bool resumed = !access(path, F_OK);
	for (int i = 1; i <= a->o.count; i++)
		if (fb_campaign_write_case(&a->o, i, sdir, NULL, NULL, resumed))
			return EXIT_BADINPUT;
	fprintf(stderr, "flipbed campaign: %d scenario files in %s (seed %llu, kernel %s, profile %s)\n",
		a->o.count, sdir, (unsigned long long)a->o.seed, a->o.kernel,
		fb_campaign_profile_name(a->o.profile));
	if (a->generate_only)
		return EXIT_MET;

	files = pending_files(a, dir, &n);
	t0 = fb_now();
	if (n < a->o.count)
		fprintf(stderr, "flipbed campaign: resuming: %d of %d cases already ran\n",
			a->o.count - n, a->o.count);
	if (n)
		rc = fb_campaign_execute(files, n, a->o.kernel, rdir, a->jobs, a->keep, true,
					 "campaign", argc, argv);
	for (int i = 0; i < n; i++)
		free(files[i]);
	free(files);
	if (rc == EXIT_BADINPUT)
		return rc;
collect:
	if (!a->keep)
		drop_images(dir);

	struct fb_campaign_run cr = {
		.opts = &a->o, .dir = dir, .seconds = fb_now() - t0, .before = a->o.count - n, .keep = a->keep,
	};
	int infra, found = fb_campaign_collect(&cr, &infra);
	if (found < 0)
		return EXIT_INFRA;
	printf("campaign: %s/campaign.md; %d distinct finding%s in %s/findings\n", dir, found,
	       found == 1 ? "" : "s", dir);
	/*
	 * Findings are what a campaign is for, not a failure; faults that never
	 * fired are a property of the case. Exit 3 only when flipbed itself
	 * failed somewhere (QEMU, nbdkit, a golden image), EXIT_INTERRUPTED (130) when interrupted.
	 */
	if (rc == EXIT_INTERRUPTED || rc == EXIT_BADINPUT)
		return rc;
	return infra ? EXIT_INFRA : EXIT_MET;
}

/* --title LOG: the title a finding with these kernel messages gets. */
static int print_title(const char *file)
{
	char *text, *dmesg = NULL, title[256];
	size_t len;

	if (!(text = fb_slurp(file, &len))) {
		fprintf(stderr, "flipbed campaign: --title %s: %s\n", file, strerror(errno));
		return EXIT_BADINPUT;
	}
	/* a transcript (C/A/H lines) holds the messages twice: dmesg text first */
	if ((!strncmp(text, "C ", 2) || strstr(text, "\nC ") || strstr(text, "\nA kmsg ")) &&
	    fb_dmesg_text(text, len, &dmesg) == 0) {
		free(text);
		text = dmesg;
	}
	fb_klog_title(text, title, sizeof(title));
	printf("%s\n", title);
	free(text);
	return EXIT_MET;
}

int cmd_campaign(int argc, char **argv)
{
	struct campaign_args a = { 0 };

	if (parse_args(argc, argv, &a) < 0)
		return EXIT_BADINPUT;
	if (a.title)
		return print_title(a.title);
	if (a.minimize)
		return fb_campaign_minimize(a.minimize, a.jobs);
	return run_campaign(&a, argc, argv);
}

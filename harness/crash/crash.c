// SPDX-License-Identifier: MIT
/*
 * flipbed crash SCENARIO: power cuts at every flush point of a fault-free
 * workload, in the manner of dm-log-writes and its replay tool.
 *
 *  1. record: the workload runs once on a copy of the golden image served
 *     with the plugin's write log, a barrier ("wait") before every step and
 *     after the last, where the host counts the log's flushes (judge/durable.c
 *     says why that tells what was durable when). OUT/record/KERNEL/ keeps
 *     the log and durable.json (the counts).
 *  2. every chosen flush point K: flipbed-replay rebuilds the image as it
 *     was when the K-th flush completed, the kernel mounts it (its own
 *     journal recovery), walks it and unmounts it, e2fsck -fn checks it on
 *     the host, and the durability model judges its files. One record per
 *     point in OUT/cases.jsonl, then OUT/summary.md.
 *
 * A point whose record is in cases.jsonl is not run again: a killed sweep
 * run again with the same --out goes on at the next point.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot/nbd.h"
#include "boot/proc.h"
#include "boot/vm.h"
#include "cmd.h"
#include "crash/crash.h"
#include "judge/durable.h"
#include "guest/steps.h"
#include "kernels.h"
#include "kernel_modules.h"
#include "options.h"
#include "paths.h"
#include "judge/fsck.h"
#include "golden/golden.h"
#include "judge/manifest.h"
#include "run/runcase.h"
#include "scenario/scenario.h"
#include "util.h"

#define BARRIER "crash-barrier-"

static const char usage_text[] =
"usage: flipbed crash SCENARIO [--points all|N] [--kernel NAME] [--jobs N] [--out DIR]\n"
"                     [--keep] [--verbose]\n"
"  Runs SCENARIO's workload (no fault: [target] type = none) once with the\n"
"  plugin's write log, then at every flush point of that log (or N of them,\n"
"  evenly spread, the last always) rebuilds the image, boots it (mount: the\n"
"  kernel's journal recovery; walk; umount), runs e2fsck -fn on it and checks\n"
"  that every file synced before that flush is there and intact.\n"
"  --points all|N  how many flush points (default all)\n"
"  --kernel NAME   one kernel (default: the scenario's kernels)\n"
"  --jobs N        points booted at once (default: the number of CPUs)\n"
"  --out DIR       run directory (default results/runs/<UTC time>-crash); run\n"
"                  again with the same DIR, a sweep goes on where it stopped\n"
"  --keep          keep every point's image (else only failing ones)\n"
"  --verbose       stream console and agent lines to stderr\n"
"Exit status: 0 every point passed, 1 some failed, 2 bad input, 3 infrastructure,\n"
"130 interrupted (the points done are recorded).\n";

struct crash_opts {
	const char *scenario;
	long points;		/* 0: all */
	int jobs;		/* points booted at once */
	const char *kernel;
	const char *out;
	bool keep, verbose;
};

struct sweep {
	const struct crash_opts *o;
	const struct fb_scenario *s;
	const struct fb_golden *g;
	const char *kernel;
	char outdir[PATH_MAX];
	char recdir[PATH_MAX + 64];
	char wlog[PATH_MAX + 80];
	struct fb_durable_model model;
	long flushes, fua;
	json_t *done;		/* case names already in cases.jsonl */
};

static int parse_points(const char *arg, long *ret)
{
	char *end;

	if (!strcmp(arg, "all")) {
		*ret = 0;
		return 0;
	}
	errno = 0;
	*ret = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *ret < 1 || *ret > 1000000)
		return fb_bad_input("flipbed crash", "--points %s: expected all or a number of points, 1 to 1000000",
				    arg);
	return 0;
}

static int parse_args(int argc, char **argv, struct crash_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			exit(EXIT_MET);
		} else if (!strcmp(a, "--points") && has) {
			if (parse_points(argv[++i], &o->points))
				return -1;
		} else if (!strcmp(a, "--kernel") && has) {
			if (fb_opt_kernel("crash", argv[++i], &o->kernel))
				return -1;
		} else if (!strcmp(a, "--jobs") && has) {
			if (fb_opt_jobs("crash", argv[++i], &o->jobs))
				return -1;
		} else if (!strcmp(a, "--out") && has) {
			o->out = argv[++i];
		} else if (!strcmp(a, "--keep")) {
			o->keep = true;
		} else if (!strcmp(a, "--verbose")) {
			o->verbose = true;
		} else if (a[0] == '-') {
			fb_bad_input("flipbed crash", "unknown option or missing value: %s\n%s",
				     a, usage_text);
			return -1;
		} else if (o->scenario) {
			fb_bad_input("flipbed crash", "one scenario only (got %s and %s)",
				     o->scenario, a);
			return -1;
		} else {
			o->scenario = a;
		}
	}
	if (!o->scenario) {
		fb_bad_input("flipbed crash", "no scenario\n%s", usage_text);
		return -1;
	}
	return 0;
}

/* ---- the boots: one context for the recording and for each point ---- */

struct bootctx {
	struct sweep *w;
	FILE *transcript;
	const char **steps;
	int nsteps;
	char (*result)[32];	/* per step: "ok", an errno name, or "" (no answer) */
	struct crash_wlog log;	/* the recording's write log, else fd -1 */
	char why[512];
};

static void on_console(void *ctx, const char *line)
{
	struct bootctx *b = ctx;

	fprintf(b->transcript, "C %s\n", line);
	if (b->w->o->verbose)
		fprintf(stderr, "C %s\n", line);
}

static void on_agent(void *ctx, const char *line)
{
	struct bootctx *b = ctx;
	char result[32];

	fprintf(b->transcript, "A %s\n", line);
	if (b->w->o->verbose)
		fprintf(stderr, "A %s\n", line);
	for (int i = 0; i < b->nsteps && !strncmp(line, "step ", 5); i++)
		if (fb_vm_step_result(line, i + 1, b->steps[i], result, sizeof(result)))
			snprintf(b->result[i], sizeof(b->result[i]), "%s", result);
}

/* A barrier: the guest waits while the host counts the log's flushes. */
static int on_wait(void *ctx, const char *name)
{
	struct bootctx *b = ctx;
	struct fb_durable_model *m = &b->w->model;
	long i;

	if (b->log.fd < 0 || strncmp(name, BARRIER, strlen(BARRIER)))
		return 0;
	i = strtol(name + strlen(BARRIER), NULL, 10);
	if (crash_wlog_scan(&b->log) || i < 0 || i > m->nsteps) {
		snprintf(b->why, sizeof(b->why), "write log %s unreadable at %s", b->w->wlog, name);
		return -1;
	}
	m->barrier[i] = b->log.flushes;
	fprintf(b->transcript, "H barrier %ld flushes %ld\n", i, b->log.flushes);
	return 0;
}

/*
 * Serve IMAGE (with the write log LOG unless NULL) and boot the sweep's
 * kernel on it with B's steps. 0 when QEMU ran (R says how it ended).
 */
static int boot(struct bootctx *b, const char *image, const char *log, struct fb_vm_result *r)
{
	const struct fb_kernel *k = fb_kernel_find(b->w->kernel);
	char priv[PATH_MAX], plugin[PATH_MAX], kernel[PATH_MAX], initrd[PATH_MAX];
	struct fb_nbd_config nc = { .image = image, .writelog = log, .dir = priv };
	struct fb_vm_config vc = { 0 };
	struct fb_vm_hooks h = { .ctx = b, .console = on_console, .agent = on_agent,
				 .wait = on_wait };
	struct fb_nbd nbd;
	int rc = -1;

	if (fb_private_dir(priv, sizeof(priv))) {
		snprintf(b->why, sizeof(b->why), "cannot make a private directory: %s",
			 strerror(errno));
		return -1;
	}
	vc.initrd = fb_modules_initrd(k, initrd, sizeof(initrd));
	if (!vc.initrd) {
		snprintf(b->why, sizeof(b->why), "kernel %s: its modules: see the messages before", k->name);
		goto out;
	}
	nc.plugin = fb_path_plugin(plugin, sizeof(plugin));
	if (fb_nbd_start(&nbd, &nc, b->why, sizeof(b->why)))
		goto out;
	if (log && crash_wlog_open(&b->log, log)) {
		snprintf(b->why, sizeof(b->why), "cannot open %s: %s", log, strerror(errno));
		fb_nbd_stop(&nbd);
		goto out;
	}
	vc.kernel = fb_path_kernel(k, kernel, sizeof(kernel));
	vc.disk_sock = nbd.sock;
	vc.dir = priv;
	vc.mem_mb = k->mem_mb;
	vc.pci = k->modules != NULL;
	vc.timeout = b->w->s->timeout;
	vc.steps = b->steps;
	vc.nsteps = b->nsteps;
	vc.peer = &nbd.proc;
	rc = fb_vm_run(&vc, &h, r);
	fb_nbd_stop(&nbd);
	if (rc < 0 || r->end == FB_VM_END_INFRA)
		snprintf(b->why, sizeof(b->why), "qemu: %s", r->why);
	fprintf(b->transcript, "H exit %s %s\n", fb_vm_end_name(r->end), r->why);
out:
	fb_remove_tree(priv);
	return rc;
}

/* ---- 1. the recording run ---- */

static int load_durable(struct sweep *w, const char *file)
{
	json_t *j = json_load_file(file, 0, NULL), *bars;
	size_t i;
	json_t *v;

	if (!j)
		return -1;
	bars = json_object_get(j, "barriers");
	if (!json_is_array(bars) || json_array_size(bars) != (size_t)w->model.nsteps + 1) {
		json_decref(j);
		return -1;
	}
	json_array_foreach(bars, i, v)
		w->model.barrier[i] = json_integer_value(v);
	w->flushes = json_integer_value(json_object_get(j, "flushes"));
	w->fua = json_integer_value(json_object_get(j, "fua_writes"));
	json_decref(j);
	return 0;
}

static int save_durable(struct sweep *w, const char *file)
{
	char tmp[PATH_MAX + 16];
	json_t *bars = json_array(), *steps = json_array(), *j;
	int rc;

	for (int i = 0; i <= w->model.nsteps; i++)
		json_array_append_new(bars, json_integer(w->model.barrier[i]));
	for (int i = 0; i < w->s->nsteps; i++)
		json_array_append_new(steps, json_string(w->s->steps[i]));
	j = json_pack("{s:s, s:s, s:I, s:I, s:o, s:o}", "scenario", w->s->file,
		      "kernel", w->kernel, "flushes", (json_int_t)w->flushes,
		      "fua_writes", (json_int_t)w->fua, "steps", steps, "barriers", bars);
	json_object_set_new(j, "golden_hash", json_sprintf("%016llx",
			    (unsigned long long)w->g->hash));
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	rc = json_dump_file(j, tmp, JSON_INDENT(2)) || rename(tmp, file) ? -1 : 0;
	json_decref(j);
	return rc;
}

/* The scenario's steps with a barrier before each and after the last. */
static const char **barrier_steps(const struct fb_scenario *s, int *ret_n)
{
	const char **v = xcalloc(2 * s->nsteps + 1, sizeof(*v));
	int n = 0;

	for (int i = 0; i <= s->nsteps; i++) {
		char *name;

		if (asprintf(&name, "wait " BARRIER "%d", i) < 0)
			abort();
		v[n++] = name;
		if (i < s->nsteps)
			v[n++] = s->steps[i];
	}
	*ret_n = n;
	return v;
}

/* Did every step of the recording run do what the scenario says? */
static int check_recording(struct bootctx *b, const struct fb_vm_result *r)
{
	for (int i = 0; i < b->nsteps; i++) {
		struct step st;
		char why[256];

		if (i % 2 == 0 || step_parse(b->steps[i], &st, why, sizeof(why)))
			continue;
		if (!*b->result[i] || !step_met(&st, b->result[i])) {
			snprintf(b->why, sizeof(b->why), "step '%s' %s", b->steps[i],
				 *b->result[i] ? b->result[i] : "did not answer");
			return -1;
		}
	}
	if (r->end != FB_VM_END_CLEAN) {
		snprintf(b->why, sizeof(b->why), "the guest ended %s", fb_vm_end_name(r->end));
		return -1;
	}
	return 0;
}

static int record(struct sweep *w)
{
	char durable[PATH_MAX + 96], image[PATH_MAX + 96], tpath[PATH_MAX + 96];
	struct fb_vm_result r = { 0 };
	struct bootctx b = { .w = w, .log = { .fd = -1 } };
	int rc = EXIT_INFRA;

	snprintf(durable, sizeof(durable), "%s/durable.json", w->recdir);
	if (load_durable(w, durable) == 0)
		return 0;
	snprintf(image, sizeof(image), "%s/image.raw", w->recdir);
	snprintf(tpath, sizeof(tpath), "%s/transcript.txt", w->recdir);
	if (fb_mkdirs(w->recdir) || fb_image_copy(w->g->path, image) ||
	    !(b.transcript = fopen(tpath, "w"))) {
		fprintf(stderr, "flipbed crash: %s: %s\n", w->recdir, strerror(errno));
		return EXIT_INFRA;
	}
	b.steps = barrier_steps(w->s, &b.nsteps);
	b.result = xcalloc(b.nsteps, sizeof(*b.result));
	printf("flipbed crash: %s@%s: recording the workload's write log\n", w->s->name, w->kernel);
	if (boot(&b, image, w->wlog, &r) == 0 && r.end != FB_VM_END_INFRA) {
		if (fb_proc_interrupted()) {
			rc = EXIT_INTERRUPTED;
		} else if (check_recording(&b, &r)) {
			rc = EXIT_UNMET;
		} else if (crash_wlog_scan(&b.log) == 0) {
			w->flushes = b.log.flushes;
			w->fua = b.log.fua;
			rc = save_durable(w, durable) ? EXIT_INFRA : EXIT_MET;
		}
	}
	if (rc != EXIT_MET && rc != EXIT_INTERRUPTED)
		fprintf(stderr, "flipbed crash: %s@%s: the recording run failed: %s (%s)\n",
			w->s->name, w->kernel, *b.why ? b.why : "write log unreadable", tpath);
	crash_wlog_close(&b.log);
	fclose(b.transcript);
	unlink(image);
	for (int i = 0; i < b.nsteps; i += 2)
		free((char *)b.steps[i]);
	free(b.steps);
	free(b.result);
	return rc;
}

/* ---- 2. one flush point ---- */

struct point {
	long index;		/* 1.. among the points run */
	long k;			/* the flush point */
	char name[512], sub[512];
	char dir[PATH_MAX + 600];
	char image[PATH_MAX + 640];
	json_t *failed;		/* what failed: strings */
	json_t *files;
	json_t *steps;
	int fsck_exit;
	json_t *fsck_problems;
	char infra[512];
	double t0, t_replay, t_boot, t_fsck, t_data;
};

/* Run ARGV with its output appended to OUT; its exit status, -1, or -2 (time limit). */
static int run_tool(char *const argv[], const char *out)
{
	return fb_proc_run_logged(argv, NULL, out, fb_oracle_seconds(), fb_oracle_mib(), NULL);
}

static int replay(struct sweep *w, struct point *p)
{
	char tool[PATH_MAX], k[32], out[PATH_MAX + 700];
	char *argv[] = { tool, w->wlog, (char *)w->g->path, "--to-flush", k, "-o", p->image, NULL };
	int rc;

	snprintf(tool, sizeof(tool), "%s/bin/flipbed-replay", build_dir());
	snprintf(k, sizeof(k), "%ld", p->k);
	snprintf(out, sizeof(out), "%s/replay.txt", p->dir);
	rc = run_tool(argv, out);
	if (rc)
		snprintf(p->infra, sizeof(p->infra), "flipbed-replay exit %d (%s)", rc, out);
	return rc;
}

static const char *const point_steps[] = { "mount", "walk", "umount" };

static void boot_point(struct sweep *w, struct point *p)
{
	char tpath[PATH_MAX + 700];
	char result[3][32] = { "", "", "" };
	struct bootctx b = { .w = w, .steps = (const char **)point_steps, .nsteps = 3,
			     .result = result, .log = { .fd = -1 } };
	struct fb_vm_result r = { 0 };

	snprintf(tpath, sizeof(tpath), "%s/transcript.txt", p->dir);
	b.transcript = fopen(tpath, "w");
	if (!b.transcript) {
		snprintf(p->infra, sizeof(p->infra), "%s: %s", tpath, strerror(errno));
		return;
	}
	if (boot(&b, p->image, NULL, &r) || r.end == FB_VM_END_INFRA ||
	    r.end == FB_VM_END_INTERRUPTED || r.end == FB_VM_END_ABORTED) {
		snprintf(p->infra, sizeof(p->infra), "%s", *b.why ? b.why : fb_vm_end_name(r.end));
	} else {
		for (int i = 0; i < 3; i++) {
			bool ok = !strcmp(result[i], "ok");

			json_array_append_new(p->steps, json_pack("{s:s, s:s}", "text",
					      point_steps[i], "result", *result[i] ? result[i] : "none"));
			if (!ok)
				json_array_append_new(p->failed, json_sprintf("%s: %s",
						      point_steps[i], *result[i] ? result[i] : "no answer"));
		}
		if (r.end != FB_VM_END_CLEAN)
			json_array_append_new(p->failed, json_sprintf("guest ended %s",
					      fb_vm_end_name(r.end)));
	}
	fclose(b.transcript);
}

/* (b) metadata: e2fsck -fn after the kernel's own recovery. */
static void fsck_point(struct point *p)
{
	char out[PATH_MAX + 700], lines[8][FB_FSCK_LINE];
	char *argv[] = { "e2fsck", "-fn", p->image, NULL };
	size_t len;
	char *text;
	int n = 0;

	snprintf(out, sizeof(out), "%s/fsck.txt", p->dir);
	unlink(out);
	p->fsck_exit = run_tool(argv, out);
	text = fb_slurp(out, &len);
	if (text)
		n = fb_fsck_problems(text, len, lines, 8);
	free(text);
	for (int i = 0; i < n && i < 8; i++)
		json_array_append_new(p->fsck_problems, json_string(lines[i]));
	if (p->fsck_exit == -2 || p->fsck_exit == -1)
		snprintf(p->infra, sizeof(p->infra), "e2fsck %s", p->fsck_exit == -2 ?
			 "ran past its time limit" : "could not run");
	else if (p->fsck_exit || n)
		json_array_append_new(p->failed, json_sprintf("e2fsck -fn: exit %d%s%s",
				      p->fsck_exit, n ? ": " : "", n ? lines[0] : ""));
}

/* (a) data: every file durable at this point, as the model says. */
static void data_point(struct sweep *w, struct point *p)
{
	struct fb_manifest m = { 0 };
	char why[512] = "", detail[600] = "";
	int bad;

	if (fb_manifest_build(p->image, &m, why, sizeof(why))) {
		json_array_append_new(p->failed, json_sprintf("data: image unreadable: %s", why));
		return;
	}
	bad = fb_durable_judge(&w->model, p->k, &m, p->files, detail, sizeof(detail));
	if (bad)
		json_array_append_new(p->failed, json_sprintf("data: %d file%s: %s", bad,
				      bad == 1 ? "" : "s", detail));
	fb_manifest_free(&m);
}

static const char *point_verdict(const struct point *p)
{
	if (*p->infra)
		return "infra";
	return json_array_size(p->failed) ? "fail" : "pass";
}

static int append_record(struct sweep *w, struct point *p)
{
	char path[PATH_MAX + 32];
	const char *verdict = point_verdict(p);
	json_t *rec;
	char *line, *nl;
	int fd, rc;

	rec = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:s, s:o, s:s?, s:o, s:o}",
		"case", p->name, "command", "crash", "scenario", w->s->file, "kernel", w->kernel,
		"point", (json_int_t)p->index, "flush", (json_int_t)p->k,
		"flushes", (json_int_t)w->flushes, "verdict", verdict, "failed", p->failed,
		"infra", *p->infra ? p->infra : NULL, "steps", p->steps, "files", p->files);
	json_object_set_new(rec, "dir", json_sprintf("cases/%s", p->sub));
	json_object_set_new(rec, "fsck_exit", json_integer(p->fsck_exit));
	json_object_set_new(rec, "fsck_problems", p->fsck_problems);
	json_object_set_new(rec, "durations", json_pack("{s:f, s:f, s:f, s:f, s:f}",
		"replay", p->t_replay, "boot", p->t_boot, "fsck", p->t_fsck,
		"data", p->t_data, "total", fb_now() - p->t0));
	json_object_set_new(rec, "repro", json_sprintf(
		"build/bin/flipbed-replay %s %s --to-flush %ld -o IMG && build/bin/flipbed boot "
		"--kernel %s --image IMG --step mount --step walk --step umount && e2fsck -fn IMG",
		w->wlog, w->g->path, p->k, w->kernel));
	snprintf(path, sizeof(path), "%s/case.json", p->dir);
	json_dump_file(rec, path, JSON_INDENT(2) | JSON_SORT_KEYS);
	/* one write(2) with O_APPEND: the lines of parallel points never mix */
	line = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS);
	snprintf(path, sizeof(path), "%s/cases.jsonl", w->outdir);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	rc = -1;
	if (fd >= 0 && line && asprintf(&nl, "%s\n", line) > 0) {
		rc = write(fd, nl, strlen(nl)) == (ssize_t)strlen(nl) ? 0 : -1;
		free(nl);
	}
	if (fd >= 0 && close(fd))
		rc = -1;
	free(line);
	json_decref(rec);
	return rc;
}

/*
 * flipbed-replay's temporary output (.image.raw.replay-XXXXXX), which it
 * removes itself unless it was killed by SIGKILL, as an interruption does.
 */
static void remove_replay_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX + 300];

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, ".image.raw.replay-", 18))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}

/* 0 recorded, 1 interrupted (nothing recorded), -1 the record not written. */
static int run_point(struct sweep *w, long index, long k)
{
	struct point p = { .index = index, .k = k, .t0 = fb_now() };
	double t;
	int rc = 0;

	snprintf(p.name, sizeof(p.name), "%s:flush-%ld@%s", w->s->name, k, w->kernel);
	fb_case_dirname(p.name, p.sub, sizeof(p.sub));
	snprintf(p.dir, sizeof(p.dir), "%s/cases/%s", w->outdir, p.sub);
	snprintf(p.image, sizeof(p.image), "%s/image.raw", p.dir);
	if (mkdir(p.dir, 0755) && errno != EEXIST)
		return -1;
	p.failed = json_array();
	p.files = json_array();
	p.steps = json_array();
	p.fsck_problems = json_array();
	if (replay(w, &p) == 0) {
		t = fb_now();
		p.t_replay = t - p.t0;
		boot_point(w, &p);
		p.t_boot = fb_now() - t;
	}
	if (fb_proc_interrupted()) {
		rc = 1;
		goto out;
	}
	if (!*p.infra) {
		t = fb_now();
		fsck_point(&p);
		p.t_fsck = fb_now() - t;
		t = fb_now();
		data_point(w, &p);
		p.t_data = fb_now() - t;
	}
	if (fb_proc_interrupted()) {
		rc = 1;	/* a tool killed by the interruption is no finding */
		goto out;
	}
	printf("flipbed crash: point %ld (flush %ld of %ld) %s %s%s\n", index, k, w->flushes,
	       w->kernel, point_verdict(&p), json_array_size(p.failed) ? ": " : "");
	for (size_t i = 0; i < json_array_size(p.failed); i++)
		printf("    %s\n", json_string_value(json_array_get(p.failed, i)));
	fflush(stdout);
	/* the record takes a reference of each; ours go at the end */
	json_incref(p.failed);
	json_incref(p.files);
	json_incref(p.steps);
	json_incref(p.fsck_problems);
	rc = append_record(w, &p);
out:
	if (rc == 1 || (!w->o->keep && !strcmp(point_verdict(&p), "pass")))
		unlink(p.image);
	if (rc == 1)
		remove_replay_temps(p.dir);
	json_decref(p.failed);
	json_decref(p.files);
	json_decref(p.steps);
	json_decref(p.fsck_problems);
	return rc;
}

/* ---- the sweep ---- */

/*
 * One point in a worker process, so that --jobs points boot at once. Its
 * exit status: 0 recorded, 130 interrupted (nothing recorded), 3 the
 * record could not be written.
 */
static pid_t start_point(struct sweep *w, long index, long k)
{
	pid_t pid = fork();
	int rc;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fb_proc_init();
	rc = run_point(w, index, k);
	fflush(stdout);
	_exit(rc == 1 ? EXIT_INTERRUPTED : rc ? EXIT_INFRA : 0);
}

/*
 * Reap one worker: its status, or -1 when none is left. On SIGINT, SIGTERM
 * or SIGHUP every worker gets SIGTERM once and ends its point as
 * interrupted (its QEMU and nbdkit killed, its image removed).
 */
static int reap_point(pid_t *kids, int nkids, bool *stopping)
{
	int evfd = fb_proc_events_fd(), st;

	for (;;) {
		pid_t pid = waitpid(-1, &st, WNOHANG);
		struct pollfd pf = { .fd = evfd, .events = POLLIN };

		if (pid > 0) {
			for (int i = 0; i < nkids; i++)
				if (kids[i] == pid)
					kids[i] = 0;
			return WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_INFRA;
		}
		if (pid < 0 && errno == ECHILD)
			return -1;
		if (fb_proc_interrupted() && !*stopping) {
			*stopping = true;
			for (int i = 0; i < nkids; i++)
				if (kids[i])
					kill(kids[i], SIGTERM);
		}
		if (poll(&pf, 1, 200) > 0)
			fb_proc_clear_events();
	}
}

static int run_points(struct sweep *w, const long *pts, long n)
{
	pid_t *kids = xcalloc(w->o->jobs, sizeof(*kids));
	int running = 0, rc = 0, st;
	bool stopping = false;

	for (long i = 0; i < n && !stopping && !fb_proc_interrupted(); i++) {
		char name[512];
		int slot = 0;

		snprintf(name, sizeof(name), "%s:flush-%ld@%s", w->s->name, pts[i], w->kernel);
		if (json_object_get(w->done, name))
			continue;
		if (running == w->o->jobs) {
			st = reap_point(kids, w->o->jobs, &stopping);
			running--;
			rc = st > rc ? st : rc;
		}
		while (kids[slot])
			slot++;
		fflush(stdout);
		kids[slot] = start_point(w, i + 1, pts[i]);
		if (kids[slot] < 0) {
			kids[slot] = 0;
			rc = EXIT_INFRA;
			break;
		}
		running++;
	}
	while ((st = reap_point(kids, w->o->jobs, &stopping)) >= 0)
		rc = st > rc ? st : rc;
	free(kids);
	if (stopping || fb_proc_interrupted())
		return EXIT_INTERRUPTED;
	return rc;
}

/*
 * The flush points to run: all of 1..F, or N of them evenly spread,
 * ceil(i * F / N) for i = 1..N, which always ends at F.
 */
static long *choose_points(long flushes, long want, long *ret_n)
{
	long n = !want || want > flushes ? flushes : want;
	long *v = xcalloc(n ? n : 1, sizeof(*v));

	for (long i = 1; i <= n; i++)
		v[i - 1] = (i * flushes + n - 1) / n;
	*ret_n = n;
	return v;
}

/* The case names already in OUTDIR/cases.jsonl (a resumed sweep). */
static json_t *load_done(const char *outdir)
{
	char path[PATH_MAX + 16], *buf = NULL;
	json_t *done = json_object();
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cases.jsonl", outdir);
	f = fopen(path, "r");
	while (f && getline(&buf, &cap, f) > 0) {
		json_t *rec = json_loads(buf, 0, NULL);
		const char *name = json_string_value(json_object_get(rec, "case"));

		if (name)
			json_object_set(done, name, json_object_get(rec, "verdict"));
		json_decref(rec);
	}
	if (f)
		fclose(f);
	free(buf);
	return done;
}

static int sweep_kernel(struct sweep *w)
{
	long n, *pts;
	int rc;

	snprintf(w->recdir, sizeof(w->recdir), "%s/record/%s", w->outdir, w->kernel);
	snprintf(w->wlog, sizeof(w->wlog), "%s/write.log", w->recdir);
	for (int i = 0; i <= w->model.nsteps; i++)
		w->model.barrier[i] = -1;
	rc = record(w);
	if (rc)
		return rc;
	pts = choose_points(w->flushes, w->o->points, &n);
	printf("flipbed crash: %s@%s: %ld flushes, %ld FUA writes; %ld points\n", w->s->name,
	       w->kernel, w->flushes, w->fua, n);
	rc = run_points(w, pts, n);
	free(pts);
	return rc;
}

/* Records in the order of their kernel, then their flush point. */
static int record_cmp(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int c = strcmp(json_string_value(json_object_get(x, "kernel")) ?: "",
		       json_string_value(json_object_get(y, "kernel")) ?: "");
	json_int_t fx = json_integer_value(json_object_get(x, "flush"));
	json_int_t fy = json_integer_value(json_object_get(y, "flush"));

	return c ? c : (fx > fy) - (fx < fy);
}

/* Every record of OUTDIR/cases.jsonl (in finishing order there), sorted. */
static json_t **load_records(const char *outdir, size_t *ret_n)
{
	char path[PATH_MAX + 16], *buf = NULL;
	json_t **v = NULL, *rec;
	size_t cap = 0, n = 0;
	FILE *in;

	snprintf(path, sizeof(path), "%s/cases.jsonl", outdir);
	in = fopen(path, "r");
	while (in && getline(&buf, &cap, in) > 0) {
		rec = json_loads(buf, 0, NULL);
		if (!json_string_value(json_object_get(rec, "verdict"))) {
			json_decref(rec);
			continue;
		}
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = rec;
	}
	if (in)
		fclose(in);
	free(buf);
	if (n)
		qsort(v, n, sizeof(*v), record_cmp);
	*ret_n = n;
	return v;
}

/* summary.md: every point, the ones that did not pass first in detail. */
static int write_summary(const char *outdir, const struct fb_scenario *s)
{
	char path[PATH_MAX + 16];
	int pass = 0, fail = 0, infra = 0;
	char *rows = NULL, *fails = NULL;
	size_t rlen = 0, flen = 0, n;
	json_t **recs = load_records(outdir, &n);
	FILE *r = open_memstream(&rows, &rlen), *fl = open_memstream(&fails, &flen), *out;

	for (size_t k = 0; k < n; k++) {
		json_t *rec = recs[k], *f = json_object_get(rec, "failed");
		const char *v = json_string_value(json_object_get(rec, "verdict"));
		const char *first = json_string_value(json_array_get(f, 0));
		const char *why = json_string_value(json_object_get(rec, "infra"));

		pass += !strcmp(v, "pass");
		fail += !strcmp(v, "fail");
		infra += !strcmp(v, "infra");
		fprintf(r, "| %s | %lld | %lld / %lld | %s | %s |\n",
			json_string_value(json_object_get(rec, "kernel")),
			json_integer_value(json_object_get(rec, "point")),
			json_integer_value(json_object_get(rec, "flush")),
			json_integer_value(json_object_get(rec, "flushes")), v,
			first ? first : why ? why : "");
		if (strcmp(v, "pass")) {
			fprintf(fl, "- `%s` (%s): %s\n", json_string_value(json_object_get(rec, "case")),
				json_string_value(json_object_get(rec, "dir")), v);
			for (size_t i = 0; i < json_array_size(f); i++)
				fprintf(fl, "  - %s\n", json_string_value(json_array_get(f, i)));
		}
		json_decref(rec);
	}
	free(recs);
	fclose(r);
	fclose(fl);
	snprintf(path, sizeof(path), "%s/summary.md", outdir);
	out = fopen(path, "w");
	if (out) {
		fprintf(out, "# flipbed crash %s\n\n%s\n\n", s->file, s->shows ? s->shows : "");
		fprintf(out, "%zu points: %d pass, %d fail, %d infra. A point is the image as it "
			"was when that flush completed (flipbed-replay); it passes when the "
			"kernel mounts, walks and unmounts it, e2fsck -fn finds it clean, and "
			"every file durable by then is intact (cases/*/case.json: files).\n\n",
			n, pass, fail, infra);
		if (flen)
			fprintf(out, "## Not passed\n\n%s\n", fails);
		fprintf(out, "## Points\n\n| kernel | point | flush | verdict | first failure |\n"
			"|---|---|---|---|---|\n%s", rows);
		fclose(out);
	}
	free(rows);
	free(fails);
	return infra ? EXIT_INFRA : fail ? EXIT_UNMET : EXIT_MET;
}

/* The run directory: new, empty, or a crash run of the same scenario (resume). */
static int open_outdir(struct sweep *w, const char *out)
{
	char path[PATH_MAX + 16], stamp[32];
	json_t *meta, *old;
	time_t t = time(NULL);
	struct tm tm;
	int rc = 0;

	if (out) {
		snprintf(w->outdir, sizeof(w->outdir), "%s", out);
	} else {
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		snprintf(w->outdir, sizeof(w->outdir), "results/runs/%s-crash", stamp);
	}
	snprintf(path, sizeof(path), "%s/crash.json", w->outdir);
	meta = json_pack("{s:s, s:I}", "scenario", w->s->file, "points", (json_int_t)w->o->points);
	old = json_load_file(path, 0, NULL);
	if (old) {
		if (!json_equal(old, meta))
			rc = fb_bad_input("flipbed crash", "--out %s holds a crash run of another scenario or --points "
						   "(%s); give a new directory", w->outdir, path);
	} else {
		DIR *d = opendir(w->outdir);
		struct dirent *e;

		while (d && !rc && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				rc = fb_bad_input("flipbed crash", "--out %s is not empty and holds no crash run (%s)",
						  w->outdir, path);
		if (d)
			closedir(d);
		if (!rc && (fb_mkdirs(w->outdir) || json_dump_file(meta, path, JSON_INDENT(2))))
			rc = fb_bad_input("flipbed crash", "cannot create %s: %s",
					  path, strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/cases", w->outdir);
	if (!rc && mkdir(path, 0755) && errno != EEXIST)
		rc = fb_bad_input("flipbed crash", "cannot create %s: %s", path, strerror(errno));
	json_decref(meta);
	json_decref(old);
	return rc;
}

/* What a crash sweep needs before anything boots; 0 or EXIT_BADINPUT. */
static int check_input(const struct fb_scenario *s, const char *const *kernels, int nk)
{
	char path[PATH_MAX], why[512];
	struct fb_manifest none = { 0 };
	struct fb_durable_model m;
	int rc;

	if (!s->type || strcmp(s->type, "none"))
		return fb_bad_input("flipbed crash", "%s: [target] type = %s: flipbed crash needs a fault-free workload "
					     "([target] type = none); the power cut is its fault. A fault and a "
					     "power cut together: flipbed boot --rule RULE with a last step 'crash'",
					     s->file, s->type ? s->type : "(unset)");
	if (s->nfixtures > 1)
		return fb_bad_input("flipbed crash", "%s: fixture = lists %d fixtures; flipbed crash takes one image, "
					     "a scenario per fixture", s->file, s->nfixtures);
	if (!s->nsteps)
		return fb_bad_input("flipbed crash", "%s: [workload] has no steps", s->file);
	rc = fb_durable_build(&m, &none, s->steps, s->nsteps, why, sizeof(why));
	fb_durable_free(&m);
	if (rc)
		return fb_bad_input("flipbed crash", "%s: %s", s->file, why);
	for (int i = 0; i < nk; i++) {
		const struct fb_kernel *k = fb_kernel_find(kernels[i]);

		if (!k)
			return fb_bad_input("flipbed crash", "%s: kernels = %s: unknown kernel; accepted: %s",
					    s->file, kernels[i], fb_kernel_names());
		if (access(fb_path_kernel(k, path, sizeof(path)), R_OK))
			return fb_bad_input("flipbed crash", "kernel '%s' is not built (%s missing); build it with 'make %s'",
					    k->name, path, k->make_target);
		if (!fb_modules_initrd(k, path, sizeof(path)))
			return EXIT_BADINPUT;
	}
	if (access(fb_path_plugin(path, sizeof(path)), R_OK))
		return fb_bad_input("flipbed crash", "%s is not built (the write log needs the flipbed plugin); run 'make'",
				    path);
	if (access(fb_path_initrd(path, sizeof(path)), R_OK))
		return fb_bad_input("flipbed crash", "%s is not built; run 'make'", path);
	snprintf(path, sizeof(path), "%s/bin/flipbed-replay", build_dir());
	if (access(path, X_OK))
		return fb_bad_input("flipbed crash", "%s is not built; run 'make'", path);
	return 0;
}

/* The golden image's files: its cached manifest, or read now. */
static int golden_files(const struct fb_golden *g, struct fb_manifest *m)
{
	char path[PATH_MAX + 32], why[512];

	snprintf(path, sizeof(path), "%s/%s", g->dir, FB_MANIFEST_FILE);
	if (fb_manifest_load(path, m) == 0)
		return 0;
	if (fb_manifest_build(g->path, m, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "flipbed crash: %s: %s\n", g->path, why);
	return -1;
}

int cmd_crash(int argc, char **argv)
{
	struct crash_opts o = { .jobs = fb_default_jobs() };
	struct fb_scenario *s = NULL;
	struct fb_golden g;
	struct fb_manifest gm = { 0 };
	struct sweep w = { .o = &o };
	const char *const *kernels;
	char cache[PATH_MAX], why[512];
	int nk, rc = 0;

	if (parse_args(argc, argv, &o))
		return EXIT_BADINPUT;
	fb_proc_init();
	if (fb_scenario_load(o.scenario, NULL, 0, &s))
		return EXIT_BADINPUT;
	kernels = o.kernel ? &o.kernel : (const char *const *)s->kernels;
	nk = o.kernel ? 1 : s->nkernels;
	w.s = s;
	rc = check_input(s, kernels, nk);
	if (rc || (rc = open_outdir(&w, o.out)))
		goto out;
	fb_golden_sweep(fb_path_golden_cache(cache, sizeof(cache)));
	if (fb_golden_get(s, cache, &g) || golden_files(&g, &gm)) {
		rc = EXIT_INFRA;
		goto out;
	}
	w.g = &g;
	if (fb_durable_build(&w.model, &gm, s->steps, s->nsteps, why, sizeof(why))) {
		rc = fb_bad_input("flipbed crash", "%s: %s", s->file, why);
		goto out;
	}
	w.done = load_done(w.outdir);
	for (int i = 0; i < nk && !rc; i++) {
		w.kernel = kernels[i];
		rc = sweep_kernel(&w);
	}
	if (rc != EXIT_INTERRUPTED) {
		int status = write_summary(w.outdir, s);

		if (!rc)
			rc = status;
		printf("flipbed crash: %s/summary.md\n", w.outdir);
	}
	json_decref(w.done);
	fb_durable_free(&w.model);
	fb_manifest_free(&gm);
out:
	fb_scenario_free(s);
	return rc;
}

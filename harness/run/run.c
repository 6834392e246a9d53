// SPDX-License-Identifier: MIT
/*
 * Running a list of cases (run.h), for `flipbed run`, `flipbed matrix`
 * (cmd/run_cmd.c makes their list) and a campaign: build the golden
 * images, run each case in a worker process (--jobs at a time), append its
 * record to cases.jsonl as it ends, show progress, then write the reports.
 * A worker per case keeps one case's crash or hang from touching another;
 * workers die with flipbed (PDEATHSIG), and their QEMU and nbdkit die with
 * them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <link.h>
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
#include "guest/steps.h"
#include "judge/manifest.h"
#include "boot/proc.h"
#include "report/report.h"
#include "run/run.h"
#include "run/runcase.h"
#include "run/target.h"
#include "boot/vm.h"
#include "util.h"
#include "paths.h"
#include "kernels.h"
#include "kernel_modules.h"
#include "run/batch.h"

struct worker {
	pid_t pid;
	int index, count;	/* its cases: COUNT from INDEX, one boot or a batch */
	double start;
	char priv[PATH_MAX];	/* its private directory, "" if none */
	bool guest;		/* it holds a guest slot */
	int guest_fd;		/* the read end of its guest pipe; -1 if none */
};

/*
 * A worker holds one of the run's --jobs guest slots while its QEMU may
 * run, and gives it back (fb_case_guest_done) before it checks the images:
 * the next worker's guest then runs while this one's e2fsck and data
 * oracle do, which are mostly waiting (e2fsck sleeps out an MMP interval
 * three times, 11 s, on an image whose MMP block a case left in use). At
 * most MAX_WORKERS(jobs) workers live at once, each with at most one
 * boot's checks.
 */
#define MAX_WORKERS(jobs) ((jobs) * 2 < 64 ? (jobs) * 2 : 64)

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
		/* made here, before the workers, who find it made */
		if (!fb_modules_initrd(k, path, sizeof(path))) {
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

/* What a run directory holds: all that replacing a shard's earlier run removes. */
static const char *const run_entries[] = {
	"run.json", "cases.jsonl", "cases", "summary.md", "index.html", "junit.xml", NULL
};

/*
 * Whether OUT holds an earlier run of E's shard: its run.json names the
 * same shard K/N and the same selection, and OUT holds nothing but a run.
 * 0, or -1 with the reason in WHY.
 */
static int earlier_shard(const char *out, const struct fb_exec *e, char *why, size_t len)
{
	char path[PATH_MAX + 16], shard[32];
	DIR *d = opendir(out);
	struct dirent *de;
	json_t *info;
	int ret = 0;

	while (d && !ret && (de = readdir(d))) {
		bool known = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");

		for (int i = 0; run_entries[i] && !known; i++)
			known = !strcmp(de->d_name, run_entries[i]);
		if (!known) {
			snprintf(why, len, "it holds %s, which is not part of a run", de->d_name);
			ret = -1;
		}
	}
	if (d)
		closedir(d);
	if (ret)
		return -1;
	snprintf(path, sizeof(path), "%s/run.json", out);
	snprintf(shard, sizeof(shard), "%d/%d", e->shard_k, e->shard_n);
	info = json_load_file(path, 0, NULL);
	if (!info)
		snprintf(why, len, "it has no readable run.json");
	else if (!json_is_string(json_object_get(info, "shard")) ||
		 strcmp(json_string_value(json_object_get(info, "shard")), shard))
		snprintf(why, len, "its run.json is not shard %s", shard);
	else if (!json_is_string(json_object_get(info, "selection")) ||
		 strcmp(json_string_value(json_object_get(info, "selection")), e->selection))
		snprintf(why, len, "its run.json selects other cases (another matrix, "
			 "--kernel, --filter, --set or scenario files)");
	else
		ret = 1;
	json_decref(info);
	return ret == 1 ? 0 : -1;
}

/*
 * A given --out must be new or empty: records appended to another run's
 * cases.jsonl would be counted with it. Two exceptions: a campaign adds to
 * its own run (E->resume), and a shard run again into the directory of its
 * earlier run replaces that run (*REPLACE is set; replace_outdir() removes
 * it once the new run is ready to start), so that an engine that retries a
 * shard (a requeued Slurm task, a restarted pod) leaves one set of results.
 */
static int check_outdir(const struct fb_exec *e, bool *replace)
{
	char why[512];

	*replace = false;
	if (!e->out || e->resume || !has_entries(e->out))
		return 0;
	if (!e->shard_n) {
		fprintf(stderr, "flipbed: --out %s: not empty; give a new or empty directory\n", e->out);
		return -1;
	}
	if (earlier_shard(e->out, e, why, sizeof(why))) {
		fprintf(stderr, "flipbed: --out %s: not empty, and not an earlier run of shard %d/%d "
			"of these cases: %s; give a new or empty directory, or this shard's own run "
			"directory (its run is replaced)\n", e->out, e->shard_k, e->shard_n, why);
		return -1;
	}
	*replace = true;
	return 0;
}

static int replace_outdir(const char *out, int k, int n)
{
	char path[PATH_MAX + 16];

	fprintf(stderr, "flipbed: %s holds an earlier run of shard %d/%d: replacing it\n", out, k, n);
	for (int i = 0; run_entries[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", out, run_entries[i]);
		if (fb_remove_tree(path)) {
			fprintf(stderr, "flipbed: cannot remove %s: %s\n", path, strerror(errno));
			return -1;
		}
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

/*
 * The manifest is written beside its image and renamed into place: another
 * flipbed (a shard on the same machine) may be reading the cache.
 */
static void save_manifest(const struct fb_manifest *m, const char *path)
{
	char tmp[PATH_MAX + 32];

	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, (int)getpid());
	if (fb_manifest_save(m, tmp) || rename(tmp, path)) {
		fprintf(stderr, "flipbed: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
}

/* Golden images, built once per recipe, with the manifest of their files. */
static int prepare_goldens(struct fb_case_specs *cases, struct fb_golden *g)
{
	char cache[PATH_MAX], mf[PATH_MAX + 16], why[512];

	fb_path_golden_cache(cache, sizeof(cache));
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
		save_manifest(&m, mf);
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

/* dl_iterate_phdr() callback: the GNU build id of the program (the first object), as hex. */
static int build_id_note(struct dl_phdr_info *info, size_t size, void *data)
{
	char *hex = data;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		size_t align = ph->p_align == 8 ? 8 : 4;

		while (ph->p_type == PT_NOTE && p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const unsigned char *desc = (const unsigned char *)p + sizeof(*nh) +
				((nh->n_namesz + align - 1) & ~(align - 1));

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz <= 64 &&
			    (const char *)desc + nh->n_descsz <= end) {
				for (size_t b = 0; b < nh->n_descsz; b++)
					sprintf(hex + 2 * b, "%02x", desc[b]);
				return 1;
			}
			p = (const char *)desc + ((nh->n_descsz + align - 1) & ~(align - 1));
		}
	}
	return 1;
}

/*
 * Which flipbed made a run: "flipbed", `git describe --always --dirty` of
 * the working directory (flipbed runs from its repository), for people;
 * "flipbed_build", the GNU build id of this binary, which `flipbed merge`
 * compares. Either is null when it cannot be had (no git, no build id).
 */
static json_t *source_version(void)
{
	char buf[128];
	size_t n = 0;
	ssize_t r;
	int fd[2], status;
	pid_t pid;

	if (pipe(fd))
		return json_null();
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(fd[1], 1);
		dup2(null, 2);
		close(fd[0]);
		close(fd[1]);
		/* no optional locks: a describe must not hold the index lock of a tree in use */
		execlp("git", "git", "--no-optional-locks", "describe", "--always", "--dirty",
		       (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && n < sizeof(buf) - 1 &&
	       ((r = read(fd[0], buf + n, sizeof(buf) - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
		n += r > 0 ? (size_t)r : 0;
	close(fd[0]);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || !*buf || !fb_utf8_valid(buf))
		return json_null();
	return json_string(buf);
}

static json_t *build_id(void)
{
	char hex[129] = "";

	dl_iterate_phdr(build_id_note, hex);
	return *hex ? json_string(hex) : json_null();
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
		if (fb_kernels[i].path) {
			json_object_set_new(kernels, fb_kernels[i].name,
					    json_pack("{s:s, s:s, s:s?}", "image", fb_kernels[i].path,
						      "release", fb_kernels[i].release,
						      "modules", fb_kernels[i].modules));
			continue;
		}
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
	json_t *o = json_pack("{s:s, s:o, s:s?, s:i, s:o, s:o, s:{s:s, s:i}}",
			      "started", stamp, "argv", av, "matrix", e->label, "jobs", e->jobs,
			      "shard", e->shard_n ? json_sprintf("%d/%d", e->shard_k, e->shard_n) : json_null(),
			      "kernels", kernels, "host", "uname", u.release,
			      "nproc", (int)sysconf(_SC_NPROCESSORS_ONLN));

	json_object_set_new(o, "shard_from", e->shard_from && *e->shard_from ?
			    json_string(e->shard_from) : json_null());
	json_object_set_new(o, "selection", e->selection ? json_string(e->selection) : json_null());
	json_object_set_new(o, "cases_total", e->cases_total ? json_integer(e->cases_total) : json_null());
	json_object_set_new(o, "flipbed", source_version());
	json_object_set_new(o, "flipbed_build", build_id());
	json_object_set_new(o, "batch", json_integer(e->batch ? e->batch : FB_BATCH_DEFAULT));
	json_object_set_new(o, "watchdog", e->watchdog ? json_pack("{s:i, s:n}", "seconds",
				    e->watchdog, "fired") : json_null());
	return o;
}

/*
 * The directories the COUNT cases from FIRST have from an earlier run (a
 * resumed campaign runs an interrupted case again): removed before their
 * worker starts, so that a case.json there is never taken for the new
 * one, and a directory says the case started.
 */
static void forget_cases(const struct fb_case_specs *cases, int first, int count,
			 const char *outdir)
{
	char sub[PATH_MAX], path[PATH_MAX * 2];

	for (int i = first; i < first + count; i++) {
		fb_case_dirname(cases->v[i].name, sub, sizeof(sub));
		fb_path_case_dir(outdir, sub, path, sizeof(path));
		if (fb_remove_tree(path))
			fprintf(stderr, "flipbed: cannot remove %s: %s\n", path, strerror(errno));
	}
}

/*
 * A worker runs one case. Its private directory (nbdkit's and QEMU's
 * sockets) is made here, by mkdtemp under $TMPDIR, and removed by the
 * parent once the worker is reaped, however the worker ended.
 */
static pid_t start_worker(const struct fb_case_spec *c, const struct fb_golden *g, int n,
			  const struct fb_run_opts *o, char *priv, size_t len, int *guest_fd)
{
	int fds[2] = { -1, -1 };
	pid_t pid;

	if (fb_private_dir(priv, len)) {
		fprintf(stderr, "flipbed: %s: cannot make a private directory under %s: %s\n",
			c->name, getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
		priv[0] = '\0';
	}
	/* without a pipe the worker keeps its slot until it exits */
	if (pipe2(fds, O_CLOEXEC))
		fds[0] = fds[1] = -1;
	pid = fork();
	if (pid) {
		if (fds[1] >= 0)
			close(fds[1]);
		if (pid < 0 && fds[0] >= 0)
			close(fds[0]);
		*guest_fd = pid < 0 ? -1 : fds[0];
		return pid;
	}
	if (fds[0] >= 0)
		close(fds[0]);
	fb_case_guest_slot(fds[1]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fb_proc_init();
	if (n > 1)
		_exit(fb_batch_run(c, g, n, o, priv) ? 1 : 0);
	_exit(fb_case_run(c, g, o, priv) ? 1 : 0);
}

/*
 * What case C is known to wait for, from its scenario alone, and how many
 * seconds: its image's checks (WAIT_CHECKS: on an image with MMP each
 * e2fsck run sleeps out twice the MMP interval and a second, in
 * ext2fs_mmp_start, on a read-write run always and on a read-only one
 * when the case left the block in use: about 11 s for a case), or its
 * guest (WAIT_GUEST: its workload's sleep steps).
 */
enum wait_kind { WAIT_NONE, WAIT_GUEST, WAIT_CHECKS };

/* Does the mkfs feature list FEATURES ("a,b,^c") turn on FEATURE? */
static bool has_feature(const char *features, const char *feature)
{
	size_t n = strlen(feature);

	for (const char *p = features; p && *p; p += strcspn(p, ","), p += *p == ',') {
		p += strspn(p, " \t");
		if (!strncmp(p, feature, n) && strchr(", \t", p[n]))
			return true;
	}
	return false;
}

static enum wait_kind known_wait(const struct fb_case_spec *c, double *seconds)
{
	const struct fb_scenario *s = c->scn;
	struct step st;
	char why[256];

	*seconds = 0;
	if (has_feature(s->features, "mmp")) {
		*seconds = 11;
		return WAIT_CHECKS;
	}
	for (int i = 0; i < s->nsteps; i++)
		if (!step_parse(s->steps[i], &st, why, sizeof(why)) && st.id == STEP_SLEEP &&
		    st.argc > 0)
			*seconds += atof(st.argv[0]);
	return *seconds > 0 ? WAIT_GUEST : WAIT_NONE;
}

/* The order of waiting_first: checks that wait, then guests, each longest first. */
static double wait_rank(const struct fb_case_spec *c)
{
	double w;
	enum wait_kind k = known_wait(c, &w);

	return k == WAIT_CHECKS ? 2000 + w : k == WAIT_GUEST ? 1000 + w : 0;
}

/*
 * Within each kernel's cases, those that wait first, the others in their
 * order: a case that waits at the end of a run is a tail that nothing
 * overlaps; at its start, the cases that run meanwhile cover it. Cases
 * whose checks wait come before those whose guest does: a worker gives
 * its guest slot back before its checks, so their waits overlap the
 * guests that follow (batch_size never puts the two kinds in one boot,
 * whose checks would otherwise start only after the sleeping guest).
 */
static void waiting_first(struct fb_case_specs *cases)
{
	double *w = xcalloc(cases->n ? cases->n : 1, sizeof(*w));

	for (int i = 0; i < cases->n; i++)
		w[i] = wait_rank(&cases->v[i]);
	/* a stable insertion sort inside each kernel's run of cases */
	for (int i = 1; i < cases->n; i++) {
		struct fb_case_spec c = cases->v[i];
		double cw = w[i];
		int j = i;

		while (j > 0 && w[j - 1] < cw && !strcmp(cases->v[j - 1].kernel, c.kernel)) {
			cases->v[j] = cases->v[j - 1];
			w[j] = w[j - 1];
			j--;
		}
		cases->v[j] = c;
		w[j] = cw;
	}
	free(w);
}

/*
 * How many cases from NEXT the next worker takes: one, or a batch of
 * consecutive cases on the same kernel that may share a boot
 * (fb_batch_allowed) and wait for the same thing (known_wait), at most
 * BATCH, and no more than the rest divided among the JOBS workers, so
 * that all of them have cases to the end.
 */
static int batch_size(const struct fb_case_specs *cases, int next, int batch, int jobs)
{
	int left = cases->n - next, most = (left + jobs - 1) / jobs, k = 1;

	if (most > batch)
		most = batch;
	if (!fb_batch_allowed(cases->v[next].scn))
		return 1;
	double w;
	enum wait_kind kind = known_wait(&cases->v[next], &w);

	while (k < most && fb_batch_allowed(cases->v[next + k].scn) &&
	       !strcmp(cases->v[next + k].kernel, cases->v[next].kernel) &&
	       known_wait(&cases->v[next + k], &w) == kind)
		k++;
	return k;
}

/* Seconds a case spent in each phase, from its record's "durations". */
enum { PH_TOTAL, PH_IMAGE, PH_BOOT, PH_WORKLOAD, PH_FSCK, PH__COUNT };
static const char *const phase_names[PH__COUNT] = { "total", "image", "boot", "workload", "fsck" };

/*
 * The record of case C when the case left none: infra, for WHY, with what
 * the case list knows (its axes, its target's type and timing) so that the
 * reports put it in its row and column.
 */
static json_t *infra_record(const struct fb_case_spec *c, const char *sub,
			    const char *mismatch, const char *why)
{
	char *repro = fb_case_repro(c);
	json_t *params = json_pack("{s:s}", "kernel", c->kernel);
	json_t *rec;

	for (int i = 0; i < c->nparams; i++) {
		char key[256];

		snprintf(key, sizeof(key), "%s.%s", c->params[i].section, c->params[i].key);
		json_object_set_new(params, key, json_string(c->params[i].value));
	}
	rec = json_pack("{s:s, s:s, s:s, s:o, s:{s:s?, s:s}, s:s, s:s, s:[s], s:{s:s, s:s, s:s, s:s, s:s}, s:s}",
			"case", c->name, "scenario", c->scn->file, "kernel", c->kernel,
			"params", params, "target", "type", c->scn->type,
			"timing", fb_timing_name(c->scn->timing), "verdict", "infra",
			"dir", "", "mismatch", mismatch,
			"outcome", "detect", "none", "reaction", "none", "fsck", "not-run",
			"data", "not-checked", "infra", why, "repro", repro);
	json_object_set_new(rec, "dir", json_sprintf("cases/%s", sub));
	free(repro);
	return rec;
}

/* OUTDIR/cases/SUB/case.json: REC, pretty-printed, as a case writes it. */
static void write_case_json(json_t *rec, const char *outdir, const char *sub)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/cases/%s", outdir, sub);
	mkdir(path, 0755);
	strcat(path, "/case.json");
	json_dump_file(rec, path, JSON_INDENT(2) | JSON_SORT_KEYS);
}

/*
 * The watchdog stopped a case: its record, whatever the case managed to
 * write, is infra for WHY, the case's own reason kept after it.
 */
static void watchdog_record(json_t *rec, const char *why)
{
	json_t *out = json_object_get(rec, "outcome");
	const char *was = json_string_value(json_object_get(out, "infra"));

	json_object_set_new(out, "infra", was && *was ? json_sprintf("%s; the case said: %s", why, was) :
			    json_string(why));
	json_object_set_new(rec, "verdict", json_string("infra"));
}

static void append_record(json_t *rec, FILE *jsonl)
{
	json_dumpf(rec, jsonl, JSON_COMPACT | JSON_SORT_KEYS);
	fputc('\n', jsonl);
	fflush(jsonl);
}

/*
 * --watchdog: when no case has finished for SECONDS, the run stops. The
 * workers get SIGTERM (each stops its QEMU and nbdkit and records its case
 * as interrupted), and SIGKILL WATCHDOG_GRACE seconds later (their QEMU and
 * nbdkit die with them by PDEATHSIG); no case starts any more. Every case
 * it stopped or never started gets an infra record saying so, so that the
 * run, and a merge of its shards, still holds every case.
 */
#define WATCHDOG_GRACE 10

struct watchdog {
	int seconds;		/* 0: no watchdog */
	double last;		/* when a case last finished, or the cases started */
	double fired;		/* when it fired; 0: not */
	int stopped, unstarted;	/* the cases it recorded as infra */
};

/*
 * The record the worker ended with, when it left none: the case was
 * interrupted if the run was (the signal came before it could record),
 * else flipbed failed it (infra).
 */
static json_t *missing_record(const struct fb_case_spec *c, const char *sub, int status,
			      const struct watchdog *wd)
{
	json_t *rec = infra_record(c, sub, "worker died",
				   WIFSIGNALED(status) ? "the case worker was killed by a signal" :
							 "the case worker exited without a record");
	json_t *out = json_object_get(rec, "outcome");

	if (wd->fired || !fb_proc_interrupted())
		return rec;
	json_object_set_new(out, "infra", json_sprintf("interrupted by %s: %s",
			    strsignal(fb_proc_interrupted()),
			    json_string_value(json_object_get(out, "infra"))));
	json_object_set_new(rec, "verdict", json_string(fb_verdict_name(FB_VERDICT_INTERRUPTED)));
	json_object_set_new(rec, "mismatch", json_array());
	return rec;
}

/*
 * Append the worker's record of case C to cases.jsonl, or one made here
 * when it left none. A case without a directory never started: an
 * interrupted run leaves it out (-1 is returned), a stopped one records
 * it as infra (*UNSTARTED is set). WD->fired: the watchdog stopped the
 * case, and WHY says so.
 */
static int collect(const struct fb_case_spec *c, const char *outdir, FILE *jsonl, int status,
		   double *phases, const struct watchdog *wd, const char *why, bool *unstarted)
{
	char sub[PATH_MAX], path[PATH_MAX * 2], never[160];
	bool made = false;
	struct stat st;
	json_t *rec;

	*unstarted = false;
	fb_case_dirname(c->name, sub, sizeof(sub));
	snprintf(path, sizeof(path), "%s/cases/%s", outdir, sub);
	if (stat(path, &st) && (wd->fired || fb_proc_interrupted())) {
		if (!wd->fired)
			return -1;
		snprintf(never, sizeof(never), "watchdog: no case finished for %d s; this case was "
			 "never started", wd->seconds);
		rec = infra_record(c, sub, "not started", never);
		*unstarted = true;
	} else {
		strcat(path, "/case.json");
		rec = json_load_file(path, 0, NULL);
		made = !rec;
		if (made)
			rec = missing_record(c, sub, status, wd);
		if (wd->fired)
			watchdog_record(rec, why);
	}
	if (made || wd->fired)
		write_case_json(rec, outdir, sub);
	for (int i = 0; i < PH__COUNT; i++)
		phases[i] = json_number_value(json_object_get(json_object_get(rec, "durations"),
							      phase_names[i]));
	append_record(rec, jsonl);
	int v = fb_verdict_parse(json_string_value(json_object_get(rec, "verdict")));
	json_decref(rec);
	return v < 0 ? FB_VERDICT_INFRA : v;
}

static void watchdog_check(struct watchdog *wd, const struct worker *w, int slots, int running,
			   int unstarted)
{
	double now = fb_now();

	if (wd->seconds && !wd->fired && now - wd->last >= wd->seconds) {
		wd->fired = now;
		fprintf(stderr, "\nflipbed: watchdog: no case finished for %d s: stopping %d running "
			"case(s); they and %d not started are recorded as infra\n", wd->seconds,
			running, unstarted);
		for (int s = 0; s < slots; s++)
			if (w[s].pid)
				kill(w[s].pid, SIGTERM);
	}
	if (wd->fired && now - wd->fired >= WATCHDOG_GRACE)
		for (int s = 0; s < slots; s++)
			if (w[s].pid)
				kill(w[s].pid, SIGKILL);
}

struct progress {
	int total, done, count[FB_VERDICT__COUNT];
	int recorded;		/* the records appended: DONE and the cases the watchdog never started */
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

/*
 * The closing line. An interrupted run says so, with the cases that ran
 * of those it planned, the ones cut short and the ones never started:
 * its counts are not a whole run's.
 */
static void print_totals(const struct progress *p, double secs)
{
	const int *k = p->count;
	int cut = k[FB_VERDICT_INTERRUPTED], ran = p->recorded - cut;

	if (fb_proc_interrupted()) {
		fprintf(stderr, "flipbed: interrupted: %d of %d planned cases ran in %.0f s: %d passed, "
			"%d failed, %d infra, %d skipped; %d cut short, %d never started\n", ran,
			p->total, secs, k[FB_VERDICT_PASS], k[FB_VERDICT_FAIL], k[FB_VERDICT_INFRA],
			k[FB_VERDICT_SKIP], cut, p->total - ran - cut);
		return;
	}
	fprintf(stderr, "flipbed: %d cases in %.0f s: %d passed, %d failed, %d infra, %d skipped\n",
		p->recorded, secs, k[FB_VERDICT_PASS], k[FB_VERDICT_FAIL], k[FB_VERDICT_INFRA],
		k[FB_VERDICT_SKIP]);
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
		     const struct fb_run_opts *o, int jobs, int batch, struct watchdog *wd)
{
	struct worker w[64] = { 0 };
	struct progress p = { .total = cases->n, .start = fb_now(), .tty = isatty(2) };
	double phases[PH__COUNT];
	char path[PATH_MAX + 16], why[160];
	FILE *jsonl;
	/*
	 * RUNNING counts cases, BUSY the workers whose guest may still run
	 * (at most JOBS), LIVE all workers (a worker may run a batch)
	 */
	int next = 0, running = 0, busy = 0, live = 0, evfd = fb_proc_init();
	int slots = MAX_WORKERS(jobs);

	snprintf(path, sizeof(path), "%s/cases.jsonl", o->outdir);
	jsonl = fopen(path, "a");
	if (!jsonl) {
		fprintf(stderr, "flipbed: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	wd->last = p.start;
	while (next < cases->n || running) {
		while (!fb_proc_interrupted() && !wd->fired && busy < jobs && live < slots &&
		       next < cases->n) {
			for (int s = 0; s < slots; s++) {
				if (w[s].pid)
					continue;
				w[s].count = batch_size(cases, next, batch, jobs);
				forget_cases(cases, next, w[s].count, o->outdir);
				w[s].pid = start_worker(&cases->v[next], &g[next], w[s].count, o,
							w[s].priv, sizeof(w[s].priv), &w[s].guest_fd);
				w[s].index = next;
				next += w[s].count;
				w[s].start = fb_now();
				running += w[s].count;
				w[s].guest = true;
				busy++;
				live++;
				break;
			}
		}
		if (fb_proc_interrupted()) {
			for (int s = 0; s < slots; s++)
				if (w[s].pid)
					kill(w[s].pid, SIGTERM);
		}
		/* the events (a child's end, a signal) and each guest pipe still open */
		struct pollfd pf[1 + 64] = { { .fd = evfd, .events = POLLIN } };
		int npf = 1;

		for (int s = 0; s < slots; s++)
			if (w[s].pid && w[s].guest && w[s].guest_fd >= 0)
				pf[npf++] = (struct pollfd){ .fd = w[s].guest_fd, .events = POLLIN };
		poll(pf, npf, 500);
		fb_proc_clear_events();
		/* a guest pipe at its end: that worker's guest is done, its slot free */
		for (int s = 0, k = 1; s < slots; s++) {
			if (!w[s].pid || !w[s].guest || w[s].guest_fd < 0)
				continue;
			if (pf[k++].revents) {
				w[s].guest = false;
				busy--;
			}
		}
		for (int s = 0; s < slots; s++) {
			int status;
			if (!w[s].pid || waitpid(w[s].pid, &status, WNOHANG) != w[s].pid)
				continue;
			/* a worker without a guest pipe held its slot to the end */
			if (w[s].guest) {
				w[s].guest = false;
				busy--;
			}
			if (w[s].guest_fd >= 0)
				close(w[s].guest_fd);
			w[s].guest_fd = -1;
			if (w[s].priv[0] && fb_remove_tree(w[s].priv))
				fprintf(stderr, "flipbed: could not remove %s: %s\n", w[s].priv,
					strerror(errno));
			for (int i = w[s].index; i < w[s].index + w[s].count; i++) {
				const struct fb_case_spec *c = &cases->v[i];
				bool unstarted;

				if (wd->fired)
					snprintf(why, sizeof(why), "watchdog: no case finished for %d s; "
						 "this case was stopped after %.0f s", wd->seconds,
						 fb_now() - w[s].start);
				int v = collect(c, o->outdir, jsonl, status, phases, wd, why, &unstarted);
				running--;
				if (v < 0)
					continue;
				p.phases = xrealloc(p.phases, (p.done + 1) * PH__COUNT * sizeof(double));
				memcpy(p.phases + p.done * PH__COUNT, phases, sizeof(phases));
				p.done++;
				p.recorded++;
				p.count[v]++;
				show_progress(&p, c, v, phases[PH_TOTAL]);
				if (unstarted)
					wd->unstarted++;
				else if (wd->fired)
					wd->stopped++;
			}
			w[s].pid = 0;
			live--;
			if (!wd->fired)
				wd->last = fb_now();
		}
		if (fb_proc_interrupted() && !running)
			break;
		watchdog_check(wd, w, slots, running, cases->n - next);
		if (wd->fired && !running)
			break;
	}
	/* an interrupted run records what finished; a stopped one every case */
	for (; wd->fired && !fb_proc_interrupted() && next < cases->n; next++) {
		const struct fb_case_spec *c = &cases->v[next];
		char sub[PATH_MAX];
		json_t *rec;

		snprintf(why, sizeof(why), "watchdog: no case finished for %d s; this case was "
			 "never started", wd->seconds);
		fb_case_dirname(c->name, sub, sizeof(sub));
		rec = infra_record(c, sub, "not started", why);
		write_case_json(rec, o->outdir, sub);
		append_record(rec, jsonl);
		json_decref(rec);
		p.count[FB_VERDICT_INFRA]++;
		p.recorded++;
		wd->unstarted++;
	}
	if (p.tty)
		fprintf(stderr, "\n");
	fclose(jsonl);
	print_totals(&p, fb_now() - p.start);
	print_timing(&p, fb_now() - p.start);
	free(p.phases);
	return fb_proc_interrupted() ? -1 : 0;
}

/* The records in OUTDIR/cases.jsonl: its lines. */
static int count_records(const char *outdir)
{
	char path[PATH_MAX + 16], *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cases.jsonl", outdir);
	f = fopen(path, "r");
	while (f && getline(&line, &cap, f) > 0)
		n++;
	free(line);
	if (f)
		fclose(f);
	return n;
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
 * The cases of each kernel together, in their order, the kernels in the
 * order they first come: a matrix expands each scenario on every kernel in
 * turn, and a batch shares one kernel, so interleaved kernels would make
 * batches of one or two.
 */
static void group_by_kernel(struct fb_case_specs *cases)
{
	struct fb_case_spec *v = xcalloc(cases->n ? cases->n : 1, sizeof(*v));
	bool *taken = xcalloc(cases->n ? cases->n : 1, sizeof(bool));
	int k = 0;

	for (int i = 0; i < cases->n; i++) {
		if (taken[i])
			continue;
		for (int j = i; j < cases->n; j++)
			if (!taken[j] && !strcmp(cases->v[j].kernel, cases->v[i].kernel)) {
				v[k++] = cases->v[j];
				taken[j] = true;
			}
	}
	memcpy(cases->v, v, cases->n * sizeof(*v));
	free(v);
	free(taken);
}

int fb_run_execute(struct fb_case_specs *cases, const struct fb_exec *e)
{
	struct fb_golden *g;
	struct fb_run_opts o = { 0 };
	struct watchdog wd = { .seconds = e->watchdog };
	char outdir[PATH_MAX], path[PATH_MAX + 16];
	json_t *info;
	bool replace;
	int rc;

	if (check_built(cases) < 0 || check_outdir(e, &replace) < 0)
		return EXIT_BADINPUT;
	/* the handlers first: a Ctrl-C while golden images are built is noted,
	 * the build in progress removes its directory, and nothing else starts */
	fb_proc_init();
	group_by_kernel(cases);
	waiting_first(cases);
	g = xcalloc(cases->n, sizeof(*g));
	if (prepare_goldens(cases, g) < 0) {
		free(g);
		return fb_proc_interrupted() ? EXIT_INTERRUPTED : EXIT_INFRA;
	}
	if (!e->resume && check_targets(cases, g) < 0) {
		free(g);
		return EXIT_BADINPUT;
	}
	if ((replace && replace_outdir(e->out, e->shard_k, e->shard_n) < 0) ||
	    make_outdir(e->out, outdir, sizeof(outdir)) < 0) {
		free(g);
		return EXIT_BADINPUT;
	}
	fprintf(stderr, "flipbed: %d cases, %d at a time, results in %s\n", cases->n, e->jobs, outdir);
	if (e->shard_from && *e->shard_from)
		fprintf(stderr, "flipbed: shard %d/%d from the %s\n", e->shard_k, e->shard_n,
			e->shard_from);
	info = run_info(e);
	json_object_set_new(info, "run_id", json_string(strrchr(outdir, '/') ? strrchr(outdir, '/') + 1 : outdir));
	/* a resumed run (a campaign) is to hold its earlier records too */
	json_object_set_new(info, "cases_planned",
			    json_integer(cases->n + (e->resume ? count_records(outdir) : 0)));
	/* a run.json from the start: a shard killed outright is still known as one */
	snprintf(path, sizeof(path), "%s/run.json", outdir);
	if (!e->resume)
		json_dump_file(info, path, JSON_INDENT(2) | JSON_SORT_KEYS);
	o.outdir = outdir;
	o.keep = e->keep;
	o.verbose = e->verbose;
	rc = run_cases(cases, g, &o, e->jobs, e->batch ? e->batch : FB_BATCH_DEFAULT, &wd);
	if (wd.seconds) {
		char stamp[32];
		time_t t = time(NULL) - (time_t)(fb_now() - wd.fired);

		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
		json_object_set_new(info, "watchdog", json_pack("{s:i, s:o, s:i, s:i}",
			"seconds", wd.seconds, "fired", wd.fired ? json_string(stamp) : json_null(),
			"stopped", wd.stopped, "not_started", wd.unstarted));
	}
	rc = finish(outdir, info, e->ktap, rc < 0);
	json_decref(info);
	free(g);
	return rc;
}

// SPDX-License-Identifier: MIT
/*
 * One case (runcase.h). The order matters: the fault is chosen on the
 * case's own copy before anything runs, rules at "boot" are armed before
 * QEMU starts, the others when the guest stops at the scenario's wait point;
 * e2fsck and the data check run only after QEMU and nbdkit are gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "classify/attrib.h"
#include "classify/classify.h"
#include "classify/order.h"
#include "classify/split.h"
#include "flipbed-ext4.h"
#include "guest/steps.h"
#include "witness/fserror.h"
#include "judge/manifest.h"
#include "judge/durable.h"
#include "boot/nbd.h"
#include "classify/probe.h"
#include "boot/proc.h"
#include "run/runcase.h"
#include "run/casectx.h"
#include "judge/fsck_check.h"
#include "run/target.h"
#include "judge/undetected.h"
#include "boot/vm.h"
#include "util.h"
#include "paths.h"
#include "kernels.h"
#include "kernel_modules.h"
#include "kernel_trace.h"



void case_set_infra(struct casectx *x, const char *fmt, ...)
{
	va_list ap;

	if (x->infra[0])
		return;
	x->infra_own = !fb_proc_interrupted();
	va_start(ap, fmt);
	vsnprintf(x->infra, sizeof(x->infra), fmt, ap);
	va_end(ap);
}

void fb_case_dirname(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s", name);
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '_';
}

/* " WORD", single-quoted for a POSIX shell unless it is plainly safe. */
static void shell_word(FILE *f, const char *word)
{
	if (*word && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_./:=@,+-%") == strlen(word)) {
		fprintf(f, " %s", word);
		return;
	}
	fputs(" '", f);
	for (const char *p = word; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

char *fb_case_repro(const struct fb_case_spec *c)
{
	char *s = NULL, *set;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	const struct fb_kernel *k = fb_kernel_find(c->kernel);

	fputs("build/bin/flipbed run", f);
	shell_word(f, c->scn->file);
	fputs(k && k->path ? " --kernel-image" : " --kernel", f);
	shell_word(f, k && k->path ? k->path : c->kernel);
	if (k && k->path && k->modules) {
		fputs(" --modules", f);
		shell_word(f, k->modules);
	}
	for (int i = 0; i < c->nparams; i++) {
		if (asprintf(&set, "%s.%s=%s", c->params[i].section, c->params[i].key,
			     c->params[i].value) < 0)
			continue;
		fputs(" --set", f);
		shell_word(f, set);
		free(set);
	}
	fclose(f);
	return s;
}

/* ---- the fault: rules from the corruptor library ---- */

static int make_rules(struct casectx *x, const char *image)
{
	char why[512];

	if (fb_target_rules(x->s, image, &x->tgt, why, sizeof(why))) {
		case_set_infra(x, "%s", why);
		return -1;
	}
	return 0;
}

int case_arm(struct casectx *x, const char *point)
{
	char line[1024], reply[512];

	for (int i = 0; i < x->tgt.nrules; i++) {
		snprintf(line, sizeof(line), "add %s", x->tgt.rules[i]);
		int rc = fb_nbd_control(&x->nbd, line, reply, sizeof(reply));
		fprintf(x->log, "H armed %s %s -> %s\n", point, x->tgt.rules[i], reply);
		if (rc) {
			case_set_infra(x, "plugin refused rule '%s': %s", x->tgt.rules[i], reply);
			return -1;
		}
	}
	x->armed = true;
	return 0;
}

/* ---- the boot: hooks ---- */

void case_on_console(void *ctx, const char *line)
{
	struct casectx *x = ctx;

	fprintf(x->log, "C %s\n", line);
	if (x->o->verbose)
		fprintf(stderr, "%s: C %s\n", x->c->name, line);
}

void case_on_agent(void *ctx, const char *line)
{
	struct casectx *x = ctx;
	char result[64];

	/* a coverage kernel's counters: the files, not the transcript, keep them */
	if (!strncmp(line, "gcdata ", 7)) {
		fb_gcov_recv_line(&x->gcov, line);
		return;
	}
	fprintf(x->log, "A %s\n", line);
	if (fb_gcov_recv_line(&x->gcov, line))
		return;
	if (x->o->verbose)
		fprintf(stderr, "%s: A %s\n", x->c->name, line);
	if (fb_fserror_line(&x->fse, line) || fb_bioread_line(&x->br, line))
		return;
	if (strncmp(line, "step ", 5))
		return;
	for (int i = 0; i < x->nsteps; i++) {
		const char *detail = fb_vm_step_result(line, i + 1, x->steps[i], result, sizeof(result));
		if (!detail)
			continue;
		bool ok = !strcmp(result, "ok");
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (x->step_ns)
			x->step_ns[i] = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		json_array_append_new(x->step_results,
			json_pack("{s:i, s:s, s:s, s:s, s:s}", "n", i + 1, "text", x->steps[i],
				  "result", ok ? "ok" : "err", "errno", ok ? "" : result,
				  "detail", detail));
		if (!strcmp(result, "EBADDATA"))
			x->saw_baddata = true;
		return;
	}
}

int case_on_wait(void *ctx, const char *name)
{
	struct casectx *x = ctx;

	if (x->armed || strcmp(name, x->s->arm))
		return 0;
	return case_arm(x, name);
}

const char *case_exit_line(const struct fb_vm_result *r, struct casectx *x)
{
	static char buf[700];

	switch (r->end) {
	case FB_VM_END_CLEAN:
		return "clean";
	case FB_VM_END_REBOOT:
		return "reboot";
	case FB_VM_END_TIMEOUT:
		/* with the guest's silence before it, which tells a hang from a slow step */
		snprintf(buf, sizeof(buf), "timeout %s", r->why);
		return buf;
	default:
		snprintf(buf, sizeof(buf), "%s %s: %s",
			 fb_nbd_alive(&x->nbd) ? "qemu-error" : "nbdkit-error",
			 fb_vm_end_name(r->end), r->why);
		return buf;
	}
}

/* ---- after the boot: e2fsck (fsck_check.c) and user data ---- */

/* Paths the workload itself changes: their content is not the golden one. */
static int mutated_paths(const struct fb_scenario *s, char **out, int max)
{
	int n = 0;

	for (int i = 0; i < s->nsteps; i++) {
		struct step st;
		char why[256];
		if (step_parse(s->steps[i], &st, why, sizeof(why)))
			continue;
		switch (st.id) {
		case STEP_WRITE:
		case STEP_RM:
		case STEP_TRUNCATE:
		case STEP_RENAME:
		case STEP_MKDIR:
			for (int a = 0; a < st.argc && n < max && a < (st.id == STEP_RENAME ? 2 : 1); a++)
				out[n++] = xstrdup(st.argv[a]);
			break;
		default:
			break;
		}
	}
	return n;
}

/*
 * One read of a guest-made image by the data oracle: the golden files
 * against the golden manifest M (minus SKIP), or, with WANT, the files the
 * workload wrote against what it wrote, or, with PATHS, what the image
 * holds at each of them (into FOUND).
 */
struct oracle_job {
	const struct fb_manifest *m;
	char *const *skip;
	int nskip;
	const struct fb_manifest_want *want;
	int nwant;
	char *const *paths;
	int npaths;
	struct fb_manifest_found *found;
	struct casectx *x;	/* its CPU time goes to x's "data" */
};

static int oracle_run(const struct oracle_job *j, const char *image, enum fb_data *ret,
		      char *detail, size_t len)
{
	if (j->paths) {
		*ret = FB_DATA_NOT_CHECKED;
		return fb_manifest_lookup(j->paths, j->npaths, image, j->found, detail, len);
	}
	return j->want ? fb_manifest_check(j->want, j->nwant, image, ret, detail, len) :
			 fb_manifest_compare(j->m, image, j->skip, j->nskip, ret, detail, len);
}

/* Read LEN bytes of FD into BUF before DEADLINE; the bytes read. */
static size_t read_until(int fd, void *buf, size_t len, double deadline)
{
	size_t got = 0;

	while (got < len && fb_now() < deadline) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pf, 1, 200) <= 0)
			continue;
		n = read(fd, (char *)buf + got, len - got);
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

/*
 * An oracle_job in a child process, killed at fb_oracle_seconds():
 * libext2fs walks a corrupted image's directories with no bound of its own
 * (a name lookup on a bad superblock took minutes), and the oracle's own
 * deadline is only looked at between reads. -1 with DETAIL on a timeout.
 */
static int oracle_bounded(const struct oracle_job *j, const char *image, enum fb_data *ret,
			  char *detail, size_t len)
{
	struct { int rc; enum fb_data d; char detail[512]; } r = { -1, FB_DATA_NOT_CHECKED, "" };
	double deadline = fb_now() + fb_oracle_seconds();
	size_t nfound = j->paths ? j->npaths * sizeof(*j->found) : 0;
	int fds[2], status;
	bool whole = false;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return oracle_run(j, image, ret, detail, len);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		r.rc = oracle_run(j, image, &r.d, r.detail, sizeof(r.detail));
		_exit(write(fds[1], &r, sizeof(r)) == sizeof(r) &&
		      (!nfound || write(fds[1], j->found, nfound) == (ssize_t)nfound) ? 0 : 1);
	}
	close(fds[1]);
	if (pid > 0)
		whole = read_until(fds[0], &r, sizeof(r), deadline) == sizeof(r) &&
			(!nfound || read_until(fds[0], j->found, nfound, deadline) == nfound);
	close(fds[0]);
	if (pid > 0) {
		if (!whole)
			kill(pid, SIGKILL);
		struct rusage ru = { 0 };

		while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
			;
		if (j->x)
			case_cpu_add(j->x, "data", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
				     ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	}
	if (!whole) {
		*ret = FB_DATA_NOT_CHECKED;
		for (int i = 0; j->paths && i < j->npaths; i++)
			j->found[i] = (struct fb_manifest_found){ .state = FB_FOUND_NOT_CHECKED };
		snprintf(detail, len, "the data oracle ran past %d s", fb_oracle_seconds());
		return -1;
	}
	*ret = r.d;
	snprintf(detail, len, "%s", r.detail);
	return r.rc;
}

/*
 * The steps as they ran, for judge/durable.c: TEXTS and RESULTS ("ok" or
 * an errno name) of the steps that reported, and of the first that did
 * not when the guest stopped inside it (its result "no result": whatever
 * it did is not followed). Returns how many; both arrays the caller's.
 */
static int steps_as_run(struct casectx *x, char ***texts, const char ***results)
{
	size_t i, n = json_array_size(x->step_results);
	json_t *r;

	*texts = xcalloc(n + 2, sizeof(**texts));
	*results = xcalloc(n + 2, sizeof(**results));
	json_array_foreach(x->step_results, i, r) {
		const char *res = json_string_value(json_object_get(r, "result"));
		const char *err = json_string_value(json_object_get(r, "errno"));

		(*texts)[i] = (char *)json_string_value(json_object_get(r, "text"));
		if (!(*texts)[i])
			(*texts)[i] = "";
		(*results)[i] = res && !strcmp(res, "ok") ? "ok" : err && *err ? err : "no result";
	}
	if (n < (size_t)x->nsteps) {
		(*texts)[n] = (char *)x->steps[n];
		(*results)[n++] = "no result";
	}
	return (int)n;
}

/*
 * What the workload saw made durable (judge/durable.h, fb_durable_acked)
 * against what IMAGE holds at those paths: x->acked lists every path a
 * step wrote, x->acked_data is the worst result of those acknowledged
 * (DETAIL names it).
 */
static void check_acked(struct casectx *x, const struct fb_durable_model *model,
			const char *image)
{
	char **paths = xcalloc(model->np + 1, sizeof(*paths));
	struct fb_manifest_found *found = xcalloc(model->np + 1, sizeof(*found));
	enum fb_data ignored;

	for (int p = 0; p < model->np; p++)
		if (fb_durable_written(&model->p[p]) && !model->p[p].untracked)
			paths[p] = model->p[p].path;
	/* on a timeout every path is not-checked, and says so */
	oracle_bounded(&(struct oracle_job){ .paths = paths, .npaths = model->np, .found = found,
					     .x = x },
		       image, &ignored, x->adetail, sizeof(x->adetail));
	x->adetail[0] = '\0';
	x->acked = json_array();
	x->acked_data = fb_durable_acked(model, found, x->acked, x->adetail, sizeof(x->adetail));
	free(paths);
	free(found);
}

/*
 * The files the workload wrote, renamed or removed: what the steps that ran
 * gave each (judge/durable.c's model of them, on the golden files M, with
 * each step's result), and whether IMAGE holds exactly that. The golden
 * comparison skips those paths; this judges them twice. What the workload
 * was acknowledged for must be there in every case (check_acked); and
 * case_judge uses x->written, the last content a step gave each file, for
 * a case whose workload ran cleanly and detected nothing, where every file
 * must hold it. A path the model cannot follow (a pwrite, an append to a
 * file not of its own pattern, a write that failed) is left out; a
 * workload step the model refuses leaves the check undone.
 */
static void check_written(struct casectx *x, const struct fb_manifest *m, const char *image)
{
	struct fb_durable_model model;
	struct fb_manifest_want *want;
	const char **results;
	char **texts, why[256];
	int n, nwant = 0;

	x->written = FB_DATA_NOT_CHECKED;
	x->acked_data = FB_DATA_NOT_CHECKED;
	x->wdetail[0] = '\0';
	n = steps_as_run(x, &texts, &results);
	if (fb_durable_build_run(&model, m, texts, results, n, x->s->nsteps, why, sizeof(why))) {
		snprintf(x->wdetail, sizeof(x->wdetail), "not modelled: %s", why);
		fb_durable_free(&model);
		free(texts);
		free(results);
		return;
	}
	check_acked(x, &model, image);
	want = xcalloc(model.np + 1, sizeof(*want));
	for (int p = 0; p < model.np; p++) {
		const struct fb_durable_path *cp = &model.p[p];
		const struct fb_durable_version *v = cp->nv ? &cp->v[cp->nv - 1] : NULL;

		/* golden files no step changed are the golden comparison's */
		if (cp->untracked || !v || v->partial || !fb_durable_written(cp))
			continue;
		want[nwant++] = (struct fb_manifest_want){ .path = cp->path, .absent = v->absent,
							   .size = v->size, .hash = v->hash };
	}
	if (oracle_bounded(&(struct oracle_job){ .want = want, .nwant = nwant, .x = x }, image,
			   &x->written, x->wdetail, sizeof(x->wdetail)) < 0)
		x->written = FB_DATA_NOT_CHECKED;
	free(want);
	fb_durable_free(&model);
	free(texts);
	free(results);
}

/* data_reference of a case whose acknowledged files decided its data */
#define ACKED_REF "what the workload made durable (acknowledged)"

/* Whether the acknowledged files' result A outranks the golden comparison's D. */
static bool acked_worse(enum fb_data a, enum fb_data d)
{
	if (a == FB_DATA_CHANGED)
		return d != FB_DATA_CHANGED;
	return a == FB_DATA_LOST && (d == FB_DATA_INTACT || d == FB_DATA_NOT_CHECKED);
}

static enum fb_data check_data(struct casectx *x, const struct fb_golden *g,
			       const char *image, char *detail, size_t len)
{
	char mf[PATH_MAX + 16], *skip[64];
	struct fb_manifest m;
	enum fb_data d;
	int nskip;

	snprintf(mf, sizeof(mf), "%s/" FB_MANIFEST_FILE, g->dir);
	if (fb_manifest_load(mf, &m)) {
		snprintf(detail, len, "no manifest %s", mf);
		return FB_DATA_NOT_CHECKED;
	}
	x->data_ref = m.replayed ? "golden image after journal replay (e2fsck -E journal_only)" :
				   "golden image";
	nskip = mutated_paths(x->s, skip, 64);
	if (oracle_bounded(&(struct oracle_job){ .m = &m, .skip = skip, .nskip = nskip, .x = x },
			   image, &d, detail, len) < 0)
		case_set_infra(x, "%s", detail);
	for (int i = 0; i < nskip; i++)
		free(skip[i]);
	check_written(x, &m, image);
	fb_manifest_free(&m);
	/* what the workload was acknowledged for: lost or changed whatever else ran */
	if (acked_worse(x->acked_data, d)) {
		d = x->acked_data;
		snprintf(detail, len, "%s", x->adetail);
		x->data_ref = ACKED_REF;
	}
	/* the guest read bytes other than the file's: changed on the way, silently or not */
	if (x->saw_baddata && d != FB_DATA_CHANGED) {
		snprintf(detail, len, "the guest read content other than the file's (EBADDATA)");
		d = FB_DATA_CHANGED;
	}
	return d;
}

/* ---- judging ---- */

/*
 * The order property (classify/order.h), on a kernel that prints the
 * csum-error lines, for a case the computed expectation covers (the fault
 * breaks a checksum, fired and was read): the checksum failure is the
 * first thing reported. A violation is recorded, and fails the case unless
 * the scenario names the function that checks the structure first on this
 * kernel (checked-before-csum, scenario/csum_first.h).
 */
static void judge_order(struct casectx *x, json_t *mismatch)
{
	const struct fb_kernel *k = fb_kernel_find(x->c->kernel);
	char why[640];

	x->order_broken = k && k->csum_lines && x->computed.on &&
			  fb_order_check(&x->out.sig, &x->order);
	if (!x->order_broken || x->computed.checked_first)
		return;
	fb_order_describe(&x->order, why, sizeof(why));
	json_array_append_new(mismatch, json_sprintf("order: %s", why));
}

/*
 * The outcome against the expectation: the written one field by field,
 * then the one computed from the fault (scenario/computed.h): a case must
 * satisfy both. Then whether the csum-error lines name HIT, the object the
 * fault hit (classify/attrib.h).
 */
static enum fb_verdict judge(struct casectx *x, const char *hit, json_t *mismatch)
{
	const struct fb_outcome *out = &x->out;
	const struct fb_expect *e = &x->expect;
	const char *first, *chain[8];
	const char *got[FB_EXP__COUNT] = {
		[FB_EXP_DETECT] = fb_detect_name(out->detect),
		[FB_EXP_REACTION] = fb_reaction_name(out->reaction),
		[FB_EXP_FSCK] = fb_fsck_name(out->fsck),
		[FB_EXP_DATA] = fb_data_name(out->data),
		[FB_EXP_WARNING] = out->warning ? "yes" : "no",
		[FB_EXP_DETECT_NEXT] = out->next_ran ? fb_detect_name(out->detect_next) : "not-run",
		[FB_EXP_REACTION_NEXT] = out->next_ran ? fb_reaction_name(out->reaction_next) :
				       "not-run",
		[FB_EXP_UNDETECTED] = fb_undetected_name(out->undetected),
	};
	char why[1024];

	for (int f = 0; f < FB_EXP__COUNT; f++) {
		/* checked-before-csum widens the computed expectation, below */
		if (f == FB_EXP_CHECKED_FIRST || fb_expect_match(e->field[f], got[f]))
			continue;
		json_array_append_new(mismatch, json_sprintf("%s: expected %s, got %s",
			fb_expect_names[f], e->field[f], got[f]));
	}
	/*
	 * A fault breaks the checksum unless its own bytes say the block read
	 * is a version the kernel once wrote whole (stale: a lost, torn or
	 * misdirected write left the old block; no-change: the tear lost only
	 * bytes the disk already held): judge/undetected.c decides both from
	 * the fault log, not from what the kernel did.
	 */
	bool valid_version = out->undetected == FB_UNDET_STALE ||
			     out->undetected == FB_UNDET_NO_CHANGE;

	fb_kernel_chain(x->c->kernel, chain, sizeof(chain) / sizeof(chain[0]));
	fb_computed_expect(e, x->s->type, chain, x->tgt.breaks_csum && !valid_version,
			   json_array_size(x->faults) > 0, out->fault_read == 1, &x->computed);
	if (!fb_computed_match(&x->computed, out, &first))
		json_array_append_new(mismatch, json_sprintf("detect: computed %s (%s), got %s",
			x->computed.detect, x->computed.why, first));
	judge_order(x, mismatch);
	if (fb_attrib_judge(out, e->field[FB_EXP_DETECT], hit, why, sizeof(why)))
		json_array_append_new(mismatch, json_string(why));
	return json_array_size(mismatch) ? FB_VERDICT_FAIL : FB_VERDICT_PASS;
}

/*
 * The steps' own expectations. A step marked `expect ERRNAME` must fail
 * with that errno, in every case; a bare step must succeed, in a case
 * without a fault (in a fault case its failure is the fault's effect, which
 * detect and reaction record; a given image, `[mkfs] image =`, may be
 * corrupt already and counts as one); `may` steps are never judged. A step that
 * reported nothing (the guest crashed or hung before it) is judged by the
 * reaction instead. Each unmet step is one mismatch line.
 */
static void judge_steps(const struct casectx *x, json_t *mismatch)
{
	size_t i;
	json_t *r;

	json_array_foreach(x->step_results, i, r) {
		const char *text = json_string_value(json_object_get(r, "text"));
		const char *res = json_string_value(json_object_get(r, "result"));
		const char *err = json_string_value(json_object_get(r, "errno"));
		const char *got = res && !strcmp(res, "ok") ? "ok" : err;
		struct step s;
		char why[256];

		if (!text || !got || step_parse(text, &s, why, sizeof(why)))
			continue;
		if (s.expect == EXPECT_ANY ||
		    (s.expect == EXPECT_OK && (x->tgt.nrules || x->s->image)))
			continue;
		if (step_met(&s, got))
			continue;
		json_array_append_new(mismatch, json_sprintf("step %d %s: expected %s, got %s",
			(int)json_integer_value(json_object_get(r, "n")), text,
			s.expect == EXPECT_ERR ? s.err : "ok", got));
	}
}

/* A requirement this host or kernel does not meet, or NULL. */
static const char *unmet(const struct fb_case_spec *c, char *buf, size_t len)
{
	const struct fb_scenario *s = c->scn;
	bool kernel_asked = false, kernel_met = false;
	size_t n = 0;

	/* a case has one kernel: several kernel: requirements are alternatives */
	for (int i = 0; i < s->nrequires; i++) {
		const char *r = s->requires[i];

		if (strncmp(r, "kernel:", 7))
			continue;
		kernel_asked = true;
		kernel_met |= !strcmp(r + 7, c->kernel);
	}
	if (kernel_asked && !kernel_met) {
		n = snprintf(buf, len, "requires");
		for (int i = 0; i < s->nrequires && n < len; i++)
			if (!strncmp(s->requires[i], "kernel:", 7))
				n += snprintf(buf + n, len - n, "%s %s", n > 8 ? " or" : "",
					      s->requires[i]);
		return buf;
	}
	for (int i = 0; i < s->nrequires; i++) {
		const char *r = s->requires[i];
		if (!strncmp(r, "program:", 8)) {
			char cmd[300];
			snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1", r + 8);
			if (system(cmd)) {
				snprintf(buf, len, "requires %s, not in PATH", r);
				return buf;
			}
		}
	}
	return NULL;
}

static json_t *params_json(const struct fb_case_spec *c)
{
	json_t *p = json_object();

	json_object_set_new(p, "kernel", json_string(c->kernel));
	for (int i = 0; i < c->nparams; i++) {
		char key[256];
		snprintf(key, sizeof(key), "%s.%s", c->params[i].section, c->params[i].key);
		json_object_set_new(p, key, json_string(c->params[i].value));
	}
	return p;
}

static json_t *strv_json(char **v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/*
 * The records of the plugin's fault log: the applied faults, or (witness)
 * the read witness's records, which have a "witness" field.
 */
static json_t *faults_json(const char *path, bool witness);

/*
 * The case's fault log, read once after nbdkit stopped: the applied faults
 * and the witness records, for the judging and the record alike.
 */
static void load_faults(struct casectx *x)
{
	char path[PATH_MAX + 32];

	if (x->faults)
		return;
	snprintf(path, sizeof(path), "%s/faults.jsonl", x->dir);
	x->faults = faults_json(path, false);
	x->witness = faults_json(path, true);
}

static json_t *faults_json(const char *path, bool witness)
{
	json_t *a = json_array();
	FILE *f = fopen(path, "r");
	char line[8192];

	while (f && fgets(line, sizeof(line), f)) {
		json_t *j = json_loads(line, 0, NULL);
		if (j && !json_object_get(j, "witness") == !witness)
			json_array_append_new(a, j);
		else
			json_decref(j);
	}
	if (f)
		fclose(f);
	return a;
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text ? text : "", f);
		fclose(f);
	}
}

/*
 * trace.txt: the call traces of the case's kernel log (DM) with file:line
 * per frame, when flipbed has the kernel's debug info (kernel_trace.h).
 */
static void write_trace(struct casectx *x, const char *dm)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int any;

	if (!f)
		return;
	any = fb_kernel_trace(x->c->kernel, dm, f);
	fclose(f);
	if (any)
		write_text(x->dir, "trace.txt", buf);
	free(buf);
}

static void write_outcome(json_t *rec, const struct fb_outcome *out)
{
	json_object_set_new(rec, "outcome", json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:s, s:s}",
		"detect", fb_detect_name(out->detect), "reaction", fb_reaction_name(out->reaction),
		"fsck", fb_fsck_name(out->fsck), "data", fb_data_name(out->data),
		"warning", out->warning, "detail", out->detail, "infra", out->infra,
		"attrib", fb_attrib_name(out->attrib), "attrib_detail", out->attrib_detail));
	json_t *o = json_object_get(rec, "outcome");

	json_object_set_new(o, "detect_next", out->next_ran ?
			    json_string(fb_detect_name(out->detect_next)) : json_null());
	json_object_set_new(o, "reaction_next", out->next_ran ?
			    json_string(fb_reaction_name(out->reaction_next)) : json_null());
	json_object_set_new(o, "detail_next", out->next_ran ?
			    json_string(out->detail_next) : json_null());
	json_object_set_new(o, "undetected", out->undetected != FB_UNDET_NA ?
			    json_string(fb_undetected_name(out->undetected)) : json_null());
	json_object_set_new(o, "fault_read", out->fault_read < 0 ? json_null() :
			    json_boolean(out->fault_read));
	json_object_set_new(o, "umount_error", json_string(out->umount_error));
	json_object_set_new(o, "note", json_string(out->note));
	json_object_set_new(rec, "signals", fb_signals_json(&out->sig));
}

int case_start_disk(struct casectx *x)
{
	struct fb_nbd_config nc = { 0 };
	char plugin[PATH_MAX], faultlog[PATH_MAX + 32], why[512];

	fb_path_plugin(plugin, sizeof(plugin));
	snprintf(faultlog, sizeof(faultlog), "%s/faults.jsonl", x->dir);
	nc.image = x->image;
	nc.plugin = plugin;
	nc.faultlog = faultlog;
	nc.dir = x->priv;
	if (fb_nbd_start(&x->nbd, &nc, why, sizeof(why))) {
		case_set_infra(x, "nbdkit: %s", why);
		fprintf(x->transcript, "H exit nbdkit-error %s\n", why);
		return -1;
	}
	if ((x->s->timing == FB_TIMING_REST || !strcmp(x->s->arm, "boot")) &&
	    case_arm(x, "boot")) {
		fb_nbd_stop(&x->nbd);
		fprintf(x->transcript, "H exit nbdkit-error %s\n", x->infra);
		return -1;
	}
	return 0;
}

static int boot_case(struct casectx *x, struct fb_vm_result *vr, double *t_boot, double *t_work)
{
	struct fb_vm_config vc = { 0 };
	struct fb_vm_hooks h = { .ctx = x, .console = case_on_console, .agent = case_on_agent, .wait = case_on_wait };
	char kernel[PATH_MAX], initrd[PATH_MAX];

	const struct fb_kernel *k = fb_kernel_find(x->c->kernel);

	fb_path_kernel(k, kernel, sizeof(kernel));
	if (!fb_modules_initrd(k, initrd, sizeof(initrd))) {
		case_set_infra(x, "kernel %s: its modules: see the messages before", k->name);
		return -1;
	}
	if (case_start_disk(x))
		return -1;
	vc.kernel = kernel;
	vc.initrd = initrd;
	vc.disk_sock = x->nbd.sock;
	vc.dir = x->priv;
	vc.mem_mb = k->mem_mb;
	vc.pci = k->modules != NULL;
	vc.timeout = x->s->timeout;
	vc.watch = *x->watch ? x->watch : NULL;
	vc.coverage = k->gcov;
	vc.steps = x->steps;
	vc.nsteps = x->nsteps;
	vc.peer = &x->nbd.proc;
	if (fb_vm_run(&vc, &h, vr) < 0) {
		case_set_infra(x, "qemu: %s", vr->why);
		fprintf(x->transcript, "H exit qemu-error %s\n", vr->why);
		fb_nbd_stop(&x->nbd);
		return -1;
	}
	fprintf(x->transcript, "H exit %s\n", case_exit_line(vr, x));
	fb_nbd_stop(&x->nbd);
	case_cpu_add(x, "nbdkit", fb_proc_cpu(&x->nbd.proc));
	if (vr->t.cpu_ready >= 0) {
		case_cpu_add(x, "qemu_boot", vr->t.cpu_ready);
		case_cpu_add(x, "qemu", vr->t.cpu - vr->t.cpu_ready);
	} else {
		case_cpu_add(x, "qemu_boot", vr->t.cpu);
	}
	if (vr->end == FB_VM_END_INFRA || vr->end == FB_VM_END_INTERRUPTED || vr->end == FB_VM_END_ABORTED)
		case_set_infra(x, "%s: %s", fb_vm_end_name(vr->end), vr->why);
	*t_boot = vr->t.ready >= 0 ? vr->t.ready : vr->t.exit;
	*t_work = vr->t.done >= 0 && vr->t.ready >= 0 ? vr->t.done - vr->t.ready : 0;
	return 0;
}

/* ---- one case: prepare, boot, judge, record ---- */

/*
 * Under errors=continue or errors=panic ext4 answers an error as the
 * option says: an expected reaction written for errors=remount-ro
 * (remount-ro, or shutdown on 6.12) is error-continue or panic there.
 * The other names of the expectation ("none", "mount-refused") stand.
 */
static void expect_errors(struct casectx *x, int f, char *buf, size_t len)
{
	const char *errors = x->s->errors, *e = x->expect.field[f], *p;
	const char *want;
	bool added = false;
	size_t n = 0;

	if (!errors || !strcmp(errors, "remount-ro") || !e)
		return;
	want = !strcmp(errors, "continue") ? "error-continue" : "panic";
	buf[0] = '\0';
	for (p = e; *p; ) {
		size_t k = strcspn(p, "|");
		bool ro = (k == 10 && !strncmp(p, "remount-ro", k)) ||
			  (k == 8 && !strncmp(p, "shutdown", k));

		if (!ro || !added)
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%.*s",
				      n ? "|" : "", ro ? (int)strlen(want) : (int)k,
				      ro ? want : p);
		added |= ro;
		p += k + (p[k] == '|');
	}
	if (n < len)
		x->expect.field[f] = buf;
}

/*
 * The case directory and its transcript. Only a case directory that cannot
 * be made leaves the case without a record (-1); every later failure is an
 * infra reason that case_record() writes into case.json.
 */
/* Whether the case's kernel is a coverage kernel (kernels.ini coverage = gcov). */
static bool case_kernel_gcov(const struct casectx *x)
{
	const struct fb_kernel *k = fb_kernel_find(x->c->kernel);

	return k && k->gcov;
}

int case_open(struct casectx *x, const char *priv)
{
	char sub[PATH_MAX], path[PATH_MAX + 32];

	fb_case_dirname(x->c->name, sub, sizeof(sub));
	fb_path_case_dir(x->o->outdir, sub, x->dir, sizeof(x->dir));
	if (mkdir(x->dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "flipbed: %s: cannot create %s: %s\n", x->c->name, x->dir,
			strerror(errno));
		return -1;
	}
	snprintf(x->sub, sizeof(x->sub), "%s", sub);
	snprintf(x->image, sizeof(x->image), "%s/image.raw", x->dir);
	fb_gcov_recv_init(&x->gcov, x->dir, case_kernel_gcov(x));
	x->out.fsck = FB_FSCK_NOT_RUN;
	x->out.data = FB_DATA_NOT_CHECKED;
	x->verdict = FB_VERDICT_PASS;
	x->mismatch = json_array();
	x->fsck_codes = json_object();
	x->cpu = json_object();
	x->fsck_problems = json_array();
	x->step_results = json_array();
	fb_scenario_expect(x->c->scn, x->c->kernel, &x->expect);
	expect_errors(x, FB_EXP_REACTION, x->errors_expect[0], sizeof(x->errors_expect[0]));
	expect_errors(x, FB_EXP_REACTION_NEXT, x->errors_expect[1],
		      sizeof(x->errors_expect[1]));
	if (!priv || !*priv)
		case_set_infra(x, "no private directory for the case's sockets (TMPDIR=%s)",
			  getenv("TMPDIR") ? getenv("TMPDIR") : "");
	else
		snprintf(x->priv, sizeof(x->priv), "%s", priv);
	snprintf(path, sizeof(path), "%s/transcript.log", x->dir);
	x->transcript = fopen(path, "w");
	if (!x->transcript)
		case_set_infra(x, "cannot write %s: %s", path, strerror(errno));
	else
		setvbuf(x->transcript, NULL, _IOLBF, 0);
	x->log = x->transcript;
	return 0;
}

/*
 * The next-mount pass, after the workload and its probe, in the same boot:
 * a write fault that nothing read back is judged where a real system meets
 * it, at the next mount. The umount and mount drop ext4's caches (the
 * block device's page cache goes with its last opener); walk reads every
 * file, directory and xattr; the probes tell remount-ro, shutdown and
 * error-continue apart as in the first pass. All "may": the pass reports, its
 * steps are never unmet. The mount takes the workload's first mount
 * options (csum_retry, noload, ...) but ro: the pass mounts read-write, as
 * a system coming back would, and its probes need a filesystem that can
 * go read-only.
 */
/* OPTS, a mount step's comma-separated options, without "ro", into OUT. */
static void drop_ro(char *out, size_t size, const char *opts)
{
	char copy[STEP_MAX_LINE];
	size_t n = 0;

	out[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", opts);
	for (char *o = strtok(copy, ","); o; o = strtok(NULL, ","))
		if (strcmp(o, "ro") && n < size)
			n += snprintf(out + n, size - n, "%s%s", n ? "," : "", o);
}

#define NEXT_PASS_STEPS FB_NEXT_PASS_STEPS	/* counted by the scenario's step limit */
static void add_next_pass(struct casectx *x)
{
	char opts[STEP_MAX_LINE] = "", why[256];
	struct step st;

	for (int i = 0; i < x->s->nsteps; i++)
		if (!step_parse(x->s->steps[i], &st, why, sizeof(why)) && st.id == STEP_MOUNT) {
			drop_ro(opts, sizeof(opts), st.argc ? st.argv[0] : "");
			break;
		}
	if (x->s->errors && !strstr(opts, "errors="))
		snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%serrors=%s",
			 *opts ? "," : "", x->s->errors);
	snprintf(x->next_mount_step, sizeof(x->next_mount_step), "may mount%s%s",
		 *opts ? " " : "", opts);
	x->steps[x->nsteps++] = "mark next-mount";
	x->steps[x->nsteps++] = "may umount";
	x->steps[x->nsteps++] = "may drop-caches";
	x->steps[x->nsteps++] = x->next_mount_step;
	x->steps[x->nsteps++] = "may walk";
	x->steps[x->nsteps++] = FB_PROBE_STEP;
	x->steps[x->nsteps++] = FB_PROBE_READ_STEP;
	x->steps[x->nsteps++] = "may umount";
}

/*
 * [workload] errors = X: every mount step that sets no errors= gets
 * errors=X, appended to its options (the last word of the step).
 */
static void add_errors_option(struct casectx *x)
{
	const struct fb_scenario *s = x->s;
	char why[256];
	struct step st;

	if (!s->errors)
		return;
	x->errors_steps = xcalloc(s->nsteps + 1, sizeof(char *));
	for (int i = 0; i < s->nsteps; i++) {
		size_t len = strlen(s->steps[i]) + 32;

		if (step_parse(s->steps[i], &st, why, sizeof(why)) ||
		    st.id != STEP_MOUNT || strstr(s->steps[i], "errors="))
			continue;
		x->errors_steps[i] = xrealloc(NULL, len);
		snprintf(x->errors_steps[i], len, "%s%serrors=%s", s->steps[i],
			 st.argc ? "," : " ", s->errors);
		x->steps[i] = x->errors_steps[i];
	}
}

/*
 * The target's bytes, for the agent's bio witness ("watch OFFSET LENGTH",
 * witness/bioread.h): every case whose target has a place on the disk, unless
 * FLIPBED_BIOREAD=0 (the benchmark's run without it).
 */
static void set_watch(struct casectx *x)
{
	const char *env = getenv("FLIPBED_BIOREAD");
	long long off = -1, len = -1;
	json_t *v;

	x->watch[0] = '\0';
	if (env && !strcmp(env, "0"))
		return;
	if ((v = json_object_get(x->tgt.record, "offset")) && json_is_integer(v))
		off = json_integer_value(v);
	if ((v = json_object_get(x->tgt.record, "length")) && json_is_integer(v))
		len = json_integer_value(v);
	if (x->tgt.nrules && off >= 0 && len > 0)
		snprintf(x->watch, sizeof(x->watch), "%lld %lld", off, len);
}

/* The image copy, the target and the rules; 0 when the case can boot. */
int case_prepare(struct casectx *x, const struct fb_golden *g)
{
	char why[512], path[PATH_MAX + 32];
	FILE *rf;
	double cpu;

	if (x->infra[0])
		return -1;
	if (unmet(x->c, why, sizeof(why))) {
		x->verdict = FB_VERDICT_SKIP;
		snprintf(x->out.infra, sizeof(x->out.infra), "%s", why);
		return -1;
	}
	x->nsteps = x->c->scn->nsteps + FB_PROBE_STEPS;
	x->steps = xrealloc(NULL, (x->nsteps + NEXT_PASS_STEPS) * sizeof(char *));
	for (int i = 0; i < x->c->scn->nsteps; i++)
		x->steps[i] = x->c->scn->steps[i];
	x->steps[x->nsteps - 2] = FB_PROBE_STEP;
	x->steps[x->nsteps - 1] = FB_PROBE_READ_STEP;
	add_errors_option(x);
	if (x->s->next_mount)
		add_next_pass(x);
	x->step_ns = xcalloc(x->nsteps, sizeof(*x->step_ns));
	cpu = case_thread_cpu();
	if (fb_image_copy(g->path, x->image)) {
		case_set_infra(x, "cannot copy %s to %s: %s", g->path, x->image, strerror(errno));
		return -1;
	}
	case_cpu_add(x, "image", case_thread_cpu() - cpu);
	if (make_rules(x, x->image))
		return -1;
	set_watch(x);
	snprintf(path, sizeof(path), "%s/rules.txt", x->dir);
	rf = fopen(path, "w");
	for (int i = 0; rf && i < x->tgt.nrules; i++)
		fprintf(rf, "%s\n", x->tgt.rules[i]);
	if (rf)
		fclose(rf);
	return 0;
}

/* After the boot: e2fsck and the data oracle on the image the guest left. */
void case_check_image(struct casectx *x, const struct fb_golden *g)
{
	char path[PATH_MAX + 32], why[160];
	json_t *fsck_cpu = json_object();
	double t = fb_now();

	x->written = FB_DATA_NOT_CHECKED;
	snprintf(path, sizeof(path), "%s/fsck.txt", x->dir);
	json_object_set_new(x->cpu, "fsck", fsck_cpu);
	x->out.fsck = fb_fsck_check(x->image, path, x->fsck_codes, x->fsck_problems, fsck_cpu,
				    why, sizeof(why));
	if (*why)
		case_set_infra(x, "%s", why);
	x->out.data = check_data(x, g, x->image, x->ddetail, sizeof(x->ddetail));
	x->t_fsck = fb_now() - t;
	case_checked(x);
}

void case_checked(struct casectx *x)
{
	x->checked = true;
	x->cut = fb_proc_interrupted();
}

/*
 * Whether the csum-error lines of DMESG name the object the fault hit:
 * n/a on a kernel that prints none (stock) or for a fault that breaks no
 * checksum (target.h).
 */
static void attribute(struct casectx *x, const char *dmesg)
{
	const struct fb_kernel *k = fb_kernel_find(x->c->kernel);

	if (!k || !k->csum_lines || !x->tgt.breaks_csum)
		return;
	fb_csum_object_format(&x->tgt.csum_error, x->hit, sizeof(x->hit));
	x->out.attrib = fb_attrib_check(dmesg, strlen(dmesg), &x->tgt.csum_error,
					x->out.attrib_detail, sizeof(x->out.attrib_detail));
}

/*
 * The outcome of the workload, and of the next-mount pass when it ran:
 * each classified from its own part of the transcript. A WARNING in
 * either is the case's.
 */
static void classify_passes(struct casectx *x, const char *text, size_t len)
{
	char *first = NULL, *second = NULL;
	size_t flen, slen;
	struct fb_outcome next;

	if (fb_transcript_split(text, len, "next-mount", &first, &flen, &second, &slen)) {
		fb_classify(text, len, &x->out);
		return;
	}
	fb_classify(first, flen, &x->out);
	if (second && fb_classify(second, slen, &next) == 0) {
		struct fb_signals *s = &x->out.sig;

		/*
		 * The order property reads the pass that reported first: the
		 * next mount's when the workload logged no error line and
		 * got no FAN_FS_ERROR event
		 */
		if (!s->csum_line && !s->before_line[0] && !s->fan_first[0]) {
			s->csum_line = next.sig.csum_line;
			memcpy(s->before_line, next.sig.before_line, sizeof(s->before_line));
			memcpy(s->before_func, next.sig.before_func, sizeof(s->before_func));
			memcpy(s->fan_first, next.sig.fan_first, sizeof(s->fan_first));
		}
		x->out.next_ran = true;
		x->out.detect_next = next.detect;
		x->out.reaction_next = next.reaction;
		snprintf(x->out.detail_next, sizeof(x->out.detail_next), "%s", next.detail);
		x->out.warning |= next.warning;
	}
	free(first);
	free(second);
}

/*
 * The agent's bio witness as the case record's "bio_reads", made once,
 * with the step the fault first fired in (the earliest fault record).
 */
static void load_bio_reads(struct casectx *x)
{
	long long first = -1;
	unsigned step = 0;
	size_t i;
	json_t *f;

	if (x->bio_reads)
		return;
	load_faults(x);
	json_array_foreach(x->faults, i, f) {
		json_t *ns = json_object_get(f, "ns");

		if (json_is_integer(ns) && (first < 0 || json_integer_value(ns) < first))
			first = json_integer_value(ns);
	}
	if (first >= 0 && x->step_ns)
		step = fb_bioread_fault_step(first, x->step_ns, x->nsteps);
	x->bio_reads = fb_bioread_json(&x->br, x->watch[0], step);
}

/*
 * Whether the guest read the bytes the fault changed and, when neither
 * pass detected anything, why (undetected.h).
 */
static void explain_undetected(struct casectx *x)
{
	json_t *faults, *witness;
	bool overwritten;

	x->out.fault_read = -1;
	x->out.undetected = FB_UNDET_NA;
	if (!x->tgt.nrules)
		return;
	load_faults(x);
	load_bio_reads(x);
	faults = x->faults;
	witness = x->witness;
	x->out.fault_read = fb_fault_was_read(x->tgt.record, faults, witness, &overwritten);
	if (x->out.detect == FB_DETECT_NONE &&
	    (!x->out.next_ran || x->out.detect_next == FB_DETECT_NONE))
		x->out.undetected = fb_undetected_cause(x->tgt.record, x->tgt.breaks_csum,
							faults, witness, x->step_results,
							x->bio_reads);
}

/*
 * A loss of what the workload was acknowledged for is data lost (or
 * changed) detected or not; data_detail says which: the detect class of
 * either pass, or the workload's read that failed with a checksum, sanity
 * or I/O error (an ENOENT or EBADDATA read saw the loss, not a detection).
 */
static void note_detection(struct casectx *x)
{
	enum fb_detect d = x->out.detect;
	size_t n = strlen(x->ddetail);
	const char *how;

	if (!x->data_ref || strcmp(x->data_ref, ACKED_REF))
		return;
	if (d == FB_DETECT_NONE && x->out.next_ran)
		d = x->out.detect_next;
	if (d != FB_DETECT_NONE)
		how = fb_detect_name(d);
	else if (strstr(x->ddetail, "got EBADMSG") || strstr(x->ddetail, "got EUCLEAN") ||
		 strstr(x->ddetail, "got EIO"))
		how = "by the read";
	else
		how = NULL;
	snprintf(x->ddetail + n, sizeof(x->ddetail) - n, "; %s%s", how ? "detected: " : "not detected",
		 how ? how : "");
}

/*
 * A case whose workload and next-mount pass detected nothing and whose
 * steps all succeeded (but for failures they expected or allowed) ran as
 * on a healthy disk:
 * every file the workload wrote must then hold what it wrote, and one that
 * does not is a silent data change (or loss) the golden comparison, which
 * skips those paths, cannot see.
 */
static void judge_written(struct casectx *x)
{
	size_t i;
	json_t *r;

	note_detection(x);
	if (x->out.data != FB_DATA_INTACT ||
	    (x->written != FB_DATA_CHANGED && x->written != FB_DATA_LOST) ||
	    x->out.detect != FB_DETECT_NONE ||
	    (x->out.next_ran && x->out.detect_next != FB_DETECT_NONE))
		return;
	json_array_foreach(x->step_results, i, r) {
		const char *text = json_string_value(json_object_get(r, "text"));
		const char *result = json_string_value(json_object_get(r, "result"));

		/* a failure a step expected, or allowed (may: the harness's probes) */
		if (!text || !result || (strcmp(result, "ok") && strncmp(text, "expect ", 7) &&
					 strncmp(text, "may ", 4)))
			return;
	}
	x->out.data = x->written;
	x->data_ref = "what the workload's steps wrote";
	snprintf(x->ddetail, sizeof(x->ddetail), "%s", x->wdetail);
}

/* Classify the transcript and judge the outcome against the expectation. */
void case_judge(struct casectx *x, const struct fb_golden *g)
{
	char path[PATH_MAX + 32];
	size_t len;
	char *text;

	if (x->transcript) {
		fclose(x->transcript);
		x->transcript = NULL;
		snprintf(path, sizeof(path), "%s/transcript.log", x->dir);
		text = fb_slurp(path, &len);
		if (text) {
			enum fb_fsck f = x->out.fsck;
			enum fb_data d = x->out.data;
			char *dm = NULL;

			classify_passes(x, text, len);
			x->out.fsck = f;
			x->out.data = d;
			if (fb_dmesg_text(text, len, &dm) == 0) {
				write_text(x->dir, "dmesg.txt", dm);
				write_trace(x, dm);
				attribute(x, dm);
			}
			free(dm);
			free(text);
		}
	}
	if (fb_golden_check(g))
		case_set_infra(x, "golden image %s changed during the case", g->path);
	/* a fault that never fired says nothing about the kernel (watch rules never fire) */
	load_faults(x);
	if (x->tgt.nrules && !x->tgt.watch_only && !json_array_size(x->faults))
		case_set_infra(x, "the fault never fired: no request touched its bytes after it was armed at '%s' (%s)",
			  x->s->timing == FB_TIMING_REST ? "boot" : x->s->arm, x->tgt.rules[0]);
	if (x->infra[0] && !x->out.infra[0])
		snprintf(x->out.infra, sizeof(x->out.infra), "%s", x->infra);
	if (x->out.infra[0]) {
		x->verdict = FB_VERDICT_INFRA;
		return;
	}
	judge_written(x);
	explain_undetected(x);
	judge_steps(x, x->mismatch);
	x->verdict = judge(x, x->hit, x->mismatch);
}

/*
 * The case a signal cut short is interrupted, whatever it had found so
 * far: a boot, an e2fsck or a data check stopped early says nothing of
 * the kernel (e2fsck's "not-run" would read as a failed expectation).
 * Its outcome.infra says what was cut; its mismatches and its list of
 * acknowledged files are dropped.
 */
static void set_interrupted(struct casectx *x, int sig)
{
	char was[sizeof(x->out.infra)];

	snprintf(was, sizeof(was), "%s", x->out.infra);
	if (!strstr(was, "interrupted by"))
		snprintf(x->out.infra, sizeof(x->out.infra), "interrupted by %s%s%s", strsignal(sig),
			 *was ? ": " : x->checked ? " while its image was checked" : "", was);
	x->verdict = FB_VERDICT_INTERRUPTED;
	x->out.fsck = FB_FSCK_NOT_RUN;
	x->out.data = FB_DATA_NOT_CHECKED;
	x->ddetail[0] = '\0';
	/* a data check cut short judged nothing: no file was found lost */
	if (x->acked)
		json_array_clear(x->acked);
	json_array_clear(x->mismatch);
}

/*
 * A skipped case keeps its verdict; every other case with an infra reason
 * is infra, whichever step set it: it must never read as a pass. A case
 * is cut short when the signal had come by the end of its image's checks
 * or, if it never got to them, by now (nbdkit or QEMU starting, a rule
 * being armed, a copy), unless it had failed for a reason of its own
 * before the signal: it is interrupted, so that a resumed campaign runs
 * it again rather than count it as a failure.
 */
static void settle_verdict(struct casectx *x)
{
	int sig = x->checked ? x->cut : x->infra[0] && x->infra_own ? 0 : fb_proc_interrupted();

	if (x->verdict == FB_VERDICT_SKIP)
		return;
	if (x->infra[0]) {
		if (!x->out.infra[0])
			snprintf(x->out.infra, sizeof(x->out.infra), "%s", x->infra);
		x->verdict = FB_VERDICT_INFRA;
	}
	if (sig)
		set_interrupted(x, sig);
}

/* Free what case_open and case_prepare took. */
static void case_free(struct casectx *x)
{
	if (x->transcript) {
		fclose(x->transcript);
		x->transcript = NULL;
	}
	fb_target_free(&x->tgt);
	free(x->steps);
	free(x->step_ns);
	for (int i = 0; x->errors_steps && i < x->s->nsteps; i++)
		free(x->errors_steps[i]);
	free(x->errors_steps);
	json_decref(x->cpu);
	x->cpu = NULL;
}

void case_forget(struct casectx *x)
{
	case_free(x);
	if (fb_remove_tree(x->dir))
		fprintf(stderr, "flipbed: %s: cannot remove %s: %s\n", x->c->name, x->dir,
			strerror(errno));
}

/* case.json: everything the case found, its verdict and its repro. */
int case_record(struct casectx *x, const struct fb_golden *g)
{
	const struct fb_case_spec *c = x->c;
	char path[PATH_MAX + 32], stamp[32];
	char *repro = fb_case_repro(c);
	json_t *rec, *expect = json_object(), *rules = json_array();
	int rc;

	settle_verdict(x);
	if (x->transcript) {
		fclose(x->transcript);
		x->transcript = NULL;
	}
	rec = json_pack("{s:s, s:s, s:s?, s:o, s:o, s:s, s:s}",
			"case", c->name, "scenario", c->scn->file, "shows", c->scn->shows,
			"groups", strv_json(c->scn->groups, c->scn->ngroups),
			"params", params_json(c), "kernel", c->kernel, "mkfs", g->mkfs);
	json_object_set_new(rec, "dir", json_sprintf("cases/%s", x->sub));
	json_object_set_new(rec, "target", x->tgt.record ? json_incref(x->tgt.record) : json_null());
	for (int i = 0; i < x->tgt.nrules; i++)
		json_array_append_new(rules, json_string(x->tgt.rules[i]));
	json_object_set_new(rec, "rules", rules);
	load_faults(x);
	json_object_set_new(rec, "faults", x->faults);
	json_object_set_new(rec, "witness", x->witness);
	json_object_set_new(rec, "steps", x->step_results);
	write_outcome(rec, &x->out);
	fb_fserror_record(rec, &x->fse, &x->out, x->verdict);
	load_bio_reads(x);
	json_object_set_new(rec, "bio_reads", x->bio_reads ? x->bio_reads : json_null());
	x->bio_reads = NULL;
	/* a skipped case never booted: it has no counters to miss */
	json_t *cov = x->verdict == FB_VERDICT_SKIP ? NULL : fb_gcov_recv_json(&x->gcov);
	if (cov)
		json_object_set_new(rec, "coverage", cov);
	json_object_set_new(rec, "data_detail", json_string(x->ddetail));
	json_object_set_new(rec, "acknowledged", x->acked ? x->acked : json_array());
	x->acked = NULL;
	json_object_set_new(rec, "data_reference", x->data_ref ? json_string(x->data_ref) : json_null());
	json_object_set_new(rec, "fsck_exit", x->fsck_codes);
	json_object_set_new(rec, "cpu", x->cpu);
	x->cpu = NULL;
	json_object_set_new(rec, "fsck_problems", x->fsck_problems);
	for (int f = 0; f < FB_EXP__COUNT; f++)
		json_object_set_new(expect, fb_expect_names[f], json_string(x->expect.field[f]));
	json_object_set_new(rec, "expect", expect);
	json_object_set_new(rec, "expect_computed", !x->computed.on ? json_null() :
		json_pack("{s:s, s:s}", "detect", x->computed.detect, "why", x->computed.why));
	json_object_set_new(rec, "order_violation", !x->order_broken ? json_null() :
		json_pack("{s:s, s:s, s:o}", "first_line", x->order.first_line,
			  "function", x->order.function, "fanotify",
			  x->order.fanotify[0] ? json_string(x->order.fanotify) : json_null()));
	json_object_set_new(rec, "verdict", json_string(fb_verdict_name(x->verdict)));
	json_object_set_new(rec, "mismatch", x->mismatch);
	json_object_set_new(rec, "durations", json_pack("{s:f, s:f, s:f, s:f, s:f}",
		"image", x->t_image, "boot", x->t_boot, "workload", x->t_work,
		"fsck", x->t_fsck, "total", fb_now() - x->t0));
	fb_utc_stamp(stamp, sizeof(stamp));
	json_object_set_new(rec, "finished", json_string(stamp));
	json_object_set_new(rec, "repro", json_string(repro));
	if (x->batch)
		json_object_set_new(rec, "vm", x->batch);
	x->batch = NULL;
	snprintf(path, sizeof(path), "%s/case.json", x->dir);
	rc = json_dump_file(rec, path, JSON_INDENT(2) | JSON_SORT_KEYS);
	/* an image is kept for a look at what failed, not at what was cut short */
	if (!x->o->keep && (x->verdict == FB_VERDICT_PASS || x->verdict == FB_VERDICT_SKIP ||
			    x->verdict == FB_VERDICT_INTERRUPTED))
		unlink(x->image);
	case_free(x);
	free(repro);
	json_decref(rec);
	return rc ? -1 : 0;
}

static int guest_slot = -1;

void fb_case_guest_slot(int fd)
{
	guest_slot = fd;
}

void fb_case_guest_done(void)
{
	if (guest_slot < 0)
		return;
	close(guest_slot);	/* the run reads the pipe's end */
	guest_slot = -1;
}

int fb_case_run(const struct fb_case_spec *c, const struct fb_golden *g,
		const struct fb_run_opts *o, const char *priv)
{
	struct casectx x = { .c = c, .s = c->scn, .o = o, .t0 = fb_now() };
	struct fb_vm_result vr = { 0 };

	if (case_open(&x, priv))
		return -1;
	if (case_prepare(&x, g) == 0) {
		x.t_image = fb_now() - x.t0;
		int booted = boot_case(&x, &vr, &x.t_boot, &x.t_work);

		fb_case_guest_done();
		if (booted == 0)
			case_check_image(&x, g);
		case_judge(&x, g);
	}
	return case_record(&x, g);
}

void case_cpu_add(struct casectx *x, const char *key, double seconds)
{
	json_t *v = json_object_get(x->cpu, key);

	if (!x->cpu || seconds < 0)
		return;
	json_object_set_new(x->cpu, key, json_real(json_number_value(v) + seconds));
}

double case_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

// SPDX-License-Identifier: MIT
/*
 * Many cases in one boot (batch.h). Each case keeps everything it has
 * alone: its directory, its copy of the image served by its own nbdkit
 * (one virtio-blk disk each, known to the guest by its serial number), its
 * rules armed at its own point, its transcript, its e2fsck and data
 * oracle. Only the kernel is shared, so a case that may have changed it
 * for the next ends the boot after itself:
 *
 * - a case whose kernel lines hold a WARNING, BUG, oops, KASAN or UBSAN
 *   report (WARN_ONCE and friends would stay silent in the next case), a
 *   hung task, a lockdep report, an I/O error (the block layer's and the
 *   buffer cache's I/O error lines are rate-limited for the whole kernel)
 *   or a rate limit that has begun to drop messages, or that printed so
 *   many warnings of other subsystems than ext4 and jbd2 (whose limits
 *   are per filesystem) that some rate limit may still be counting;
 * - a case that left /mnt mounted;
 * - a case that ended the boot itself (panic, timeout, power cut): the
 *   boot is over anyway.
 *
 * The cases after it run in a fresh boot, from a fresh copy of their
 * image. The boot's lines go to one log; the agent marks the start of each
 * case in the kernel log ("flipbed-mark case-SERIAL"), and the log is cut
 * at the marks (classify/split.h) into each case's transcript: the boot's
 * first lines, then the case's own. A case that ended without ending the
 * boot gets "H exit clean", as after its reboot when alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot/nbd.h"
#include "boot/proc.h"
#include "boot/vm.h"
#include "classify/split.h"
#include "kernels.h"
#include "kernel_modules.h"
#include "paths.h"
#include "run/batch.h"
#include "run/casectx.h"
#include "run/runcase.h"
#include "golden/golden.h"
#include "util.h"

/* kernel lines at level 4 (warning) or more severe that make a case noisy */
#define NOISY_LINES 10

struct boot {
	struct casectx *x;		/* every case of the batch */
	int *order;			/* the cases of this boot, in the order they run */
	int n;
	int cur;			/* the index in ORDER of the case running, -1 before the first */
	int finished;			/* cases of ORDER that said "done" */
	bool halt;			/* a case asked the boot to end after it */
	char why[160];			/* ... and why (case.json "vm": "ended_boot") */
	bool in_case;			/* the current case's mark has come: its lines count */
	bool mounted;			/* the current case left /mnt mounted */
	bool released;			/* ... and the agent has unmounted it */
	char serial[FB_VM_MAX_DISKS][16];
	int noisy;			/* the current case's warnings so far */
	double t_ready, t_start;
	const struct fb_vm_result *vr;	/* the boot's: QEMU's process while it runs */
	double cpu_start;		/* QEMU's CPU when the current case started; -1: counted */
	struct timespec t0;
	FILE *log;
	int boot_no;
};

static double now_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static struct casectx *current(struct boot *b)
{
	return b->cur >= 0 && b->cur < b->n ? &b->x[b->order[b->cur]] : NULL;
}

/* What in kernel line TEXT may have changed what the next case would see, or NULL. */
static const char *changes_kernel(const char *text)
{
	static const char *const what[] = {
		"WARNING:", "BUG:", "UBSAN:", "Oops", "KASAN", "Kernel panic",
		"INFO: task", "blocked for more than", "possible recursive locking",
		"possible circular locking", "inconsistent lock state", "cut here", "Call Trace",
		"callbacks suppressed", "checksum error reports suppressed", "ratelimit",
		"RIP:", "I/O error",
	};

	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		if (strstr(text, what[i]))
			return what[i];
	return NULL;
}

/* The current case ends the boot after itself, for the first reason given. */
__attribute__((format(printf, 2, 3)))
static void halt(struct boot *b, const char *fmt, ...)
{
	va_list ap;

	if (b->halt)
		return;
	b->halt = true;
	va_start(ap, fmt);
	vsnprintf(b->why, sizeof(b->why), fmt, ap);
	va_end(ap);
}

/* "kmsg SEQ LEVEL USEC TEXT": LEVEL, or -1; *TEXT gets TEXT. */
static int kmsg_level(const char *line, const char **text)
{
	unsigned long long seq, usec;
	int level, n = 0;

	if (sscanf(line, "kmsg %llu %d %llu %n", &seq, &level, &usec, &n) != 3 || !n)
		return -1;
	*text = line + n;
	return level;
}

/*
 * Whether a warning line counts towards NOISY_LINES: ext4's and jbd2's own
 * messages do not (ext4 rate-limits its errors and warnings per
 * filesystem, jbd2 not at all: nothing of them is left for the next
 * case's filesystem); any other subsystem's might be rate-limited for the
 * whole kernel.
 */
static bool counts_as_noise(const char *text)
{
	return strncmp(text, "EXT4-fs", 7) && strncmp(text, "JBD2", 4) &&
	       strncmp(text, "Aborting journal on device", 26);
}

static void on_console(void *ctx, const char *line)
{
	struct boot *b = ctx;
	struct casectx *x = current(b);

	const char *what = x && b->in_case ? changes_kernel(line) : NULL;

	fprintf(b->log, "C %s\n", line);
	if (what)
		halt(b, "a console line says '%s'", what);
	if (x && x->o->verbose)
		fprintf(stderr, "%s: C %s\n", x->c->name, line);
}

static void on_agent(void *ctx, const char *line)
{
	struct boot *b = ctx;
	struct casectx *x = current(b);
	const char *text = "", *what;
	int level;

	if (!x) {
		fprintf(b->log, "A %s\n", line);
		return;
	}
	case_on_agent(x, line);		/* writes to x->log: the boot's log */
	level = kmsg_level(line, &text);
	/*
	 * Kernel lines count from the case's own mark: the agent forwards the
	 * boot's messages after "ready" (a debug kernel's boot says "RCU
	 * lockdep checking is enabled"), and those are the boot's.
	 */
	if (level >= 0 && !b->in_case) {
		char mark[48];

		snprintf(mark, sizeof(mark), "flipbed-mark case-%s", b->serial[b->cur]);
		b->in_case = !strcmp(text, mark);
		return;
	}
	if (level >= 0 && (what = changes_kernel(line)))
		halt(b, "a kernel line says '%s'", what);
	if (level >= 0 && level <= 4 && counts_as_noise(text) && ++b->noisy >= NOISY_LINES)
		halt(b, "%d kernel lines at warning level or worse, not ext4's or jbd2's",
		     NOISY_LINES);
	if (!strncmp(line, "done ", 5) && strstr(line, " mounted"))
		b->mounted = true;
	if (!strncmp(line, "released ", 9) && strcmp(line, "released ok"))
		halt(b, "/mnt is still mounted after the release (%s)", line + 9);
}

static int on_wait(void *ctx, const char *name)
{
	struct boot *b = ctx;
	struct casectx *x = current(b);

	return x ? case_on_wait(x, name) : 0;
}

/* Case K of this boot starts: its batch record and its clock. */
static void start_case(struct boot *b, int k)
{
	struct casectx *x = &b->x[b->order[k]];

	b->cur = k;
	b->noisy = 0;
	b->mounted = b->released = b->in_case = false;
	b->t_start = now_since(&b->t0);
	x->t_boot = k == 0 ? b->t_ready : 0;
	/* QEMU's CPU from here to the case's end is the case's; before case 0, the boot's */
	b->cpu_start = b->vr && b->vr->qemu ? fb_proc_cpu_now(b->vr->qemu) : -1;
	if (k == 0)
		case_cpu_add(x, "qemu_boot", b->cpu_start);
	json_decref(x->batch);
	x->batch = json_pack("{s:i, s:i, s:i}", "boot", b->boot_no, "place", k + 1, "cases", b->n);
}

static int on_next(void *ctx, struct fb_vm_segment *seg)
{
	struct boot *b = ctx;
	struct casectx *x = current(b);

	if (x && !b->released)
		x->t_work = now_since(&b->t0) - b->t_start;
	if (x && b->cpu_start >= 0 && b->vr->qemu) {
		case_cpu_add(x, "qemu", fb_proc_cpu_now(b->vr->qemu) - b->cpu_start);
		b->cpu_start = -1;
	}
	b->finished = b->cur + 1;
	if (b->halt && x && b->cur + 1 < b->n)
		json_object_set_new(x->batch, "ended_boot", json_string(b->why));
	if (b->halt || fb_proc_interrupted() || b->cur + 1 >= b->n)
		return 0;
	/*
	 * The case left its filesystem mounted: alone, it would end in a
	 * reboot that writes nothing more. Its disk is frozen first (nothing
	 * written from now on reaches its image or fault log), then the
	 * agent unmounts it; its lines from there are the release's, kept
	 * out of the case's transcript, and still judged for the next case.
	 */
	if (b->mounted && !b->released) {
		char reply[256];

		if (fb_nbd_control(&x->nbd, "freeze", reply, sizeof(reply))) {
			json_object_set_new(x->batch, "ended_boot",
					    json_sprintf("its disk could not be frozen: %s", reply));
			return 0;
		}
		b->released = true;
		return 2;
	}
	start_case(b, b->cur + 1);
	x = current(b);
	seg->serial = b->serial[b->cur];
	seg->watch = *x->watch ? x->watch : NULL;
	seg->steps = x->steps;
	seg->nsteps = x->nsteps;
	seg->timeout = x->s->timeout;
	return 1;
}

/* The agent said "ready": the first case starts. */
static void on_agent_first(struct boot *b, const char *line)
{
	if (b->cur < 0 && !strcmp(line, "ready")) {
		b->t_ready = now_since(&b->t0);
		start_case(b, 0);
	}
}

static void hook_agent(void *ctx, const char *line)
{
	struct boot *b = ctx;

	/* "ready" belongs to the boot; the hook before it sends case 0's steps */
	if (b->cur < 0) {
		fprintf(b->log, "A %s\n", line);
		on_agent_first(b, line);
		return;
	}
	on_agent(ctx, line);
}

/*
 * Write case K's transcript: the boot's first lines, its own, and its end:
 * EXIT_LINE, the boot's end, for the case that was running when it came;
 * "H exit clean" for one that finished before, as after its reboot alone.
 */
static void write_transcript(struct boot *b, int k, char **parts, const char *exit_line)
{
	struct casectx *x = &b->x[b->order[k]];

	if (!x->transcript)
		return;
	fputs(parts[0], x->transcript);
	fputs(parts[2 * k + 1], x->transcript);
	fprintf(x->transcript, "H exit %s\n", exit_line ? exit_line : "clean");
}

/*
 * Cut the boot's log into the transcripts of the cases that ran. EXIT_LINE
 * is the boot's end, given to the case it ended; NULL when the boot ended
 * cleanly after the last case that ran ("clean").
 */
static void cut_log(struct boot *b, int ran, const char *exit_line, const char *logpath)
{
	/* each case's mark, then its release's (when it had one) */
	const char *words[2 * FB_VM_MAX_DISKS];
	char mark[2 * FB_VM_MAX_DISKS][32], *parts[2 * FB_VM_MAX_DISKS + 1];
	size_t lens[2 * FB_VM_MAX_DISKS + 1], len;
	char *text;

	fflush(b->log);
	text = fb_slurp(logpath, &len);
	for (int k = 0; k < ran; k++) {
		snprintf(mark[2 * k], sizeof(mark[0]), "case-%s", b->serial[k]);
		snprintf(mark[2 * k + 1], sizeof(mark[0]), "release-%s", b->serial[k]);
		words[2 * k] = mark[2 * k];
		words[2 * k + 1] = mark[2 * k + 1];
	}
	if (!text || fb_transcript_cut(text, len, words, 2 * ran, parts, lens)) {
		for (int k = 0; k < ran; k++)
			case_set_infra(&b->x[b->order[k]], "cannot cut the batch's log %s", logpath);
		free(text);
		return;
	}
	for (int k = 0; k < ran; k++)
		write_transcript(b, k, parts, k == ran - 1 ? exit_line : NULL);
	for (int k = 0; k <= 2 * ran; k++)
		free(parts[k]);
	free(text);
}

/*
 * One boot of the cases ORDER[0..N-1] (all prepared, none started). It
 * reorders ORDER so that the cases it used up come first (those whose disk
 * could not be served, then those that ran: to their "done", or until the
 * boot ended) and returns how many; the rest run again.
 */
static int boot_batch(struct casectx *all, int *order, int n, int boot_no, const char *priv)
{
	struct boot b = { .x = all, .cur = -1, .boot_no = boot_no };
	struct fb_vm_disk disks[FB_VM_MAX_DISKS];
	struct fb_proc *peers[FB_VM_MAX_DISKS];
	struct fb_vm_config vc = { 0 };
	struct fb_vm_hooks h = { .ctx = &b, .console = on_console, .agent = hook_agent,
				 .wait = on_wait, .next = on_next };
	struct fb_vm_result vr = { 0 };
	char kernel[PATH_MAX], initrd[PATH_MAX], logpath[PATH_MAX + 32];
	const struct fb_kernel *k = fb_kernel_find(all[order[0]].c->kernel);
	const char *exit_line = NULL;
	int failed = 0, ran, started[FB_VM_MAX_DISKS], nstarted = 0;

	/* a case whose disk cannot be served is used up: it says why */
	for (int i = 0; i < n; i++) {
		if (case_start_disk(&all[order[i]]))
			order[failed++] = order[i];
		else
			started[nstarted++] = order[i];
	}
	memcpy(order + failed, started, nstarted * sizeof(int));
	if (!nstarted)
		return n;
	b.order = order + failed;
	b.n = nstarted;
	snprintf(logpath, sizeof(logpath), "%s/batch-%d.log", priv, boot_no);
	b.log = fopen(logpath, "w+");
	if (!b.log) {
		for (int i = 0; i < b.n; i++) {
			case_set_infra(&all[b.order[i]], "cannot write %s: %s", logpath, strerror(errno));
			fb_nbd_stop(&all[b.order[i]].nbd);
		}
		return n;
	}
	setvbuf(b.log, NULL, _IOLBF, 0);
	for (int i = 0; i < b.n; i++) {
		struct casectx *x = &all[b.order[i]];

		snprintf(b.serial[i], sizeof(b.serial[i]), "fb%d", i);
		disks[i].sock = x->nbd.sock;
		disks[i].serial = b.serial[i];
		peers[i] = &x->nbd.proc;
		x->log = b.log;
	}
	fb_path_kernel(k, kernel, sizeof(kernel));
	if (!fb_modules_initrd(k, initrd, sizeof(initrd))) {
		for (int i = 0; i < b.n; i++) {
			case_set_infra(&all[b.order[i]], "kernel %s: its modules: see the messages before",
				       k->name);
			fb_nbd_stop(&all[b.order[i]].nbd);
		}
		fclose(b.log);
		return n;
	}
	vc.kernel = kernel;
	vc.initrd = initrd;
	vc.disks = disks;
	vc.ndisks = b.n;
	vc.serial = b.serial[0];
	vc.watch = *all[b.order[0]].watch ? all[b.order[0]].watch : NULL;
	vc.coverage = k->gcov;
	vc.dir = priv;
	vc.mem_mb = k->mem_mb;
	vc.pci = k->modules != NULL;
	vc.timeout = all[b.order[0]].s->timeout;
	vc.steps = all[b.order[0]].steps;
	vc.nsteps = all[b.order[0]].nsteps;
	vc.peers = peers;
	vc.npeers = b.n;
	clock_gettime(CLOCK_MONOTONIC, &b.t0);
	b.vr = &vr;
	b.cpu_start = -1;
	if (fb_vm_run(&vc, &h, &vr) < 0) {
		struct casectx *x = &all[b.order[0]];

		for (int i = 0; i < b.n; i++) {
			all[b.order[i]].log = all[b.order[i]].transcript;
			fb_nbd_stop(&all[b.order[i]].nbd);
		}
		case_set_infra(x, "qemu: %s", vr.why);
		fprintf(x->transcript, "H exit qemu-error %s\n", vr.why);
		fclose(b.log);
		return failed + 1;
	}
	/*
	 * The cases that ran: after a clean end (a "halt", or a power cut
	 * after "done"), those that said "done", the last of them ending
	 * clean; after any other end, every case up to the one running, which
	 * gets that end (one that never came up: the first).
	 */
	if (vr.end == FB_VM_END_CLEAN) {
		ran = b.finished;
	} else {
		if (b.cur < 0)
			start_case(&b, 0);
		ran = b.cur + 1;
		exit_line = case_exit_line(&vr, &all[b.order[ran - 1]]);
	}
	/* the case QEMU ended in: its share is up to QEMU's exit */
	if (b.cur >= 0 && b.cpu_start >= 0)
		case_cpu_add(&all[b.order[b.cur]], "qemu", vr.t.cpu - b.cpu_start);
	for (int i = 0; i < b.n; i++)
		all[b.order[i]].log = all[b.order[i]].transcript;
	cut_log(&b, ran, exit_line, logpath);
	fclose(b.log);
	for (int i = 0; i < b.n; i++) {
		fb_nbd_stop(&all[b.order[i]].nbd);
		case_cpu_add(&all[b.order[i]], "nbdkit", fb_proc_cpu(&all[b.order[i]].nbd.proc));
	}
	for (int i = 0; i < ran; i++)
		all[b.order[i]].booted = true;
	if (vr.end == FB_VM_END_INFRA || vr.end == FB_VM_END_INTERRUPTED || vr.end == FB_VM_END_ABORTED)
		case_set_infra(&all[b.order[ran - 1]], "%s: %s", fb_vm_end_name(vr.end), vr.why);
	return failed + ran;
}

/*
 * The checks of one case in a child: what case_check_image() found, as
 * JSON in PATH for the parent (check_images).
 */
static void check_child(struct casectx *x, const struct fb_golden *g, const char *path)
{
	json_t *r;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	case_check_image(x, g);
	r = json_pack("{s:i, s:i, s:O, s:O, s:s, s:s?, s:s, s:f, s:i, s:s}",
		      "fsck", (int)x->out.fsck, "data", (int)x->out.data,
		      "codes", x->fsck_codes, "problems", x->fsck_problems,
		      "detail", x->ddetail, "reference", x->data_ref, "infra", x->infra,
		      "seconds", x->t_fsck, "written", (int)x->written, "wdetail", x->wdetail);
	if (r)
		json_object_set(r, "cpu", x->cpu);
	if (r && x->acked)
		json_object_set(r, "acked", x->acked);
	_exit(r && !json_dump_file(r, path, 0) ? 0 : 1);
}

/* Take back into X what its check child wrote to PATH; -1 if it wrote nothing. */
static int check_result(struct casectx *x, const char *path)
{
	json_t *r = json_load_file(path, 0, NULL), *v;

	unlink(path);
	if (!r)
		return -1;
	x->out.fsck = (enum fb_fsck)json_integer_value(json_object_get(r, "fsck"));
	x->out.data = (enum fb_data)json_integer_value(json_object_get(r, "data"));
	json_object_update(x->fsck_codes, json_object_get(r, "codes"));
	json_array_extend(x->fsck_problems, json_object_get(r, "problems"));
	snprintf(x->ddetail, sizeof(x->ddetail), "%s",
		 json_string_value(json_object_get(r, "detail")) ?: "");
	x->written = json_is_integer(json_object_get(r, "written")) ?
		     (enum fb_data)json_integer_value(json_object_get(r, "written")) :
		     FB_DATA_NOT_CHECKED;
	snprintf(x->wdetail, sizeof(x->wdetail), "%s",
		 json_string_value(json_object_get(r, "wdetail")) ?: "");
	v = json_object_get(r, "acked");
	x->acked = json_is_array(v) ? json_incref(v) : NULL;
	v = json_object_get(r, "reference");
	if (json_is_string(v))
		x->data_ref = xstrdup(json_string_value(v));	/* lives as long as the worker */
	if (json_string_length(json_object_get(r, "infra")))
		case_set_infra(x, "%s", json_string_value(json_object_get(r, "infra")));
	x->t_fsck = json_real_value(json_object_get(r, "seconds"));
	/* the phases the child ran; the parent's own (image, qemu, nbdkit) stay */
	v = json_object_get(json_object_get(r, "cpu"), "fsck");
	if (json_is_object(v))
		json_object_set(x->cpu, "fsck", v);
	case_cpu_add(x, "data", json_number_value(json_object_get(json_object_get(r, "cpu"), "data")) -
				json_number_value(json_object_get(x->cpu, "data")));
	json_decref(r);
	return 0;
}

/*
 * e2fsck and the data oracle of the N cases ORDER[0..N-1] a boot used up,
 * those that ran, at the same time, each in a child: they are
 * independent, and much of their time is waiting (e2fsck sleeps out the
 * MMP interval of an image whose MMP block a case left in use, 3.7 s a
 * run, three runs a case), which a batch's cases would otherwise wait one
 * after the other. A child that wrote nothing leaves its case infra.
 */
static void check_images(struct casectx *x, const struct fb_golden *g, const int *order, int n)
{
	pid_t pid[FB_VM_MAX_DISKS];
	char path[FB_VM_MAX_DISKS][PATH_MAX + 32];

	for (int i = 0; i < n; i++) {
		struct casectx *y = &x[order[i]];

		pid[i] = 0;
		if (!y->booted)
			continue;
		snprintf(path[i], sizeof(path[i]), "%s/check.json", y->dir);
		unlink(path[i]);
		fflush(NULL);
		pid[i] = fork();
		if (pid[i] == 0)
			check_child(y, &g[order[i]], path[i]);
		if (pid[i] < 0) {
			pid[i] = 0;
			case_check_image(y, &g[order[i]]);	/* no child: here */
		}
	}
	for (int i = 0; i < n; i++) {
		int status;

		if (!pid[i])
			continue;
		while (waitpid(pid[i], &status, 0) < 0 && errno == EINTR)
			;
		case_checked(&x[order[i]]);
		if (check_result(&x[order[i]], path[i]))
			case_set_infra(&x[order[i]], "the check of the image (e2fsck, data) %s",
				       WIFSIGNALED(status) ? "was killed by a signal" :
							     "ended without a result");
	}
}

/*
 * Case X did not run in the boot that ended before it: everything it had
 * for that boot goes, and it starts again from a fresh copy of the image
 * (a rule at rest changed the copy when it was armed). 0, or -1 with an
 * infra reason.
 */
static int reset_case(struct casectx *x, const struct fb_golden *g)
{
	char path[PATH_MAX + 32];
	double cpu;

	snprintf(path, sizeof(path), "%s/faults.jsonl", x->dir);
	unlink(path);
	/* a killed nbdkit leaves its sockets: the next would not bind them */
	snprintf(path, sizeof(path), "%s/nbd.sock", x->priv);
	unlink(path);
	snprintf(path, sizeof(path), "%s/control.sock", x->priv);
	unlink(path);
	x->armed = false;
	if (x->transcript) {
		snprintf(path, sizeof(path), "%s/transcript.log", x->dir);
		if (!freopen(path, "w", x->transcript)) {
			x->transcript = NULL;
			case_set_infra(x, "cannot write %s: %s", path, strerror(errno));
			return -1;
		}
		setvbuf(x->transcript, NULL, _IOLBF, 0);
		x->log = x->transcript;
	}
	cpu = case_thread_cpu();
	if (fb_image_copy(g->path, x->image)) {
		case_set_infra(x, "cannot copy %s to %s: %s", g->path, x->image, strerror(errno));
		return -1;
	}
	case_cpu_add(x, "image", case_thread_cpu() - cpu);
	return 0;
}

int fb_batch_run(const struct fb_case_spec *c, const struct fb_golden *g, int n,
		 const struct fb_run_opts *o, const char *priv)
{
	struct casectx *x = xcalloc(n, sizeof(*x));
	int *order = xcalloc(n, sizeof(int)), *ready = xcalloc(n, sizeof(int));
	int nready = 0, boots = 0, rc = 0;
	char sub[PATH_MAX + 16];
	bool *opened = xcalloc(n, sizeof(bool));

	for (int i = 0; i < n; i++) {
		x[i] = (struct casectx){ .c = &c[i], .s = c[i].scn, .o = o, .t0 = fb_now() };
		/* each case's sockets in a directory of its own */
		snprintf(sub, sizeof(sub), "%s/%d", priv && *priv ? priv : "", i);
		if (priv && *priv && mkdir(sub, 0700) && errno != EEXIST)
			sub[0] = '\0';
		if (case_open(&x[i], priv && *priv && *sub ? sub : NULL)) {
			rc = -1;
			continue;
		}
		opened[i] = true;
		if (case_prepare(&x[i], &g[i]) == 0) {
			x[i].t_image = fb_now() - x[i].t0;
			ready[nready++] = i;
		}
	}
	/* boots until every case ran, each using up at least one case */
	while (nready && !fb_proc_interrupted()) {
		int take = nready < FB_VM_MAX_DISKS ? nready : FB_VM_MAX_DISKS, used;

		memcpy(order, ready, take * sizeof(int));
		used = boot_batch(x, order, take, ++boots, priv);
		if (used < 1)
			used = 1;
		/* the cases of this boot that it did not use up run again */
		int keep = 0, left[FB_VM_MAX_DISKS];

		/* (none after an interruption: they never start) */
		for (int i = used; i < take; i++)
			if (fb_proc_interrupted() || reset_case(&x[order[i]], &g[order[i]]) == 0)
				left[keep++] = order[i];
		memmove(ready + keep, ready + take, (nready - take) * sizeof(int));
		memcpy(ready, left, keep * sizeof(int));
		nready = nready - take + keep;
		/* the last boot: the next worker's guest may run during these checks */
		if (!nready)
			fb_case_guest_done();
		check_images(x, g, order, used < take ? used : take);
		for (int i = 0; i < used && i < take; i++)
			case_judge(&x[order[i]], &g[order[i]]);
		/* a case that cannot start again is judged on its infra reason */
		for (int i = used; i < take; i++)
			if (x[order[i]].infra[0])
				case_judge(&x[order[i]], &g[order[i]]);
	}
	/* interrupted: the cases that never started leave no trace */
	for (int i = 0; i < nready; i++) {
		case_forget(&x[ready[i]]);
		opened[ready[i]] = false;
	}
	/*
	 * A case's total is its own phases (image, its share of the boot,
	 * workload, fsck), not the batch's time until its record.
	 */
	for (int i = 0; i < n; i++) {
		if (!opened[i])
			continue;
		x[i].t0 = fb_now() - (x[i].t_image + x[i].t_boot + x[i].t_work + x[i].t_fsck);
		if (case_record(&x[i], &g[i]))
			rc = -1;
	}
	free(opened);
	free(order);
	free(ready);
	free(x);
	return rc;
}

bool fb_batch_allowed(const struct fb_scenario *s)
{
	char why[256];
	struct step st;

	if (s->no_batch)
		return false;
	for (int i = 0; i < s->nsteps; i++)
		if (!step_parse(s->steps[i], &st, why, sizeof(why)) &&
		    (st.id == STEP_SET || st.id == STEP_CRASH))
			return false;
	return true;
}

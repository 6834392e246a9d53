/* SPDX-License-Identifier: MIT */
/*
 * One case's state and phases, shared by the one-case run (runcase.c) and
 * the batch (batch.c): open the case directory, prepare the image and the
 * rules, arm them, take the boot's lines, check the image, judge and
 * record. Internal to run/.
 */
#ifndef FLIPBED_CASECTX_H
#define FLIPBED_CASECTX_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "boot/nbd.h"
#include "boot/vm.h"
#include "classify/classify.h"
#include "classify/order.h"
#include "coverage/receive.h"
#include "guest/steps.h"
#include "outcome.h"
#include "witness/bioread.h"
#include "witness/fserror.h"
#include "run/runcase.h"
#include "run/target.h"
#include "scenario/computed.h"

struct casectx {
	const struct fb_case_spec *c;
	const struct fb_scenario *s;
	const struct fb_run_opts *o;
	char dir[PATH_MAX];		/* the case directory */
	char sub[PATH_MAX];		/* its name below cases/ */
	char image[PATH_MAX + 16];	/* the case's copy of the golden image */
	char priv[PATH_MAX];		/* the private directory of its sockets */
	FILE *transcript;
	FILE *log;		/* where the boot's lines go: the transcript, or a batch's log */
	json_t *batch;		/* a batch case: its boot, place and size (case.json "vm") */
	bool booted;		/* a batch case that ran: its image is checked */
	struct fb_nbd nbd;
	struct fb_target tgt;		/* the rules and what they target */
	bool armed;
	const char **steps;
	int nsteps;
	char next_mount_step[STEP_MAX_LINE + 16];	/* the next pass's mount */
	char **errors_steps;	/* mount steps with [workload] errors added */
	char errors_expect[2][128];	/* reaction, reaction_next under errors= */
	json_t *step_results;
	long long *step_ns;		/* when each step's result line came (CLOCK_MONOTONIC), 0 before */
	json_t *faults, *witness;	/* faults.jsonl's records, read once (load_faults) */
	bool saw_baddata;
	struct fb_fserror fse;		/* the guest's fserror lines (witness/fserror.h) */
	char watch[48];			/* the target's "OFFSET LENGTH", sent as "watch", or "" */
	struct fb_bioread br;		/* the guest's reads of those bytes (witness/bioread.h) */
	json_t *bio_reads;		/* their "bio_reads" record, made once the boot ended */
	struct fb_gcov_recv gcov;	/* a coverage kernel's counters (coverage/receive.h) */
	char infra[512];
	bool infra_own;			/* INFRA was set before any signal came: the case's own */
	struct fb_expect expect;
	struct fb_computed computed;	/* what the fault implies (scenario/computed.h) */
	bool order_broken;		/* the order property failed (classify/order.h) */
	struct fb_order_violation order;
	struct fb_outcome out;
	enum fb_verdict verdict;
	bool checked;			/* e2fsck and the data oracle ran on its image */
	int cut;			/* the signal that had come when they ended, or 0 */
	json_t *mismatch;
	json_t *fsck_codes;
	json_t *cpu;			/* case.json "cpu": seconds of CPU by phase (case_cpu_add) */
	json_t *fsck_problems;		/* the first -fn run's problem lines */
	char ddetail[512];		/* what the data oracle found */
	enum fb_data written;		/* the files the workload wrote (check_written) */
	char wdetail[512];
	json_t *acked;			/* case.json "acknowledged" (check_acked), or NULL */
	enum fb_data acked_data;	/* the worst of those acknowledged */
	char adetail[512];
	const char *data_ref;		/* what it compared against, or NULL */
	char hit[160];			/* what a csum-error line names for the fault */
	double t0, t_image, t_boot, t_work, t_fsck;
};

__attribute__((format(printf, 2, 3)))
void case_set_infra(struct casectx *x, const char *fmt, ...);

/* Add SECONDS of CPU to the phase KEY of X's "cpu" (nothing when negative). */
void case_cpu_add(struct casectx *x, const char *key, double seconds);

/* The CPU time this thread has used, in seconds (phases spent in flipbed itself). */
double case_thread_cpu(void);

/* The case directory and transcript; -1 only when no directory could be made. */
int case_open(struct casectx *x, const char *priv);

/* The image copy, the target and the rules; 0 when the case can boot. */
int case_prepare(struct casectx *x, const struct fb_golden *g);

/*
 * Serve the case's image with its own nbdkit and arm its rules at "boot"
 * when they are; 0, or -1 with an infra reason and an "H exit" line.
 */
int case_start_disk(struct casectx *x);

/* Send the rules to the case's nbdkit at POINT ("boot" or a wait name). */
int case_arm(struct casectx *x, const char *point);

/* The boot's hooks (vm.h) for one case. */
void case_on_console(void *ctx, const char *line);
void case_on_agent(void *ctx, const char *line);
int case_on_wait(void *ctx, const char *name);

/* What "H exit" says of the boot R. */
const char *case_exit_line(const struct fb_vm_result *r, struct casectx *x);

/* e2fsck and the data oracle, after nbdkit has stopped. */
void case_check_image(struct casectx *x, const struct fb_golden *g);

/*
 * The image's checks have ended (batch.c runs them in a child): note
 * whether a signal had come by then, which cut them short.
 */
void case_checked(struct casectx *x);

/* Classify the transcript and judge the outcome. */
void case_judge(struct casectx *x, const struct fb_golden *g);

/* Write case.json and free the case's state; 0, or -1 when it could not be written. */
int case_record(struct casectx *x, const struct fb_golden *g);

/*
 * A case that never started (a batch interrupted before its boot): no
 * record, its directory removed, its state freed.
 */
void case_forget(struct casectx *x);

#endif

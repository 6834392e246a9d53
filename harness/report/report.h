/* SPDX-License-Identifier: MIT */
/*
 * flipbed: the results side of the harness. Everything here reads a run
 * directory (cases.jsonl, run.json, cases/<dir>/...; see harness/RESULTS.md
 * for the layout) and writes or prints reports from it, so a report can
 * always be rebuilt, merged from shards or compared against a baseline
 * without re-running a case.
 *
 * Errors are printed as one line on stderr ("flipbed: FILE:LINE: what is
 * wrong; what is accepted") and returned as -1; the commands turn them into
 * exit status 2.
 */
#ifndef FLIPBED_REPORT_H
#define FLIPBED_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "outcome.h"

struct json_t;

/* One line of cases.jsonl, with the fields the reports sort and group by. */
struct fb_case {
	const char *name;	/* "case": unique in a run */
	const char *dir;	/* "dir", relative to the run directory */
	const char *suite;	/* scenario folder ("inode"), the JUnit testsuite */
	const char *kernel;	/* "kernel" or params.kernel, else "?" */
	const char *type;	/* target.type, else "(no target)" */
	const char *timing;	/* target.timing or params["fault.timing"], else "?" */
	bool reseal;		/* target.reseal: checksum recomputed after the flip */
	enum fb_verdict verdict;
	bool has_outcome;	/* the four fields below come from the record */
	enum fb_detect detect;
	enum fb_reaction reaction;
	enum fb_fsck fsck;
	enum fb_data data;
	bool warning;
	struct json_t *rec;	/* the whole record (owned) */
	char *text;		/* the line as read, without its newline */
	const char *file;	/* where it was read: "DIR/cases.jsonl" */
	unsigned line;
};

/* A run directory, its cases sorted by name (cases.jsonl is in finishing order). */
struct fb_run {
	char *dir;
	char *cases_path;	/* DIR/cases.jsonl */
	struct json_t *info;	/* run.json, or NULL when absent */
	struct fb_case *cases;
	size_t n;
	unsigned truncated;	/* fb_run_load_partial: the line it dropped, or 0 */
};

/*
 * Reaction classes, the colours of the matrix (least to most severe, the
 * order a cell uses to pick the case it shows).
 */
enum fb_class {
	FB_CLASS_INTERRUPTED,	/* cut short by a signal: no outcome */
	FB_CLASS_SKIP,
	FB_CLASS_INFRA,
	FB_CLASS_SAFE,		/* remount-ro, mount-refused, recovered */
	FB_CLASS_SILENT,	/* no reaction, data intact: not noticed */
	FB_CLASS_WEAK,		/* error-continue, or no reaction and data lost */
	FB_CLASS_UNSAFE,	/* panic, oops, kasan, hang, or data silently changed */
	FB_CLASS__COUNT
};

/*
 * Load DIR/cases.jsonl (and DIR/run.json when present). DIR may also be the
 * path of a cases.jsonl file. Returns 0, or -1 after printing the error.
 */
int fb_run_load(const char *dir, struct fb_run *run);
/*
 * The same, but a last line cut short (no newline, and not JSON: the run
 * stopped while it appended a record) is dropped, its number kept in
 * run->truncated.
 */
int fb_run_load_partial(const char *dir, struct fb_run *run);
void fb_run_free(struct fb_run *run);

/* The run's exit status: 1 if any case failed, else 3 if any is infra, else 0. */
int fb_run_status(const struct fb_run *run);

/*
 * Whether the run was cut short: run.json says "interrupted", or a case
 * is. If so, BUF says how much of it ran: "interrupted: R of P planned
 * cases ran; C cut short, N never started" (P from run.json's
 * cases_planned; without it, what the records hold).
 */
bool fb_run_interrupted(const struct fb_run *run, char *buf, size_t len);

enum fb_class fb_case_class(const struct fb_case *c);
const char *fb_class_name(enum fb_class k);
/* The cell text of a case: "csum→ro", "sanity→refused", "none", "PANIC", "infra"... */
const char *fb_case_short(const struct fb_case *c, char *buf, size_t len);
/* "detect/reaction/fsck/data", as `flipbed diff` prints it. */
const char *fb_case_outcome4(const struct fb_case *c, char *buf, size_t len);
/* Why a case was skipped or is infra, or why it failed ("; "-joined mismatches). */
const char *fb_case_reason(const struct fb_case *c, char *buf, size_t len);
/* A string member of the record by dotted path ("target.selector"), or NULL. */
const char *fb_case_str(const struct fb_case *c, const char *path);

/*
 * Whether the case's file data changed while neither its workload nor its
 * next-mount pass detected anything: a silent change. A change the next
 * mount caught (the kernel met it where a real system would) is not.
 */
bool fb_case_silent_change(const struct fb_case *c);

/* Write DIR/summary.md, DIR/index.html, DIR/cases/<dir>/index.html, DIR/junit.xml. */
/* A campaign's settings and findings, for campaign.md. */
struct fb_campaign_finding {
	const char *title;		/* the stack signature */
	const char *dir;		/* findings/DIR */
	const struct fb_case *first;	/* its first case */
	int n;				/* its cases */
};

#define FB_REPORT_TIMINGS 4
struct fb_campaign_summary {
	unsigned long long seed;
	int count;			/* cases generated */
	const char *kernel;
	const char *profile;		/* the fixture: "full" or "kasan" */
	unsigned max_bits;
	double reseal_ratio;
	char **timings, **types;	/* allowed; NULL-terminated (types NULL: all) */
	const char *const *all_types;	/* every object type, NULL-terminated */
	const char *timing_names[FB_REPORT_TIMINGS];
	int ran;			/* cases this invocation ran */
	double seconds;			/* in this time */
	const int *bits;		/* per case of the run: bits flipped */
	const int *timing;		/* per case: index into timing_names, or -1 */
	const struct fb_campaign_finding *findings;
	int nfindings;
};

/*
 * Write campaign.md to PATH for RUN, and campaign.html beside it. Returns the number of cases that
 * failed for flipbed's own reasons (infra kind "infrastructure").
 */
int fb_report_campaign(const char *path, const struct fb_run *run,
		       const struct fb_campaign_summary *s);

int fb_report_write(const struct fb_run *run);
int fb_report_summary(const struct fb_run *run, FILE *out);
int fb_report_junit(const struct fb_run *run, FILE *out);
int fb_report_html(const struct fb_run *run);
/* KTAP version 1 on OUT, one test per case in name order. */
int fb_report_ktap(const char *dir, FILE *out);
int fb_report_ktap_run(const struct fb_run *run, FILE *out);
/*
 * `flipbed report --loose`: one line on OUT per expectation field of a
 * scenario file that accepts a value no case of RUNS (pooled; the last
 * run's expectation counts) produced on a kernel and timing, and a count
 * on stderr. Returns 1 when a field is loose, 0 when none is.
 */
int fb_report_loose(const struct fb_run *runs, size_t nruns, FILE *out);
/*
 * The order property's violation of case C (classify/order.h, the record's
 * "order_violation"; for a record made before that field, what its
 * fanotify events and message signal tell: report_order.c). True and *V
 * filled when the case has one.
 */
struct fb_order_violation;
bool fb_case_order_violation(const struct fb_case *c, struct fb_order_violation *v);
/*
 * `flipbed report --order`: one line on OUT per violation in RUNS (case,
 * kernel, target type, the violation), then "# " lines counting them by
 * kernel and the function that logged first. Returns 1 when there is one,
 * 0 when none.
 */
int fb_report_order(const struct fb_run *runs, size_t nruns, FILE *out);
/*
 * `flipbed report --iron`: the device-fault cases of RUN as the IRON table
 * (block type x fault class, detection and recovery level per kernel), in
 * Markdown on OUT; OUTPATH is named in its regenerate line (NULL: stdout).
 * Returns 0, or -1 after one line on stderr when RUN has no such case.
 */
int fb_report_iron(const struct fb_run *run, FILE *out, const char *outpath);
/*
 * `flipbed report --history DIR... --out OUT`: OUT/history.html, the
 * outcome of each case in each run (oldest first), changes highlighted,
 * and each run's flipbed commit and kernel versions. Every DIR must be a
 * run directory, all of one matrix (run.json's "matrix"); a cases.jsonl
 * whose last line was cut short is read without it and the page says so.
 * Returns 0, or -1 after one line on stderr naming the directory.
 */
int fb_report_history(char **dirs, size_t n, const char *out);
/* One case as `flipbed show` prints it: kernel messages first. */
int fb_report_show(const struct fb_run *run, const struct fb_case *c, FILE *out);
/*
 * Open C's kept image (cases/<dir>/image.raw) read-only with TOOL:
 * "inspect" runs guestfish in a libguestfs appliance (a stock distribution
 * kernel; LIBGUESTFS_BACKEND_SETTINGS=force_tcg unless set), "debugfs" runs
 * debugfs -c. ARGS go to the tool (guestfish commands, debugfs options);
 * without them it is interactive. Returns the tool's exit status, 2 when
 * the case kept no image.
 */
int fb_report_inspect(const struct fb_run *run, const struct fb_case *c,
		      const char *tool, char **args, int nargs);

#endif

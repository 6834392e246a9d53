/* SPDX-License-Identifier: MIT */
/*
 * Running a list of cases: golden images, a worker per case (at most
 * `jobs` at a time), progress, cases.jsonl and the reports. `flipbed run`
 * and `flipbed matrix` build the list from scenario files and matrices
 * (cmd/run_cmd.c); other commands (a campaign, and `flipbed image`
 * through it) build their own and run it the same way.
 */
#ifndef FLIPBED_RUN_H
#define FLIPBED_RUN_H

#include <stdbool.h>

#include "scenario/matrix.h"

struct fb_exec {
	const char *out;	/* the run directory, or NULL: results/runs/<UTC time> */
	int jobs;		/* cases at a time */
	bool keep;		/* keep every case image */
	bool verbose;		/* stream console and agent lines */
	bool ktap;		/* KTAP on stdout at the end */
	const char *label;	/* recorded in run.json as "matrix", or NULL */
	int argc;		/* the command line, recorded in run.json */
	char **argv;
	int shard_k, shard_n;	/* recorded in run.json; 0/0 when not sharded */
	const char *shard_from;	/* how --shard auto found the shard, or NULL */
	const char *selection;	/* the selection id shared by the shards of a run, or NULL */
	int cases_total;	/* the cases of the selection before --shard; 0: unknown */
	int watchdog;		/* seconds without a finished case before the run stops; 0: never */
	int batch;		/* cases per boot at most; 0: FB_BATCH_DEFAULT, 1: a boot per case */
	bool resume;		/* OUT may hold a run already: add to it (campaigns) */
};

/*
 * Run CASES and write the run directory: OUT must be new or empty, or hold
 * the earlier run of the same shard (shard_n set), which is replaced.
 * Returns the exit status: 0 every
 * case met its expectation, 1 some did not, 2 something is not built,
 * 3 infrastructure failure, EXIT_INTERRUPTED (130) interrupted.
 */
int fb_run_execute(struct fb_case_specs *cases, const struct fb_exec *e);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Step parsing, shared by the guest agent and the host command.
 *
 * A step line is "[expect ERRNAME | may] NAME ARG...": see steps.def for
 * the steps and README.md for the protocol.
 */
#ifndef FLIPBED_STEPS_H
#define FLIPBED_STEPS_H

#include <stddef.h>
#include <stdio.h>

/*
 * The agent's limits, checked by the host before anything boots (a scenario
 * that passes them is never cut short in the guest).
 */
#define STEP_MAX_ARGS 5
#define STEP_MAX_LINE 512	/* a step's text and its NUL */
#define STEP_MAX_STEPS 1024	/* steps of one case, with those the host adds */
#define STEP_MAX_THREADS 64	/* attr-race THREADS */
#define STEP_MAX_ROUNDS 100000	/* attr-race ROUNDS */
#define STEP_MAX_MS 60000	/* update-lookup and overlap MS */

enum step_id {
#define STEP(id, name, args, usage, help) STEP_##id,
#include "steps.def"
#undef STEP
	STEP_COUNT
};

/* What the step's result must be for it to count as met. */
enum step_expect {
	EXPECT_OK,	/* no prefix: the step succeeds */
	EXPECT_ERR,	/* "expect ERRNAME": it fails with that errno */
	EXPECT_ANY,	/* "may": reported, never counted */
};

struct step {
	enum step_id id;
	enum step_expect expect;
	char err[24];			/* EXPECT_ERR: canonical errno name */
	int argc;
	const char *argv[STEP_MAX_ARGS];	/* point into buf */
	char buf[STEP_MAX_LINE];
};

/*
 * Parse TEXT into S. Returns 0, or -1 with a one-line reason in WHY (what
 * was wrong and what is accepted).
 */
int step_parse(const char *text, struct step *s, char *why, size_t whylen);

/* The operations of the overlap step, NULL-terminated. */
extern const char *const overlap_ops[];

/* The step's name as written ("drop-caches"). */
const char *step_name(enum step_id id);

/* Print one "  USAGE  HELP" line per step. */
void step_list(FILE *f);

/*
 * Canonical name of an errno name: EFSBADCRC -> EBADMSG, EFSCORRUPTED ->
 * EUCLEAN (ext4's aliases), EBADDATA stays (the agent's own name for a
 * content mismatch). NULL when NAME is not an errno name.
 */
const char *errname_canon(const char *name);

/* The name of errno value E ("EROFS"), or "E<number>" in BUF. */
const char *errname(int e, char *buf, size_t len);

/* Whether a result ("ok" or an errno name) meets S's expectation. */
int step_met(const struct step *s, const char *result);

#endif

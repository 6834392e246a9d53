/* SPDX-License-Identifier: MIT */
/*
 * The fsck verdict of the image a case left (fsck_check.c): e2fsck run on
 * it, its output kept, its problem lines read with fb_fsck_problems().
 */
#ifndef FLIPBED_FSCK_CHECK_H
#define FLIPBED_FSCK_CHECK_H

#include <jansson.h>
#include <stddef.h>

#include "outcome.h"

/*
 * The fsck verdict of IMAGE; e2fsck's output is appended to OUT, each run
 * after a "$ e2fsck OPTIONS IMAGE" line. CODES gets each run's exit status
 * ("replay" when the journal was replayed first, "fn", "fy", "fn2"; when
 * the first -fn finds the image clean, -fy and the second -fn are not run
 * and CODES has only "fn" after the replay), and
 * PROBLEMS, when not NULL, the first problem lines of the runs before the
 * repair. FB_FSCK_NOT_RUN when e2fsck could not run, or ran past
 * fb_oracle_seconds(): then WHY says so (infra); WHY is empty otherwise.
 * CPU, when not NULL, gets each run's CPU time in seconds, under the
 * names CODES uses.
 */
enum fb_fsck fb_fsck_check(const char *image, const char *out, json_t *codes,
			   json_t *problems, json_t *cpu, char *why, size_t len);

#endif

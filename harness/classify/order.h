/* SPDX-License-Identifier: MIT */
/*
 * The order property: a fault that breaks a checksum the kernel verifies
 * (checksum-covered, not resealed) and that the guest read is reported by
 * that checksum first. On a kernel that prints csum-error lines, no ext4
 * or jbd2 error line that no checksum failure prints may come before the
 * first csum-error line, and the first FAN_FS_ERROR event, if any came,
 * carries EBADMSG (ext4's EFSBADCRC). A kernel function that judges the
 * structure of what a checksum covers before it verifies the checksum
 * breaks it (scenario/csum_first.h lists the known ones).
 *
 * Pure: it reads the signals fb_classify() gathered for one pass
 * (outcome.h struct fb_signals). Whether the property applies (the kernel,
 * the fault) is the caller's (run/runcase.c: the computed expectation's
 * conditions, on a kernel with csum-lines = yes).
 */
#ifndef FLIPBED_ORDER_H
#define FLIPBED_ORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "outcome.h"

/* A violation, as the record's "order_violation" holds it. */
struct fb_order_violation {
	char first_line[256];	/* the error line that came before any csum-error
				   line, or "" (the event alone says so) */
	char function[64];	/* the kernel function that printed it, or "" */
	char fanotify[24];	/* the first FAN_FS_ERROR event's errno when it is
				   not EBADMSG, or "" */
};

/*
 * Whether SIG breaks the property: an error line before any csum-error
 * line (sig->before_line), or a first FAN_FS_ERROR event (sig->fan_first)
 * that is not EBADMSG. True and *RET filled when it does; false and *RET
 * zeroed when not.
 */
bool fb_order_check(const struct fb_signals *sig, struct fb_order_violation *ret);

/*
 * V in one sentence, for a mismatch and the reports: "FUNCTION logged
 * 'LINE' before the first csum-error line; the first FAN_FS_ERROR event is
 * EUCLEAN, not EBADMSG" (each half when it holds).
 */
void fb_order_describe(const struct fb_order_violation *v, char *buf, size_t len);

/*
 * V's campaign finding title: "error before the checksum in FUNCTION", or
 * without a function "error before the checksum (FAN_FS_ERROR ERRNO)".
 */
void fb_order_title(const struct fb_order_violation *v, char *buf, size_t len);

#endif

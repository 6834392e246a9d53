/* SPDX-License-Identifier: MIT */
/* flipbed: requests held by stall rules, and their release.
 *
 * A held request sleeps in slices of at most FB_STALL_SLICE_MS with
 * nbdkit_nanosleep, which ends early when nbdkit shuts down or the
 * client goes away, and checks between slices whether it was released.
 * It holds no lock and no rule snapshot while it sleeps: other requests,
 * the control socket and nbdkit's shutdown go on around it.
 */
#ifndef FLIPBED_STALL_H
#define FLIPBED_STALL_H

#include <stdint.h>

#define FB_STALL_SLICE_MS 10

/* How a hold ended. */
enum fb_stall_end { FB_STALL_TIMEOUT, FB_STALL_RELEASED, FB_STALL_SHUTDOWN };

/* Hold the calling request for ms milliseconds (0: until released), or
 * until fb_stall_release, or until nbdkit shuts down or the request's
 * client disconnects.
 */
enum fb_stall_end fb_stall_hold(uint64_t ms);

/* Release every request held now; returns how many. */
uint64_t fb_stall_release(void);

/* How many requests are held now. */
uint64_t fb_stall_held(void);

#endif

/* SPDX-License-Identifier: MIT */
/* flipbed: the control socket.
 *
 * fb_control_bind runs at configuration (before nbdkit forks, so the
 * socket exists when nbdkit reports it is ready); fb_control_start starts
 * the thread that serves it, from .after_fork.
 */
#ifndef FLIPBED_CONTROL_H
#define FLIPBED_CONTROL_H

#include <stddef.h>

#include "rule.h"

int fb_control_bind(const char *path);
int fb_control_start(void);
void fb_control_close(void);

/* Arm a rule (or apply it now when on=rest, and hand a watch rule's
 * range to the read witness), as `add` and rules=FILE do. Takes ownership
 * of *r. Returns -1 with a reason in err.
 */
int fb_control_arm(struct fb_rule *r, char *err, size_t errlen);

/* Execute one control line; the answer (one or more lines, each ending in
 * \n) is appended through put.
 */
void fb_control_execute(const char *line,
			void (*put)(void *opaque, const char *s, size_t n),
			void *opaque);

#endif

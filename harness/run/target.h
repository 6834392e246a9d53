/* SPDX-License-Identifier: MIT */
/*
 * A scenario's target as plugin rules: the object the corruptor library
 * finds in an image (or a raw range, or no fault at all), the bits it
 * picks, and the rules that change them at the scenario's timing. The
 * runner resolves every case's target on its golden image before anything
 * boots, so a target the image lacks is bad input, not a failed case.
 */
#ifndef FLIPBED_TARGET_H
#define FLIPBED_TARGET_H

#include <jansson.h>

#include "classify/attrib.h"
#include "scenario/scenario.h"

#define FB_TARGET_MAX_RULES 64

struct fb_target {
	char *rules[FB_TARGET_MAX_RULES];	/* plugin rule lines */
	int nrules;
	json_t *record;		/* what was picked: type, path, ino, offset, ... */
	bool breaks_csum;	/* the fault changes bytes a kernel checksum covers */
	struct fb_csum_object csum_error;	/* then: what a csum-error line names */
	bool watch_only;	/* every rule a watch rule: none fires (badobj.h) */
};

/*
 * Resolve S's target in IMAGE into RET (free it with fb_target_free).
 * 0, or -1 with the reason in WHY ("target inode: no such path /x").
 */
int fb_target_rules(const struct fb_scenario *s, const char *image,
		    struct fb_target *ret, char *why, size_t len);
void fb_target_free(struct fb_target *t);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Golden images: one per mkfs + populate recipe, built once on the host and
 * cached under build/cache/images/<recipe-hash>/ (read-only; its content
 * hash is checked after every case), then copied for each case.
 */
#ifndef FLIPBED_GOLDEN_H
#define FLIPBED_GOLDEN_H

#include <stdint.h>

#include "scenario/scenario.h"

struct fb_golden {
	char dir[4096];		/* the cache directory of this recipe */
	char path[4096];	/* dir/golden.raw */
	char key[17];		/* recipe hash, hex */
	char mkfs[1024];	/* the mkfs.ext4 command line, for records */
	uint64_t hash;		/* content hash of golden.raw */
};

/*
 * Find or build the golden image of SCN's recipe under CACHEDIR. Build
 * output goes to CACHEDIR/KEY/build.log; a failing step is named on stderr.
 * Returns 0 or -1.
 */
int fb_golden_get(const struct fb_scenario *scn, const char *cachedir,
		  struct fb_golden *ret);

/*
 * Remove the KEY.tmp-PID build directories under CACHEDIR whose PID no
 * longer runs: builds killed (SIGKILL, a crash) before they could clean up.
 * A live PID's directory is another run's build in progress.
 */
void fb_golden_sweep(const char *cachedir);

/* Is the golden image still what it was when built? 0 yes, -1 (with a message) no. */
int fb_golden_check(const struct fb_golden *g);

/* Copy SRC to DST keeping holes (images are mostly empty). 0 or -1 with errno. */
int fb_image_copy(const char *src, const char *dst);

#endif

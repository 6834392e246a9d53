/* SPDX-License-Identifier: MIT */
/*
 * `flipbed campaign`: seeded random corruption cases, their findings and a
 * minimizer (harness/campaign/README.md). The work is split by job:
 *   campaign_gen.c   the PRNG, the image recipes and the scenario files;
 *   campaign_find.c  findings: stack signatures, finding directories, the
 *                    summary campaign.md;
 *   campaign_min.c   the minimizer (fewer bits, fewer workload steps);
 *   campaign.c       the command: options, generate, run, collect.
 * Every case is an ordinary scenario file, so `flipbed run FILE` reproduces
 * any case, and a finding is just such a file plus its evidence.
 */
#ifndef FLIPBED_CAMPAIGN_H
#define FLIPBED_CAMPAIGN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/*
 * The fixture a campaign's recipes build. full: every recipe as it is.
 * kasan: the recipes whose walk costs a KASAN kernel most hold the same
 * objects in fewer entries (campaign_gen.c, the small-blocks htree), so
 * every case draws the same target, region, bits and steps as under full.
 */
enum fb_campaign_profile { FB_PROFILE_FULL, FB_PROFILE_KASAN };

const char *fb_campaign_profile_name(enum fb_campaign_profile p);
/* "full" or "kasan" -> the profile; -1 for anything else. */
int fb_campaign_profile_parse(const char *s);

/* What the generator may draw from (all from the command line). */
struct fb_campaign_opts {
	uint64_t seed;
	int count;
	const char *kernel;	/* stock, patched or kasan */
	char **types;		/* allowed object types, NULL-terminated; NULL: all */
	char **timings;		/* allowed timings, NULL-terminated */
	unsigned max_bits;	/* bits are drawn from 1..max_bits */
	double reseal_ratio;	/* share of resealed cases where a checksum exists */
	bool no_next_mount;	/* --next-mount no: the cases skip the next-mount pass */
	enum fb_campaign_profile profile;	/* the fixture the recipes build */
};

/* splitmix64 (Steele, Lea, Flood 2014): the campaign's only PRNG. */
struct fb_rng {
	uint64_t state;
};

uint64_t fb_rng_next(struct fb_rng *r);
/* Uniform in 0..n-1 (n >= 1), by multiply-high, no modulo bias worth naming. */
unsigned fb_rng_below(struct fb_rng *r, unsigned n);
/* The generator of case I: independent of --count, so case 7 of seed S is
 * the same file whether the campaign has 10 cases or 10,000. */
void fb_rng_case(struct fb_rng *r, uint64_t seed, int i);

/* Every object type some recipe holds, in the report's row order, NULL-terminated. */
const char *const *fb_campaign_types(void);

/*
 * The choices a guided campaign weighs (campaign_guide.c), each an index:
 * the object type (fb_campaign_types()), the recipe, the timing (into
 * opts.timings) and the region kind (field, covered, csum, any).
 */
enum { FB_GUIDE_TYPE, FB_GUIDE_RECIPE, FB_GUIDE_TIMING, FB_GUIDE_REGION, FB_GUIDE__DIMS };
#define FB_GUIDE_MAX 32		/* values of one dimension */

struct fb_campaign_draw {
	int v[FB_GUIDE__DIMS];
};

/* Weights for the generator's draws, per dimension and value (> 0 where drawn). */
struct fb_guide {
	double w[FB_GUIDE__DIMS][FB_GUIDE_MAX];
};

/*
 * What a guided campaign has learned (campaign_guide.c): per site of the
 * coverage kernel, the cases whose failure branch ran; per dimension and
 * value, the cases that drew it and their score. A case scores, for each
 * failure branch it ran, 1 / (1 + the cases that had run it before): a
 * branch no case had reached scores 1, a common one almost nothing. A
 * value's weight is 0.05 + (its score + 1) / (its cases + 1): a value not
 * drawn yet starts at 1.05, a value whose cases reach rare branches keeps
 * a high weight, and one whose cases reach only common ones falls toward
 * 0.05 (never to 0: nothing is starved).
 */
struct fb_guide_state {
	int nsites;
	int *hits;		/* per site */
	double uses[FB_GUIDE__DIMS][FB_GUIDE_MAX], score[FB_GUIDE__DIMS][FB_GUIDE_MAX];
	int ncases;		/* cases learned from */
	int reached;		/* failure branches reached so far */
};

void fb_guide_init(struct fb_guide_state *s, int nsites);
void fb_guide_free(struct fb_guide_state *s);
/* Learn from one case: its draw, and FAILED[i] for each site (its failure branch ran). */
void fb_guide_learn(struct fb_guide_state *s, const struct fb_campaign_draw *d,
		    const bool *failed);
/* The weights for the next cases. */
void fb_guide_weights(const struct fb_guide_state *s, struct fb_guide *g);

/* How many values each dimension has (the recipes, the four region kinds...). */
int fb_campaign_dim_size(const struct fb_campaign_opts *o, int dim);
/* The name of value V of DIM, for the campaign's guide.md. */
const char *fb_campaign_dim_value(const struct fb_campaign_opts *o, int dim, int v);

/*
 * Write case I (1-based) of the campaign as DIR/case-NNNNN.scn. G: NULL
 * for the seeded uniform draws (the same bytes for the same seed), or a
 * guided campaign's weights. DRAW, when not NULL, gets what was drawn.
 * KEEP: a case file already there must stay as it is (its record was made
 * from it): a different one is refused. Returns 0, or -1 with a message
 * when no recipe offers an allowed type, KEEP refuses, or the file cannot
 * be written.
 */
int fb_campaign_write_case(const struct fb_campaign_opts *o, int i, const char *dir,
			   const struct fb_guide *g, struct fb_campaign_draw *draw, bool keep);

/* "DIR/case-00007.scn" for case 7. */
void fb_campaign_case_file(const char *dir, int i, char *buf, size_t len);

/*
 * A finding's title, syzkaller-like ("KASAN: use-after-free in
 * ext4_xattr_ibody_find", "WARNING in ext4_da_update_reserve_space",
 * "INFO: task hung in jbd2_log_wait_commit", "error before the checksum in
 * ext4_check_descriptors"), or "" when the case is not a finding. C is one case of a loaded run (its dmesg.txt is read from the
 * case directory).
 */
void fb_finding_title(const struct fb_run *run, const struct fb_case *c,
		      char *buf, size_t len);

/* A title as a directory name: [A-Za-z0-9_.-], the rest folded to '-'. */
void fb_signature_dirname(const char *title, char *buf, size_t len);

/* Settings recorded in campaign.md next to the counts. */
struct fb_campaign_run {
	const struct fb_campaign_opts *opts;
	const char *dir;	/* the campaign directory */
	double seconds;		/* wall time of the cases run by this invocation */
	int before;		/* cases recorded before this invocation (resumed) */
	bool keep;		/* keep every case image */
};

/*
 * Read DIR/run, write DIR/findings/<signature>/ for every finding (console,
 * fault log, scenario, compressed corrupted image, repro) and DIR/campaign.md.
 * Returns the number of distinct findings, or -1; *RET_INFRA is the number
 * of cases that failed for flipbed's own reasons (QEMU, nbdkit, a golden
 * image), not counting faults that never fired or targets an image lacks.
 */
int fb_campaign_collect(const struct fb_campaign_run *cr, int *ret_infra);

/*
 * Rebuild the corrupted image of the scenario FILE (its golden image with
 * the target's bits applied at rest) and write it compressed to QCOW2.
 * 0, or -1 with a message.
 */
int fb_campaign_image(const char *scn_file, const char *qcow2);

/* `flipbed campaign --minimize FINDING_DIR`: see campaign_min.c. */
int fb_campaign_minimize(const char *finding_dir, int jobs);

/*
 * Run the scenario files FILES on KERNEL into OUT with fb_run_execute, its
 * reports printed to /dev/null when QUIET; LABEL is run.json's "matrix".
 * Returns fb_run_execute's status.
 */
int fb_campaign_execute(char *const files[], int n, const char *kernel,
			const char *out, int jobs, bool keep, bool quiet,
			const char *label, int argc, char **argv);

#endif

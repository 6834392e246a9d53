/* SPDX-License-Identifier: MIT */
/*
 * flipbed scenarios: parse and validate a scenario file (scenarios/DIR/NAME.scn,
 * INI read with libinih), apply overrides ("section.key=value" from a matrix
 * axis or --set), and resolve the expectation for one kernel and timing.
 * The file format is documented in scenarios/README.md.
 */
#ifndef FLIPBED_SCENARIO_H
#define FLIPBED_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The steps the runner adds to every workload (run/runcase.c): the write and
 * read probes, and the next-mount pass when [workload] next-mount = yes.
 * A workload leaves room for them under the agent's STEP_MAX_STEPS, and a
 * step room for what the runner appends to it: "may " and
 * ",errors=remount-ro" on a mount.
 */
#define FB_PROBE_STEPS 2
#define FB_NEXT_PASS_STEPS 8
#define FB_STEP_ADDED_CHARS 32

/* The longest line of a scenario file, and of a --set SECTION.KEY=VALUE. */
#define FB_SCENARIO_MAX_LINE 199

/* One "key = value" line as read, before validation. */
struct fb_entry {
	char *section;
	char *key;
	char *value;
	const char *origin;	/* file name, or "--set" / the matrix file */
	int line;
};

/* What the host writes into the image before the fault (see README). */
enum fb_populate_kind {
	FB_POP_FILE,		/* file PATH BYTES */
	FB_POP_DIR,		/* dir PATH */
	FB_POP_FILES,		/* files DIR COUNT BYTES */
	FB_POP_SPARSE,		/* sparse PATH EXTENTS: every other 4 KiB block */
	FB_POP_XATTR,		/* xattr PATH NAME BYTES (debugfs ea_set) */
	FB_POP_DEBUGFS,		/* debugfs COMMAND (debugfs -w, after mkfs) */
	FB_POP_INDEX,		/* index-dirs: e2fsck -fyD turns big dirs into htrees */
	FB_POP_JOURNAL,		/* journal write|revoke BLOCK[,BLOCK…]: a committed,
				   not checkpointed transaction (debugfs jo/jw/jc) */
};

struct fb_populate {
	enum fb_populate_kind kind;
	char *path;
	char *name;		/* xattr name, the debugfs command, or for
				   journal "write"/"revoke" */
	char *blocks;		/* journal: the block list */
	long long count;	/* files, extents */
	long long bytes;
	long long name_bytes;	/* files: each name "f000000" padded with 'x' to
				   this length (8 to 255); 0: as it is */
};

enum fb_timing {
	FB_TIMING_REST,		/* corrupt the image before boot */
	FB_TIMING_READ,		/* one read returns corrupted bytes (transient) */
	FB_TIMING_READ_STICKY,	/* every read returns corrupted bytes */
	FB_TIMING_WRITE,	/* a write stores corrupted bytes */
	FB_TIMING__COUNT
};

/* The expectation: each field is "any" or a '|'-separated list of names. */
enum fb_expect_field {
	FB_EXP_DETECT,
	FB_EXP_REACTION,
	FB_EXP_FSCK,
	FB_EXP_DATA,
	FB_EXP_WARNING,		/* yes|no: a WARNING/BUG/UBSAN line in the kernel log */
	FB_EXP_DETECT_NEXT,	/* the next-mount pass's detect ("not-run" without it) */
	FB_EXP_REACTION_NEXT,	/* and its reaction */
	FB_EXP_UNDETECTED,	/* why nothing detected the fault (outcome.h), "n/a";
				   default "explained": any cause but unexplained */
	FB_EXP_CHECKED_FIRST,	/* checked-before-csum: a kernel function of
				   csum_first.h's table, or "none" (computed.h) */
	FB_EXP__COUNT
};

struct fb_expect {
	char *field[FB_EXP__COUNT];
};

/* "detect", "reaction", "fsck", "data", "warning", …, "checked-before-csum". */
extern const char *const fb_expect_names[FB_EXP__COUNT];

struct fb_expect_section {
	char **quals;		/* kernel names, timing names, "reseal" */
	int nquals;
	struct fb_expect fields;
	char *origin[FB_EXP__COUNT];	/* where each field was set, for messages */
	int line[FB_EXP__COUNT];
	char *section_origin;		/* where the section's first line is */
	int section_line;
};

struct fb_scenario {
	char *file;		/* as given */
	char *name;		/* path below scenarios/ without .scn */
	char *shows;
	char *fixture;		/* scenarios/fixtures/NAME.fix, or NULL */
	char **fixtures;	/* [scenario] fixture = A B…: with more than one,
				   the scenario is one case per fixture */
	int nfixtures;
	char **groups;
	int ngroups;
	char **requires;	/* "kernel:VARIANT" or "program:NAME" */
	int nrequires;
	char **kernels;		/* kernels this scenario runs on */
	int nkernels;
	unsigned timeout;	/* seconds per boot */
	bool no_batch;		/* [scenario] batch = no: one case per boot */

	char *image;		/* an existing image to start from instead of mkfs, or NULL */
	char *features;		/* mkfs.ext4 -O */
	char *mkfs_options;	/* extra mkfs.ext4 arguments */
	char *size;		/* image size, mkfs.ext4 syntax */
	struct fb_populate *pop;
	int npop;

	char *type;		/* corruptor object type, or "range" */
	char *path;		/* selectors: at most one of path, ino, group */
	long long ino;
	long long group;
	long long index;
	char *region;		/* covered|csum|any|FIELD */
	unsigned bits;
	uint64_t seed;
	bool reseal;
	long long range_at;	/* type=range: raw byte range */
	long long range_len;

	enum fb_timing timing;
	char *arm;		/* wait point where read/write rules are armed, or "boot";
				   rest faults are always applied before boot */
	char *action;		/* flip (default), zero, ones, random, eio, drop, misdirect=N */
	long long count;	/* 0: the timing's default */

	char **steps;
	int nsteps;
	bool next_mount;	/* [workload] next-mount: after the workload, the
				   same boot unmounts, mounts again and walks it all */
	char *errors;		/* [workload] errors: remount-ro, continue or panic,
				   added to every mount step without errors=; NULL:
				   the steps as written (the agent's default is
				   remount-ro) */

	struct fb_entry *axes;	/* [axes]: values this scenario accepts per axis */
	int naxes;
	struct fb_expect_section *expects;
	int nexpects;

	struct fb_entry *entries;	/* everything read, for re-validation */
	int nentries;
};

/*
 * The path of file K of a files populate line P: DIR/f000000, DIR/f000001…,
 * each name padded with 'x' to P->name_bytes when that is given.
 */
void fb_files_name(const struct fb_populate *p, long long k, char *buf, size_t len);

const char *fb_timing_name(enum fb_timing t);
int fb_timing_parse(const char *name);

/*
 * Read FILE into ret_entries. Errors are printed as "file:line: what; accepted"
 * on stderr. Returns 0, -1 after syntax errors, -2 when FILE cannot be read as one
 * (missing, unreadable, not a regular file, larger than 1 MiB).
 */
int fb_scenario_read(const char *file, struct fb_entry **ret_entries, int *ret_n);

/* Whether one of the N entries V is in [SECTION]: a matrix has [matrix]. */
bool fb_entries_have(const struct fb_entry *v, int n, const char *section);

/*
 * Load a scenario: read FILE, apply OVERRIDES ("section.key=value", each with
 * its origin for messages), validate. The fixture is the one an override
 * "scenario.fixture=NAME" names, or else the first the file lists. Variables
 * come from [vars] of the fixture and the file, "vars.NAME=VALUE" overrides
 * replace them, and every "${EXPR}" in a value is replaced by its decimal
 * value before the value is checked. Returns 0, or -1 after printing every
 * problem found.
 */
int fb_scenario_load(const char *file, const struct fb_entry *overrides,
		     int noverrides, struct fb_scenario **ret_scn);
void fb_scenario_free(struct fb_scenario *scn);

/* Does the scenario belong to GROUP? */
bool fb_scenario_in_group(const struct fb_scenario *scn, const char *group);

/*
 * The values the scenario accepts for axis KEY ("fault.timing"), as a
 * space-separated list, or NULL when the scenario does not declare the axis.
 */
const char *fb_scenario_axis(const struct fb_scenario *scn, const char *key);

/*
 * The expectation for KERNEL: [expect] overridden field by field by every
 * [expect:QUAL…] section whose qualifiers all match (kernel, timing,
 * "reseal"), fewer qualifiers first. Fields stay "any" when nothing sets
 * them, but warning, which is "no": a kernel WARNING is never expected
 * unless a scenario says so; undetected, which is "explained": a case
 * nothing detected needs a cause (outcome.h) other than unexplained; and
 * checked-before-csum, which is "none". The runner adds the expectation
 * computed from the fault (computed.h).
 */
void fb_scenario_expect(const struct fb_scenario *scn, const char *kernel,
			struct fb_expect *ret);

/*
 * Print the scenario as it will run on KERNEL, in scenario-file syntax:
 * fixture, overrides and variables applied, one line per populate entry and
 * step, the expectation resolved. Two cases that print the same run the same.
 */
void fb_scenario_print(FILE *f, const struct fb_scenario *scn, const char *kernel);


/* Split a whitespace-separated list into a NULL-terminated array (free with fb_strv_free). */
char **fb_strv_split(const char *s, int *ret_n);
void fb_strv_free(char **v);

#endif

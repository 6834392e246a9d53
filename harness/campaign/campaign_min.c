// SPDX-License-Identifier: MIT
/*
 * `flipbed campaign --minimize FINDING_DIR`: the fewest flipped bits and
 * workload steps that still give the finding's title. Every try is an
 * ordinary scenario file run by the ordinary runner
 * (FINDING_DIR/minimize/scenarios/try-NN.scn into minimize/run-NN), so
 * each step of the reduction can be re-run and inspected by hand.
 *
 * The reduction is greedy, like delta debugging with single elements:
 * first the smallest bit count that reproduces (the corruptor picks the
 * bits from the same seed), then each workload step after the first mount,
 * last to first, is dropped when the title survives without it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "campaign/campaign.h"
#include "cmd.h"
#include "boot/proc.h"
#include "scenario/scenario.h"
#include "util.h"

struct mini {
	const char *dir;	/* the finding directory */
	char title[256];
	char kernel[32];
	struct fb_entry *e;	/* the scenario's lines, in file order */
	int n;
	bool *dropped;		/* per entry: left out of the next files */
	int tries;
	int jobs;
};

/* "title: …" and the kernel of "case: NAME@KERNEL" from finding.txt. */
static int read_finding(struct mini *m)
{
	char path[PATH_MAX + 16], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/finding.txt", m->dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "flipbed campaign: --minimize %s: no %s (%s); accepted: a directory under DIR/findings/\n",
			m->dir, path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "title: ", 7))
			snprintf(m->title, sizeof(m->title), "%s", line + 7);
		else if (!strncmp(line, "case: ", 6) && strchr(line, '@'))
			snprintf(m->kernel, sizeof(m->kernel), "%s", strchr(line, '@') + 1);
	}
	fclose(f);
	if (!m->title[0] || !m->kernel[0]) {
		fprintf(stderr, "flipbed campaign: %s: no 'title:' or 'case: NAME@KERNEL' line\n", path);
		return -1;
	}
	return 0;
}

/* Write the entries not dropped (with BITS for target.bits) as a scenario file. */
static int write_scn(const struct mini *m, const char *path, unsigned bits)
{
	FILE *f = fopen(path, "w");
	const char *sec = "";

	if (!f) {
		fprintf(stderr, "flipbed campaign: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# Reduced by flipbed campaign --minimize from %s/scenario.scn:\n# %s\n",
		m->dir, m->title);
	/* sections in order of first appearance, each with all its lines */
	for (int i = 0; i < m->n; i++) {
		bool seen = false;
		for (int k = 0; k < i; k++)
			seen |= !strcmp(m->e[k].section, m->e[i].section);
		if (seen)
			continue;
		sec = m->e[i].section;
		fprintf(f, "\n[%s]\n", sec);
		for (int k = i; k < m->n; k++) {
			if (strcmp(m->e[k].section, sec) || m->dropped[k])
				continue;
			if (!strcmp(sec, "target") && !strcmp(m->e[k].key, "bits"))
				fprintf(f, "bits = %u\n", bits);
			else
				fprintf(f, "%s = %s\n", m->e[k].key, m->e[k].value);
		}
	}
	return fclose(f) ? -1 : 0;
}

/* Run one try; true when its case gets the finding's title. */
static bool reproduces(struct mini *m, unsigned bits, char *got, size_t len)
{
	char sdir[PATH_MAX], file[PATH_MAX + 32], out[PATH_MAX + 32], *argv[] = { "minimize", NULL };
	struct fb_run run;
	int n = ++m->tries;

	got[0] = '\0';
	snprintf(sdir, sizeof(sdir), "%s/minimize/scenarios", m->dir);
	snprintf(file, sizeof(file), "%s/try-%02d.scn", sdir, n);
	snprintf(out, sizeof(out), "%s/minimize/run-%02d", m->dir, n);
	if (write_scn(m, file, bits))
		return false;
	char *files[] = { file };
	int rc = fb_campaign_execute(files, 1, m->kernel, out, 1, false, true, "minimize", 1, argv);
	if (rc == EXIT_INTERRUPTED || rc == EXIT_BADINPUT || fb_run_load(out, &run) < 0)
		return false;
	if (run.n)
		fb_finding_title(&run, &run.cases[0], got, len);
	fb_run_free(&run);
	fprintf(stderr, "flipbed campaign: try %d (%u bit%s, %s): %s\n", n, bits, bits == 1 ? "" : "s",
		file, got[0] ? got : "not a finding");
	return !strcmp(got, m->title);
}

static int find_key(const struct mini *m, const char *sec, const char *key)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->e[i].section, sec) && !strcmp(m->e[i].key, key))
			return i;
	return -1;
}

int fb_campaign_minimize(const char *finding_dir, int jobs)
{
	struct mini m = { .dir = finding_dir, .jobs = jobs };
	char path[PATH_MAX + 32], got[256];
	unsigned bits, best;
	int k, first_mount = -1, rc = EXIT_UNMET;

	fb_proc_init();
	if (read_finding(&m))
		return EXIT_BADINPUT;
	snprintf(path, sizeof(path), "%s/scenario.scn", finding_dir);
	if (fb_scenario_read(path, &m.e, &m.n) < 0) {
		fprintf(stderr, "flipbed campaign: cannot read %s\n", path);
		return EXIT_BADINPUT;
	}
	m.dropped = xcalloc(m.n, sizeof(bool));
	k = find_key(&m, "target", "bits");
	bits = k >= 0 ? (unsigned)atoi(m.e[k].value) : 1;
	snprintf(path, sizeof(path), "%s/minimize", finding_dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/minimize/scenarios", finding_dir);
	mkdir(path, 0755);

	if (!reproduces(&m, bits, got, sizeof(got))) {
		fprintf(stderr, "flipbed campaign: %s does not reproduce '%s' (got: %s); nothing to minimize\n",
			finding_dir, m.title, got[0] ? got : "not a finding");
		goto out;
	}
	best = bits;
	for (unsigned b = 1; b < bits && !fb_proc_interrupted(); b++)
		if (reproduces(&m, b, got, sizeof(got))) {
			best = b;
			break;
		}
	for (int i = 0; i < m.n; i++)
		if (!strcmp(m.e[i].section, "workload") && first_mount < 0 &&
		    !strncmp(m.e[i].value, "mount", 5))
			first_mount = i;
	for (int i = m.n - 1; i >= 0 && !fb_proc_interrupted(); i--) {
		/* the first mount, and the wait where the faults are armed, stay */
		if (strcmp(m.e[i].section, "workload") || i == first_mount ||
		    !strncmp(m.e[i].value, "wait ", 5))
			continue;
		m.dropped[i] = true;
		if (!reproduces(&m, best, got, sizeof(got)))
			m.dropped[i] = false;
	}
	snprintf(path, sizeof(path), "%s/minimized.scn", finding_dir);
	if (write_scn(&m, path, best) == 0) {
		int steps = 0;
		for (int i = 0; i < m.n; i++)
			steps += !strcmp(m.e[i].section, "workload") && !m.dropped[i];
		printf("minimized: %s (%u bit%s, %d workload step%s, %d tries)\nrepro: build/bin/flipbed run %s --kernel %s\n",
		       path, best, best == 1 ? "" : "s", steps, steps == 1 ? "" : "s", m.tries, path,
		       m.kernel);
		rc = fb_proc_interrupted() ? EXIT_INTERRUPTED : EXIT_MET;
	}
out:
	for (int i = 0; i < m.n; i++) {
		free(m.e[i].section);
		free(m.e[i].key);
		free(m.e[i].value);
	}
	free(m.e);
	free(m.dropped);
	return rc;
}

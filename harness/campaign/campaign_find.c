// SPDX-License-Identifier: MIT
/*
 * Campaign findings (campaign.h): which cases are findings, their titles
 * (the stack signature that de-duplicates them, after syzkaller's report
 * titles), the finding directories, and the summary campaign.md.
 *
 * A case is a finding when its reaction is panic, oops, kasan or hang, when
 * the kernel logged a WARNING/BUG/UBSAN line, or when user data changed
 * while nothing detected the corruption (a flip of file data itself is the
 * uncovered control, so `data` targets are not findings for that).
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "classify/klog.h"
#include "cmd.h"
#include "flipbed-ext4.h"
#include "run/image.h"
#include "boot/proc.h"
#include "scenario/scenario.h"
#include "paths.h"

void fb_signature_dirname(const char *title, char *buf, size_t len)
{
	size_t k = 0;

	for (const char *p = title; *p && k + 1 < len; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '.';
		if (!ok && (k == 0 || buf[k - 1] == '-'))
			continue;
		buf[k++] = ok ? c : '-';
	}
	while (k && buf[k - 1] == '-')
		k--;
	buf[k] = '\0';
	if (!k)
		snprintf(buf, len, "untitled");
}

/* ---- which cases are findings ---- */

static char *case_file(const struct fb_run *run, const struct fb_case *c, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s/%s", run->dir, c->dir, name) < 0)
		return NULL;
	return p;
}

static char *slurp_path(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	FILE *m = open_memstream(&s, &len);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	fclose(m);
	fclose(f);
	return s;
}

/* The step a hang stopped in: the first one without a result. */
static void hung_step(const struct fb_case *c, char *buf, size_t len)
{
	const char *file = fb_case_str(c, "scenario");
	json_t *steps = json_object_get(c->rec, "steps");
	struct fb_scenario *scn;
	size_t done = json_array_size(steps);

	snprintf(buf, len, "?");
	if (!file || fb_scenario_load(file, NULL, 0, &scn) < 0)
		return;
	if (done < (size_t)scn->nsteps)
		snprintf(buf, len, "%.*s", (int)strcspn(scn->steps[done], " "), scn->steps[done]);
	else
		snprintf(buf, len, "probe");
	fb_scenario_free(scn);
}

void fb_finding_title(const struct fb_run *run, const struct fb_case *c, char *buf, size_t len)
{
	bool crash = c->reaction == FB_REACT_PANIC || c->reaction == FB_REACT_OOPS ||
		     c->reaction == FB_REACT_KASAN || c->reaction == FB_REACT_HANG;
	char step[64];

	buf[0] = '\0';
	if (!c->has_outcome || c->verdict == FB_VERDICT_INFRA || c->verdict == FB_VERDICT_SKIP)
		return;
	if (crash || c->warning) {
		char *path = case_file(run, c, "dmesg.txt");
		char *text = path ? slurp_path(path) : NULL;
		fb_klog_title(text ? text : "", buf, len);
		free(text);
		free(path);
		if (buf[0])
			return;
		if (c->reaction == FB_REACT_HANG) {
			hung_step(c, step, sizeof(step));
			snprintf(buf, len, "hang without a report in step %s", step);
		} else {
			snprintf(buf, len, "%s without a recognised report", crash ?
				 fb_reaction_name(c->reaction) : "warning");
		}
		return;
	}
	if (c->data == FB_DATA_CHANGED && c->detect == FB_DETECT_NONE && strcmp(c->type, "data"))
		snprintf(buf, len, "silent data change after a flip in %s%s", c->type,
			 c->reseal ? " (resealed)" : "");
}

/* ---- finding directories ---- */

static int copy_file(const char *src, const char *dst)
{
	char *text = slurp_path(src);
	FILE *f;
	int rc = -1;

	if (!text)
		return -1;
	f = fopen(dst, "w");
	if (f) {
		rc = fputs(text, f) < 0 ? -1 : 0;
		if (fclose(f))
			rc = -1;
	}
	free(text);
	return rc;
}

static int run_argv(char *const argv[])
{
	struct proc p;

	if (proc_spawn(&p, argv[0], argv, -1, -1, 2) < 0)
		return -1;
	proc_reap(&p, 1);
	return WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0 ? 0 : -1;
}

int fb_campaign_image(const char *scn_file, const char *qcow2)
{
	struct fb_scenario *scn;
	struct fb_golden g;
	struct fbx_selector sel = FBX_SELECTOR_INIT;
	struct fbx_pick_opts po = FBX_PICK_OPTS_INIT;
	struct fbx_patch *patch = NULL;
	char cache[PATH_MAX], raw[PATH_MAX + 8];
	fbx_map_t map = NULL;
	size_t *idx = NULL, n = 0;
	errcode_t err = 0;
	int rc = -1;

	if (fb_scenario_load(scn_file, NULL, 0, &scn) < 0)
		return -1;
	fb_path_image_cache(cache, sizeof(cache));
	snprintf(raw, sizeof(raw), "%s.raw", qcow2);
	if (fb_golden_get(scn, cache, &g) || fb_image_copy(g.path, raw)) {
		fprintf(stderr, "flipbed campaign: %s: cannot copy its golden image\n", scn_file);
		goto out;
	}
	chmod(raw, 0644);
	if (strcmp(scn->type, "none") && strcmp(scn->type, "range")) {
		fbx_type_parse(scn->type, &sel.type);
		sel.path = scn->path;
		po.bits = scn->bits;
		po.seed = scn->seed;
		po.reseal = scn->reseal;
		err = fbx_map_open(raw, FBX_OPEN_RW, &map);
		if (!err)
			err = fbx_map_find(map, &sel, &idx, &n);
		if (!err && (size_t)scn->index >= n)
			err = FBX_ET_NO_MATCH;
		if (!err)
			err = fbx_region_parse(scn->region, &po.region, &po.field);
		if (!err)
			err = fbx_object_pick(map, idx[scn->index], &po, &patch);
		if (!err)
			err = fbx_patch_apply(map, patch);
		fbx_patch_free(patch);
		free(idx);
		if (map)
			fbx_map_close(map);
		if (err) {
			fprintf(stderr, "flipbed campaign: %s: cannot apply its target: %s\n", scn_file,
				fbx_error_message(err));
			goto out;
		}
	}
	char *argv[] = { "qemu-img", "convert", "-c", "-O", "qcow2", raw, (char *)qcow2, NULL };
	rc = run_argv(argv);
	if (rc)
		fprintf(stderr, "flipbed campaign: qemu-img convert -c -O qcow2 %s %s failed\n", raw, qcow2);
out:
	unlink(raw);
	fb_scenario_free(scn);
	return rc;
}

struct finding {
	char title[256];
	char dir[256];
	const struct fb_case **cases;
	int n;
};

static int cmp_case_name(const void *a, const void *b)
{
	return strcmp((*(const struct fb_case **)a)->name, (*(const struct fb_case **)b)->name);
}

static void write_finding(const struct fb_run *run, const char *cdir, struct finding *f)
{
	static const char *const files[] = { "transcript.log", "dmesg.txt", "faults.jsonl",
					     "case.json", "fsck.txt", "rules.txt", NULL };
	const struct fb_case *c;
	char dir[PATH_MAX], src[PATH_MAX * 2], dst[PATH_MAX * 2];
	const char *scn, *kernel;
	FILE *txt;

	qsort(f->cases, f->n, sizeof(*f->cases), cmp_case_name);
	c = f->cases[0];
	scn = fb_case_str(c, "scenario");
	kernel = c->kernel;
	snprintf(dir, sizeof(dir), "%s/findings/%s", cdir, f->dir);
	mkdir(dir, 0755);
	for (int i = 0; files[i]; i++) {
		snprintf(src, sizeof(src), "%s/%s/%s", run->dir, c->dir, files[i]);
		snprintf(dst, sizeof(dst), "%s/%s", dir, files[i]);
		copy_file(src, dst);
	}
	snprintf(dst, sizeof(dst), "%s/scenario.scn", dir);
	if (scn)
		copy_file(scn, dst);
	snprintf(dst, sizeof(dst), "%s/image.qcow2", dir);
	if (scn)
		fb_campaign_image(scn, dst);
	snprintf(dst, sizeof(dst), "%s/finding.txt", dir);
	txt = fopen(dst, "w");
	if (!txt)
		return;
	fprintf(txt, "title: %s\ncase: %s\noutcome: %s/%s/%s/%s%s\nrepro: build/bin/flipbed run %s --kernel %s\n"
		"image: image.qcow2 (the golden image with the case's bits applied at rest%s)\n"
		"minimize: build/bin/flipbed campaign --minimize %s\ncases (%d):\n",
		f->title, c->name, fb_detect_name(c->detect), fb_reaction_name(c->reaction),
		fb_fsck_name(c->fsck), fb_data_name(c->data), c->warning ? " +warning" : "",
		scn ? scn : "?", kernel,
		strcmp(c->timing, "rest") ? "; this case corrupted them in transfer only" : "",
		dir, f->n);
	for (int i = 0; i < f->n; i++)
		fprintf(txt, "  %s\n", f->cases[i]->name);
	fclose(txt);
}

static struct finding *find_or_add(struct finding **v, int *n, const char *title)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i].title, title))
			return &(*v)[i];
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	struct finding *f = &(*v)[(*n)++];
	memset(f, 0, sizeof(*f));
	snprintf(f->title, sizeof(f->title), "%s", title);
	fb_signature_dirname(title, f->dir, sizeof(f->dir));
	return f;
}

/* ---- the summary ---- */

struct tally {
	int cases, detected, unsafe;
};

static int case_bits(const struct fb_case *c)
{
	const char *file = fb_case_str(c, "scenario");
	struct fb_scenario *scn;
	int bits = 0;

	if (file && fb_scenario_load(file, NULL, 0, &scn) == 0) {
		bits = scn->bits;
		fb_scenario_free(scn);
	}
	return bits;
}

/* Why an infra case is infra, in three kinds the summary counts apart. */
static const char *infra_kind(const struct fb_case *c)
{
	const char *why = fb_case_str(c, "outcome.infra");

	if (!why)
		why = "";
	if (strstr(why, "never fired"))
		return "fault never fired";
	if (strstr(why, "interrupted by"))
		return "interrupted";
	if (!strncmp(why, "target ", 7))
		return "target not in image";
	return "infrastructure";
}

static void rate(FILE *f, const char *name, const struct tally *t)
{
	fprintf(f, "| %s | %d | %d | %.0f%% | %d |\n", name, t->cases, t->detected,
		t->cases ? 100.0 * t->detected / t->cases : 0.0, t->unsafe);
}

/* Returns the number of cases of infra kind "infrastructure". */
static int write_summary(const struct fb_campaign_run *cr, const struct fb_run *run,
			 struct finding *fv, int nf)
{
	const char *const *types = fb_campaign_types();
	int ntypes = 0, nclass[FB_CLASS__COUNT] = { 0 }, nreact[FB_REACT__COUNT] = { 0 };
	int ninfra[4] = { 0 }, warnings = 0, silent = 0;
	static const char *const ikinds[4] = { "fault never fired", "target not in image",
					       "interrupted", "infrastructure" };
	char path[PATH_MAX + 32];

	while (types[ntypes])
		ntypes++;
	struct tally by_type[ntypes + 1], by_bits[65], by_timing[4];
	memset(by_type, 0, sizeof(by_type));
	memset(by_bits, 0, sizeof(by_bits));
	memset(by_timing, 0, sizeof(by_timing));
	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];
		enum fb_class k = fb_case_class(c);
		nclass[k]++;
		if (k == FB_CLASS_INFRA) {
			const char *kind = infra_kind(c);
			for (int j = 0; j < 4; j++)
				ninfra[j] += !strcmp(kind, ikinds[j]);
			continue;
		}
		if (!c->has_outcome)
			continue;
		nreact[c->reaction]++;
		warnings += c->warning;
		silent += c->data == FB_DATA_CHANGED && c->detect == FB_DETECT_NONE;
		bool det = c->detect != FB_DETECT_NONE;
		bool bad = k == FB_CLASS_UNSAFE || c->warning;
		int t = 0, b = case_bits(c), tm = fb_timing_parse(c->timing);
		while (types[t] && strcmp(types[t], c->type))
			t++;
		struct tally *tv[] = { &by_type[t], &by_bits[b > 64 ? 0 : b],
				       &by_timing[tm < 0 ? 0 : tm] };
		for (int j = 0; j < 3; j++) {
			tv[j]->cases++;
			tv[j]->detected += det;
			tv[j]->unsafe += bad;
		}
	}

	snprintf(path, sizeof(path), "%s/campaign.md", cr->dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "flipbed campaign: cannot write %s: %s\n", path, strerror(errno));
		return ninfra[3];
	}
	const struct fb_campaign_opts *o = cr->opts;
	fprintf(f, "# flipbed campaign, seed %llu\n\n", (unsigned long long)o->seed);
	fprintf(f, "%d cases generated, %zu recorded in run/cases.jsonl; kernel %s; bits 1..%u; "
		"reseal ratio %.2f; timings ", o->count, run->n, o->kernel, o->max_bits,
		o->reseal_ratio);
	int ran = (int)run->n - cr->before;
	for (char **t = o->timings; *t; t++)
		fprintf(f, "%s%s", *t, t[1] ? "," : "");
	fputs("; types ", f);
	if (!o->types)
		fputs("default (every type but mmp)", f);
	for (char **t = o->types; t && *t; t++)
		fprintf(f, "%s%s", *t, t[1] ? "," : "");
	fprintf(f, ".\nThis invocation ran %d cases in %.0f s: **%.1f cases/min** (golden images "
		"included).\n\nRe-generate the files with `build/bin/flipbed campaign --seed %llu "
		"--count %d --kernel %s --generate`; every case file is a scenario "
		"(`build/bin/flipbed run FILE`).\n\n", ran, cr->seconds,
		cr->seconds > 0 ? ran * 60 / cr->seconds : 0, (unsigned long long)o->seed,
		o->count, o->kernel);

	fputs("## Outcome classes\n\n| class | cases |\n|---|---|\n", f);
	for (int k = FB_CLASS__COUNT - 1; k >= 0; k--)
		fprintf(f, "| %s | %d |\n", fb_class_name(k), nclass[k]);
	fputs("\n| reaction | cases |\n|---|---|\n", f);
	for (int r = 0; r < FB_REACT__COUNT; r++)
		fprintf(f, "| %s | %d |\n", fb_reaction_name(r), nreact[r]);
	fprintf(f, "| WARNING/BUG/UBSAN line | %d |\n| data changed, nothing detected | %d |\n",
		warnings, silent);
	fputs("\n| infra kind | cases |\n|---|---|\n", f);
	for (int j = 0; j < 4; j++)
		fprintf(f, "| %s | %d |\n", ikinds[j], ninfra[j]);

	fputs("\n## Detection rate by object type\n\nCases with a kernel outcome; *detected*: "
	      "detect is not none; *unsafe*: panic, oops, KASAN, hang, silent data change or a "
	      "WARNING line.\n\n| type | cases | detected | rate | unsafe |\n|---|---|---|---|---|\n", f);
	for (int t = 0; t < ntypes; t++)
		if (by_type[t].cases)
			rate(f, types[t], &by_type[t]);
	fputs("\n## Detection rate by flipped bits\n\n| bits | cases | detected | rate | unsafe |\n"
	      "|---|---|---|---|---|\n", f);
	for (int b = 0; b < 65; b++) {
		char name[16];
		snprintf(name, sizeof(name), "%d", b);
		if (by_bits[b].cases)
			rate(f, name, &by_bits[b]);
	}
	fputs("\n## Detection rate by timing\n\n| timing | cases | detected | rate | unsafe |\n"
	      "|---|---|---|---|---|\n", f);
	for (int t = 0; t < 4; t++)
		if (by_timing[t].cases)
			rate(f, fb_timing_name(t), &by_timing[t]);

	fprintf(f, "\n## Findings (%d distinct)\n\n", nf);
	if (!nf)
		fputs("None.\n", f);
	for (int i = 0; i < nf; i++) {
		const struct fb_case *c = fv[i].cases[0];
		fprintf(f, "- **%s** — %d case%s, first `%s` (%s): `findings/%s/`; repro: "
			"`build/bin/flipbed run %s --kernel %s`\n", fv[i].title, fv[i].n,
			fv[i].n == 1 ? "" : "s", c->name, c->type, fv[i].dir,
			fb_case_str(c, "scenario"), c->kernel);
	}
	fclose(f);
	return ninfra[3];
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	return y->n != x->n ? y->n - x->n : strcmp(x->title, y->title);
}

int fb_campaign_collect(const struct fb_campaign_run *cr, int *ret_infra)
{
	char rdir[PATH_MAX + 8], fdir[PATH_MAX + 16], cmd[PATH_MAX + 64], title[256];
	struct finding *fv = NULL;
	struct fb_run run;
	int nf = 0;

	snprintf(rdir, sizeof(rdir), "%s/run", cr->dir);
	snprintf(fdir, sizeof(fdir), "%s/findings", cr->dir);
	if (fb_run_load(rdir, &run) < 0)
		return -1;
	/* rebuilt from cases.jsonl each time (a resumed campaign may change a finding's first case) */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fdir);
	if (system(cmd))
		fprintf(stderr, "flipbed campaign: could not clear %s\n", fdir);
	mkdir(fdir, 0755);
	for (size_t i = 0; i < run.n; i++) {
		fb_finding_title(&run, &run.cases[i], title, sizeof(title));
		if (!title[0])
			continue;
		struct finding *f = find_or_add(&fv, &nf, title);
		f->cases = realloc(f->cases, (f->n + 1) * sizeof(*f->cases));
		f->cases[f->n++] = &run.cases[i];
	}
	for (int i = 0; i < nf; i++)
		write_finding(&run, cr->dir, &fv[i]);
	qsort(fv, nf, sizeof(*fv), cmp_finding);
	*ret_infra = write_summary(cr, &run, fv, nf);
	for (int i = 0; i < nf; i++)
		free(fv[i].cases);
	free(fv);
	fb_run_free(&run);
	return nf;
}

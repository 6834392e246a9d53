// SPDX-License-Identifier: MIT
/*
 * Campaign findings (campaign.h): which cases are findings, their titles
 * (the stack signature that de-duplicates them, after syzkaller's report
 * titles), the finding directories, and the summary campaign.md.
 *
 * A case is a finding when its reaction is panic, oops, kasan or hang, when
 * the kernel logged a WARNING/BUG/UBSAN line, when it broke the order
 * property (classify/order.h: an error before the checksum failure, titled
 * by the function that logged first), or when user data changed while
 * nothing detected the corruption (a flip of file data itself is the
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
#include "classify/order.h"
#include "cmd.h"
#include "flipbed-ext4.h"
#include "golden/golden.h"
#include "boot/proc.h"
#include "scenario/scenario.h"
#include "paths.h"
#include "util.h"

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
	struct fb_order_violation order;
	char step[64];

	buf[0] = '\0';
	if (!c->has_outcome || c->verdict == FB_VERDICT_INFRA || c->verdict == FB_VERDICT_SKIP)
		return;
	if (crash || c->warning) {
		char *path = case_file(run, c, "dmesg.txt");
		char *text = path ? fb_slurp(path, NULL) : NULL;
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
	if (fb_case_order_violation(c, &order)) {
		fb_order_title(&order, buf, len);
		return;
	}
	if (fb_case_silent_change(c) && strcmp(c->type, "data"))
		snprintf(buf, len, "silent data change after a flip in %s%s", c->type,
			 c->reseal ? " (resealed)" : "");
}

/* ---- finding directories ---- */

static int copy_file(const char *src, const char *dst)
{
	char *text = fb_slurp(src, NULL);
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
	struct fb_proc p;

	if (fb_proc_spawn(&p, argv[0], argv, -1, -1, 2) < 0)
		return -1;
	fb_proc_reap(&p, 1);
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
	fb_path_golden_cache(cache, sizeof(cache));
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
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	struct finding *f = &(*v)[(*n)++];
	memset(f, 0, sizeof(*f));
	snprintf(f->title, sizeof(f->title), "%s", title);
	fb_signature_dirname(title, f->dir, sizeof(f->dir));
	return f;
}

/* ---- the summary ---- */

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

/* campaign.md, written by the report library from this campaign's settings. */
static int write_summary(const struct fb_campaign_run *cr, const struct fb_run *run,
			 const struct finding *fv, int nf)
{
	const struct fb_campaign_opts *o = cr->opts;
	struct fb_campaign_finding *found = xrealloc(NULL, (nf + 1) * sizeof(*found));
	int *bits = xrealloc(NULL, (run->n + 1) * sizeof(*bits));
	int *timing = xrealloc(NULL, (run->n + 1) * sizeof(*timing));
	char path[PATH_MAX + 32];
	int infra;

	for (int i = 0; i < nf; i++)
		found[i] = (struct fb_campaign_finding){ fv[i].title, fv[i].dir,
							  fv[i].cases[0], fv[i].n };
	for (size_t i = 0; i < run->n; i++) {
		bits[i] = case_bits(&run->cases[i]);
		timing[i] = fb_timing_parse(run->cases[i].timing);
	}
	struct fb_campaign_summary sum = {
		.seed = o->seed, .count = o->count, .kernel = o->kernel,
		.profile = fb_campaign_profile_name(o->profile),
		.max_bits = o->max_bits, .reseal_ratio = o->reseal_ratio,
		.timings = o->timings, .types = o->types, .all_types = fb_campaign_types(),
		.timing_names = { fb_timing_name(FB_TIMING_REST), fb_timing_name(FB_TIMING_READ),
				  fb_timing_name(FB_TIMING_READ_STICKY),
				  fb_timing_name(FB_TIMING_WRITE) },
		.ran = (int)run->n - cr->before, .seconds = cr->seconds, .bits = bits,
		.timing = timing,
		.findings = found, .nfindings = nf,
	};
	snprintf(path, sizeof(path), "%s/campaign.md", cr->dir);
	infra = fb_report_campaign(path, run, &sum);
	free(found);
	free(bits);
	free(timing);
	return infra;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	return y->n != x->n ? y->n - x->n : strcmp(x->title, y->title);
}

int fb_campaign_collect(const struct fb_campaign_run *cr, int *ret_infra)
{
	char rdir[PATH_MAX + 8], fdir[PATH_MAX + 16], title[256];
	struct finding *fv = NULL;
	struct fb_run run;
	int nf = 0;

	snprintf(rdir, sizeof(rdir), "%s/run", cr->dir);
	snprintf(fdir, sizeof(fdir), "%s/findings", cr->dir);
	if (fb_run_load(rdir, &run) < 0)
		return -1;
	/* rebuilt from cases.jsonl each time (a resumed campaign may change a finding's first case) */
	if (fb_remove_tree(fdir))
		fprintf(stderr, "flipbed campaign: could not clear %s\n", fdir);
	mkdir(fdir, 0755);
	for (size_t i = 0; i < run.n; i++) {
		fb_finding_title(&run, &run.cases[i], title, sizeof(title));
		if (!title[0])
			continue;
		struct finding *f = find_or_add(&fv, &nf, title);
		f->cases = xrealloc(f->cases, (f->n + 1) * sizeof(*f->cases));
		f->cases[f->n++] = &run.cases[i];
	}
	for (int i = 0; i < nf; i++)
		write_finding(&run, cr->dir, &fv[i]);
	if (nf)		/* no finding leaves fv NULL, which qsort must not get */
		qsort(fv, nf, sizeof(*fv), cmp_finding);
	*ret_infra = write_summary(cr, &run, fv, nf);
	for (int i = 0; i < nf; i++)
		free(fv[i].cases);
	free(fv);
	fb_run_free(&run);
	return nf;
}

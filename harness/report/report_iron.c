// SPDX-License-Identifier: MIT
/*
 * `flipbed report --iron RUN`: the run's device-fault cases as the IRON
 * table of Prabhakaran et al., "IRON File Systems" (SOSP 2005): per block
 * type and fault class, the detection and recovery levels each kernel
 * showed. Every cell is derived from the case records through the one
 * mapping below (iron_detect, iron_recover); nothing is written by hand.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

/* The fault classes: IRON's three, then the silent write faults IRON lacks. */
enum iron_class {
	IC_READ, IC_WRITE, IC_CORRUPT, IC_LOST, IC_MISDIRECT, IC_TORN,
	IC__COUNT
};

static const char *const class_name[IC__COUNT] = {
	"read failure", "write failure", "corruption",
	"lost write", "misdirected write", "torn write",
};

/* IRON's detection levels, then its recovery levels, in table order. */
enum iron_level {
	L_DZERO, L_DERRORCODE, L_DSANITY, L_DREDUNDANCY,
	L_RZERO, L_RPROPAGATE, L_RSTOP, L_RRETRY, L_RREDUNDANCY,
	L__COUNT
};

static const char *const level_name[L__COUNT] = {
	"DZero", "DErrorCode", "DSanity", "DRedundancy",
	"RZero", "RPropagate", "RStop", "RRetry", "RRedundancy",
};

/*
 * The mapping, outcome.detect -> detection level. `sanity`, `io` and `mount` are
 * refined in iron_detect(); the notes are printed in iron.md as they are.
 */
static const struct {
	const char *detect;
	enum iron_level level;
	const char *note;
} detect_map[] = {
	{ "none", L_DZERO, "nothing in the kernel log noticed the fault" },
	{ "csum", L_DREDUNDANCY, "a metadata checksum failed: redundancy IRON counts as DRedundancy" },
	{ "sanity", L_DSANITY, "a magic, bounds or structure check of ext4 or jbd2; after an "
	  "EIO fault, in the pass it hit, DErrorCode: the device returned an error and no "
	  "wrong bytes, so the ext4 error that pass logged (\"Couldn't clean up the journal\" "
	  "after a failed write) follows the error code" },
	{ "io", L_DERRORCODE, "the I/O error code, when ext4 or jbd2 logged it or acted on it "
	  "(a reaction, or an error returned to a step); an I/O error only the block layer "
	  "logged, with no reaction and no error to a step, is DZero" },
	{ "mount", L_DSANITY, "the mount was refused without a more specific message; "
	  "after an EIO fault, in the pass it hit, DErrorCode" },
};

/*
 * The mapping, outcome.reaction -> recovery level. RPropagate is not a
 * reaction: it is added when a step of the pass got an error (see
 * step_levels()). A reaction with no IRON level is shown by its name in
 * capitals; a reaction missing from this table is shown as "?NAME".
 */
#define R_NOLEVEL L__COUNT
static const struct {
	const char *reaction;
	enum iron_level level;
	const char *note;
} react_map[] = {
	{ "none", L_RZERO, "no reaction: the filesystem stays writable" },
	{ "recovered", L_RRETRY, "the patched kernel's re-read (csum_retry) found a good copy" },
	{ "error-continue", L_RZERO, "an error was logged and the filesystem stays writable" },
	{ "remount-ro", L_RSTOP, "remounted read-only" },
	{ "mount-refused", L_RSTOP, "the mount was refused" },
	{ "shutdown", L_RSTOP, "the filesystem was shut down (6.12)" },
	{ "panic", R_NOLEVEL, "a kernel panic: IRON has no level for a crash, shown as PANIC" },
	{ "oops", R_NOLEVEL, "an Oops or BUG: shown as OOPS" },
	{ "kasan", R_NOLEVEL, "a KASAN report: shown as KASAN" },
	{ "hang", R_NOLEVEL, "a hang or hung-task report: shown as HANG" },
};

/* The errnos that carry the failure to the application (RPropagate). */
static const char *const propagate_errno[] = {
	"EIO", "EUCLEAN", "EFSCORRUPTED", "EBADMSG", "EFSBADCRC", "ESTALE",
};

/* The block types, in the order of the matrix (harness/RESULTS.md). */
static const char *const type_order[] = {
	"superblock", "superblock-backup", "group-desc", "block-bitmap",
	"inode-bitmap", "inode", "inode-extra", "inline-data",
	"extent-index", "extent-leaf", "dir-leaf", "dx-root", "dx-node",
	"xattr-block", "journal-sb", "journal-descriptor", "journal-commit",
	"journal-revoke", "journal-data", "mmp", "orphan-block", "data",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_KERNELS 8
#define MAX_ROWS 64
#define MAX_NAMES 5	/* case names listed per finding */

/* One case as IRON sees it. */
struct iron_case {
	const struct fb_case *c;
	enum iron_class cls;
	enum iron_level detect;
	unsigned recover;	/* bit per recovery level */
	const char *other;	/* a reaction with no level, or NULL */
	bool unknown;		/* other is not in react_map */
	bool next;		/* detected only by the next-mount pass */
	bool no_steps;		/* the record has no steps: RPropagate unknown */
	bool oneshot;		/* a one-shot read EIO nothing saw: a later read got the data */
};

struct iron_cell {
	int n;
	int level[L__COUNT];
	int next, oneshot;
	const char *other[4];
	int nother[4];
	const struct fb_case *flag[MAX_NAMES];	/* the first DZero, RZero or crash cases */
	int nflag, flags;	/* listed, all */
	int crashes;		/* cases with a reaction that has no level */
};

struct iron {
	const struct fb_run *run;
	const char *kernels[MAX_KERNELS];
	int nkernels;
	char *rows[MAX_ROWS];
	int nrows;
	struct iron_cell *cells;	/* [row][class][kernel] */
	int used, infra, unknown, no_steps, oneshot;
};

static struct iron_cell *cell_at(const struct iron *t, int r, int k, int kern)
{
	return &t->cells[(r * IC__COUNT + k) * MAX_KERNELS + kern];
}

static bool is_word(const char *s, const char *w, size_t n)
{
	return strlen(w) == n && !strncmp(s, w, n);
}

/* ACTION and OP ("read"/"write") to a class; -1 when not a device fault. */
static int class_of_action(const char *a, size_t n, const char *op)
{
	static const char *const corrupt[] = { "flip", "flip-random", "zero", "ones", "random" };

	if (is_word(a, "eio", n))
		return !strcmp(op, "write") ? IC_WRITE : IC_READ;
	if (is_word(a, "drop", n))
		return IC_LOST;
	if (is_word(a, "misdirect", n))
		return IC_MISDIRECT;
	if (is_word(a, "torn", n))
		return IC_TORN;
	for (size_t i = 0; i < ARRAY_SIZE(corrupt); i++)
		if (is_word(a, corrupt[i], n))
			return IC_CORRUPT;
	return -1;
}

/* The action of a rule line: "on=read at=0 len=4096 eio count=1" -> eio. */
static int class_of_rule(const char *rule, const char *op)
{
	while (*rule) {
		size_t n = strcspn(rule, " ");
		size_t key = strcspn(rule, "= ");
		int k = class_of_action(rule, key, op);

		if (!strncmp(rule, "on=", 3))
			op = !strncmp(rule + 3, "write", 5) ? "write" : "read";
		else if (k >= 0)
			return k;
		rule += n + (rule[n] == ' ');
	}
	return -1;
}

/*
 * The fault class of a case: an at-rest change is corruption; a read or
 * write fault is classed by the action of the fault that fired, else of
 * its first rule. -1: not a device-fault case.
 */
static int fault_class(const struct fb_case *c)
{
	json_t *f = json_array_get(fb_case_get(c, "faults"), 0);
	json_t *r = json_array_get(fb_case_get(c, "rules"), 0);
	const char *op = strncmp(c->timing, "write", 5) ? "read" : "write";

	if (!strcmp(c->type, "(no target)") || !strcmp(c->type, "none"))
		return -1;
	if (!strcmp(c->timing, "rest"))
		return IC_CORRUPT;
	if (json_is_object(f)) {
		const char *a = json_string_value(json_object_get(f, "action"));
		const char *o = json_string_value(json_object_get(f, "op"));

		if (a)
			return class_of_action(a, strcspn(a, "="), o ? o : op);
	}
	return json_is_string(r) ? class_of_rule(json_string_value(r), op) : -1;
}

/* "may expect EIO read /a" -> "read /a". */
static const char *step_verb(const char *text)
{
	if (!strncmp(text, "may ", 4))
		text += 4;
	if (!strncmp(text, "expect ", 7)) {
		text += 7;
		text += strcspn(text, " ");
		text += *text == ' ';
	}
	return text;
}

static bool carries_failure(const char *err)
{
	for (size_t i = 0; err && i < ARRAY_SIZE(propagate_errno); i++)
		if (!strcmp(err, propagate_errno[i]))
			return true;
	return false;
}

static bool is_verb(const char *verb, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(verb, name, n) && (verb[n] == ' ' || !verb[n]);
}

/*
 * What the steps of the pass (the workload, or after "mark next-mount" the
 * next-mount pass) show, as recovery bits: RStop when a mount step failed
 * (the classifier's reaction says mount-refused too; records made before it
 * took a later mount's refusal as one said none), RPropagate when another
 * step, umount aside, failed with an
 * errno that carries the failure (EROFS is the read-only remount, not the
 * failure). The harness's probe of the reaction (the steps on
 * "flipbed-probe": a write, then a read that a shutdown fails with EIO) is
 * not the application. Returns -1 when the record has no steps.
 */
static int step_levels(const struct fb_case *c, bool next, unsigned *bits)
{
	json_t *steps = fb_case_get(c, "steps"), *s;
	bool in_next = false;
	size_t i;

	if (!json_is_array(steps))
		return -1;
	json_array_foreach(steps, i, s) {
		const char *text = json_string_value(json_object_get(s, "text"));
		const char *res = json_string_value(json_object_get(s, "result"));
		const char *err = json_string_value(json_object_get(s, "errno"));
		const char *verb;

		if (!text)
			continue;
		if (!strcmp(text, "mark next-mount")) {
			in_next = true;
			continue;
		}
		verb = step_verb(text);
		if (in_next != next || !res || strcmp(res, "err") || is_verb(verb, "umount") ||
		    strstr(verb, "flipbed-probe"))
			continue;
		if (is_verb(verb, "mount"))
			*bits |= 1u << L_RSTOP;
		else if (carries_failure(err))
			*bits |= 1u << L_RPROPAGATE;
	}
	return 0;
}

static bool ext4_logged(const char *detail)
{
	return detail && (strstr(detail, "EXT4-fs") || strstr(detail, "JBD2") ||
			  strstr(detail, "jbd2"));
}

static enum iron_level iron_detect(const struct iron_case *ic, const char *d,
				   const char *detail)
{
	for (size_t i = 0; i < ARRAY_SIZE(detect_map); i++) {
		if (strcmp(d, detect_map[i].detect))
			continue;
		if ((!strcmp(d, "mount") || !strcmp(d, "sanity")) && !ic->next &&
		    (ic->cls == IC_READ || ic->cls == IC_WRITE))
			return L_DERRORCODE;
		if (!strcmp(d, "io") && !ext4_logged(detail) && !ic->other &&
		    !(ic->recover & ~(1u << L_RZERO)))
			return L_DZERO;
		return detect_map[i].level;
	}
	return L_DZERO;
}

static int react_index(const char *r)
{
	for (size_t i = 0; i < ARRAY_SIZE(react_map); i++)
		if (!strcmp(r, react_map[i].reaction))
			return i;
	return -1;
}

static void iron_recover(struct iron_case *ic, const char *r, unsigned steps)
{
	int i = react_index(r);

	if (i < 0) {
		ic->other = r;
		ic->unknown = true;
	} else if (react_map[i].level == R_NOLEVEL) {
		ic->other = react_map[i].reaction;
	} else if (react_map[i].level != L_RZERO) {
		ic->recover |= 1u << react_map[i].level;
	}
	ic->recover |= steps;
	if (!ic->recover && !ic->other)
		ic->recover = 1u << L_RZERO;
}

/*
 * The levels of one case. The workload pass counts; when it detected
 * nothing and the next-mount pass did, that pass counts, marked "next".
 */
static void iron_case(struct iron_case *ic)
{
	const struct fb_case *c = ic->c;
	const char *dn = fb_case_str(c, "outcome.detect_next");
	const char *d = fb_case_str(c, "outcome.detect");
	const char *r = fb_case_str(c, "outcome.reaction");
	const char *detail = fb_case_str(c, "outcome.detail");
	unsigned steps = 0;

	ic->next = !strcmp(d, "none") && dn && fb_detect_parse(dn) > FB_DETECT_NONE;
	if (ic->next) {
		d = dn;
		r = fb_case_str(c, "outcome.reaction_next");
		detail = fb_case_str(c, "outcome.detail_next");
	}
	ic->no_steps = step_levels(c, ic->next, &steps) < 0;
	iron_recover(ic, r ? r : "none", steps);
	ic->detect = iron_detect(ic, d, detail);
	ic->oneshot = ic->cls == IC_READ && !strcmp(c->timing, "read") &&
		ic->detect == L_DZERO && ic->recover == 1u << L_RZERO && !ic->other;
}

static int row_rank(const char *row)
{
	size_t n = strcspn(row, " ");

	for (size_t i = 0; i < ARRAY_SIZE(type_order); i++)
		if (strlen(type_order[i]) == n && !strncmp(row, type_order[i], n))
			return i;
	return ARRAY_SIZE(type_order);
}

static int row_cmp(const void *pa, const void *pb)
{
	const char *a = *(char *const *)pa, *b = *(char *const *)pb;
	int ra = row_rank(a), rb = row_rank(b);

	return ra != rb ? ra - rb : strcmp(a, b);
}

static int kernel_cmp(const void *a, const void *b)
{
	return fb_kernel_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* The rows and kernel columns of the cases that count. */
static void iron_axes(struct iron *t, const struct iron_case *ics, size_t n)
{
	char key[160];

	for (size_t i = 0; i < n; i++) {
		const struct fb_case *c = ics[i].c;
		int j;

		if (!c)
			continue;
		snprintf(key, sizeof(key), "%s%s", c->type, c->reseal ? " resealed" : "");
		for (j = 0; j < t->nrows && strcmp(t->rows[j], key); j++)
			;
		if (j == t->nrows && t->nrows < MAX_ROWS)
			t->rows[t->nrows++] = xstrdup(key);
		for (j = 0; j < t->nkernels && strcmp(t->kernels[j], c->kernel); j++)
			;
		if (j == t->nkernels && t->nkernels < MAX_KERNELS)
			t->kernels[t->nkernels++] = c->kernel;
	}
	qsort(t->rows, t->nrows, sizeof(*t->rows), row_cmp);
	qsort(t->kernels, t->nkernels, sizeof(*t->kernels), kernel_cmp);
}

static int index_of(char *const *v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return i;
	return -1;
}

static void cell_add(struct iron_cell *cl, const struct iron_case *ic)
{
	int j;

	cl->n++;
	cl->level[ic->detect]++;
	for (j = L_RZERO; j < L__COUNT; j++)
		cl->level[j] += !!(ic->recover & (1u << j));
	cl->next += ic->next;
	cl->oneshot += ic->oneshot;
	if (ic->other) {
		for (j = 0; j < 3 && cl->other[j] && strcmp(cl->other[j], ic->other); j++)
			;
		cl->other[j] = ic->other;
		cl->nother[j]++;
	}
	cl->crashes += !!ic->other;
	if (ic->detect == L_DZERO || (ic->recover & (1u << L_RZERO)) || ic->other) {
		if (cl->nflag < MAX_NAMES)
			cl->flag[cl->nflag++] = ic->c;
		cl->flags++;
	}
}

static void iron_fill(struct iron *t, const struct iron_case *ics, size_t n)
{
	char key[160];

	t->cells = xcalloc((size_t)t->nrows * IC__COUNT * MAX_KERNELS, sizeof(*t->cells));
	for (size_t i = 0; i < n; i++) {
		const struct fb_case *c = ics[i].c;
		int r, k;

		if (!c)
			continue;
		snprintf(key, sizeof(key), "%s%s", c->type, c->reseal ? " resealed" : "");
		r = index_of(t->rows, t->nrows, key);
		k = index_of((char *const *)t->kernels, t->nkernels, c->kernel);
		if (r < 0 || k < 0)
			continue;
		cell_add(cell_at(t, r, ics[i].cls, k), &ics[i]);
	}
}

/* NAME in capitals, "?NAME" when react_map does not know it. */
static void put_other(FILE *f, const char *name)
{
	if (react_index(name) < 0)
		fputc('?', f);
	for (; *name; name++)
		fputc(*name >= 'a' && *name <= 'z' ? *name - 'a' + 'A' : *name, f);
}

/*
 * The levels FROM..TO of a cell, with the reactions that have no level
 * after the recovery levels: "A ×2, B" when the counts differ, "A, B"
 * when they are equal.
 */
static void put_levels(FILE *f, const struct iron_cell *cl, int from, int to)
{
	int first = 0, differ = 0, any = 0, nother = to == L__COUNT ? 4 : 0;

	for (int j = from; j < to + nother; j++) {
		int n = j < to ? cl->level[j] : cl->other[j - to] ? cl->nother[j - to] : 0;

		if (!n)
			continue;
		differ |= first && n != first;
		first = n;
	}
	for (int j = from; j < to + nother; j++) {
		int n = j < to ? cl->level[j] : cl->other[j - to] ? cl->nother[j - to] : 0;

		if (!n)
			continue;
		fputs(any++ ? ", " : "", f);
		if (j < to)
			fputs(level_name[j], f);
		else
			put_other(f, cl->other[j - to]);
		if (differ)
			fprintf(f, " ×%d", n);
	}
}

static void put_cell(FILE *f, const struct iron_cell *cl)
{
	if (!cl->n) {
		fputs(" |", f);
		return;
	}
	fputc(' ', f);
	put_levels(f, cl, L_DZERO, L_RZERO);
	fputs(" · ", f);
	put_levels(f, cl, L_RZERO, L__COUNT);
	if (cl->n > 1)
		fprintf(f, " (%d)", cl->n);
	if (cl->next)
		fprintf(f, " †%d", cl->next);
	if (cl->oneshot)
		fprintf(f, " ‡%d", cl->oneshot);
	fputs(" |", f);
}

static bool class_present(const struct iron *t, int k)
{
	for (int r = 0; r < t->nrows; r++)
		for (int kern = 0; kern < t->nkernels; kern++)
			if (cell_at(t, r, k, kern)->n)
				return true;
	return false;
}

static void put_class(FILE *f, const struct iron *t, int k)
{
	fprintf(f, "\n## %s%s\n\n| block type |", class_name[k],
		k > IC_CORRUPT ? " (not in IRON's fault model)" : "");
	for (int kern = 0; kern < t->nkernels; kern++)
		fprintf(f, " %s |", t->kernels[kern]);
	fputs("\n|---|", f);
	for (int kern = 0; kern < t->nkernels; kern++)
		fputs("---|", f);
	fputc('\n', f);
	for (int r = 0; r < t->nrows; r++) {
		bool any = false;

		for (int kern = 0; kern < t->nkernels; kern++)
			any |= cell_at(t, r, k, kern)->n > 0;
		if (!any)
			continue;
		fprintf(f, "| %s |", t->rows[r]);
		for (int kern = 0; kern < t->nkernels; kern++)
			put_cell(f, cell_at(t, r, k, kern));
		fputc('\n', f);
	}
}

/*
 * The nearest published comparison: Dan Luu's reproduction of IRON's
 * method (2017), errors from device-mapper below the file system on one
 * file's data blocks, read with pread/mmap and written with pwrite; one
 * result per file system and operation. Its results are constants here,
 * as the page states them; the run's side is computed from the cells:
 * per kernel, the data row's cell as the fault-class table shows it, and
 * the metadata block types none of whose cases ignored the failure.
 */
static const struct {
	enum iron_class cls;
	const char *ext3_2005, *ext3_2017, *ext4_2017;
} luu_rows[] = {
	{ IC_READ, "propagated (mostly)", "propagated", "propagated" },
	{ IC_WRITE, "ignored (mostly)", "propagated", "propagated" },
};

static void put_luu_row(FILE *f, const struct iron *t, enum iron_class k,
			const char *const res[3])
{
	int data = index_of(t->rows, t->nrows, "data");

	fprintf(f, "| %s | %s | %s | %s |", class_name[k], res[0], res[1], res[2]);
	for (int kern = 0; kern < t->nkernels; kern++) {
		const struct iron_cell *cl = data < 0 ? NULL : cell_at(t, data, k, kern);

		if (cl && cl->n)
			put_cell(f, cl);
		else
			fputs(" — |", f);
	}
	for (int kern = 0; kern < t->nkernels; kern++) {
		int n = 0, stops = 0;

		for (int r = 0; r < t->nrows; r++) {
			const struct iron_cell *cl = cell_at(t, r, k, kern);

			if (r == data || !cl->n)
				continue;
			n++;
			stops += !cl->level[L_RZERO] && !cl->crashes;
		}
		fprintf(f, " %d of %d |", stops, n);
	}
	fputc('\n', f);
}

static void put_luu(FILE *f, const struct iron *t)
{
	fputs("\n## Beside ext3 and ext4 in Dan Luu's reproduction (2017)\n\n"
	      "Source: Dan Luu, \"Filesystem error handling\", 2017, "
	      "<https://danluu.com/filesystem-errors/> (tools: "
	      "<https://github.com/danluu/fs-errors>). It reproduces the IRON paper's "
	      "method: errors injected at the block device level, right below the file "
	      "system (device-mapper), on the data blocks of one file, read and written "
	      "by a program; a result says whether the error reached it. Ext3 in 2005 is "
	      "the paper's, as the page summarises it: ext3 mostly handled read errors "
	      "and mostly ignored write errors. In 2017 ext3 and ext4 propagated both.\n\n"
	      "| fault class | ext3, 2005 | ext3, 2017 | ext4, 2017 |", f);
	for (int kern = 0; kern < t->nkernels; kern++)
		fprintf(f, " %s: `data` |", t->kernels[kern]);
	for (int kern = 0; kern < t->nkernels; kern++)
		fprintf(f, " %s: metadata types, no case ignored |", t->kernels[kern]);
	fputs("\n|---|---|---|---|", f);
	for (int kern = 0; kern < 2 * t->nkernels; kern++)
		fputs("---|", f);
	fputc('\n', f);
	for (size_t i = 0; i < ARRAY_SIZE(luu_rows); i++) {
		const char *const res[3] = { luu_rows[i].ext3_2005,
			luu_rows[i].ext3_2017, luu_rows[i].ext4_2017 };

		put_luu_row(f, t, luu_rows[i].cls, res);
	}
	fputs("\nWhat this cannot compare: Luu's result is one per file system and "
	      "operation, on file data; the paper's and this report's are per block type, "
	      "and only the `data` columns are the same experiment (the metadata columns "
	      "count the block types of this run's table whose cases all stopped or "
	      "propagated: no RZero, no crash). ext3 has no metadata checksums, so no "
	      "DRedundancy to set beside this run's; the silent corruption of data, "
	      "which Luu also tested, neither ext3 nor ext4 can detect (no data "
	      "checksums). The injection "
	      "layers differ: device-mapper in the tested kernel against flipbed's NBD "
	      "server under a virtio disk, with the guest's block layer between; and the "
	      "kernels: 2005's and 2017's against this run's.\n", f);
}

static void put_mapping(FILE *f)
{
	fputs("\n## The mapping\n\n"
	      "| flipbed | IRON level | why |\n|---|---|---|\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(detect_map); i++)
		fprintf(f, "| detect `%s` | %s | %s |\n", detect_map[i].detect,
			level_name[detect_map[i].level], detect_map[i].note);
	for (size_t i = 0; i < ARRAY_SIZE(react_map); i++)
		fprintf(f, "| reaction `%s` | %s | %s |\n", react_map[i].reaction,
			react_map[i].level == R_NOLEVEL ? "(none)" :
			level_name[react_map[i].level], react_map[i].note);
	fputs("| a step got ", f);
	for (size_t i = 0; i < ARRAY_SIZE(propagate_errno); i++)
		fprintf(f, "%s`%s`", i ? ", " : "", propagate_errno[i]);
	fputs(" | RPropagate | the failure reached the application (`steps[].errno`); "
	      "mount and umount steps are left out, and so are `EROFS` (the read-only "
	      "remount) and the harness's probe of the reaction (`flipbed-probe`) |\n"
	      "| a mount step of the pass failed | RStop | the mount was refused (the "
	      "reaction says mount-refused; older records said none when a mount after "
	      "the pass's first one failed) |\n"
	      "| any other reaction name | ?NAME | not mapped here: shown as it is, "
	      "and counted in a note after the tables |\n", f);
}

static bool is_patched(const char *kernel)
{
	return !strncmp(kernel, "patched", 7);
}

/* Every cell of a patched kernel with DZero, RZero or a crash, with its cases. */
static void put_findings(FILE *f, const struct iron *t)
{
	int nf = 0;

	fputs("\n## Findings: failures the patched kernel still ignores or crashes on\n\n", f);
	for (int k = 0; k < IC__COUNT; k++)
		for (int r = 0; r < t->nrows; r++)
			for (int kern = 0; kern < t->nkernels; kern++) {
				const struct iron_cell *cl = cell_at(t, r, k, kern);

				if (!is_patched(t->kernels[kern]) || !cl->nflag)
					continue;
				fprintf(f, "- %s, %s, %s: DZero %d, RZero %d, no IRON level "
					"(crash or unknown) %d, of %d case%s",
					t->kernels[kern], class_name[k], t->rows[r],
					cl->level[L_DZERO], cl->level[L_RZERO], cl->crashes,
					cl->n, cl->n == 1 ? "" : "s");
				if (cl->oneshot)
					fprintf(f, " (%d a one-shot EIO, ‡)", cl->oneshot);
				fputc(':', f);
				for (int j = 0; j < cl->nflag; j++)
					fprintf(f, " `%s`", cl->flag[j]->name);
				fputs(cl->flags > cl->nflag ? " …\n" : "\n", f);
				nf++;
			}
	if (!nf)
		fputs("None: every cell of a patched kernel detects and reacts.\n", f);
}

/* Per kernel: cells by level, for the paragraph. */
static void put_counts(FILE *f, const struct iron *t)
{
	fputs("\n## What the run says\n\n"
	      "Generated from the cells above. Cells per kernel that show a level "
	      "(a cell with several levels counts for each):\n\n| kernel |", f);
	for (int j = 0; j < L__COUNT; j++)
		fprintf(f, " %s |", level_name[j]);
	fputs("\n|---|", f);
	for (int j = 0; j < L__COUNT; j++)
		fputs("---|", f);
	fputc('\n', f);
	for (int kern = 0; kern < t->nkernels; kern++) {
		fprintf(f, "| %s |", t->kernels[kern]);
		for (int j = 0; j < L__COUNT; j++) {
			int n = 0;

			for (int r = 0; r < t->nrows; r++)
				for (int k = 0; k < IC__COUNT; k++)
					n += cell_at(t, r, k, kern)->level[j] > 0;
			fprintf(f, " %d |", n);
		}
		fputc('\n', f);
	}
}

/* "corruption of inode, dir-leaf; read failure of data" for cells with LEVEL. */
static int put_where(FILE *f, const struct iron *t, int kern, int level)
{
	int n = 0;

	for (int k = 0; k < IC__COUNT; k++) {
		int in = 0;

		for (int r = 0; r < t->nrows; r++) {
			if (!cell_at(t, r, k, kern)->level[level])
				continue;
			fprintf(f, "%s%s%s", in ? ", " : n ? "; " : "",
				in ? "" : class_name[k], in ? "" : " of ");
			fputs(t->rows[r], f);
			in++;
			n++;
		}
	}
	if (!n)
		fputs("no cell", f);
	return n;
}

/*
 * What a FAN_FS_ERROR listener (the witness behind a record's fanotify
 * events) gets for a bitmap checksum failure. From the kernel's code, not
 * from a run: 6.1's ext4_validate_block_bitmap (balloc.c) and
 * ext4_validate_inode_bitmap (ialloc.c) call ext4_error(), whose error
 * argument is 0; __ext4_error (super.c) passes fsnotify_sb_error()
 * EFSCORRUPTED for 0. Patch 0007 passes EFSBADCRC there.
 */
static void put_bitmap_errno(FILE *f)
{
	fputs("\nOn a stock kernel a FAN_FS_ERROR listener cannot tell a bitmap checksum "
	      "failure from other corruption: ext4_validate_block_bitmap (fs/ext4/balloc.c) "
	      "and ext4_validate_inode_bitmap (fs/ext4/ialloc.c) report it through "
	      "ext4_error(), which passes no error code, and __ext4_error() "
	      "(fs/ext4/super.c) then sends the event EFSCORRUPTED (EUCLEAN), the errno "
	      "of a failed sanity check, where the inode, directory and extent checksum "
	      "failures send EFSBADCRC (EBADMSG). Patch 0007 of kernel/patches/ passes "
	      "EFSBADCRC and the bitmap's block instead; the kernel log line names the "
	      "checksum on both kernels.\n", f);
}

/*
 * Per kernel: where it detects by checksum and retries, levels the paper
 * says commodity file systems lacked, and where it ignores a failure.
 */
static void put_paragraph(FILE *f, const struct iron *t)
{
	fputs("\nThe paper's abstract finds that commodity file systems \"store little or "
	      "no redundant information\" and adds in-disk checksums to ext3 only in its "
	      "prototype ixt3: ext3 has no DRedundancy level. Per kernel of this run:\n", f);
	for (int kern = 0; kern < t->nkernels; kern++) {
		fprintf(f, "\n- **%s** detects by checksum (DRedundancy) in ", t->kernels[kern]);
		put_where(f, t, kern, L_DREDUNDANCY);
		fputs("; re-reads and recovers (RRetry) in ", f);
		put_where(f, t, kern, L_RRETRY);
		fputs("; detects nothing (DZero) in ", f);
		put_where(f, t, kern, L_DZERO);
		fputs("; ignores the failure (RZero) in ", f);
		put_where(f, t, kern, L_RZERO);
		fputs(".\n", f);
	}
	put_bitmap_errno(f);
}

static void put_head(FILE *f, const struct iron *t, const char *out)
{
	const char *ver = t->run->info ?
		json_string_value(json_object_get(t->run->info, "flipbed")) : NULL;

	fprintf(f, "# IRON table: ext4 under device faults\n\n"
		"Regenerate: `build/bin/flipbed report --iron %s%s%s`\n\n"
		"Run `%s` (flipbed %s): %d device-fault cases used, %d infra or skipped "
		"left out.\n\n"
		"Levels of the IRON taxonomy (Prabhakaran, Bairavasundaram, Agrawal, "
		"Gunawi, Arpaci-Dusseau and Arpaci-Dusseau, \"IRON File Systems\", SOSP "
		"2005): detection DZero, DErrorCode, DSanity, DRedundancy; recovery RZero, "
		"RPropagate, RStop, RRetry, RRedundancy. A cell is `detection · recovery` "
		"over its cases: the levels seen, `×N` when their counts differ, `(N)` the "
		"cases of the cell; a case can show two recovery levels (an error returned "
		"to the application and a read-only remount); `†N`: N cases detected only by "
		"the next-mount pass (their levels are that pass's); `‡N`: N one-shot read EIOs "
		"nothing saw fail (see the note after the tables). A crash has no IRON "
		"level and is named (PANIC, OOPS, KASAN, HANG).\n\n"
		"The ext3 column of the paper is not here: its per-block-type results "
		"could not be consulted when this report was written (only the paper's "
		"abstract was reachable), and it is not written from memory. The nearest "
		"published comparison, a reproduction of the paper's method on ext3 and "
		"ext4, is set beside this run's read and write failures after the tables "
		"(\"Beside ext3 and ext4\").\n",
		t->run->dir, out ? " --out " : "", out ? out : "",
		fb_run_id(t->run), ver ? ver : "?", t->used, t->infra);
}

/* The cases left out (infra, skipped), by fault class and block type. */
static void put_left_out(FILE *f, const struct fb_run *run)
{
	struct { const char *type; int k, n; } left[MAX_ROWS];
	int nl = 0;

	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];
		int k = fault_class(c), j;

		if (k < 0 || (c->has_outcome && fb_case_class(c) > FB_CLASS_INFRA))
			continue;
		for (j = 0; j < nl && (left[j].k != k || strcmp(left[j].type, c->type)); j++)
			;
		if (j == nl && nl == MAX_ROWS)
			continue;
		if (j == nl)
			left[nl++] = (typeof(left[0])){ c->type, k, 0 };
		left[j].n++;
	}
	if (!nl)
		return;
	fputs("\nLeft out, without a kernel outcome (infra or skipped: `flipbed report RUN` "
	      "says why):", f);
	for (int j = 0; j < nl; j++)
		fprintf(f, "%s %s of %s ×%d", j ? ";" : "", class_name[left[j].k],
			left[j].type, left[j].n);
	fputs(".\n", f);
}

static void put_notes(FILE *f, const struct iron *t)
{
	put_left_out(f, t->run);
	if (t->oneshot)
		fprintf(f, "\n‡: %d case%s of a one-shot read EIO (`fault.timing = read`) "
			"where nothing was detected and no step failed: the block layer "
			"logged the error, and a later read of the block got the data. "
			"Whether ext4 retried (RRetry) or another path read it again (after a "
			"failed readahead) the records cannot tell, so the cell shows what was "
			"visible, DZero · RZero.\n", t->oneshot, t->oneshot == 1 ? "" : "s");
	if (t->no_steps)
		fprintf(f, "\n%d case%s record no steps: whether the failure reached "
			"the application cannot be told, and RPropagate is not shown for "
			"them.\n", t->no_steps, t->no_steps == 1 ? "" : "s");
	if (t->unknown)
		fprintf(f, "\n%d case%s have a reaction this report has no IRON level "
			"for (shown as ?NAME): add it to react_map in "
			"harness/report/report_iron.c.\n", t->unknown,
			t->unknown == 1 ? "" : "s");
}

static void iron_free(struct iron *t)
{
	for (int r = 0; r < t->nrows; r++)
		free(t->rows[r]);
	free(t->cells);
}

int fb_report_iron(const struct fb_run *run, FILE *f, const char *out)
{
	struct iron_case *ics = xcalloc(run->n ? run->n : 1, sizeof(*ics));
	struct iron t = { .run = run };

	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];
		int k = fault_class(c);

		if (k < 0)
			continue;
		if (!c->has_outcome || fb_case_class(c) <= FB_CLASS_INFRA) {
			t.infra++;
			continue;
		}
		ics[i].c = c;
		ics[i].cls = k;
		iron_case(&ics[i]);
		t.used++;
		t.unknown += ics[i].unknown;
		t.no_steps += ics[i].no_steps;
		t.oneshot += ics[i].oneshot;
	}
	if (!t.used) {
		fprintf(stderr, "flipbed: %s: no device-fault case with an outcome "
			"(%zu cases, %d infra or skipped); accepted: a run of the IRON "
			"matrix (cases with a target and a fault at rest, in a read or in "
			"a write)\n", run->cases_path, run->n, t.infra);
		free(ics);
		return -1;
	}
	iron_axes(&t, ics, run->n);
	iron_fill(&t, ics, run->n);
	put_head(f, &t, out);
	for (int k = 0; k < IC__COUNT; k++)
		if (class_present(&t, k))
			put_class(f, &t, k);
	put_notes(f, &t);
	put_findings(f, &t);
	put_counts(f, &t);
	put_paragraph(f, &t);
	put_luu(f, &t);
	put_mapping(f);
	iron_free(&t);
	free(ics);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * The IRON-style matrix shared by summary.md and index.html: one row per
 * object type (resealed variants on their own row right below), one column
 * per timing x kernel, in a fixed order so tables of different runs line
 * up. A cell holds every case of its row and column, most severe first.
 */
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "report/report_int.h"

static const char *const type_order[] = {
	"superblock", "superblock-backup", "group-desc", "block-bitmap",
	"inode-bitmap", "inode", "inode-extra", "inline-data",
	"extent-index", "extent-leaf", "dir-leaf", "dx-root", "dx-node",
	"xattr-block", "journal-sb", "journal-descriptor", "journal-commit",
	"journal-revoke", "journal-data", "mmp", "orphan-block", "data",
};
static const char *const timing_order[] = { "rest", "read", "write" };

#define RESEALED " resealed"

/* Known names in their fixed order, then the others alphabetically. */
static int rank_cmp(const char *a, const char *b, const char *const *order,
		    size_t n)
{
	size_t ra = n, rb = n;

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(a, order[i]))
			ra = i;
		if (!strcmp(b, order[i]))
			rb = i;
	}
	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(a, b);
}

#define ORDER(o) o, sizeof(o) / sizeof(*o)

int fb_kernel_cmp(const char *a, const char *b)
{
	size_t ra = fb_kernel_rank(a), rb = fb_kernel_rank(b);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(a, b);
}

static int row_cmp(const void *pa, const void *pb)
{
	const char *a = *(char *const *)pa, *b = *(char *const *)pb;
	size_t la = strcspn(a, " "), lb = strcspn(b, " ");
	char ta[128], tb[128];
	int r;

	snprintf(ta, sizeof(ta), "%.*s", (int)la, a);
	snprintf(tb, sizeof(tb), "%.*s", (int)lb, b);
	r = rank_cmp(ta, tb, ORDER(type_order));
	return r ? r : strcmp(a, b);
}

static int col_cmp(const void *pa, const void *pb)
{
	const struct fb_col *a = pa, *b = pb;
	int r = rank_cmp(a->timing, b->timing, ORDER(timing_order));

	return r ? r : fb_kernel_cmp(a->kernel, b->kernel);
}

static char *row_key(const struct fb_case *c)
{
	char *k;

	if (asprintf(&k, "%s%s", c->type, c->reseal ? RESEALED : "") < 0)
		return NULL;
	return k;
}

static int add_row(struct fb_table *t, const struct fb_case *c)
{
	char *k = row_key(c);

	if (!k)
		return -1;
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i], k)) {
			free(k);
			return 0;
		}
	t->rows[t->nrows++] = k;
	return 0;
}

static void add_col(struct fb_table *t, const struct fb_case *c)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i].timing, c->timing) &&
		    !strcmp(t->cols[i].kernel, c->kernel))
			return;
	t->cols[t->ncols].timing = c->timing;
	t->cols[t->ncols++].kernel = c->kernel;
}

static size_t find_row(const struct fb_table *t, const struct fb_case *c)
{
	char *k = row_key(c);
	size_t i = 0;

	while (k && i < t->nrows && strcmp(t->rows[i], k))
		i++;
	free(k);
	return i;
}

static size_t find_col(const struct fb_table *t, const struct fb_case *c)
{
	size_t i = 0;

	while (i < t->ncols && (strcmp(t->cols[i].timing, c->timing) ||
				strcmp(t->cols[i].kernel, c->kernel)))
		i++;
	return i;
}

/* Worse first: reaction class, then reaction, then case name. */
static const struct fb_run *sort_run;

static int severity_cmp(const void *pa, const void *pb)
{
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct fb_case *a = &sort_run->cases[ia], *b = &sort_run->cases[ib];
	int ka = fb_case_class(a), kb = fb_case_class(b);

	if (ka != kb)
		return kb - ka;
	if (a->has_outcome && b->has_outcome && a->reaction != b->reaction)
		return (int)b->reaction - (int)a->reaction;
	return ia < ib ? -1 : ia > ib;
}

/* fail > infra > pass > skip, interrupted: what the reader must look at first. */
static int verdict_weight(enum fb_verdict v)
{
	static const int w[FB_VERDICT__COUNT] = {
		[FB_VERDICT_INTERRUPTED] = 0, [FB_VERDICT_SKIP] = 0, [FB_VERDICT_PASS] = 1,
		[FB_VERDICT_INFRA] = 2, [FB_VERDICT_FAIL] = 3,
	};
	return w[v];
}

static int fill_cells(const struct fb_run *run, struct fb_table *t)
{
	t->cells = xcalloc(t->nrows * t->ncols + 1, sizeof(*t->cells));
	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];
		struct fb_cell *cell = fb_table_cell(t, find_row(t, c),
						     find_col(t, c));
		cell->idx = xrealloc(cell->idx, (cell->n + 1) * sizeof(*cell->idx));
		if (!cell->n || verdict_weight(c->verdict) >
				verdict_weight(cell->mark))
			cell->mark = c->verdict;
		cell->idx[cell->n++] = i;
	}
	sort_run = run;
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		if (t->cells[i].n > 1)
			qsort(t->cells[i].idx, t->cells[i].n, sizeof(size_t),
			      severity_cmp);
	return 0;
}

int fb_table_build(const struct fb_run *run, struct fb_table *t)
{
	memset(t, 0, sizeof(*t));
	t->rows = xcalloc(run->n + 1, sizeof(*t->rows));
	t->cols = xcalloc(run->n + 1, sizeof(*t->cols));
	for (size_t i = 0; i < run->n; i++) {
		if (add_row(t, &run->cases[i]))
			return -1;
		add_col(t, &run->cases[i]);
	}
	qsort(t->rows, t->nrows, sizeof(*t->rows), row_cmp);
	qsort(t->cols, t->ncols, sizeof(*t->cols), col_cmp);
	return fill_cells(run, t);
}

void fb_table_free(struct fb_table *t)
{
	for (size_t i = 0; i < t->nrows; i++)
		free(t->rows[i]);
	if (t->cells)
		for (size_t i = 0; i < t->nrows * t->ncols; i++)
			free(t->cells[i].idx);
	free(t->rows);
	free(t->cols);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

// SPDX-License-Identifier: MIT
/*
 * `flipbed diff`: cases whose outcome (detect/reaction/fsck/data) changed,
 * between two runs by case name, inside one run between cases that differ
 * only in one parameter (stock vs patched), or between two runs by kernel
 * (each kernel of the second run against itself or the kernel it is a
 * variant of in the first: stock-6.12 against stock). Verdicts are not
 * compared: an expectation edited between runs is not a kernel change.
 * Infra and skipped cases have no outcome and are counted apart.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "report/report_int.h"

bool fb_case_comparable(const struct fb_case *c)
{
	return c->has_outcome && (c->verdict == FB_VERDICT_PASS ||
				  c->verdict == FB_VERDICT_FAIL);
}

bool fb_case_changed(const struct fb_case *a, const struct fb_case *b)
{
	return a->detect != b->detect || a->reaction != b->reaction ||
	       a->fsck != b->fsck || a->data != b->data;
}

int fb_diff_runs(const struct fb_run *a, const struct fb_run *b, FILE *out)
{
	size_t i = 0, j = 0, same = 0, nchanged = 0, only_a = 0, only_b = 0,
	       skipped = 0;
	char oa[96], ob[96];

	while (i < a->n || j < b->n) {
		int r = i == a->n ? 1 : j == b->n ? -1 :
			strcmp(a->cases[i].name, b->cases[j].name);
		const struct fb_case *ca, *cb;

		if (r) {
			only_a += r < 0;
			only_b += r > 0;
			i += r < 0;
			j += r > 0;
			continue;
		}
		ca = &a->cases[i++];
		cb = &b->cases[j++];
		if (!fb_case_comparable(ca) || !fb_case_comparable(cb)) {
			skipped++;
		} else if (fb_case_changed(ca, cb)) {
			nchanged++;
			fprintf(out, "%s: %s -> %s\n", ca->name,
				fb_case_outcome4(ca, oa, sizeof(oa)),
				fb_case_outcome4(cb, ob, sizeof(ob)));
		} else {
			same++;
		}
	}
	fprintf(stderr, "flipbed diff: %zu cases compared, %zu changed; %zu "
		"infra or skipped; %zu only in %s, %zu only in %s\n",
		same + nchanged, nchanged, skipped, only_a, a->cases_path,
		only_b, b->cases_path);
	return nchanged > 0;
}

struct member {
	char *rest;		/* scenario + every other parameter, as JSON */
	const char *value;	/* the compared parameter */
	const struct fb_case *c;
};

static const char *param_value(const struct fb_case *c, const char *key)
{
	json_t *params = fb_case_get(c, "params");
	const char *v = json_string_value(json_object_get(params, key));

	if (!v && !strcmp(key, "kernel") && strcmp(c->kernel, "?"))
		v = c->kernel;
	return v;
}

char *fb_case_rest_key(const struct fb_case *c, const char *key)
{
	json_t *o = json_deep_copy(fb_case_get(c, "params"));
	const char *scn = fb_case_str(c, "scenario");
	char *s;

	if (!json_is_object(o)) {
		json_decref(o);
		o = json_object();
	}
	json_object_del(o, key);
	json_object_set_new(o, " scenario", json_string(scn ? scn : c->suite));
	s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(o);
	return s;
}

static int member_cmp(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	int r = strcmp(a->rest, b->rest);

	return r ? r : fb_kernel_cmp(a->value, b->value);
}

static size_t collect(const struct fb_run *run, const char *key,
		      struct member *m)
{
	size_t n = 0;

	for (size_t i = 0; i < run->n; i++) {
		const char *v = param_value(&run->cases[i], key);

		if (!v)
			continue;
		m[n].value = v;
		m[n].c = &run->cases[i];
		m[n].rest = fb_case_rest_key(&run->cases[i], key);
		if (m[n].rest)
			n++;
	}
	qsort(m, n, sizeof(*m), member_cmp);
	return n;
}

/* Each case against the first of its group (stock first for kernel). */
int fb_diff_by(const struct fb_run *run, const char *key, FILE *out)
{
	struct member *m = xcalloc(run->n + 1, sizeof(*m));
	size_t n, base = 0, pairs = 0, nchanged = 0, skipped = 0;
	char oa[96], ob[96];

	n = collect(run, key, m);
	for (size_t i = 1; i < n; i++) {
		const struct fb_case *a, *b;

		if (strcmp(m[i].rest, m[base].rest)) {
			base = i;
			continue;
		}
		a = m[base].c;
		b = m[i].c;
		if (!fb_case_comparable(a) || !fb_case_comparable(b)) {
			skipped++;
			continue;
		}
		pairs++;
		if (fb_case_changed(a, b)) {
			nchanged++;
			fprintf(out, "%s -> %s: %s -> %s\n", a->name, b->name,
				fb_case_outcome4(a, oa, sizeof(oa)),
				fb_case_outcome4(b, ob, sizeof(ob)));
		}
	}
	fprintf(stderr, "flipbed diff: %zu pairs differing only in %s compared, "
		"%zu changed; %zu infra or skipped\n", pairs, key, nchanged,
		skipped);
	for (size_t i = 0; i < n; i++)
		free(m[i].rest);
	free(m);
	return nchanged > 0;
}

/*
 * The case of A's members [lo, hi) (one rest key) whose kernel is
 * KERNEL's nearest along variant-of (itself first), or NULL.
 */
static const struct fb_case *nearest(const struct member *m, size_t lo,
				     size_t hi, const char *kernel)
{
	const struct fb_case *best = NULL;
	int bestd = -1;

	for (size_t i = lo; i < hi; i++) {
		int d = fb_kernel_distance(kernel, m[i].value);

		if (d >= 0 && (bestd < 0 || d < bestd)) {
			best = m[i].c;
			bestd = d;
		}
	}
	return best;
}

static int rest_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct member *)elem)->rest);
}

/* [*lo, *hi): the members of M (sorted) whose rest key is REST. */
static bool rest_range(const struct member *m, size_t n, const char *rest,
		       size_t *lo, size_t *hi)
{
	const struct member *hit = bsearch(rest, m, n, sizeof(*m), rest_cmp);

	if (!hit)
		return false;
	*lo = *hi = hit - m;
	while (*lo && !strcmp(m[*lo - 1].rest, rest))
		(*lo)--;
	while (*hi < n && !strcmp(m[*hi].rest, rest))
		(*hi)++;
	return true;
}

/* Each case of B against its kernel's, or its base kernel's, case in A. */
int fb_diff_runs_by_kernel(const struct fb_run *a, const struct fb_run *b,
			   FILE *out)
{
	struct member *ma = xcalloc(a->n + 1, sizeof(*ma));
	struct member *mb = xcalloc(b->n + 1, sizeof(*mb));
	size_t na = collect(a, "kernel", ma), nb = collect(b, "kernel", mb);
	size_t pairs = 0, nchanged = 0, skipped = 0, unmatched = 0, lo, hi;
	char oa[96], ob[96];

	for (size_t i = 0; i < nb; i++) {
		const struct fb_case *cb = mb[i].c, *ca = NULL;

		if (rest_range(ma, na, mb[i].rest, &lo, &hi))
			ca = nearest(ma, lo, hi, mb[i].value);
		if (!ca) {
			unmatched++;
		} else if (!fb_case_comparable(ca) || !fb_case_comparable(cb)) {
			skipped++;
		} else {
			pairs++;
			if (fb_case_changed(ca, cb)) {
				nchanged++;
				fprintf(out, "%s -> %s: %s -> %s\n", ca->name,
					cb->name, fb_case_outcome4(ca, oa, sizeof(oa)),
					fb_case_outcome4(cb, ob, sizeof(ob)));
			}
		}
	}
	fprintf(stderr, "flipbed diff: %zu pairs across kernels compared, %zu "
		"changed; %zu infra or skipped; %zu in %s with no case of their "
		"kernel or its base kernel in %s\n", pairs, nchanged, skipped,
		unmatched, b->cases_path, a->cases_path);
	for (size_t i = 0; i < na; i++)
		free(ma[i].rest);
	for (size_t i = 0; i < nb; i++)
		free(mb[i].rest);
	free(ma);
	free(mb);
	return nchanged > 0;
}

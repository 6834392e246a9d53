// SPDX-License-Identifier: MIT
/*
 * Matrix files and case expansion (matrix.h). The product of axes is taken
 * per scenario, over the values both the matrix and the scenario accept, so a
 * superblock scenario that only makes sense at rest never becomes a read case.
 */
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"
#include "scenario/matrix.h"
#include "util.h"

#define MAX_AXES 8

struct axis {
	const char *key;	/* "fault.timing" */
	char **values;
	int nvalues;
	const struct fb_entry *src;
};

struct expander {
	const struct fb_select *sel;
	struct fb_case_specs *out;
	int index;		/* cases seen, for sharding */
	int errors;
};

int fb_entry_parse_set(const char *arg, struct fb_entry *e)
{
	const char *dot = strchr(arg, '.');
	const char *eq = strchr(arg, '=');

	memset(e, 0, sizeof(*e));
	if (!dot || !eq || dot > eq || dot == arg || eq == dot + 1) {
		fprintf(stderr, "--set %.60s%s: expected SECTION.KEY=VALUE, for example fault.timing=read\n",
			arg, strlen(arg) > 60 ? "..." : "");
		return -1;
	}
	/* what a scenario line holds, so that --set adds nothing a file could not say */
	if (strlen(eq + 1) + (eq - dot - 1) + 3 > FB_SCENARIO_MAX_LINE) {
		fprintf(stderr, "--set %.*s: 'KEY = VALUE' is %zu characters; a scenario line holds at most %d (the value begins '%.40s')\n",
			(int)(eq - arg), arg, strlen(eq + 1) + (eq - dot - 1) + 3,
			FB_SCENARIO_MAX_LINE, eq + 1);
		return -1;
	}
	e->section = xstrndup(arg, dot - arg);
	e->key = xstrndup(dot + 1, eq - dot - 1);
	e->value = xstrdup(eq + 1);
	e->origin = "--set";
	return 0;
}

static bool in_list(char **v, const char *s)
{
	for (; v && *v; v++)
		if (!strcmp(*v, s))
			return true;
	return false;
}

/* The name part an axis value adds: booleans add the key's last word when yes. */
static void name_append(char *name, size_t len, const char *key, const char *value)
{
	const char *word = strrchr(key, '.') ? strrchr(key, '.') + 1 : key;
	size_t n = strlen(name);

	if (!strcmp(value, "no"))
		return;
	snprintf(name + n, len - n, ":%s", !strcmp(value, "yes") ? word : value);
}

static void add_case(struct expander *x, const char *file, const char *kernel,
		     const struct axis *axes, const int *pick, int naxes)
{
	const struct fb_select *sel = x->sel;
	struct fb_entry params[MAX_AXES + 32] = { 0 };
	struct fb_scenario *scn;
	char name[512];
	int n = 0;

	for (int a = 0; a < naxes; a++) {
		const struct fb_entry *src = axes[a].src;
		const char *key = axes[a].key;
		const char *dot = strchr(key, '.');
		params[n] = *src;
		params[n].section = xstrndup(key, dot - key);
		params[n].key = xstrdup(dot + 1);
		params[n].value = xstrdup(axes[a].values[pick[a]]);
		n++;
	}
	for (int i = 0; i < sel->nsets && n < (int)(sizeof(params) / sizeof(*params)); i++) {
		params[n] = sel->sets[i];
		params[n].section = xstrdup(sel->sets[i].section);
		params[n].key = xstrdup(sel->sets[i].key);
		params[n].value = xstrdup(sel->sets[i].value);
		n++;
	}
	if (fb_scenario_load(file, params, n, &scn) < 0) {
		x->errors++;
		goto out;
	}
	snprintf(name, sizeof(name), "%s", scn->name);
	for (int a = 0; a < naxes; a++)
		name_append(name, sizeof(name), axes[a].key, axes[a].values[pick[a]]);
	snprintf(name + strlen(name), sizeof(name) - strlen(name), "@%s", kernel);
	if (sel->filter && fnmatch(sel->filter, name, 0)) {
		fb_scenario_free(scn);
		goto out;
	}
	if (sel->shard_n && x->index++ % sel->shard_n != sel->shard_k - 1) {
		fb_scenario_free(scn);
		goto out;
	}
	x->out->v = xrealloc(x->out->v, (x->out->n + 1) * sizeof(*x->out->v));
	struct fb_case_spec *c = &x->out->v[x->out->n++];
	c->name = xstrdup(name);
	c->kernel = xstrdup(kernel);
	c->scn = scn;
	/* axes and --set values alike: the repro command needs both */
	c->params = xrealloc(NULL, (n + 1) * sizeof(*c->params));
	c->nparams = n;
	for (int a = 0; a < n; a++) {
		c->params[a] = params[a];
		params[a].section = params[a].key = params[a].value = NULL;
	}
out:
	for (int i = 0; i < n; i++) {
		free(params[i].section);
		free(params[i].key);
		free(params[i].value);
	}
}

/*
 * A scenario that lists several fixtures is one case per fixture: the axis
 * "scenario.fixture", taken from the scenario and named before the matrix's
 * axes ("bigalloc/workload:bigalloc-64k:rest@stock"). Not when --set picks
 * the fixture. Returns the number of axes set in AX (0 or 1).
 */
static int fixture_axis(const struct expander *x, const struct fb_scenario *scn,
			struct axis *ax)
{
	const struct fb_entry *src = NULL;

	if (scn->nfixtures < 2)
		return 0;
	for (int i = 0; i < x->sel->nsets; i++)
		if (!strcmp(x->sel->sets[i].section, "scenario") &&
		    !strcmp(x->sel->sets[i].key, "fixture"))
			return 0;
	for (int i = 0; i < scn->nentries; i++)
		if (!strcmp(scn->entries[i].section, "scenario") &&
		    !strcmp(scn->entries[i].key, "fixture"))
			src = &scn->entries[i];
	ax->key = "scenario.fixture";
	ax->src = src;
	ax->values = xrealloc(NULL, (scn->nfixtures + 1) * sizeof(char *));
	for (int i = 0; i < scn->nfixtures; i++)
		ax->values[i] = xstrdup(scn->fixtures[i]);
	ax->values[scn->nfixtures] = NULL;
	ax->nvalues = scn->nfixtures;
	return 1;
}

/* Every combination of axis values, for one scenario and kernel. */
static void expand_product(struct expander *x, const char *file, const char *kernel,
			   const struct axis *axes, int naxes)
{
	int pick[MAX_AXES] = { 0 };

	for (int a = 0; a < naxes; a++)
		if (!axes[a].nvalues)
			return;
	for (;;) {
		add_case(x, file, kernel, axes, pick, naxes);
		int a = naxes - 1;
		while (a >= 0 && ++pick[a] == axes[a].nvalues)
			pick[a--] = 0;
		if (a < 0)
			return;
	}
}

/* Does a scenario's `kernels =` list take KERNEL, by name or as a variant? */
static bool kernel_listed(char **v, const char *kernel)
{
	for (; v && *v; v++)
		if (fb_kernel_distance(kernel, *v) >= 0)
			return true;
	return false;
}

/*
 * One scenario under a matrix: kernels and axes narrowed to what the
 * scenario declares it accepts.
 */
static void expand_scenario(struct expander *x, const char *file, char **mkernels,
			    char **mgroups, const struct fb_entry *maxes, int nmaxes)
{
	struct fb_scenario *scn;
	struct axis axes[MAX_AXES];
	int naxes;
	char **kernels;

	if (fb_scenario_load(file, NULL, 0, &scn) < 0) {
		x->errors++;
		return;
	}
	if (x->sel->group && !fb_scenario_in_group(scn, x->sel->group))
		goto out;
	if (mgroups && mgroups[0]) {
		bool any = false;
		for (char **g = mgroups; *g; g++)
			any |= fb_scenario_in_group(scn, *g);
		if (!any)
			goto out;
	}
	naxes = fixture_axis(x, scn, &axes[0]);
	for (int i = 0; i < nmaxes && naxes < MAX_AXES; i++) {
		const char *accepted = fb_scenario_axis(scn, maxes[i].key);
		if (!accepted)
			continue;
		char **acc = fb_strv_split(accepted, NULL);
		int n;
		char **mv = fb_strv_split(maxes[i].value, &n);
		struct axis *ax = &axes[naxes++];
		ax->key = maxes[i].key;
		ax->src = &maxes[i];
		ax->values = xrealloc(NULL, (n + 1) * sizeof(char *));
		ax->nvalues = 0;
		for (int v = 0; v < n; v++)
			if (in_list(acc, mv[v]))
				ax->values[ax->nvalues++] = xstrdup(mv[v]);
		ax->values[ax->nvalues] = NULL;
		fb_strv_free(acc);
		fb_strv_free(mv);
	}
	kernels = mkernels;
	for (char **k = kernels; k && *k; k++)
		if (kernel_listed(scn->kernels, *k))
			expand_product(x, file, *k, axes, naxes);
	for (int a = 0; a < naxes; a++)
		fb_strv_free(axes[a].values);
out:
	fb_scenario_free(scn);
}

/* A matrix's `kernels =`: every name must be in the registry. */
static int check_kernels(const char *path, const struct fb_entry *e)
{
	char **v = fb_strv_split(e->value, NULL);
	int errors = 0;

	for (char **k = v; *k; k++) {
		if (fb_kernel_find(*k))
			continue;
		fprintf(stderr, "%s:%d: kernels = %s: unknown kernel '%s'; accepted: %s\n",
			path, e->line, e->value, *k, fb_kernel_names());
		errors++;
	}
	if (!v[0]) {
		fprintf(stderr, "%s:%d: kernels = : expected names of %s\n", path, e->line,
			fb_kernel_names());
		errors++;
	}
	fb_strv_free(v);
	return errors;
}

static char **kernels_for(const struct fb_select *sel, const char *matrix_kernels)
{
	if (sel->kernels)
		return fb_strv_split(sel->kernels, NULL);
	return fb_strv_split(matrix_kernels ? matrix_kernels : "stock patched", NULL);
}

/*
 * `scenarios =` may be continued on indented lines, or given again: every
 * line's globs count (a line is at most 199 characters).
 */
static char *globs_append(char *globs, const char *more)
{
	size_t n;
	char *all;

	if (!globs)
		return xstrdup(more);
	n = strlen(globs) + strlen(more) + 2;
	all = xmalloc(n);
	snprintf(all, n, "%s %s", globs, more);
	free(globs);
	return all;
}

static char *matrix_path(const char *name)
{
	char *p;

	if (strchr(name, '/') || access(name, F_OK) == 0)
		return xstrdup(name);
	if (asprintf(&p, "scenarios/matrix/%s.mat", name) < 0)
		return NULL;
	return p;
}

int fb_matrix_expand(const char *name, const struct fb_select *sel,
		     struct fb_case_specs *ret)
{
	struct expander x = { .sel = sel, .out = ret };
	struct fb_entry *e, *axes = NULL;
	int n, naxes = 0;
	const char *mkernels = NULL, *groups = NULL;
	char *scenarios = NULL;
	char *path = matrix_path(name);
	int rc = -1;

	memset(ret, 0, sizeof(*ret));
	if (access(path, R_OK)) {
		fprintf(stderr, "flipbed: matrix '%s': %s not found; matrices are scenarios/matrix/*.mat (quick, ci, full)\n",
			name, path);
		free(path);
		return -1;
	}
	if (fb_scenario_read(path, &e, &n) < 0)
		goto out;
	/* one line for the wrong command, not one per key it does not know */
	if (fb_entries_have(e, n, "scenario") && !fb_entries_have(e, n, "matrix")) {
		fprintf(stderr, "%s: this is a scenario (it has a [scenario] section): use flipbed run\n",
			path);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (!strcmp(e[i].section, "matrix") && !strcmp(e[i].key, "scenarios"))
			scenarios = globs_append(scenarios, e[i].value);
		else if (!strcmp(e[i].section, "matrix") && !strcmp(e[i].key, "kernels")) {
			mkernels = e[i].value;
			x.errors += check_kernels(path, &e[i]);
		}
		else if (!strcmp(e[i].section, "matrix") && !strcmp(e[i].key, "groups"))
			groups = e[i].value;
		else if (!strcmp(e[i].section, "matrix") && !strcmp(e[i].key, "shows"))
			;
		else if (!strcmp(e[i].section, "axes") && strchr(e[i].key, '.')) {
			axes = xrealloc(axes, (naxes + 1) * sizeof(*axes));
			axes[naxes++] = e[i];
		} else {
			fprintf(stderr, "%s:%d: unknown key [%s] %s; accepted: [matrix] shows, scenarios, groups, kernels; [axes] SECTION.KEY = VALUES\n",
				path, e[i].line, e[i].section, e[i].key);
			x.errors++;
		}
	}
	if (!scenarios) {
		fprintf(stderr, "%s: [matrix] scenarios = GLOB…: missing\n", path);
		x.errors++;
	}
	if (x.errors)
		goto out;

	char **globs = fb_strv_split(scenarios, NULL);
	char **mk = kernels_for(sel, mkernels);
	char **mg = fb_strv_split(groups, NULL);
	for (char **g = globs; *g; g++) {
		glob_t gl;
		if (glob(*g, 0, NULL, &gl)) {
			fprintf(stderr, "%s: [matrix] scenarios: '%s' matches no file\n", path, *g);
			x.errors++;
			continue;
		}
		for (size_t i = 0; i < gl.gl_pathc; i++)
			expand_scenario(&x, gl.gl_pathv[i], mk, mg, axes, naxes);
		globfree(&gl);
	}
	fb_strv_free(globs);
	fb_strv_free(mk);
	fb_strv_free(mg);
	rc = x.errors ? -1 : 0;
out:
	free(scenarios);
	free(axes);
	for (int i = 0; i < n; i++) {
		free(e[i].section);
		free(e[i].key);
		free(e[i].value);
	}
	free(e);
	free(path);
	return rc;
}

int fb_scenarios_expand(char *const files[], int nfiles,
			const struct fb_select *sel, struct fb_case_specs *ret)
{
	struct expander x = { .sel = sel, .out = ret };

	memset(ret, 0, sizeof(*ret));
	for (int i = 0; i < nfiles; i++) {
		struct fb_scenario *scn;
		if (fb_scenario_load(files[i], NULL, 0, &scn) < 0) {
			x.errors++;
			continue;
		}
		char **ks = sel->kernels ? fb_strv_split(sel->kernels, NULL) : NULL;
		char **kv = ks ? ks : scn->kernels;
		struct axis ax;
		int naxes = fixture_axis(&x, scn, &ax);
		for (char **k = kv; *k; k++)
			if (!sel->group || fb_scenario_in_group(scn, sel->group))
				expand_product(&x, files[i], *k, &ax, naxes);
		if (naxes)
			fb_strv_free(ax.values);
		fb_strv_free(ks);
		fb_scenario_free(scn);
	}
	return x.errors ? -1 : 0;
}

void fb_case_spec_free(struct fb_case_spec *c)
{
	for (int p = 0; p < c->nparams; p++) {
		free(c->params[p].section);
		free(c->params[p].key);
		free(c->params[p].value);
	}
	free(c->params);
	free(c->name);
	free(c->kernel);
	fb_scenario_free(c->scn);
	memset(c, 0, sizeof(*c));
}

void fb_case_specs_free(struct fb_case_specs *l)
{
	for (int i = 0; i < l->n; i++)
		fb_case_spec_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

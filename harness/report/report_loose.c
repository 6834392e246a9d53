// SPDX-License-Identifier: MIT
/*
 * flipbed report --loose: the values an expectation accepts that no case
 * produced. Seeds are fixed, so a scenario on one kernel and timing does
 * the same thing every run; an alternative ("clean|repaired", "any") that
 * never occurs in repeated runs is a guess, not a finding.
 *
 * Cases are grouped by scenario file, kernel, timing (and target.reseal
 * when it is a matrix axis), pooled over every run given. A group's
 * expectation is the one the last run that has it recorded, so a scenario
 * tightened between runs is judged as it stands now while the outcomes of
 * the older runs still count. Each loose value is reported against the
 * [expect…] section that set the field, found by reading the scenario file
 * with the qualifier rules of scenarios/README.md.
 */
#include <stdlib.h>
#include <string.h>
#include "report/report_int.h"

enum { F_DETECT, F_REACTION, F_FSCK, F_DATA, F_WARNING, F__COUNT };

static const char *const field_names[F__COUNT] = {
	"detect", "reaction", "fsck", "data", "warning",
};

static const int field_sizes[F__COUNT] = {
	FB_DETECT__COUNT, FB_REACT__COUNT, FB_FSCK__COUNT, FB_DATA__COUNT, 2,
};

static const char *value_name(int f, int v)
{
	switch (f) {
	case F_DETECT: return fb_detect_name(v);
	case F_REACTION: return fb_reaction_name(v);
	case F_FSCK: return fb_fsck_name(v);
	case F_DATA: return fb_data_name(v);
	default: return v ? "yes" : "no";
	}
}

static int value_parse(int f, const char *name)
{
	switch (f) {
	case F_DETECT: return fb_detect_parse(name);
	case F_REACTION: return fb_reaction_parse(name);
	case F_FSCK: return fb_fsck_parse(name);
	case F_DATA: return fb_data_parse(name);
	default: return !strcmp(name, "yes") ? 1 : !strcmp(name, "no") ? 0 : -1;
	}
}

/* The values EXPECT accepts as a bit mask; "any" (or no field) is the whole set. */
static unsigned accepted(const struct fb_case *c, int f)
{
	char path[32], *copy, *tok, *save;
	const char *e;
	unsigned mask = 0;

	snprintf(path, sizeof(path), "expect.%s", field_names[f]);
	e = fb_case_str(c, path);
	if (!e || !strcmp(e, "any"))
		return (1u << field_sizes[f]) - 1;
	copy = xstrdup(e);
	for (tok = strtok_r(copy, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		int v = value_parse(f, tok);

		if (v >= 0)
			mask |= 1u << v;
	}
	free(copy);
	return mask;
}

static unsigned produced(const struct fb_case *c, int f)
{
	switch (f) {
	case F_DETECT: return 1u << c->detect;
	case F_REACTION: return 1u << c->reaction;
	case F_FSCK: return 1u << c->fsck;
	case F_DATA: return 1u << c->data;
	default: return 1u << c->warning;
	}
}

/* Cases of one scenario file on one kernel and timing, over every run. */
struct group {
	const char *file;
	const char *kernel;
	const char *timing;
	bool reseal;		/* target.reseal=yes as a matrix axis */
	size_t run;		/* the last run seen: its expectation counts */
	unsigned accept[F__COUNT];
	unsigned seen[F__COUNT];
};

static const char *scenario_of(const struct fb_case *c)
{
	const char *s = fb_case_str(c, "scenario");

	return s ? s : c->name;
}

static void add_case(struct group **gs, size_t *n, size_t run, const struct fb_case *c)
{
	const char *file = scenario_of(c), *rs = fb_case_str(c, "params.target.reseal");
	bool reseal = rs && !strcmp(rs, "yes");
	struct group *g = NULL;

	for (size_t i = 0; i < *n && !g; i++)
		if (!strcmp((*gs)[i].file, file) && !strcmp((*gs)[i].kernel, c->kernel) &&
		    !strcmp((*gs)[i].timing, c->timing) && (*gs)[i].reseal == reseal)
			g = &(*gs)[i];
	if (!g) {
		*gs = xrealloc(*gs, (*n + 1) * sizeof(**gs));
		g = &(*gs)[(*n)++];
		memset(g, 0, sizeof(*g));
		g->file = file;
		g->kernel = c->kernel;
		g->timing = c->timing;
		g->reseal = reseal;
		g->run = run;
	}
	for (int f = 0; f < F__COUNT; f++) {
		if (run != g->run)
			g->accept[f] = 0;
		g->accept[f] |= accepted(c, f);
		g->seen[f] |= produced(c, f);
	}
	g->run = run;
}

static int timing_rank(const char *t)
{
	static const char *const order[] = { "rest", "read", "read-sticky", "write" };

	for (size_t i = 0; i < sizeof(order) / sizeof(*order); i++)
		if (!strcmp(t, order[i]))
			return i;
	return sizeof(order) / sizeof(*order);
}

static int group_cmp(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	int r = strcmp(a->file, b->file);

	if (!r)
		r = fb_kernel_cmp(a->kernel, b->kernel);
	if (!r)
		r = timing_rank(a->timing) - timing_rank(b->timing);
	if (!r)
		r = strcmp(a->timing, b->timing);
	return r ? r : a->reseal - b->reseal;
}

/* One [expect…] section of a scenario file: its qualifiers, the fields it sets. */
struct section {
	char *name;		/* "expect:patched:read" */
	char **quals;
	int nquals;
	bool sets[F__COUNT];
};

struct scn {
	bool readable;
	struct section *secs;
	size_t n;
};

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && strchr(" \t\r\n", e[-1]))
		*--e = '\0';
	return s;
}

static void scn_add_section(struct scn *s, const char *name)
{
	struct section *x;
	char *copy, *tok, *save;

	s->secs = xrealloc(s->secs, (s->n + 1) * sizeof(*s->secs));
	x = &s->secs[s->n++];
	memset(x, 0, sizeof(*x));
	x->name = xstrdup(name);
	copy = xstrdup(name + strlen("expect"));
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		x->quals = xrealloc(x->quals, (x->nquals + 1) * sizeof(char *));
		x->quals[x->nquals++] = xstrdup(tok);
	}
	free(copy);
}

/*
 * The [expect…] sections of FILE and the fields each sets: only what is
 * needed to name the section a value came from. FILE was checked when the
 * case ran; a file that cannot be read now leaves s->readable false.
 */
static void scn_read(struct scn *s, const char *file)
{
	char *text = fb_slurp(file, NULL), *line, *save;
	struct section *cur = NULL;

	memset(s, 0, sizeof(*s));
	if (!text)
		return;
	s->readable = true;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *l = trim(line), *eq;

		if (*l == '[') {
			char *end = strchr(l, ']');

			if (end)
				*end = '\0';
			cur = NULL;
			if (!strncmp(l + 1, "expect", 6) && (!l[7] || l[7] == ':')) {
				for (size_t i = 0; i < s->n && !cur; i++)
					if (!strcmp(s->secs[i].name, l + 1))
						cur = &s->secs[i];
				if (!cur) {
					scn_add_section(s, l + 1);
					cur = &s->secs[s->n - 1];
				}
			}
		} else if (cur && (eq = strchr(l, '='))) {
			*eq = '\0';
			for (int f = 0; f < F__COUNT; f++)
				if (!strcmp(trim(l), field_names[f]))
					cur->sets[f] = true;
		}
	}
	free(text);
}

static void scn_free(struct scn *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (int q = 0; q < s->secs[i].nquals; q++)
			free(s->secs[i].quals[q]);
		free(s->secs[i].quals);
		free(s->secs[i].name);
	}
	free(s->secs);
	memset(s, 0, sizeof(*s));
}

static bool qual_matches(const struct group *g, const char *q)
{
	if (!strcmp(q, "reseal"))
		return g->reseal;
	if (timing_rank(q) < timing_rank("?"))
		return !strcmp(q, g->timing);
	return !strcmp(q, g->kernel);
}

/*
 * The section whose value of field F applies to G: the matching section
 * with the most qualifiers, the later one on a tie (as the scenario loader
 * resolves it); NULL when no section sets F (it is "any").
 */
static const char *scn_section(const struct scn *s, const struct group *g, int f)
{
	const char *best = NULL;
	int best_q = -1;

	for (size_t i = 0; i < s->n; i++) {
		const struct section *x = &s->secs[i];
		bool all = x->sets[f] && x->nquals >= best_q;

		for (int q = 0; all && q < x->nquals; q++)
			all = qual_matches(g, x->quals[q]);
		if (all) {
			best = x->name;
			best_q = x->nquals;
		}
	}
	return best;
}

/* Groups of one line that saw the same values: "clean on stock:read, patched:read". */
struct seen_by {
	char *seen;
	char *labels;
};

/* One output line: a field of a file whose section accepts values never seen. */
struct loose {
	const char *file;
	char *section;		/* "[expect:read]", "[expect] (not set: any)" */
	int field;
	unsigned values;
	struct seen_by *where;
	size_t nwhere;
	size_t order;
};

static void group_label(const struct group *g, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s%s", g->kernel, g->timing, g->reseal ? ":reseal" : "");
}

static void seen_text(int f, unsigned seen, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int v = 0; v < field_sizes[f]; v++)
		if (seen & (1u << v))
			off += snprintf(buf + off, off < len ? len - off : 0, "%s%s",
					off ? "|" : "", value_name(f, v));
}

static void loose_add_where(struct loose *l, const char *seen, const char *label)
{
	struct seen_by *w = NULL;
	char *labels;

	for (size_t i = 0; i < l->nwhere && !w; i++)
		if (!strcmp(l->where[i].seen, seen))
			w = &l->where[i];
	if (!w) {
		l->where = xrealloc(l->where, (l->nwhere + 1) * sizeof(*l->where));
		w = &l->where[l->nwhere++];
		w->seen = xstrdup(seen);
		w->labels = xstrdup(label);
		return;
	}
	if (asprintf(&labels, "%s, %s", w->labels, label) < 0)
		abort();
	free(w->labels);
	w->labels = labels;
}

static void add_loose(struct loose **ls, size_t *n, const struct group *g, int f,
		      const char *section, unsigned values)
{
	char label[128], seen[128];
	struct loose *l = NULL;

	group_label(g, label, sizeof(label));
	seen_text(f, g->seen[f], seen, sizeof(seen));
	for (size_t i = 0; i < *n && !l; i++)
		if (!strcmp((*ls)[i].file, g->file) && (*ls)[i].field == f &&
		    (*ls)[i].values == values && !strcmp((*ls)[i].section, section))
			l = &(*ls)[i];
	if (!l) {
		*ls = xrealloc(*ls, (*n + 1) * sizeof(**ls));
		l = &(*ls)[*n];
		memset(l, 0, sizeof(*l));
		l->file = g->file;
		l->section = xstrdup(section);
		l->field = f;
		l->values = values;
		l->order = (*n)++;
	}
	loose_add_where(l, seen, label);
}

static void loose_free(struct loose *l)
{
	for (size_t i = 0; i < l->nwhere; i++) {
		free(l->where[i].seen);
		free(l->where[i].labels);
	}
	free(l->where);
	free(l->section);
}

static int loose_cmp(const void *pa, const void *pb)
{
	const struct loose *a = pa, *b = pb;
	int r = strcmp(a->file, b->file);

	if (!r)
		r = a->field - b->field;
	return r ? r : (a->order > b->order) - (a->order < b->order);
}

/* The loose fields of the groups of one file, G[0..N). */
static void file_loose(const struct group *g, size_t n, struct loose **ls, size_t *nls)
{
	struct scn s;

	scn_read(&s, g[0].file);
	for (size_t i = 0; i < n; i++) {
		for (int f = 0; f < F__COUNT; f++) {
			unsigned values = g[i].accept[f] & ~g[i].seen[f];
			char section[160], label[128];
			const char *name;

			if (!values)
				continue;
			if (!s.readable) {
				group_label(&g[i], label, sizeof(label));
				snprintf(section, sizeof(section), "[expect for %s]", label);
			} else if ((name = scn_section(&s, &g[i], f))) {
				snprintf(section, sizeof(section), "[%s]", name);
			} else {
				snprintf(section, sizeof(section), "[expect] (not set: any)");
			}
			add_loose(ls, nls, &g[i], f, section, values);
		}
	}
	scn_free(&s);
}

static void print_loose(const struct loose *l, FILE *out)
{
	bool first = true;

	fprintf(out, "%s %s %s accepts ", l->file, l->section, field_names[l->field]);
	for (int v = 0; v < field_sizes[l->field]; v++) {
		if (!(l->values & (1u << v)))
			continue;
		fprintf(out, "%s%s", first ? "" : ", ", value_name(l->field, v));
		first = false;
	}
	fputs(", never seen (", out);
	for (size_t i = 0; i < l->nwhere; i++)
		fprintf(out, "%s%s on %s", i ? "; " : "", l->where[i].seen, l->where[i].labels);
	fputs(")\n", out);
}

int fb_report_loose(const struct fb_run *runs, size_t nruns, FILE *out)
{
	struct group *gs = NULL;
	struct loose *ls = NULL;
	size_t ng = 0, nls = 0, ncases = 0, nfiles = 0, loose_files = 0;
	size_t per_field[F__COUNT] = { 0 };

	for (size_t r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++)
			if (runs[r].cases[i].has_outcome) {
				add_case(&gs, &ng, r, &runs[r].cases[i]);
				ncases++;
			}
	if (ng)
		qsort(gs, ng, sizeof(*gs), group_cmp);
	for (size_t i = 0, j; i < ng; i = j) {
		size_t before = nls;

		for (j = i + 1; j < ng && !strcmp(gs[j].file, gs[i].file); j++)
			;
		file_loose(&gs[i], j - i, &ls, &nls);
		nfiles++;
		loose_files += nls > before;
	}
	if (nls)
		qsort(ls, nls, sizeof(*ls), loose_cmp);
	for (size_t i = 0; i < nls; i++) {
		print_loose(&ls[i], out);
		per_field[ls[i].field]++;
		loose_free(&ls[i]);
	}
	fprintf(stderr, "flipbed: %zu loose fields (detect %zu, reaction %zu, fsck %zu, "
		"data %zu, warning %zu) in %zu of %zu scenario files; %zu cases from %zu runs\n",
		nls, per_field[F_DETECT], per_field[F_REACTION], per_field[F_FSCK],
		per_field[F_DATA], per_field[F_WARNING], loose_files, nfiles, ncases, nruns);
	free(ls);
	free(gs);
	return nls ? 1 : 0;
}

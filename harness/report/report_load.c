// SPDX-License-Identifier: MIT
/*
 * Load a run directory: every line of cases.jsonl becomes a struct fb_case
 * (the record itself plus the fields reports group by), checked against the
 * closed outcome names so a typo is an error here, not a blank cell later.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "report/report_int.h"

static void perr(const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "flipbed: %s:%u: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

json_t *fb_case_get(const struct fb_case *c, const char *path)
{
	char key[128];
	json_t *v = c->rec;

	while (v && *path) {
		size_t n = strcspn(path, ".");

		/* "fault.timing" is one key of params, not a path. */
		if (json_object_get(v, path))
			return json_object_get(v, path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		v = json_object_get(v, key);
		path += n + (path[n] == '.');
	}
	return v;
}

const char *fb_case_str(const struct fb_case *c, const char *path)
{
	return json_string_value(fb_case_get(c, path));
}

/* A string field that must be one of a closed set of names. */
static int get_enum(struct fb_case *c, const char *path,
		    int (*parse)(const char *), const char *accepted, int *out)
{
	json_t *v = fb_case_get(c, path);
	int r;

	if (!v) {
		perr(c->file, c->line, "case '%s': no field '%s'; accepted: %s",
		     c->name, path, accepted);
		return -1;
	}
	r = json_is_string(v) ? parse(json_string_value(v)) : -1;
	if (r < 0) {
		char *s = json_dumps(v, JSON_ENCODE_ANY);

		perr(c->file, c->line, "case '%s': %s is %s; accepted: %s",
		     c->name, path, s ? s : "?", accepted);
		free(s);
		return -1;
	}
	*out = r;
	return 0;
}

static int load_outcome(struct fb_case *c)
{
	int d, r, f, a;

	/* what a case cut short had found is no kernel outcome */
	if (c->verdict == FB_VERDICT_INTERRUPTED)
		return 0;
	if (!json_object_get(c->rec, "outcome") &&
	    (c->verdict == FB_VERDICT_INFRA || c->verdict == FB_VERDICT_SKIP))
		return 0;
	if (get_enum(c, "outcome.detect", fb_detect_parse,
		     "none, csum, sanity, io, mount", &d) ||
	    get_enum(c, "outcome.reaction", fb_reaction_parse,
		     "none, recovered, error-continue, remount-ro, "
		     "shutdown, mount-refused, hang, panic, oops, kasan", &r) ||
	    get_enum(c, "outcome.fsck", fb_fsck_parse,
		     "clean, repaired, unrepaired, not-run", &f) ||
	    get_enum(c, "outcome.data", fb_data_parse,
		     "intact, lost, changed, not-checked", &a))
		return -1;
	c->has_outcome = true;
	c->detect = d;
	c->reaction = r;
	c->fsck = f;
	c->data = a;
	c->warning = json_is_true(fb_case_get(c, "outcome.warning"));
	return 0;
}

/* "scenarios/inode/base-flip.scn" -> "inode"; else the name up to its first '/'. */
static char *suite_of(const struct fb_case *c)
{
	const char *s = fb_case_str(c, "scenario");
	const char *slash;

	if (s && !strncmp(s, "scenarios/", 10) && (slash = strchr(s + 10, '/')))
		return xstrndup(s + 10, slash - (s + 10));
	slash = strchr(c->name, '/');
	return slash ? xstrndup(c->name, slash - c->name) : xstrdup("(top)");
}

/*
 * The case directory: the record's "dir" or, for records that predate it,
 * cases/<name with '/' -> '_'>. Reports write into it, so it must stay
 * inside the run directory.
 */
static int check_dir(struct fb_case *c)
{
	const char *d = fb_case_str(c, "dir");
	char *own, *p;

	if (!d) {
		if (asprintf(&own, "cases/%s", c->name) < 0)
			return -1;
		for (p = own + 6; *p; p++)
			if (*p == '/')
				*p = '_';
		json_object_set_new(c->rec, "dir", json_string(own));
		free(own);
		d = fb_case_str(c, "dir");
	}
	if (!*d || *d == '/' || strstr(d, "..") || strstr(d, "//") ||
	    d[strlen(d) - 1] == '/') {
		perr(c->file, c->line, "case '%s': dir is '%s'; accepted: a "
		     "relative path inside the run directory, like cases/NAME",
		     c->name, d);
		return -1;
	}
	c->dir = d;
	return 0;
}

static const char *str_or(const struct fb_case *c, const char *a,
			  const char *b, const char *dflt)
{
	const char *s = fb_case_str(c, a);

	if (!s && b)
		s = fb_case_str(c, b);
	return s ? s : dflt;
}

static int load_case(struct fb_case *c, const char *text)
{
	json_error_t jerr;
	json_t *reseal;
	int v;

	c->rec = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!c->rec || !json_is_object(c->rec)) {
		perr(c->file, c->line, "not a JSON object (column %d: %s); "
		     "accepted: one case record per line", jerr.column,
		     c->rec ? "not an object" : jerr.text);
		return -1;
	}
	c->name = fb_case_str(c, "case");
	if (!c->name || !*c->name) {
		perr(c->file, c->line, "no \"case\" name; accepted: a record "
		     "with a non-empty string \"case\"");
		return -1;
	}
	if (get_enum(c, "verdict", fb_verdict_parse, "pass, fail, infra, skip, interrupted",
		     &v))
		return -1;
	c->verdict = v;
	if (load_outcome(c) || check_dir(c))
		return -1;
	c->kernel = str_or(c, "kernel", "params.kernel", "?");
	c->type = str_or(c, "target.type", NULL, "(no target)");
	c->timing = str_or(c, "target.timing", "params.fault.timing", "?");
	reseal = fb_case_get(c, "target.reseal");
	c->reseal = reseal ? json_is_true(reseal) :
		!strcmp(str_or(c, "params.target.reseal", NULL, "no"), "yes");
	c->suite = suite_of(c);
	c->text = xstrdup(text);
	return c->suite && c->text ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct fb_case *)a)->name,
		      ((const struct fb_case *)b)->name);
}

static int check_unique(const struct fb_run *run)
{
	for (size_t i = 1; i < run->n; i++) {
		const struct fb_case *a = &run->cases[i - 1], *b = &run->cases[i];

		if (!strcmp(a->name, b->name)) {
			perr(b->file, b->line > a->line ? b->line : a->line,
			     "case '%s' appears twice (lines %u and %u); "
			     "accepted: unique case names", a->name,
			     a->line < b->line ? a->line : b->line,
			     a->line < b->line ? b->line : a->line);
			return -1;
		}
	}
	return 0;
}

/*
 * A case record is one line that flipbed wrote: its largest parts (the
 * kernel-message excerpt, the fault log) are bounded where they are made,
 * and the committed baselines' longest record is about 31 KB. A longer
 * line is not a record: it is refused at its line as soon as it passes the
 * bound, so a hostile cases.jsonl (one line of a gigabyte) costs neither
 * the time to read it nor the memory to hold it.
 */
#define FB_RECORD_MAX (1u << 20)

/*
 * Read one line of F into *BUF as getline does, newline kept. Returns its
 * length, -1 at the end of F, -2 on a read error (errno set), -3 for a
 * line longer than FB_RECORD_MAX and -4 for a line holding a NUL byte
 * (no JSON text does; a sparse or binary file is not a run).
 */
static ssize_t read_record(FILE *f, char **buf, size_t *cap)
{
	size_t len = 0;
	int ch;

	while ((ch = getc_unlocked(f)) != EOF) {
		if (len + 2 > *cap) {
			if (*cap > FB_RECORD_MAX)
				return -3;
			*cap = *cap ? 2 * *cap : 4096;
			*buf = xrealloc(*buf, *cap);
		}
		if (!ch)
			return -4;
		(*buf)[len++] = (char)ch;
		if (ch == '\n')
			break;
	}
	if (ferror(f))
		return -2;
	if (!len)
		return -1;
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

/*
 * A last line without its newline that is not JSON: the run stopped while
 * it appended the record (fb_run_load_partial drops it).
 */
static bool cut_short(const char *line, size_t len)
{
	json_t *v;

	if (len && line[len - 1] == '\n')
		return false;
	v = json_loadb(line, len, 0, NULL);
	json_decref(v);
	return !v;
}

static int read_cases(struct fb_run *run, FILE *f, bool partial)
{
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	ssize_t len;
	unsigned lineno = 0;
	int ret = 0;

	while (!ret && (len = read_record(f, &line, &cap)) >= 0) {
		struct fb_case *c;

		lineno++;
		if (partial && cut_short(line, len)) {
			run->truncated = lineno;
			continue;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		if (run->n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			run->cases = xrealloc(run->cases, alloc * sizeof(*c));
		}
		c = &run->cases[run->n++];
		memset(c, 0, sizeof(*c));
		c->file = run->cases_path;
		c->line = lineno;
		ret = load_case(c, line);
	}
	if (!ret && len == -2) {
		perr(run->cases_path, lineno + 1, "cannot read: %s", strerror(errno));
		ret = -1;
	} else if (!ret && len == -3) {
		perr(run->cases_path, lineno + 1, "a line longer than %u bytes; "
		     "accepted: case records of harness/RESULTS.md, one a line",
		     FB_RECORD_MAX);
		ret = -1;
	} else if (!ret && len == -4) {
		perr(run->cases_path, lineno + 1, "a NUL byte; accepted: case "
		     "records of harness/RESULTS.md, JSON text one a line");
		ret = -1;
	}
	free(line);
	return ret;
}

static int load_info(struct fb_run *run, const char *dir)
{
	char *path = fb_path(dir, NULL, "run.json");
	json_error_t jerr;
	int ret = 0;

	if (!path)
		return -1;
	if (fb_is_file(path)) {
		run->info = json_load_file(path, 0, &jerr);
		if (!json_is_object(run->info)) {
			perr(path, run->info || jerr.line < 1 ? 1 : jerr.line,
			     "not a JSON object (%s); accepted: the run.json "
			     "object of harness/RESULTS.md",
			     run->info ? "not an object" : jerr.text);
			ret = -1;
		}
	}
	free(path);
	return ret;
}

static int load(const char *dir, struct fb_run *run, bool partial)
{
	struct stat st;
	FILE *f;
	int ret;

	memset(run, 0, sizeof(*run));
	if (!stat(dir, &st) && S_ISREG(st.st_mode)) {
		char *slash = strrchr(dir, '/');

		run->cases_path = xstrdup(dir);
		run->dir = slash ? xstrndup(dir, slash - dir) : xstrdup(".");
	} else {
		run->dir = xstrdup(dir);
		run->cases_path = fb_path(dir, NULL, "cases.jsonl");
	}
	if (!run->dir || !run->cases_path)
		return -1;
	f = fopen(run->cases_path, "r");
	if (!f) {
		fprintf(stderr, "flipbed: %s: %s; accepted: a run directory "
			"with a cases.jsonl, or a cases.jsonl file\n",
			run->cases_path, strerror(errno));
		return -1;
	}
	ret = read_cases(run, f, partial);
	fclose(f);
	if (!ret)
		ret = load_info(run, run->dir);
	/* an empty cases.jsonl leaves cases NULL, which qsort must not get */
	if (!ret && run->n) {
		qsort(run->cases, run->n, sizeof(*run->cases), by_name);
		ret = check_unique(run);
	}
	return ret;
}

int fb_run_load(const char *dir, struct fb_run *run)
{
	return load(dir, run, false);
}

int fb_run_load_partial(const char *dir, struct fb_run *run)
{
	return load(dir, run, true);
}

void fb_run_free(struct fb_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		json_decref(run->cases[i].rec);
		free((char *)run->cases[i].suite);
		free(run->cases[i].text);
	}
	free(run->cases);
	json_decref(run->info);
	free(run->dir);
	free(run->cases_path);
	memset(run, 0, sizeof(*run));
}

int fb_run_status(const struct fb_run *run)
{
	size_t t[FB_VERDICT__COUNT];

	fb_run_totals(run, t);
	return t[FB_VERDICT_FAIL] ? 1 : t[FB_VERDICT_INFRA] ? 3 : 0;
}

void fb_run_totals(const struct fb_run *run, size_t totals[FB_VERDICT__COUNT])
{
	memset(totals, 0, FB_VERDICT__COUNT * sizeof(*totals));
	for (size_t i = 0; i < run->n; i++)
		totals[run->cases[i].verdict]++;
}

bool fb_run_interrupted(const struct fb_run *run, char *buf, size_t len)
{
	json_t *planned = json_object_get(run->info, "cases_planned");
	size_t t[FB_VERDICT__COUNT], cut, ran, all;

	fb_run_totals(run, t);
	cut = t[FB_VERDICT_INTERRUPTED];
	if (!cut && !json_is_true(json_object_get(run->info, "interrupted")))
		return false;
	ran = run->n - cut;
	all = json_is_integer(planned) && json_integer_value(planned) >= (json_int_t)run->n ?
	      (size_t)json_integer_value(planned) : run->n;
	snprintf(buf, len, "interrupted: %zu of %zu planned cases ran; %zu cut short, %zu never "
		 "started", ran, all, cut, all - run->n);
	return true;
}

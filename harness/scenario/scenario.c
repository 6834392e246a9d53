// SPDX-License-Identifier: MIT
/*
 * Scenario files: read with libinih (one handler call per "key = value"),
 * then validated against the table of known keys below. Every message names
 * the file and line of the value at fault and what would be accepted.
 */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "outcome.h"
#include "scenario/expr.h"
#include "scenario/scenario.h"
#include "util.h"
#include "scenario/vocab.h"
#include "scenario/computed.h"
#include "scenario/csum_first.h"
#include "kernels.h"
#include "guest/steps.h"

#define DEFAULT_KERNELS "stock patched"
#define DEFAULT_TIMEOUT 60
#define MAX_LINE 200		/* libinih's INI_MAX_LINE in Debian's build */
_Static_assert(FB_SCENARIO_MAX_LINE == MAX_LINE - 1, "one line limit for files and --set");
#define MAX_ERRORS 20		/* then the file is not read further */
#define MAX_FILE (1 << 20)	/* the largest scenario is a few KiB */

static const char *const timing_names[FB_TIMING__COUNT] = {
	"rest", "read", "read-sticky", "write",
};

const char *fb_timing_name(enum fb_timing t)
{
	return (unsigned)t < FB_TIMING__COUNT ? timing_names[t] : "?";
}

int fb_timing_parse(const char *name)
{
	for (int i = 0; i < FB_TIMING__COUNT; i++)
		if (!strcmp(timing_names[i], name))
			return i;
	return -1;
}

/* ---- small string helpers ---- */

char **fb_strv_split(const char *s, int *ret_n)
{
	char **v = xrealloc(NULL, sizeof(*v));
	int n = 0;

	while (s && *s) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		const char *e = s;
		while (*e && !isspace((unsigned char)*e))
			e++;
		v = xrealloc(v, (n + 2) * sizeof(*v));
		v[n++] = xstrndup(s, e - s);
		s = e;
	}
	v[n] = NULL;
	if (ret_n)
		*ret_n = n;
	return v;
}

void fb_strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

/* ---- reading ---- */

struct reader {
	FILE *f;
	const char *file;
	int line;
	int errors;
	struct fb_entry *entries;
	int n;
	bool binary;		/* a NUL byte was read: not a scenario at all */
};

/*
 * libinih reads one line per call: count them so the handler knows where
 * it is, and refuse what no scenario holds (a NUL byte, an overlong line).
 * After MAX_ERRORS errors a file is not worth reading on (a binary file
 * would give one error per line): reading stops there.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct reader *r = stream;
	int c = EOF, n = 0;
	bool nul = false, longer = false;

	if (r->errors >= MAX_ERRORS || r->binary)
		return NULL;
	while (n < num - 1 && (c = fgetc(r->f)) != EOF) {
		if (c == '\0')
			nul = true;
		str[n++] = nul ? ' ' : (char)c;
		if (c == '\n')
			break;
	}
	if (!n)
		return NULL;
	str[n] = '\0';
	r->line++;
	if (c != '\n' && c != EOF && n == num - 1) {
		while ((c = fgetc(r->f)) != EOF && c != '\n')
			nul |= c == '\0';
		longer = true;
	}
	if (nul) {
		/* not a text file: nothing after this line is worth a message */
		fprintf(stderr, "%s:%d: a NUL byte; a scenario is text\n", r->file, r->line);
		r->binary = true;
		return NULL;
	}
	if (longer) {
		fprintf(stderr, "%s:%d: line longer than %d characters; split the value\n",
			r->file, r->line, MAX_LINE - 1);
		r->errors++;
	}
	if (r->errors >= MAX_ERRORS)
		fprintf(stderr, "%s:%d: %d errors; not reading further\n", r->file, r->line,
			MAX_ERRORS);
	return str;
}

static int on_entry(void *user, const char *section, const char *key,
		    const char *value)
{
	struct reader *r = user;
	struct fb_entry *e;

	if (!fb_utf8_valid(section) || !fb_utf8_valid(key) || !fb_utf8_valid(value)) {
		fprintf(stderr, "%s:%d: not UTF-8; scenario files, and the paths in them, are UTF-8 text\n",
			r->file, r->line);
		r->errors++;
		return 1;
	}
	r->entries = xrealloc(r->entries, (r->n + 1) * sizeof(*r->entries));
	e = &r->entries[r->n++];
	e->section = xstrdup(section);
	e->key = xstrdup(key);
	e->value = xstrdup(value);
	e->origin = r->file;
	e->line = r->line;
	return 1;
}

int fb_scenario_read(const char *file, struct fb_entry **ret_entries, int *ret_n)
{
	struct reader r = { .file = file };
	struct stat st;
	int fd, rc;

	*ret_entries = NULL;
	*ret_n = 0;
	/* O_NONBLOCK: a FIFO given as a scenario must not block the open */
	fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		return -2;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE) {
		fprintf(stderr, "%s: %s; a scenario is a text file of at most %d bytes\n", file,
			S_ISREG(st.st_mode) ? "too large" : "not a regular file", MAX_FILE);
		close(fd);
		return -2;
	}
	r.f = fdopen(fd, "r");
	if (!r.f) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		close(fd);
		return -2;
	}
	rc = ini_parse_stream(read_line, &r, on_entry, &r);
	fclose(r.f);
	if (r.binary) {
		for (int i = 0; i < r.n; i++) {
			free(r.entries[i].section);
			free(r.entries[i].key);
			free(r.entries[i].value);
		}
		free(r.entries);
		return -2;
	}
	if (rc > 0) {
		fprintf(stderr, "%s:%d: not a section header, a 'key = value' line or a comment\n",
			file, rc);
		r.errors++;
	}
	*ret_entries = r.entries;
	*ret_n = r.n;
	return r.errors ? -1 : 0;
}

/* ---- validation ---- */

struct ctx {
	struct fb_scenario *scn;
	int errors;
	bool seen_populate_index;
	struct fb_vars vars;
	char *fixture_path;	/* the origin of the fixture's lines */
	struct fb_entry *fix;	/* the fixture's lines, applied before the file's */
	int nfix;
	const struct fb_entry *overrides;
	int noverrides;
	struct fb_entry action_at;	/* where [fault] action was set (origin, line) */
	struct fb_entry *step_at;	/* where each kept step was given (origin, line) */
};

/*
 * Whether MSG was printed before. A mistake in a command-line override
 * (origin without a line: --set) is found again in every scenario it
 * applies to; it is said once. A small fixed table: past it, repeats print.
 */
static bool said_before(const char *msg)
{
	static char *said[64];
	static int nsaid;

	for (int i = 0; i < nsaid; i++)
		if (!strcmp(said[i], msg))
			return true;
	if (nsaid < (int)(sizeof(said) / sizeof(said[0])))
		said[nsaid++] = xstrdup(msg);
	return false;
}

__attribute__((format(printf, 3, 4)))
static void bad(struct ctx *c, const struct fb_entry *e, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int at;

	if (e && e->line)
		at = snprintf(msg, sizeof(msg), "%s:%d: ", e->origin, e->line);
	else if (e)
		at = snprintf(msg, sizeof(msg), "%s: ", e->origin);
	else
		at = snprintf(msg, sizeof(msg), "%s: ", c->scn->file);
	va_start(ap, fmt);
	if (at >= 0 && (size_t)at < sizeof(msg))
		vsnprintf(msg + at, sizeof(msg) - at, fmt, ap);
	va_end(ap);
	c->errors++;
	if (e && !e->line && said_before(msg))
		return;
	fprintf(stderr, "%s\n", msg);
}

static bool parse_ll(const char *s, long long min, long long *ret)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end || v < min)
		return false;
	*ret = v;
	return true;
}

/* The plugin's limit for torn=N: an NBD request is shorter than 4 GiB. */
#define TORN_MAX 8388607

/*
 * The action kinds: an action is one of them, misdirect and torn with
 * "=NUMBER" (misdirect=BYTES, signed and non-zero; torn=SECTORS of 512
 * bytes, the part of a write that is stored). The kind is also an
 * [expect:QUALIFIER].
 */
static const char *const action_kinds[] = {
	"flip", "zero", "ones", "random", "eio", "drop", "misdirect", "torn", NULL,
};

static bool action_valid(const char *a)
{
	long long v;

	if (!strncmp(a, "misdirect=", 10))
		return parse_ll(a + 10, LLONG_MIN, &v) && v != 0;
	if (!strncmp(a, "torn=", 5))
		return parse_ll(a + 5, 1, &v) && v <= TORN_MAX;
	for (int i = 0; action_kinds[i]; i++)
		if (!strcmp(action_kinds[i], a))
			return strcmp(a, "misdirect") && strcmp(a, "torn");
	return false;
}

/* Does ACTION ("misdirect=4096") have kind KIND ("misdirect")? */
static bool action_is(const char *action, const char *kind)
{
	size_t n = strlen(kind);

	return !strncmp(action, kind, n) && (!action[n] || action[n] == '=');
}

static bool action_kind_known(const char *kind)
{
	for (int i = 0; action_kinds[i]; i++)
		if (!strcmp(action_kinds[i], kind))
			return true;
	return false;
}

static bool parse_bool(const char *s, bool *ret)
{
	if (!strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "1"))
		*ret = true;
	else if (!strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "0"))
		*ret = false;
	else
		return false;
	return true;
}

/* ---- variables and ${EXPR} (expr.h) ---- */

/*
 * E's value with every ${EXPR} replaced by its decimal value, or NULL after
 * reporting the first one that cannot be.
 */
static char *substitute(struct ctx *c, const struct fb_entry *e)
{
	const char *p = e->value, *open, *close;
	char *out = NULL, why[256];
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	bool ok = true, quiet;
	long long v;

	while (ok && (open = strstr(p, "${"))) {
		fwrite(p, 1, open - p, f);
		close = strchr(open + 2, '}');
		if (!close) {
			bad(c, e, "%s = %s: '${' without '}'; accepted: ${EXPR} with EXPR %s",
			    e->key, e->value, FB_EXPR_ACCEPTED);
			ok = false;
		} else if (!fb_expr_eval(&c->vars, open + 2, close - open - 2, &v, why, sizeof(why),
					 &quiet)) {
			if (!quiet)
				bad(c, e, "%s = %s: ${%.*s}: %s", e->key, e->value,
				    (int)(close - open - 2), open + 2, why);
			ok = false;
		} else {
			fprintf(f, "%lld", v);
			p = close + 1;
		}
	}
	fputs(p, f);
	fclose(f);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

static bool var_name_valid(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	return !*s;
}

/*
 * vars.NAME=EXPR from --set or a matrix axis: a new value for X, given when
 * X is defined, so the variables defined after it see the new value.
 */
static void override_var(struct ctx *c, const struct fb_entry *e, struct fb_var *x)
{
	char why[256];
	long long v;

	if (!fb_expr_eval(&c->vars, e->value, strlen(e->value), &v, why, sizeof(why), NULL)) {
		bad(c, e, "vars.%s = %s: %s", e->key, e->value, why);
		x->broken = true;
		return;
	}
	x->value = v;
	x->origin = e->origin;
	x->line = e->line;
	x->broken = false;
}

/* An override for a variable that neither the scenario nor its fixture defines. */
static void check_var_overrides(struct ctx *c)
{
	char names[512];

	for (int i = 0; i < c->noverrides; i++) {
		const struct fb_entry *e = &c->overrides[i];
		if (strcmp(e->section, "vars") || fb_var_find(&c->vars, e->key, strlen(e->key)))
			continue;
		fb_var_names(&c->vars, names, sizeof(names));
		bad(c, e, "vars.%s = %s: no variable '%s' to set; defined: %s",
		    e->key, e->value, e->key, names);
	}
}

/* [vars] NAME = EXPR, in the fixture or the scenario: each name once. */
static void define_var(struct ctx *c, const struct fb_entry *e)
{
	struct fb_var *x = fb_var_find(&c->vars, e->key, strlen(e->key));
	char why[256];
	long long v = 0;
	bool ok, quiet;

	if (!var_name_valid(e->key)) {
		bad(c, e, "[vars] '%s': a variable name is letters, digits and '_', not starting with a digit",
		    e->key);
		return;
	}
	if (x) {
		bad(c, e, "[vars] %s = %s: '%s' is already defined at %s:%d; a variable is defined once, in the scenario or in its fixture",
		    e->key, e->value, e->key, x->origin, x->line);
		return;
	}
	ok = fb_expr_eval(&c->vars, e->value, strlen(e->value), &v, why, sizeof(why), &quiet);
	if (!ok && !quiet)
		bad(c, e, "[vars] %s = %s: %s", e->key, e->value, why);
	/* defined even when refused, so its uses are not reported again */
	c->vars.v = xrealloc(c->vars.v, (c->vars.n + 1) * sizeof(*c->vars.v));
	c->vars.v[c->vars.n++] = (struct fb_var){
		.name = xstrdup(e->key), .value = v, .origin = e->origin, .line = e->line,
		.broken = !ok,
	};
	for (int i = 0; i < c->noverrides; i++)
		if (!strcmp(c->overrides[i].section, "vars") && !strcmp(c->overrides[i].key, e->key))
			override_var(c, &c->overrides[i], &c->vars.v[c->vars.n - 1]);
}

/* A size as mkfs.ext4 takes it: digits with an optional K, M or G. */
static bool valid_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s || v == 0)
		return false;
	return !*end || (strchr("KMG", *end) && !end[1]);
}

const char *const fb_expect_names[FB_EXP__COUNT] = {
	"detect", "reaction", "fsck", "data", "warning", "detect_next", "reaction_next",
	"undetected", "checked-before-csum",
};

static int name_valid(int field, const char *name)
{
	switch (field) {
	case FB_EXP_DETECT: return fb_detect_parse(name) >= 0;
	case FB_EXP_REACTION: return fb_reaction_parse(name) >= 0;
	case FB_EXP_FSCK: return fb_fsck_parse(name) >= 0;
	case FB_EXP_DATA: return fb_data_parse(name) >= 0;
	case FB_EXP_DETECT_NEXT: return fb_detect_parse(name) >= 0 || !strcmp(name, "not-run");
	case FB_EXP_REACTION_NEXT: return fb_reaction_parse(name) >= 0 || !strcmp(name, "not-run");
	case FB_EXP_UNDETECTED: return fb_undetected_parse(name) >= 0 || !strcmp(name, "explained");
	case FB_EXP_CHECKED_FIRST: return fb_csum_first_find(name) || !strcmp(name, "none");
	default: return !strcmp(name, "yes") || !strcmp(name, "no");
	}
}

static const char *field_accepted(int field)
{
	switch (field) {
	case FB_EXP_DETECT: return "none, csum, sanity, io, mount";
	case FB_EXP_REACTION: return "none, recovered, error-continue, remount-ro, shutdown, mount-refused, hang, panic, oops, kasan";
	case FB_EXP_FSCK: return "clean, repaired, unrepaired";
	case FB_EXP_DATA: return "intact, lost, changed";
	case FB_EXP_DETECT_NEXT: return "none, csum, sanity, io, mount, not-run";
	case FB_EXP_REACTION_NEXT: return "none, recovered, error-continue, remount-ro, shutdown, mount-refused, hang, panic, oops, kasan, not-run";
	case FB_EXP_UNDETECTED: return "explained (any cause but unexplained), n/a, never-read, overwritten-before-read, data-block, redundant-copy-unused, resealed, not-covered, stale, no-change, discarded-read, log-end, freed, read-ahead, unexplained";
	case FB_EXP_CHECKED_FIRST: return fb_csum_first_list();
	default: return "yes, no";
	}
}

static void check_expect_value(struct ctx *c, const struct fb_entry *e, int field)
{
	char *copy, *tok, *save;

	if (!strcmp(e->value, "any"))
		return;
	/* one function: the reason the expectation is widened */
	if (field == FB_EXP_CHECKED_FIRST) {
		if (!name_valid(field, e->value))
			bad(c, e, "%s = %s: unknown value '%s'; accepted: none, or one of: %s",
			    e->key, e->value, e->value, field_accepted(field));
		return;
	}
	if (!e->value[0] || e->value[0] == '|' || e->value[strlen(e->value) - 1] == '|' ||
	    strstr(e->value, "||")) {
		bad(c, e, "%s = %s: an empty alternative; accepted: any, or names joined by '|' (%s)",
		    e->key, e->value, field_accepted(field));
		return;
	}
	copy = xstrdup(e->value);
	for (tok = strtok_r(copy, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
		if (!name_valid(field, tok))
			bad(c, e, "%s = %s: unknown value '%s'; accepted: any, or '|'-separated names from: %s",
			    e->key, e->value, tok, field_accepted(field));
	free(copy);
}

static struct fb_expect_section *expect_section(struct ctx *c, const struct fb_entry *e)
{
	struct fb_scenario *s = c->scn;
	char key[128];
	int i;

	/* "expect" or "expect:patched:read": qualifiers are kept sorted by position */
	for (i = 0; i < s->nexpects; i++) {
		struct fb_expect_section *x = &s->expects[i];
		char *p = key;
		p += snprintf(key, sizeof(key), "expect");
		for (int q = 0; q < x->nquals; q++)
			p += snprintf(p, sizeof(key) - (p - key), ":%s", x->quals[q]);
		if (!strcmp(key, e->section))
			return x;
	}
	s->expects = xrealloc(s->expects, (s->nexpects + 1) * sizeof(*s->expects));
	struct fb_expect_section *x = &s->expects[s->nexpects++];
	memset(x, 0, sizeof(*x));
	x->section_origin = xstrdup(e->origin);
	x->section_line = e->line;
	const char *q = e->section + strlen("expect");
	while (*q == ':') {
		const char *end = strchr(q + 1, ':');
		size_t len = end ? (size_t)(end - q - 1) : strlen(q + 1);
		char *qual = xstrndup(q + 1, len);
		if (fb_timing_parse(qual) < 0 && strcmp(qual, "reseal") &&
		    !action_kind_known(qual) && !fb_kernel_find(qual))
			bad(c, e, "[%s]: unknown qualifier '%s'; accepted: %s, rest, read, read-sticky, write, reseal, flip, zero, ones, random, eio, drop, misdirect, torn",
			    e->section, qual, fb_kernel_names());
		x->quals = xrealloc(x->quals, (x->nquals + 1) * sizeof(char *));
		x->quals[x->nquals++] = qual;
		q += 1 + len;
	}
	return x;
}

static void set_expect(struct ctx *c, const struct fb_entry *e)
{
	struct fb_expect_section *x = expect_section(c, e);

	for (int f = 0; f < FB_EXP__COUNT; f++) {
		if (strcmp(e->key, fb_expect_names[f]))
			continue;
		check_expect_value(c, e, f);
		free(x->fields.field[f]);
		x->fields.field[f] = xstrdup(e->value);
		free(x->origin[f]);
		x->origin[f] = xstrdup(e->origin);
		x->line[f] = e->line;
		return;
	}
	bad(c, e, "[%s] unknown key '%s'; accepted: detect, reaction, fsck, data, warning, detect_next, reaction_next, undetected, checked-before-csum",
	    e->section, e->key);
}

static void set_populate(struct ctx *c, const struct fb_entry *e)
{
	struct fb_scenario *s = c->scn;
	struct fb_populate p = { 0 };
	int n;
	char **w = fb_strv_split(e->value, &n);
	bool ok = true;

	if (!strcmp(e->key, "file")) {
		p.kind = FB_POP_FILE;
		ok = n == 2 && w[0][0] == '/' && parse_ll(w[1], 0, &p.bytes);
		if (!ok)
			bad(c, e, "file = %s: expected 'file = /PATH BYTES'", e->value);
	} else if (!strcmp(e->key, "dir")) {
		p.kind = FB_POP_DIR;
		ok = n == 1 && w[0][0] == '/';
		if (!ok)
			bad(c, e, "dir = %s: expected 'dir = /PATH'", e->value);
	} else if (!strcmp(e->key, "files")) {
		p.kind = FB_POP_FILES;
		ok = (n == 3 || n == 4) && w[0][0] == '/' && parse_ll(w[1], 1, &p.count) &&
		     p.count <= 999999 && parse_ll(w[2], 0, &p.bytes) &&
		     (n == 3 || (parse_ll(w[3], 8, &p.name_bytes) && p.name_bytes <= 255));
		if (!ok)
			bad(c, e, "files = %s: expected 'files = /DIR COUNT BYTES [NAME_BYTES]' "
			    "(COUNT 1 to 999999, NAME_BYTES 8 to 255)", e->value);
	} else if (!strcmp(e->key, "sparse")) {
		p.kind = FB_POP_SPARSE;
		ok = n == 2 && w[0][0] == '/' && parse_ll(w[1], 1, &p.count);
		if (!ok)
			bad(c, e, "sparse = %s: expected 'sparse = /PATH EXTENTS' (EXTENTS >= 1)", e->value);
	} else if (!strcmp(e->key, "xattr")) {
		p.kind = FB_POP_XATTR;
		ok = n == 3 && w[0][0] == '/' && strchr(w[1], '.') && parse_ll(w[2], 1, &p.bytes);
		if (!ok)
			bad(c, e, "xattr = %s: expected 'xattr = /PATH NAMESPACE.NAME BYTES'", e->value);
		else
			p.name = xstrdup(w[1]);
	} else if (!strcmp(e->key, "debugfs")) {
		p.kind = FB_POP_DEBUGFS;
		ok = n >= 1;
		if (!ok)
			bad(c, e, "debugfs = : expected a debugfs command");
		else
			p.name = xstrdup(e->value);
	} else if (!strcmp(e->key, "index-dirs")) {
		bool yes;
		p.kind = FB_POP_INDEX;
		ok = parse_bool(e->value, &yes);
		if (!ok)
			bad(c, e, "index-dirs = %s: accepted: yes, no", e->value);
		else if (!yes)
			ok = false;
	} else if (!strcmp(e->key, "journal")) {
		p.kind = FB_POP_JOURNAL;
		ok = n == 2 && (!strcmp(w[0], "write") || !strcmp(w[0], "revoke")) &&
		     strspn(w[1], "0123456789,") == strlen(w[1]);
		if (!ok) {
			bad(c, e, "journal = %s: expected 'journal = write|revoke BLOCK[,BLOCK…]'", e->value);
		} else {
			p.name = xstrdup(w[0]);
			p.blocks = xstrdup(w[1]);
			n = 0;	/* no path */
		}
	} else {
		bad(c, e, "[populate] unknown key '%s'; accepted: file, dir, files, sparse, xattr, journal, debugfs, index-dirs",
		    e->key);
		ok = false;
	}
	if (ok) {
		if (n > 0 && p.kind != FB_POP_DEBUGFS && p.kind != FB_POP_INDEX &&
		    p.kind != FB_POP_JOURNAL)
			p.path = xstrdup(w[0]);
		s->pop = xrealloc(s->pop, (s->npop + 1) * sizeof(*s->pop));
		s->pop[s->npop++] = p;
	}
	fb_strv_free(w);
}

static void set_list(char ***v, int *n, const char *value)
{
	fb_strv_free(*v);
	*v = fb_strv_split(value, n);
}

static void set_str(char **slot, const char *value)
{
	free(*slot);
	*slot = xstrdup(value);
}

static void set_scenario_key(struct ctx *c, const struct fb_entry *e)
{
	struct fb_scenario *s = c->scn;
	long long v;

	if (!strcmp(e->key, "shows")) {
		set_str(&s->shows, e->value);
	} else if (!strcmp(e->key, "fixture")) {
		;	/* read first, by pick_fixture() */
	} else if (!strcmp(e->key, "groups")) {
		set_list(&s->groups, &s->ngroups, e->value);
	} else if (!strcmp(e->key, "requires")) {
		set_list(&s->requires, &s->nrequires, e->value);
		for (int i = 0; i < s->nrequires; i++)
			if (strncmp(s->requires[i], "kernel:", 7) && strncmp(s->requires[i], "program:", 8))
				bad(c, e, "requires = %s: '%s' is not 'kernel:VARIANT' or 'program:NAME'",
				    e->value, s->requires[i]);
	} else if (!strcmp(e->key, "kernels")) {
		set_list(&s->kernels, &s->nkernels, e->value);
		for (int i = 0; i < s->nkernels; i++)
			if (!fb_kernel_find(s->kernels[i]))
				bad(c, e, "kernels = %s: unknown kernel '%s'; accepted: %s",
				    e->value, s->kernels[i], fb_kernel_names());
	} else if (!strcmp(e->key, "timeout")) {
		if (!parse_ll(e->value, 1, &v) || v > 3600)
			bad(c, e, "timeout = %s: expected seconds, 1 to 3600", e->value);
		else
			s->timeout = v;
	} else if (!strcmp(e->key, "batch")) {
		if (!strcmp(e->value, "yes") || !strcmp(e->value, "no"))
			s->no_batch = !strcmp(e->value, "no");
		else
			bad(c, e, "batch = %s: expected yes or no", e->value);
	} else {
		bad(c, e, "[scenario] unknown key '%s'; accepted: shows, fixture, groups, requires, kernels, timeout, batch",
		    e->key);
	}
}

static void set_mkfs_key(struct ctx *c, const struct fb_entry *e)
{
	struct fb_scenario *s = c->scn;

	if (!strcmp(e->key, "features")) {
		set_str(&s->features, e->value);
	} else if (!strcmp(e->key, "options")) {
		set_str(&s->mkfs_options, e->value);
	} else if (!strcmp(e->key, "image")) {
		char why[128];

		if (access(e->value, R_OK))
			bad(c, e, "image = %s: %s; give a readable ext4 image file", e->value, strerror(errno));
		else if (fb_image_is_ext4(e->value, why, sizeof(why)))
			bad(c, e, "image = %s: %s; give an ext4 image file", e->value, why);
		set_str(&s->image, e->value);
	} else if (!strcmp(e->key, "size")) {
		if (!valid_size(e->value))
			bad(c, e, "size = %s: expected a size such as 64M, 1G or 65536K", e->value);
		set_str(&s->size, e->value);
	} else {
		bad(c, e, "[mkfs] unknown key '%s'; accepted: features, options, size, image", e->key);
	}
}

static void set_target_key(struct ctx *c, const struct fb_entry *e)
{
	struct fb_scenario *s = c->scn;
	long long v;
	bool b;

	if (!strcmp(e->key, "type")) {
		if (strcmp(e->value, "range") && strcmp(e->value, "none") &&
		    !fb_vocab_type_known(e->value))
			bad(c, e, "type = %s: unknown object type; accepted: none, range, %s",
			    e->value, fb_vocab_type_list());
		set_str(&s->type, e->value);
	} else if (!strcmp(e->key, "path")) {
		if (e->value[0] != '/')
			bad(c, e, "path = %s: expected an absolute path inside the filesystem", e->value);
		set_str(&s->path, e->value);
	} else if (!strcmp(e->key, "ino") || !strcmp(e->key, "group") ||
		   !strcmp(e->key, "index")) {
		long long min = !strcmp(e->key, "ino");
		if (!parse_ll(e->value, min, &v))
			bad(c, e, "%s = %s: expected a number >= %lld", e->key, e->value, min);
		else if (!strcmp(e->key, "ino"))
			s->ino = v;
		else if (!strcmp(e->key, "group"))
			s->group = v;
		else
			s->index = v;
	} else if (!strcmp(e->key, "region")) {
		set_str(&s->region, e->value);
	} else if (!strcmp(e->key, "bits")) {
		if (!parse_ll(e->value, 1, &v) || v > 4096)
			bad(c, e, "bits = %s: expected a number of bits, 1 to 4096", e->value);
		else
			s->bits = v;
	} else if (!strcmp(e->key, "seed")) {
		if (!parse_ll(e->value, 0, &v))
			bad(c, e, "seed = %s: expected a non-negative number", e->value);
		else
			s->seed = v;
	} else if (!strcmp(e->key, "reseal")) {
		if (!parse_bool(e->value, &b))
			bad(c, e, "reseal = %s: accepted: yes, no", e->value);
		else
			s->reseal = b;
	} else if (!strcmp(e->key, "at") || !strcmp(e->key, "len")) {
		if (!parse_ll(e->value, !strcmp(e->key, "len"), &v))
			bad(c, e, "%s = %s: expected a byte count (decimal or 0x hex)", e->key, e->value);
		else if (!strcmp(e->key, "at"))
			s->range_at = v;
		else
			s->range_len = v;
	} else {
		bad(c, e, "[target] unknown key '%s'; accepted: type, path, ino, group, index, region, bits, seed, reseal, at, len",
		    e->key);
	}
}

static void set_fault_key(struct ctx *c, const struct fb_entry *e)
{
	struct fb_scenario *s = c->scn;
	long long v;
	int t;

	if (!strcmp(e->key, "timing")) {
		t = fb_timing_parse(e->value);
		if (t < 0)
			bad(c, e, "timing = %s: accepted: rest, read, read-sticky, write", e->value);
		else
			s->timing = t;
	} else if (!strcmp(e->key, "arm")) {
		set_str(&s->arm, e->value);
	} else if (!strcmp(e->key, "action")) {
		if (!action_valid(e->value))
			bad(c, e, "action = %s: accepted: flip, zero, ones, random, eio, drop, misdirect=BYTES, torn=SECTORS (1 to %d)",
			    e->value, TORN_MAX);
		set_str(&s->action, e->value);
		c->action_at.origin = e->origin;
		c->action_at.line = e->line;
	} else if (!strcmp(e->key, "count")) {
		if (!parse_ll(e->value, 1, &v))
			bad(c, e, "count = %s: expected a number of requests >= 1", e->value);
		else
			s->count = v;
	} else {
		bad(c, e, "[fault] unknown key '%s'; accepted: timing, arm, action, count", e->key);
	}
}

static bool parse_decimal(const char *s, long long *ret)
{
	return *s && strspn(s, "0123456789") == strlen(s) && parse_ll(s, 0, ret);
}

/*
 * "STEP if A OP B" (the last four words): cut the guard off TEXT and say
 * whether the comparison holds (1) or not (0); -1 after reporting a guard
 * that is not one. A and B are numbers once ${EXPR} has been replaced. A
 * step without a guard is always kept.
 */
static int step_guard(struct ctx *c, const struct fb_entry *e, char *text)
{
	static const char *const ops[] = { "<", "<=", ">", ">=", "==", "!=" };
	char *word[4] = { NULL };
	char *end = text + strlen(text);
	long long a, b;
	int op;

	/* the starts of the last four words, last first */
	for (int i = 0; i < 4; i++) {
		while (end > text && isspace((unsigned char)end[-1]))
			end--;
		while (end > text && !isspace((unsigned char)end[-1]))
			end--;
		if (end == text)
			return 1;
		word[3 - i] = end;
	}
	if (strncmp(word[0], "if", 2) || !isspace((unsigned char)word[0][2]))
		return 1;
	char **w = fb_strv_split(word[1], NULL);
	for (op = 0; op < 6 && strcmp(w[1], ops[op]); op++)
		;
	if (!parse_decimal(w[0], &a) || op == 6 || !parse_decimal(w[2], &b)) {
		bad(c, e, "step = %s: a guard is 'STEP if A OP B' with A and B numbers or ${EXPR} and OP one of <, <=, >, >=, ==, !=",
		    e->value);
		fb_strv_free(w);
		return -1;
	}
	fb_strv_free(w);
	*end = '\0';
	while (end > text && isspace((unsigned char)end[-1]))
		*--end = '\0';
	switch (op) {
	case 0: return a < b;
	case 1: return a <= b;
	case 2: return a > b;
	case 3: return a >= b;
	case 4: return a == b;
	default: return a != b;
	}
}

/*
 * One step as the agent will run it: its vocabulary, and its length with
 * what the runner appends. A long step (${EXPR} made it so) is named after
 * the reason, which would otherwise be cut off the message.
 */
static void check_step(struct ctx *c, const struct fb_entry *e, const char *text)
{
	char why[256];

	if (strlen(text) + FB_STEP_ADDED_CHARS >= STEP_MAX_LINE)
		bad(c, e, "step: %zu characters, longer than the %d the agent takes (less %d flipbed may append); step = %.60s...",
		    strlen(text), STEP_MAX_LINE - 1, FB_STEP_ADDED_CHARS, text);
	else if (!fb_vocab_step_valid(text, why, sizeof(why)))
		bad(c, e, "step = %s: %s", text, why);
}

static void set_step(struct ctx *c, const struct fb_entry *e)
{
	struct fb_scenario *s = c->scn;
	char *text;
	int keep;

	if (!strcmp(e->key, "next-mount")) {
		if (!strcmp(e->value, "yes") || !strcmp(e->value, "no"))
			s->next_mount = !strcmp(e->value, "yes");
		else
			bad(c, e, "next-mount = %s: expected yes or no", e->value);
		return;
	}
	if (!strcmp(e->key, "errors")) {
		if (!strcmp(e->value, "remount-ro") || !strcmp(e->value, "continue") ||
		    !strcmp(e->value, "panic")) {
			free(s->errors);
			s->errors = xstrdup(e->value);
		} else {
			bad(c, e, "errors = %s: accepted: remount-ro, continue, panic", e->value);
		}
		return;
	}
	if (strcmp(e->key, "step")) {
		bad(c, e, "[workload] unknown key '%s'; accepted: step, next-mount, errors", e->key);
		return;
	}
	text = xstrdup(e->value);
	keep = step_guard(c, e, text);
	/* checked even when the guard drops it: the other cases run it */
	if (keep >= 0)
		check_step(c, e, text);
	if (keep <= 0) {
		free(text);
		return;
	}
	s->steps = xrealloc(s->steps, (s->nsteps + 1) * sizeof(char *));
	c->step_at = xrealloc(c->step_at, (s->nsteps + 1) * sizeof(*c->step_at));
	c->step_at[s->nsteps] = (struct fb_entry){ .origin = e->origin, .line = e->line };
	s->steps[s->nsteps++] = text;
}

/*
 * The case's steps, with the probes and the next-mount pass the runner
 * adds, must fit the agent's table: the steps past it would be dropped in
 * the guest, the probes among them. The first step too many is named.
 */
static void check_step_count(struct ctx *c)
{
	const struct fb_scenario *s = c->scn;
	int added = FB_PROBE_STEPS + (s->next_mount ? FB_NEXT_PASS_STEPS : 0);
	int max = STEP_MAX_STEPS - added;

	if (s->nsteps > max)
		bad(c, &c->step_at[max],
		    "[workload]: %d steps; a case runs at most %d, and flipbed adds %d (%s): at most %d steps, this is step %d",
		    s->nsteps, STEP_MAX_STEPS, added,
		    s->next_mount ? "the probes and the next-mount pass" : "the probes", max, max + 1);
}

static void set_axis(struct ctx *c, const struct fb_entry *e)
{
	struct fb_scenario *s = c->scn;

	if (!strchr(e->key, '.') && strcmp(e->key, "kernel")) {
		bad(c, e, "[axes] key '%s': expected 'kernel' or SECTION.KEY such as fault.timing", e->key);
		return;
	}
	s->axes = xrealloc(s->axes, (s->naxes + 1) * sizeof(*s->axes));
	s->axes[s->naxes] = *e;
	s->axes[s->naxes].key = xstrdup(e->key);
	s->axes[s->naxes].value = xstrdup(e->value);
	s->axes[s->naxes].section = xstrdup(e->section);
	s->naxes++;
}

static void apply_entry(struct ctx *c, const struct fb_entry *e)
{
	const char *sec = e->section;

	if (!strcmp(sec, "scenario"))
		set_scenario_key(c, e);
	else if (!strcmp(sec, "mkfs"))
		set_mkfs_key(c, e);
	else if (!strcmp(sec, "populate"))
		set_populate(c, e);
	else if (!strcmp(sec, "target"))
		set_target_key(c, e);
	else if (!strcmp(sec, "fault"))
		set_fault_key(c, e);
	else if (!strcmp(sec, "workload"))
		set_step(c, e);
	else if (!strcmp(sec, "axes"))
		set_axis(c, e);
	else if (!strncmp(sec, "expect", 6) && (!sec[6] || sec[6] == ':'))
		set_expect(c, e);
	else
		bad(c, e, "unknown section [%s]; accepted: scenario, vars, mkfs, populate, target, fault, workload, axes, expect, expect:QUALIFIER…",
		    sec);
}

/* One line, its ${EXPR} replaced; [vars] lines were taken before anything else. */
static void apply(struct ctx *c, const struct fb_entry *e)
{
	struct fb_entry x = *e;

	if (!strcmp(e->section, "vars"))
		return;
	if (strstr(e->value, "${")) {
		x.value = substitute(c, e);
		if (!x.value)
			return;
	}
	apply_entry(c, &x);
	if (x.value != e->value)
		free(x.value);
}

static void check_expect(struct ctx *c);

/* Checks that involve several keys, once everything is read. */
static void check_whole(struct ctx *c)
{
	struct fb_scenario *s = c->scn;
	int selectors = !!s->path + (s->ino > 0) + (s->group >= 0);
	bool armed_at_wait = strcmp(s->arm, "boot") != 0;

	if (!s->shows)
		bad(c, NULL, "[scenario] shows = …: missing; say in one sentence what the scenario shows");
	if (!s->ngroups)
		bad(c, NULL, "[scenario] groups = …: missing; name at least one group (quick, csum, inline, bigalloc, journal, slow, …)");
	if (!s->type)
		bad(c, NULL, "[target] type = …: missing; accepted: none (no fault: a workload check), range, %s",
		    fb_vocab_type_list());
	if (selectors > 1)
		bad(c, NULL, "[target]: give at most one of path, ino, group");
	if (s->type && !strcmp(s->type, "range") && !s->range_len)
		bad(c, NULL, "[target] type = range needs at = OFFSET and len = BYTES");
	if (!s->nsteps)
		bad(c, NULL, "[workload]: no step; a workload needs at least 'step = mount'");
	check_step_count(c);
	if (s->timing == FB_TIMING_READ_STICKY && s->count)
		bad(c, NULL, "[fault] timing = read-sticky with count = %lld: sticky faults have no count; use timing = read",
		    s->count);
	if (armed_at_wait) {
		char want[160];
		bool found = false;
		snprintf(want, sizeof(want), "wait %s", s->arm);
		for (int i = 0; i < s->nsteps; i++)
			found |= !strcmp(s->steps[i], want);
		if (!found)
			bad(c, NULL, "[fault] arm = %s: the workload has no 'step = %s' where the fault could be armed",
			    s->arm, want);
	}
	if (action_is(s->action, "eio") || action_is(s->action, "drop") ||
	    action_is(s->action, "misdirect") || action_is(s->action, "torn")) {
		if (s->timing == FB_TIMING_REST ||
		    (!action_is(s->action, "eio") && s->timing != FB_TIMING_WRITE))
			bad(c, c->action_at.origin ? &c->action_at : NULL,
			    "[fault] action = %s does not go with timing = %s; eio needs read or write, drop, misdirect and torn need write",
			    s->action, fb_timing_name(s->timing));
	}
	check_expect(c);
}

static void defaults(struct fb_scenario *s)
{
	s->kernels = fb_strv_split(DEFAULT_KERNELS, &s->nkernels);
	s->groups = fb_strv_split("", &s->ngroups);
	s->requires = fb_strv_split("", &s->nrequires);
	s->timeout = DEFAULT_TIMEOUT;
	s->features = xstrdup("");
	s->mkfs_options = xstrdup("");
	s->size = xstrdup("64M");
	s->group = -1;
	s->region = xstrdup("covered");
	s->bits = 1;
	s->seed = 1;
	s->timing = FB_TIMING_REST;
	s->arm = xstrdup("boot");
	s->action = xstrdup("flip");
}

/* "scenarios/inode/checksum.scn" -> "inode/checksum" */
static char *scenario_name(const char *file)
{
	const char *p = strstr(file, "scenarios/");
	char *name = xstrdup(p ? p + strlen("scenarios/") : file);
	size_t n = strlen(name);

	if (n > 4 && !strcmp(name + n - 4, ".scn"))
		name[n - 4] = '\0';
	return name;
}

/*
 * scenarios/fixtures/NAME.fix, next to the scenario's folder; for a
 * scenario in a folder's subfolder (scenarios/iron/inode/read.scn), the
 * fixtures of the scenarios/ folder it lies below.
 */
static char *fixture_path(const struct ctx *c, const char *name)
{
	char *dir = xstrdup(c->scn->file), *slash, *path, *root;
	const char *top = strstr(c->scn->file, "scenarios/");

	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (asprintf(&path, "%s/../fixtures/%s.fix", slash ? dir : ".", name) < 0)
		path = NULL;
	if (path && access(path, F_OK) && top &&
	    asprintf(&root, "%.*sscenarios/fixtures/%s.fix", (int)(top - c->scn->file),
		     c->scn->file, name) >= 0) {
		if (access(root, F_OK) == 0) {
			free(path);
			path = root;
		} else {
			free(root);
		}
	}
	free(dir);
	return path;
}

static bool fixture_exists(struct ctx *c, const struct fb_entry *e, const char *name)
{
	char *path = fixture_path(c, name);
	bool ok = path && !access(path, R_OK);

	if (!ok)
		bad(c, e, "fixture = %s: %s not found; fixtures are scenarios/fixtures/NAME.fix",
		    e->value, path ? path : name);
	free(path);
	return ok;
}

/*
 * The fixture's lines, kept in C to be applied before the scenario's, so
 * scenarios that share a fixture share one golden image.
 */
static void read_fixture(struct ctx *c, const char *name)
{
	c->scn->fixture = xstrdup(name);
	c->fixture_path = fixture_path(c, name);
	if (fb_scenario_read(c->fixture_path, &c->fix, &c->nfix) < 0)
		c->errors++;
	for (int i = 0; i < c->nfix; i++)
		if (strcmp(c->fix[i].section, "mkfs") && strcmp(c->fix[i].section, "populate") &&
		    strcmp(c->fix[i].section, "vars") && strcmp(c->fix[i].section, "fixture"))
			bad(c, &c->fix[i], "a fixture holds only [fixture], [vars], [mkfs] and [populate]; [%s] belongs in the scenario",
			    c->fix[i].section);
}

/*
 * [scenario] fixture = NAME…: every name must be a fixture. The one loaded
 * is the one an override "scenario.fixture=NAME" names (a matrix case of a
 * scenario with several fixtures, or --set), or else the first.
 */
static void pick_fixture(struct ctx *c, const struct fb_entry *overrides, int noverrides)
{
	struct fb_scenario *s = c->scn;
	const struct fb_entry *e = NULL, *o = NULL;
	bool ok = true;

	for (int i = 0; i < s->nentries; i++)
		if (!strcmp(s->entries[i].section, "scenario") &&
		    !strcmp(s->entries[i].key, "fixture"))
			e = &s->entries[i];
	for (int i = 0; i < noverrides; i++)
		if (!strcmp(overrides[i].section, "scenario") &&
		    !strcmp(overrides[i].key, "fixture"))
			o = &overrides[i];
	if (e) {
		s->fixtures = fb_strv_split(e->value, &s->nfixtures);
		if (!s->nfixtures)
			bad(c, e, "fixture = : expected one or more fixture names (scenarios/fixtures/NAME.fix)");
		for (int i = 0; i < s->nfixtures; i++)
			ok &= fixture_exists(c, e, s->fixtures[i]);
	}
	if (o) {
		if (strchr(o->value, ' ') || !o->value[0])
			bad(c, o, "fixture = %s: expected one fixture name", o->value);
		else if (fixture_exists(c, o, o->value))
			read_fixture(c, o->value);
	} else if (ok && s->nfixtures) {
		read_fixture(c, s->fixtures[0]);
	}
}

static void free_entry(struct fb_entry *e)
{
	free(e->section);
	free(e->key);
	free(e->value);
}

static void ctx_free(struct ctx *c)
{
	for (int i = 0; i < c->vars.n; i++)
		free(c->vars.v[i].name);
	free(c->vars.v);
	for (int i = 0; i < c->nfix; i++)
		free_entry(&c->fix[i]);
	free(c->fix);
	free(c->fixture_path);
	free(c->step_at);
}

/* Sections whose keys repeat: one populate line or step per entry. */
static bool repeats(const char *section)
{
	return !strcmp(section, "populate") || !strcmp(section, "workload") ||
	       !strcmp(section, "vars");	/* define_var() names its own duplicates */
}

/* A key given twice in one section of one file: the second would win silently. */
static void check_duplicates(struct ctx *c, const struct fb_entry *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (repeats(v[i].section))
			continue;
		for (int j = 0; j < i; j++) {
			if (strcmp(v[j].section, v[i].section) || strcmp(v[j].key, v[i].key))
				continue;
			bad(c, &v[i], "[%s] %s is given twice (first at line %d); give it once",
			    v[i].section, v[i].key, v[j].line);
			break;
		}
	}
}

bool fb_entries_have(const struct fb_entry *v, int n, const char *section)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].section, section))
			return true;
	return false;
}

int fb_scenario_load(const char *file, const struct fb_entry *overrides,
		     int noverrides, struct fb_scenario **ret_scn)
{
	struct fb_scenario *s = xcalloc(1, sizeof(*s));
	struct ctx c = { .scn = s, .overrides = overrides, .noverrides = noverrides };

	s->file = xstrdup(file);
	s->name = scenario_name(file);
	defaults(s);
	switch (fb_scenario_read(file, &s->entries, &s->nentries)) {
	case -2:
		fb_scenario_free(s);
		return -1;
	case -1:
		c.errors++;
	}
	/* one line for the wrong command, not one per key it does not know */
	if (fb_entries_have(s->entries, s->nentries, "matrix") &&
	    !fb_entries_have(s->entries, s->nentries, "scenario")) {
		fprintf(stderr, "%s: this is a matrix (it has a [matrix] section): use flipbed matrix\n",
			file);
		fb_scenario_free(s);
		return -1;
	}
	check_duplicates(&c, s->entries, s->nentries);
	pick_fixture(&c, overrides, noverrides);
	/* variables first: any later value may use them */
	for (int i = 0; i < c.nfix; i++)
		if (!strcmp(c.fix[i].section, "vars"))
			define_var(&c, &c.fix[i]);
	for (int i = 0; i < s->nentries; i++)
		if (!strcmp(s->entries[i].section, "vars"))
			define_var(&c, &s->entries[i]);
	check_var_overrides(&c);
	for (int i = 0; i < c.nfix; i++)
		if (!strcmp(c.fix[i].section, "mkfs") || !strcmp(c.fix[i].section, "populate"))
			apply(&c, &c.fix[i]);
	for (int i = 0; i < s->nentries; i++)
		apply(&c, &s->entries[i]);
	for (int i = 0; i < noverrides; i++)
		apply(&c, &overrides[i]);
	check_whole(&c);
	ctx_free(&c);
	if (c.errors) {
		fb_scenario_free(s);
		return -1;
	}
	*ret_scn = s;
	return 0;
}

void fb_scenario_free(struct fb_scenario *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->npop; i++) {
		free(s->pop[i].path);
		free(s->pop[i].name);
		free(s->pop[i].blocks);
	}
	for (int i = 0; i < s->nsteps; i++)
		free(s->steps[i]);
	for (int i = 0; i < s->naxes; i++)
		free_entry(&s->axes[i]);
	for (int i = 0; i < s->nentries; i++)
		free_entry(&s->entries[i]);
	for (int i = 0; i < s->nexpects; i++) {
		struct fb_expect_section *x = &s->expects[i];
		for (int q = 0; q < x->nquals; q++)
			free(x->quals[q]);
		free(x->quals);
		for (int f = 0; f < FB_EXP__COUNT; f++) {
			free(x->fields.field[f]);
			free(x->origin[f]);
		}
		free(x->section_origin);
	}
	fb_strv_free(s->fixtures);
	fb_strv_free(s->groups);
	fb_strv_free(s->requires);
	fb_strv_free(s->kernels);
	free(s->pop);
	free(s->steps);
	free(s->errors);
	free(s->axes);
	free(s->entries);
	free(s->expects);
	free(s->file);
	free(s->name);
	free(s->shows);
	free(s->fixture);
	free(s->image);
	free(s->features);
	free(s->mkfs_options);
	free(s->size);
	free(s->type);
	free(s->path);
	free(s->region);
	free(s->arm);
	free(s->action);
	free(s);
}

bool fb_scenario_in_group(const struct fb_scenario *s, const char *group)
{
	for (int i = 0; i < s->ngroups; i++)
		if (!strcmp(s->groups[i], group))
			return true;
	return false;
}

const char *fb_scenario_axis(const struct fb_scenario *s, const char *key)
{
	for (int i = s->naxes - 1; i >= 0; i--)
		if (!strcmp(s->axes[i].key, key))
			return s->axes[i].value;
	return NULL;
}

/*
 * Does qualifier Q hold for this case: 0 yes, -1 no; a kernel qualifier
 * holds for that kernel and its variants, and gives how far the case's
 * kernel is from it along variant-of (kernels.h).
 */
static int qual_distance(const struct fb_scenario *s, const char *kernel, const char *q)
{
	if (!strcmp(q, "reseal"))
		return s->reseal ? 0 : -1;
	if (fb_timing_parse(q) >= 0)
		return (int)s->timing == fb_timing_parse(q) ? 0 : -1;
	if (action_kind_known(q))
		return action_is(s->action, q) ? 0 : -1;
	return fb_kernel_distance(kernel, q);
}

/* How far section X is from the case (its farthest kernel qualifier), or -1. */
static int section_distance(const struct fb_scenario *s, const char *kernel,
			    const struct fb_expect_section *x)
{
	int far = 0;

	for (int q = 0; q < x->nquals; q++) {
		int d = qual_distance(s, kernel, x->quals[q]);
		if (d < 0)
			return -1;
		if (d > far)
			far = d;
	}
	return far;
}

/*
 * The section that sets each field for KERNEL, NULL where none does. Fewer
 * qualifiers first, so the most specific section has the last word; among
 * as many, a section naming the kernel a variant derives from before one
 * naming the variant itself (a variant-of chain is shorter than the
 * registry).
 */
static void expect_sections(const struct fb_scenario *s, const char *kernel,
			    const struct fb_expect_section *ret[FB_EXP__COUNT])
{
	for (int f = 0; f < FB_EXP__COUNT; f++)
		ret[f] = NULL;
	fb_kernels_load();
	for (int nq = 0; nq <= 3; nq++) {
		for (int d = (int)fb_nkernels; d >= 0; d--) {
			for (int i = 0; i < s->nexpects; i++) {
				const struct fb_expect_section *x = &s->expects[i];
				if (x->nquals != nq || section_distance(s, kernel, x) != d)
					continue;
				for (int f = 0; f < FB_EXP__COUNT; f++)
					if (x->fields.field[f])
						ret[f] = x;
			}
		}
	}
}

void fb_scenario_expect(const struct fb_scenario *s, const char *kernel,
			struct fb_expect *ret)
{
	static char any[] = "any", no[] = "no", explained[] = "explained", none[] = "none";
	const struct fb_expect_section *from[FB_EXP__COUNT];

	expect_sections(s, kernel, from);
	for (int f = 0; f < FB_EXP__COUNT; f++)
		ret->field[f] = from[f] ? from[f]->fields.field[f] :
				f == FB_EXP_WARNING ? no :
				f == FB_EXP_UNDETECTED ? explained :
				f == FB_EXP_CHECKED_FIRST ? none : any;
}

/* ---- the expectation against the fault (computed.h) ---- */

/* Where field F of section X was set, as an entry for bad(). */
static struct fb_entry field_at(const struct fb_expect_section *x, int f)
{
	return (struct fb_entry){ .origin = x->origin[f], .line = x->line[f] };
}

/* Is timing name T one the scenario's cases can have? */
static bool timing_used(const struct ctx *c, const char *t)
{
	const struct fb_scenario *s = c->scn;
	const char *axis = fb_scenario_axis(s, "fault.timing");
	const char *own = "rest";
	char **v;
	bool used;

	for (int i = 0; i < s->nentries; i++)
		if (!strcmp(s->entries[i].section, "fault") && !strcmp(s->entries[i].key, "timing"))
			own = s->entries[i].value;
	if (!strcmp(t, own) || !strcmp(t, fb_timing_name(s->timing)))
		return true;
	v = fb_strv_split(axis, NULL);
	used = false;
	for (char **p = v; *p; p++)
		used |= !strcmp(*p, t);
	fb_strv_free(v);
	return used;
}

/* An [expect:TIMING] section for a timing no case of the scenario has. */
static void check_expect_timings(struct ctx *c)
{
	const struct fb_scenario *s = c->scn;

	for (int i = 0; i < s->nexpects; i++) {
		const struct fb_expect_section *x = &s->expects[i];
		struct fb_entry at = { .origin = x->section_origin, .line = x->section_line };

		for (int q = 0; q < x->nquals; q++)
			if (fb_timing_parse(x->quals[q]) >= 0 && !timing_used(c, x->quals[q]))
				bad(c, &at, "[expect:%s]: no case of this scenario has timing %s, no case uses the section; accepted: the timings of [fault] timing and [axes] fault.timing",
				    x->quals[q], x->quals[q]);
	}
}

/* Does the scenario run on KERNEL (one of its kernels or their variants)? */
static bool runs_on(const struct fb_scenario *s, const char *kernel)
{
	for (int i = 0; i < s->nkernels; i++)
		if (fb_kernel_distance(kernel, s->kernels[i]) >= 0)
			return true;
	return false;
}

/* A checked-before-csum that names a function which never reads the target. */
static void check_first_type(struct ctx *c, const struct fb_expect_section *x)
{
	const char *fn = x->fields.field[FB_EXP_CHECKED_FIRST];
	const struct fb_csum_first *f = fn ? fb_csum_first_find(fn) : NULL;
	struct fb_entry at = field_at(x, FB_EXP_CHECKED_FIRST);

	if (f && c->scn->type && !fb_csum_first_reads(f, c->scn->type))
		bad(c, &at, "checked-before-csum = %s: %s reads %s, not the target type %s",
		    fn, fn, f->types, c->scn->type);
}

/*
 * The written detect must leave room for the expectation the fault
 * implies: for each kernel the scenario runs on, the section whose detect
 * applies, once.
 */
static void check_expect_computed(struct ctx *c)
{
	const struct fb_scenario *s = c->scn;
	const struct fb_expect_section *from[FB_EXP__COUNT];
	bool *said = xcalloc(s->nexpects + 1, sizeof(*said));
	struct fb_expect e;
	const char *chain[8];
	char want[64];

	for (size_t k = 0; k < fb_nkernels; k++) {
		const char *kernel = fb_kernels[k].name;
		const struct fb_expect_section *x;

		if (!runs_on(s, kernel))
			continue;
		fb_scenario_expect(s, kernel, &e);
		expect_sections(s, kernel, from);
		x = from[FB_EXP_DETECT];
		fb_kernel_chain(kernel, chain, sizeof(chain) / sizeof(chain[0]));
		if (!x || said[x - s->expects] ||
		    !fb_computed_contradicted(s, &e, chain, want, sizeof(want)))
			continue;
		said[x - s->expects] = true;
		struct fb_entry at = field_at(x, FB_EXP_DETECT);
		bad(c, &at, "detect = %s: on %s the computed expectation is detect = %s (a %s target, region %s, not resealed, action %s: the checksum covers the bytes); accepted: a detect that includes %s, or a line saying why not: undetected = CAUSE (outcome.h), checked-before-csum = FUNCTION (%s)",
		    e.field[FB_EXP_DETECT], kernel, want, s->type, s->region, s->action, want,
		    fb_csum_first_list());
	}
	free(said);
}

static void check_expect(struct ctx *c)
{
	const struct fb_scenario *s = c->scn;

	fb_kernels_load();
	check_expect_timings(c);
	for (int i = 0; i < s->nexpects; i++)
		check_first_type(c, &s->expects[i]);
	check_expect_computed(c);
}

static void print_list(FILE *f, const char *key, char **v, int n)
{
	fprintf(f, "%s =", key);
	for (int i = 0; i < n; i++)
		fprintf(f, " %s", v[i]);
	fputc('\n', f);
}

void fb_files_name(const struct fb_populate *p, long long k, char *buf, size_t len)
{
	size_t dir = strlen(p->path) + 1;	/* the name starts here */
	int n = snprintf(buf, len, "%s/f%06lld", p->path, k);

	if (n < 0 || (size_t)n >= len)
		return;
	while ((long long)(n - dir) < p->name_bytes && (size_t)n + 1 < len)
		buf[n++] = 'x';
	buf[n] = '\0';
}

static void print_populate(FILE *f, const struct fb_populate *p)
{
	switch (p->kind) {
	case FB_POP_FILE:
		fprintf(f, "file = %s %lld\n", p->path, p->bytes);
		break;
	case FB_POP_DIR:
		fprintf(f, "dir = %s\n", p->path);
		break;
	case FB_POP_FILES:
		fprintf(f, "files = %s %lld %lld", p->path, p->count, p->bytes);
		if (p->name_bytes)
			fprintf(f, " %lld", p->name_bytes);
		fputc('\n', f);
		break;
	case FB_POP_SPARSE:
		fprintf(f, "sparse = %s %lld\n", p->path, p->count);
		break;
	case FB_POP_XATTR:
		fprintf(f, "xattr = %s %s %lld\n", p->path, p->name, p->bytes);
		break;
	case FB_POP_DEBUGFS:
		fprintf(f, "debugfs = %s\n", p->name);
		break;
	case FB_POP_INDEX:
		fprintf(f, "index-dirs = yes\n");
		break;
	case FB_POP_JOURNAL:
		fprintf(f, "journal = %s %s\n", p->name, p->blocks);
		break;
	}
}

void fb_scenario_print(FILE *f, const struct fb_scenario *s, const char *kernel)
{
	struct fb_expect x;

	fprintf(f, "[scenario]\nname = %s\nshows = %s\n", s->name, s->shows);
	if (s->fixture)
		fprintf(f, "fixture = %s\n", s->fixture);
	print_list(f, "groups", s->groups, s->ngroups);
	print_list(f, "kernels", s->kernels, s->nkernels);
	print_list(f, "requires", s->requires, s->nrequires);
	fprintf(f, "timeout = %u\n", s->timeout);
	if (s->no_batch)
		fprintf(f, "batch = no\n");
	fprintf(f, "\n[mkfs]\n");
	if (s->image)
		fprintf(f, "image = %s\n", s->image);
	fprintf(f, "features = %s\noptions = %s\nsize = %s\n",
		s->features, s->mkfs_options, s->size);
	fprintf(f, "\n[populate]\n");
	for (int i = 0; i < s->npop; i++)
		print_populate(f, &s->pop[i]);
	fprintf(f, "\n[target]\ntype = %s\n", s->type);
	if (s->path)
		fprintf(f, "path = %s\n", s->path);
	if (s->ino)
		fprintf(f, "ino = %lld\n", s->ino);
	if (s->group >= 0)
		fprintf(f, "group = %lld\n", s->group);
	fprintf(f, "index = %lld\nregion = %s\nbits = %u\nseed = %llu\nreseal = %s\n",
		s->index, s->region, s->bits, (unsigned long long)s->seed,
		s->reseal ? "yes" : "no");
	if (s->range_len)
		fprintf(f, "at = %lld\nlen = %lld\n", s->range_at, s->range_len);
	fprintf(f, "\n[fault]\ntiming = %s\narm = %s\naction = %s\ncount = %lld\n",
		fb_timing_name(s->timing), s->arm, s->action, s->count);
	fprintf(f, "\n[workload]\n");
	if (s->next_mount)
		fprintf(f, "next-mount = yes\n");
	if (s->errors)
		fprintf(f, "errors = %s\n", s->errors);
	for (int i = 0; i < s->nsteps; i++)
		fprintf(f, "step = %s\n", s->steps[i]);
	fb_scenario_expect(s, kernel, &x);
	fprintf(f, "\n[expect:%s]\n", kernel);
	for (int i = 0; i < FB_EXP__COUNT; i++)
		fprintf(f, "%s = %s\n", fb_expect_names[i], x.field[i]);
}

// SPDX-License-Identifier: MIT
/*
 * Step parsing and errno names, shared by the guest agent and the host: the
 * host rejects an unknown or malformed step before it boots anything, with
 * the same rules the agent applies.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "steps.h"

static const struct {
	const char *name, *args, *usage, *help;
} table[STEP_COUNT] = {
#define STEP(id, name, args, usage, help) [STEP_##id] = { name, args, usage, help },
#include "steps.def"
#undef STEP
};

const char *const overlap_ops[] = { "stat", "rm", "fallocate", "getxattr", "setxattr", NULL };

const char *step_name(enum step_id id)
{
	return table[id].name;
}

void step_list(FILE *f)
{
	for (int i = 0; i < STEP_COUNT; i++)
		fprintf(f, "  %-36s %s\n", table[i].usage, table[i].help);
}

const char *errname(int e, char *buf, size_t len)
{
	const char *n = strerrorname_np(e);

	if (n)
		return n;
	snprintf(buf, len, "E%d", e);
	return buf;
}

const char *errname_canon(const char *name)
{
	if (!strcmp(name, "EFSBADCRC"))
		return "EBADMSG";
	if (!strcmp(name, "EFSCORRUPTED"))
		return "EUCLEAN";
	if (!strcmp(name, "EBADDATA"))
		return "EBADDATA";
	for (int e = 1; e < 200; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, name))
			return n;
	}
	return NULL;
}

int step_met(const struct step *s, const char *result)
{
	switch (s->expect) {
	case EXPECT_ANY:
		return 1;
	case EXPECT_ERR:
		return !strcmp(result, s->err);
	case EXPECT_OK:
		if (s->id == STEP_EXPECT_EROFS)
			return !strcmp(result, "EROFS");
		return !strcmp(result, "ok");
	}
	return 0;
}

static int is_word(const char *a)
{
	for (; *a; a++)
		if (!isalnum((unsigned char)*a) && !strchr("._-", *a))
			return 0;
	return 1;
}

static int is_number(const char *a, double max, int fraction)
{
	char *end;
	double v;

	if (!isdigit((unsigned char)*a))
		return 0;
	v = fraction ? strtod(a, &end) : (double)strtoull(a, &end, 10);
	return *end == '\0' && v <= max;
}

/* Whether path A has a ".." component (it would leave the mount point). */
static int has_dotdot(const char *a)
{
	for (const char *p = strstr(a, "/.."); p; p = strstr(p + 1, "/.."))
		if (p[3] == '/' || p[3] == '\0')
			return 1;
	return 0;
}

/*
 * Mount options hold no path (a path there is usually a misplaced step
 * argument), except an external journal's device: journal_path=/dev/NAME,
 * NAME a word (vdb, the second disk).
 */
static int mount_opts_ok(const char *a)
{
	const char *jp = "journal_path=/dev/";
	char buf[STEP_MAX_LINE];

	snprintf(buf, sizeof(buf), "%s", a);
	for (char *o = strtok(buf, ","); o; o = strtok(NULL, ",")) {
		if (!strncmp(o, jp, strlen(jp))) {
			if (!o[strlen(jp)] || !is_word(o + strlen(jp)))
				return 0;
		} else if (strchr(o, '/')) {
			return 0;
		}
	}
	return 1;
}

/* Check one argument against its letter in steps.def. */
static const char *check_arg(char kind, const char *a)
{
	switch (tolower(kind)) {
	case 'p':
		if (a[0] != '/')
			return "a path under the mount point, starting with '/' (\"/d/a\")";
		if (has_dotdot(a))
			return "a path that stays under the mount point (no \"..\")";
		return NULL;
	case 'g':
		return a[0] == '/' ? NULL : "an absolute guest path (\"/proc/mounts\")";
	case 'n':
		return is_number(a, 1 << 30, 0) ? NULL : "a byte count from 0 to 1073741824";
	case 't':
		return is_number(a, 1e7, 1) ? NULL : "seconds, a decimal number (\"0.5\")";
	case 'w':
		return is_word(a) && *a ? NULL : "a word of letters, digits and . _ -";
	case 'm':
		if (!strcmp(a, "sync") || !strcmp(a, "direct") || !strcmp(a, "append"))
			return NULL;
		return "sync, direct or append";
	case 'x':
		for (int i = 0; overlap_ops[i]; i++)
			if (!strcmp(a, overlap_ops[i]))
				return NULL;
		return "stat, rm, fallocate, getxattr or setxattr";
	case 'o':
		return mount_opts_ok(a) ? NULL :
			"mount options, comma separated (\"errors=panic,noload\"); a path only as journal_path=/dev/NAME";
	}
	return "nothing (internal error: bad argument letter in steps.def)";
}

/* Argument ARG (a decimal) of S is from MIN to MAX; else a reason in WHY. */
static int in_range(const struct step *s, int arg, unsigned long long min, unsigned long long max,
		    const char *what, const char *text, char *why, size_t whylen)
{
	unsigned long long v = strtoull(s->argv[arg], NULL, 10);

	if (v >= min && v <= max)
		return 0;
	snprintf(why, whylen, "step '%s': %s %s is not what the agent runs; accepted: %llu to %llu",
		 text, what, s->argv[arg], min, max);
	return -1;
}

/* The limits of the agent's steps that go beyond their argument letters. */
static int check_limits(const struct step *s, const char *text, char *why, size_t whylen)
{
	if (s->id == STEP_ATTR_RACE || s->id == STEP_ATTR_CHECK)
		return in_range(s, 1, 1, STEP_MAX_THREADS, "THREADS", text, why, whylen) ||
		       in_range(s, 2, 1, STEP_MAX_ROUNDS, "ROUNDS", text, why, whylen) ? -1 : 0;
	if (s->id == STEP_UPDATE_LOOKUP)
		return in_range(s, 2, 0, STEP_MAX_MS, "MS", text, why, whylen);
	if (s->id == STEP_OVERLAP)
		return in_range(s, 4, 0, STEP_MAX_MS, "MS", text, why, whylen);
	return 0;
}

static enum step_id find_step(const char *name)
{
	for (int i = 0; i < STEP_COUNT; i++)
		if (!strcmp(table[i].name, name))
			return i;
	return STEP_COUNT;
}

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Split S->buf in place into words; returns the number of words. */
static int split(struct step *s, char **w, int max)
{
	int n = 0;

	for (char *p = strtok(s->buf, " \t"); p; p = strtok(NULL, " \t")) {
		if (n == max)
			return max + 1;
		w[n++] = p;
	}
	return n;
}

int step_parse(const char *text, struct step *s, char *why, size_t whylen)
{
	char *w[STEP_MAX_ARGS + 4];
	const char *args;
	int n, i = 0, nreq;

	memset(s, 0, sizeof(*s));
	if (strlen(text) >= sizeof(s->buf))
		return fail(why, whylen, "step '%.40s...' is longer than %zu characters",
			    text, sizeof(s->buf) - 1);
	for (const char *c = text; *c; c++)
		if ((unsigned char)*c < ' ' && *c != '\t')
			return fail(why, whylen, "step '%.40s': control character 0x%02x; a step is one line of printable words",
				    text, (unsigned char)*c);
	strcpy(s->buf, text);
	n = split(s, w, STEP_MAX_ARGS + 3);
	if (n == 0)
		return fail(why, whylen, "empty step");
	if (!strcmp(w[0], "may")) {
		s->expect = EXPECT_ANY;
		i = 1;
	} else if (!strcmp(w[0], "expect")) {
		const char *c = n > 1 ? errname_canon(w[1]) : NULL;

		if (!c)
			return fail(why, whylen,
				    "step '%s': 'expect' needs an errno name (EBADMSG, EROFS, EUCLEAN, EIO, EBADDATA ...), got '%s'",
				    text, n > 1 ? w[1] : "");
		s->expect = EXPECT_ERR;
		snprintf(s->err, sizeof(s->err), "%s", c);
		i = 2;
	}
	if (i >= n)
		return fail(why, whylen, "step '%s' names no step after its prefix", text);
	s->id = find_step(w[i]);
	if (s->id == STEP_COUNT) {
		char names[STEP_COUNT * 16] = "";

		for (int k = 0; k < STEP_COUNT; k++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names),
				 "%s%s", k ? ", " : "", table[k].name);
		return fail(why, whylen, "unknown step '%s'; accepted: %s (optionally after 'expect ERRNAME' or 'may')",
			    w[i], names);
	}
	args = table[s->id].args;
	for (nreq = 0; args[nreq] && isupper((unsigned char)args[nreq]); nreq++)
		;
	s->argc = n - i - 1;
	if (s->argc < nreq || s->argc > (int)strlen(args))
		return fail(why, whylen, "step '%s': wrong number of arguments; usage: %s",
			    text, table[s->id].usage);
	for (int a = 0; a < s->argc; a++) {
		const char *bad = check_arg(args[a], w[i + 1 + a]);

		s->argv[a] = w[i + 1 + a];
		if (bad) {
			snprintf(why, whylen, "step '%s': bad argument '%s'; accepted: %s",
				 text, s->argv[a], bad);
			return -1;
		}
	}
	return check_limits(s, text, why, whylen);
}

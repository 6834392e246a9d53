// SPDX-License-Identifier: MIT
/*
 * The checksum verification sites of a kernel source (sites.h): a small
 * C tokenizer, enough for the kernel's own style. Comments, string and
 * character literals and preprocessor lines are blanked first (newlines
 * kept, so offsets keep their lines); then every identifier and operator
 * is a token with its line, and the functions are the identifiers whose
 * parameter list is followed by a body at brace depth 0.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage/sites.h"
#include "util.h"

enum { T_ID, T_NUM, T_PUNCT };

struct tok {
	int kind;
	int line;
	const char *s;	/* into the blanked text */
	int len;
};

struct lexed {
	char *text;	/* blanked copy */
	struct tok *t;
	size_t n, cap;
};

bool fb_site_is_verifier_name(const char *name)
{
	return strstr(name, "csum_verify") || strstr(name, "verify_csum");
}

const char *fb_site_fail_name(enum fb_site_fail how)
{
	static const char *const names[] = { "then", "else", "after", "none" };

	return names[how];
}

/* Comments, literals and preprocessor lines to spaces; newlines stay. */
static void blank(char *s)
{
	bool bol = true;	/* only spaces since the line began */

	for (char *p = s; *p;) {
		if (bol && *p == '#') {
			while (*p && *p != '\n') {
				if (*p == '\\' && p[1] == '\n') {
					*p = ' ';
					p += 2;
					continue;
				}
				*p++ = ' ';
			}
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			char *e = strstr(p + 2, "*/");

			e = e ? e + 2 : p + strlen(p);
			for (; p < e; p++)
				if (*p != '\n')
					*p = ' ';
			continue;
		}
		if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				*p++ = ' ';
			continue;
		}
		if (*p == '"' || *p == '\'') {
			char q = *p;

			*p++ = ' ';
			while (*p && *p != q && *p != '\n') {
				if (*p == '\\' && p[1] && p[1] != '\n')
					*p++ = ' ';
				*p++ = ' ';
			}
			if (*p == q)
				*p++ = ' ';
			bol = false;
			continue;
		}
		if (*p == '\n')
			bol = true;
		else if (!isspace((unsigned char)*p))
			bol = false;
		p++;
	}
}

static void push(struct lexed *x, int kind, int line, const char *s, int len)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 4096;
		x->t = xrealloc(x->t, x->cap * sizeof(*x->t));
	}
	x->t[x->n++] = (struct tok){ kind, line, s, len };
}

static void lex(struct lexed *x, const char *text)
{
	static const char *const two[] = { "==", "!=", "&&", "||", "->", "<=", ">=", "++", "--",
					   "<<", ">>", "+=", "-=", "|=", "&=", "*=", "/=", "^=" };
	int line = 1;

	x->text = xstrdup(text);
	blank(x->text);
	for (const char *p = x->text; *p;) {
		const char *b = p;

		if (*p == '\n') {
			line++;
			p++;
		} else if (isspace((unsigned char)*p)) {
			p++;
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			push(x, T_ID, line, b, p - b);
		} else if (isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)*p) || *p == '.')
				p++;
			push(x, T_NUM, line, b, p - b);
		} else {
			int len = 1;

			for (size_t i = 0; i < sizeof(two) / sizeof(*two); i++)
				if (!strncmp(p, two[i], 2))
					len = 2;
			push(x, T_PUNCT, line, b, len);
			p += len;
		}
	}
}

static bool is(const struct tok *t, const char *s)
{
	return (int)strlen(s) == t->len && !strncmp(t->s, s, t->len);
}

static void tokcpy(char *buf, size_t len, const struct tok *t)
{
	snprintf(buf, len, "%.*s", t->len, t->s);
}

/* The token after the group that opens at I ("(" or "{"), or N. */
static size_t skip_group(const struct lexed *x, size_t i)
{
	const char *open = is(&x->t[i], "(") ? "(" : "{", *close = *open == '(' ? ")" : "}";
	int depth = 0;

	for (; i < x->n; i++) {
		if (is(&x->t[i], open))
			depth++;
		else if (is(&x->t[i], close) && --depth == 0)
			return i + 1;
	}
	return x->n;
}

/* The token after the statement that starts at I. */
static size_t skip_statement(const struct lexed *x, size_t i)
{
	if (i >= x->n)
		return x->n;
	if (is(&x->t[i], "{"))
		return skip_group(x, i);
	if (is(&x->t[i], "if") || is(&x->t[i], "while") || is(&x->t[i], "for")) {
		size_t j = i + 1 < x->n && is(&x->t[i + 1], "(") ? skip_group(x, i + 1) : i + 1;

		j = skip_statement(x, j);
		if (is(&x->t[i], "if") && j < x->n && is(&x->t[j], "else"))
			j = skip_statement(x, j + 1);
		return j;
	}
	for (int depth = 0; i < x->n; i++) {
		if (is(&x->t[i], "(") || is(&x->t[i], "{"))
			depth++;
		else if (is(&x->t[i], ")") || is(&x->t[i], "}"))
			depth--;
		else if (!depth && is(&x->t[i], ";"))
			return i + 1;
	}
	return x->n;
}

/* The first line a statement starting at I runs: past an opening brace. */
static int first_line(const struct lexed *x, size_t i)
{
	while (i < x->n && is(&x->t[i], "{"))
		i++;
	return i < x->n && !is(&x->t[i], "}") ? x->t[i].line : 0;
}

/* The last line of the statement that starts at I. */
static int last_line(const struct lexed *x, size_t i)
{
	size_t e = skip_statement(x, i);

	return e > i ? x->t[e - 1].line : 0;
}

/* An operand that reads a stored checksum: ->NAME or .NAME, NAME ...checksum, ..._crc, ...csum. */
static bool reads_stored_csum(const struct lexed *x, size_t from, size_t to)
{
	for (size_t i = from; i + 1 < to; i++) {
		const struct tok *m = &x->t[i + 1];

		if (!(is(&x->t[i], "->") || is(&x->t[i], ".")) || m->kind != T_ID)
			continue;
		for (int k = 0; k < 3; k++) {
			static const char *const ends[] = { "checksum", "_crc", "csum" };
			int l = strlen(ends[k]);

			if (m->len >= l && !strncmp(m->s + m->len - l, ends[k], l) &&
			    !(i + 2 < to && is(&x->t[i + 2], "(")))
				return true;
		}
	}
	return false;
}

/* The operand of the comparison at OP: [*FROM, *TO) of tokens on its side. */
static void operand(const struct lexed *x, size_t op, int dir, size_t *from, size_t *to)
{
	int depth = 0;
	size_t i = op;

	for (;;) {
		if ((dir < 0 && i == 0) || (dir > 0 && i + 1 >= x->n))
			break;
		const struct tok *t = &x->t[i + dir];

		if (is(t, "(") || is(t, "["))
			depth += dir < 0 ? -1 : 1;
		else if (is(t, ")") || is(t, "]"))
			depth += dir < 0 ? 1 : -1;
		if (depth < 0)
			break;
		if (!depth && (is(t, "&&") || is(t, "||") || is(t, ";") || is(t, ",") ||
			       is(t, "?") || is(t, ":") || is(t, "=") || is(t, "{") ||
			       is(t, "}") || is(t, "return")))
			break;
		i += dir;
	}
	*from = dir < 0 ? i : op + 1;
	*to = dir < 0 ? op : i + 1;
}

static bool constant(const struct lexed *x, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const struct tok *t = &x->t[i];

		if (t->kind == T_NUM || is(t, "NULL") || is(t, "(") || is(t, ")"))
			continue;
		/* an upper-case name: a macro constant */
		if (t->kind == T_ID) {
			bool upper = true;

			for (int k = 0; k < t->len; k++)
				upper &= !islower((unsigned char)t->s[k]);
			if (upper)
				continue;
		}
		return false;
	}
	return true;
}

static void text_of(const struct lexed *x, size_t from, size_t to, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = from; i < to && o + 1 < len; i++) {
		const struct tok *t = &x->t[i];
		bool space = o && (t->kind != T_PUNCT || is(t, "==") || is(t, "!=")) &&
			     !is(&x->t[i - 1], "(") && !is(&x->t[i - 1], "->") &&
			     !is(&x->t[i - 1], ".") && !is(&x->t[i - 1], "!");

		if (!space && o && (is(&x->t[i - 1], "==") || is(&x->t[i - 1], "!=")))
			space = true;
		o += snprintf(buf + o, len - o, "%s%.*s", space ? " " : "", t->len, t->s);
		if (o >= len)
			o = len - 1;
	}
	if (o + 1 >= len && len > 4)
		strcpy(buf + len - 4, "...");
}

static bool reports(const struct tok *t)
{
	static const char *const names[] = { "ext4_msg", "printk", "pr_err", "pr_warn",
					     "pr_notice", "pr_info" };
	char name[96];

	if (t->kind != T_ID)
		return false;
	tokcpy(name, sizeof(name), t);
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(name, names[i]))
			return true;
	/* EXT4_ERROR_INODE, WARN_ON, ext4_warning: either case */
	for (char *c = name; *c; c++)
		*c = tolower((unsigned char)*c);
	return strstr(name, "error") || strstr(name, "warn");
}

/* The lines of [FROM, TO) that call a report function. */
static void report_lines(const struct lexed *x, size_t from, size_t to, struct fb_site *s)
{
	for (size_t i = from; i + 1 < to; i++) {
		if (!reports(&x->t[i]) || !is(&x->t[i + 1], "("))
			continue;
		if (s->nreport && s->report[s->nreport - 1] == x->t[i].line)
			continue;
		if (s->nreport < (int)(sizeof(s->report) / sizeof(*s->report)))
			s->report[s->nreport++] = x->t[i].line;
	}
}

/* The branch the if whose condition opens at COND takes on a failure. */
static void branch_of_if(const struct lexed *x, size_t cond, int check_line, bool fail_true,
			 struct fb_site *s)
{
	size_t body = skip_group(x, cond);

	if (fail_true) {
		s->how = FB_FAIL_THEN;
		s->fail_line = first_line(x, body);
		s->fail_end = last_line(x, body);
		report_lines(x, body, skip_statement(x, body), s);
	} else {
		size_t after = skip_statement(x, body);

		if (after < x->n && is(&x->t[after], "else")) {
			s->how = FB_FAIL_ELSE;
			s->fail_line = first_line(x, after + 1);
			s->fail_end = last_line(x, after + 1);
			report_lines(x, after + 1, skip_statement(x, after + 1), s);
		} else {
			s->how = FB_FAIL_AFTER;
			s->fail_line = first_line(x, after);
			s->fail_end = last_line(x, after);
			report_lines(x, after, skip_statement(x, after), s);
			if (!s->fail_line)
				snprintf(s->why, sizeof(s->why), "falls out of its block");
		}
	}
	if (s->fail_line && s->fail_line == check_line) {
		s->fail_line = 0;
		snprintf(s->why, sizeof(s->why), "the branch starts on the check's line");
	}
	if (!s->fail_line) {
		s->how = FB_FAIL_NONE;
		s->fail_end = 0;
		s->nreport = 0;
	}
}

/*
 * A result kept in a variable (`int ok = check(...);`, `ok = check(...);`,
 * START the statement's first token): the first if after it, in the same
 * block, that tests the variable for success or failure (`!ok`, `ok == 0`,
 * `ok`, `ok == 1`, `ok > 0`; a test against a negative errno, `ok ==
 * -EFSCORRUPTED`, is another outcome and is passed over) decides the
 * branch. 0, or -1 when none does.
 */
static int follow_kept(const struct lexed *x, size_t start, size_t call, struct fb_site *s)
{
	char var[64];
	size_t end;
	int depth = 0;

	if (call < 2 || !is(&x->t[call - 1], "=") || x->t[call - 2].kind != T_ID)
		return -1;
	tokcpy(var, sizeof(var), &x->t[call - 2]);
	end = skip_statement(x, start);
	for (size_t i = end; i < x->n; i++) {
		if (is(&x->t[i], "{"))
			depth++;
		else if (is(&x->t[i], "}") && --depth < 0)
			return -1;
		if (!is(&x->t[i], "if") || i + 1 >= x->n || !is(&x->t[i + 1], "("))
			continue;
		size_t cond = i + 1, ce = skip_group(x, cond);

		for (size_t k = cond + 1; k + 1 < ce; k++) {
			const struct tok *v = &x->t[k], *nx = &x->t[k + 1];
			bool neg = is(&x->t[k - 1], "!"), fail_true;

			if (v->kind != T_ID || !is(v, var))
				continue;
			if ((is(nx, "==") || is(nx, "!=")) && k + 2 < ce && is(&x->t[k + 2], "-"))
				break;	/* another outcome: look at the next if */
			if (is(nx, "==") && k + 2 < ce && is(&x->t[k + 2], "0"))
				fail_true = true;
			else if (is(nx, "<=") && k + 2 < ce && is(&x->t[k + 2], "0"))
				fail_true = true;
			else if ((is(nx, "==") && k + 2 < ce && is(&x->t[k + 2], "1")) ||
				 (is(nx, ">") && k + 2 < ce && is(&x->t[k + 2], "0")))
				fail_true = false;
			else if (is(nx, ")") || is(nx, "&&") || is(nx, "||"))
				fail_true = neg;
			else
				break;
			for (size_t j = cond + 1; j + 1 < ce; j++)
				if (is(&x->t[j], "&&") || is(&x->t[j], "||"))
					s->joined = true;
			snprintf(s->why, sizeof(s->why), "kept in %s, tested at line %d", var,
				 x->t[k].line);
			branch_of_if(x, cond, x->t[call].line, fail_true, s);
			if (s->how != FB_FAIL_NONE)
				s->why[0] = '\0';
			return 0;
		}
	}
	return -1;
}

/*
 * Where the check at [FROM, TO) fails to, given FAIL_TRUE: whether its
 * failure makes its own part of a condition true.
 */
static void branch(const struct lexed *x, size_t from, size_t to, bool fail_true,
		   struct fb_site *s)
{
	int depth = 0;
	size_t i = from;

	/* walk out through the enclosing parentheses to an if's */
	while (i > 0) {
		const struct tok *t = &x->t[--i];

		if (is(t, ")")) {
			depth++;
			continue;
		}
		if (is(t, "(")) {
			if (depth) {
				depth--;
				continue;
			}
			if (i > 0 && is(&x->t[i - 1], "if"))
				break;
			/* a wrapping call (unlikely, WARN_ON) or a group: a ! before it negates */
			if (i > 0 && is(&x->t[i - 1], "!"))
				fail_true = !fail_true;
			continue;
		}
		if (!depth && (is(t, "&&") || is(t, "||")))
			s->joined = true;
		if (!depth && (is(t, ";") || is(t, "{") || is(t, "}"))) {
			s->how = FB_FAIL_NONE;
			if (i + 1 < from && is(&x->t[i + 1], "return")) {
				snprintf(s->why, sizeof(s->why), "returns the result to its caller");
				return;
			}
			snprintf(s->why, sizeof(s->why), "not an if's condition: the result is kept");
			follow_kept(x, i + 1, from, s);
			return;
		}
	}
	if (!i) {
		s->how = FB_FAIL_NONE;
		snprintf(s->why, sizeof(s->why), "outside any function");
		return;
	}
	for (size_t k = to; k < skip_group(x, i) - 1; k++)
		if ((is(&x->t[k], "&&") || is(&x->t[k], "||")))
			s->joined = true;
	branch_of_if(x, i, x->t[from].line, fail_true, s);
}

static struct fb_site *add(struct fb_site **sites, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*sites = xrealloc(*sites, *cap * sizeof(**sites));
	}
	memset(&(*sites)[*n], 0, sizeof(**sites));
	return &(*sites)[(*n)++];
}

/* ---- the verifiers: by name, then what returns a check's result ---- */

struct names {
	char **v;
	size_t n;
};

static bool has(const struct names *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i], name))
			return true;
	return false;
}

static void put(struct names *set, const char *name)
{
	if (has(set, name))
		return;
	set->v = xrealloc(set->v, (set->n + 1) * sizeof(*set->v));
	set->v[set->n++] = xstrdup(name);
}

/* The comparison at OP (== or !=) reads a stored checksum against a value. */
static bool stored_compare(const struct lexed *x, size_t op, size_t *lf, size_t *rt)
{
	size_t a, b, c, d;

	operand(x, op, -1, &a, &b);
	operand(x, op, 1, &c, &d);
	*lf = a;
	*rt = d;
	return (reads_stored_csum(x, a, b) && !constant(x, c, d)) ||
	       (reads_stored_csum(x, c, d) && !constant(x, a, b));
}

/* The function whose body opens at I (a "{" at depth 0 after ")"), or "". */
static void function_at(const struct lexed *x, size_t i, char *func, size_t len)
{
	int d = 0;
	size_t j = i - 1;

	func[0] = '\0';
	for (;; j--) {
		if (is(&x->t[j], ")"))
			d++;
		else if (is(&x->t[j], "(") && --d == 0)
			break;
		if (!j)
			return;
	}
	if (j > 0 && x->t[j - 1].kind == T_ID)
		tokcpy(func, len, &x->t[j - 1]);
}

/*
 * Add to VERIFIERS the functions of X that return a check's result: a
 * return statement holding a verifier's call or a stored-checksum
 * comparison. 1 when one was added.
 */
static int more_verifiers(const struct lexed *x, struct names *verifiers)
{
	char func[64] = "", name[96];
	int depth = 0, added = 0;

	for (size_t i = 0; i < x->n; i++) {
		if (is(&x->t[i], "{")) {
			if (!depth && i > 0 && is(&x->t[i - 1], ")"))
				function_at(x, i, func, sizeof(func));
			depth++;
			continue;
		}
		if (is(&x->t[i], "}")) {
			if (depth > 0 && --depth == 0)
				func[0] = '\0';
			continue;
		}
		if (!depth || !*func || has(verifiers, func) || !is(&x->t[i], "return"))
			continue;
		size_t end = skip_statement(x, i);

		for (size_t k = i + 1; k < end; k++) {
			size_t lf, rt;

			tokcpy(name, sizeof(name), &x->t[k]);
			if ((x->t[k].kind == T_ID && k + 1 < end && is(&x->t[k + 1], "(") &&
			     has(verifiers, name)) ||
			    ((is(&x->t[k], "==") || is(&x->t[k], "!=")) &&
			     stored_compare(x, k, &lf, &rt))) {
				put(verifiers, func);
				added = 1;
				break;
			}
		}
	}
	return added;
}

/* The verifiers by name: every function of X whose name says it verifies. */
static void named_verifiers(const struct lexed *x, struct names *verifiers)
{
	char name[96];
	int depth = 0;

	for (size_t i = 0; i < x->n; i++) {
		if (is(&x->t[i], "{")) {
			if (!depth && i > 0 && is(&x->t[i - 1], ")")) {
				function_at(x, i, name, sizeof(name));
				if (fb_site_is_verifier_name(name))
					put(verifiers, name);
			}
			depth++;
		} else if (is(&x->t[i], "}") && depth > 0) {
			depth--;
		} else if (x->t[i].kind == T_ID && i + 1 < x->n && is(&x->t[i + 1], "(")) {
			tokcpy(name, sizeof(name), &x->t[i]);
			if (fb_site_is_verifier_name(name))
				put(verifiers, name);
		}
	}
}

/* The sites of X (FILE its name), given every verifier. */
static void sites_of(const struct lexed *x, const char *file, const struct names *verifiers,
		     struct fb_site **sites, size_t *n, size_t *cap)
{
	char func[64] = "", name[96];
	int depth = 0;

	for (size_t i = 0; i < x->n; i++) {
		const struct tok *t = &x->t[i];

		if (is(t, "{")) {
			if (!depth && i > 0 && is(&x->t[i - 1], ")"))
				function_at(x, i, func, sizeof(func));
			depth++;
			continue;
		}
		if (is(t, "}")) {
			if (depth > 0 && --depth == 0)
				func[0] = '\0';
			continue;
		}
		if (!depth || has(verifiers, func))
			continue;
		if (t->kind == T_ID && i + 1 < x->n && is(&x->t[i + 1], "(")) {
			tokcpy(name, sizeof(name), t);
			if (!has(verifiers, name))
				continue;
			struct fb_site *s = add(sites, n, cap);

			snprintf(s->file, sizeof(s->file), "%s", file);
			snprintf(s->func, sizeof(s->func), "%s", func);
			snprintf(s->check, sizeof(s->check), "%s", name);
			s->line = t->line;
			branch(x, i, skip_group(x, i + 1), i > 0 && is(&x->t[i - 1], "!"), s);
			continue;
		}
		if (is(t, "==") || is(t, "!=")) {
			size_t lf, rt;

			if (!stored_compare(x, i, &lf, &rt))
				continue;
			struct fb_site *s = add(sites, n, cap);

			snprintf(s->file, sizeof(s->file), "%s", file);
			snprintf(s->func, sizeof(s->func), "%s", func);
			text_of(x, lf, rt, s->check, sizeof(s->check));
			s->line = t->line;
			branch(x, lf, rt, is(t, "!="), s);
		}
	}
}

static void free_names(struct names *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->v[i]);
	free(set->v);
}

/* The sites of N files (NAMES, TEXTS), appended to *SITES. */
static void sites_of_texts(char *const *names, char *const *texts, size_t nfiles,
			   struct fb_site **sites, size_t *n, size_t *cap)
{
	struct lexed *x = xcalloc(nfiles ? nfiles : 1, sizeof(*x));
	struct names verifiers = { 0 };

	for (size_t f = 0; f < nfiles; f++) {
		lex(&x[f], texts[f]);
		named_verifiers(&x[f], &verifiers);
	}
	/* a function returning a verifier's result is one: to a fixed point */
	for (int more = 1; more;) {
		more = 0;
		for (size_t f = 0; f < nfiles; f++)
			more |= more_verifiers(&x[f], &verifiers);
	}
	for (size_t f = 0; f < nfiles; f++) {
		sites_of(&x[f], names[f], &verifiers, sites, n, cap);
		free(x[f].t);
		free(x[f].text);
	}
	free(x);
	free_names(&verifiers);
}

void fb_sites_of_text(const char *file, const char *text, struct fb_site **sites,
		      size_t *n, size_t *cap)
{
	char *names[1] = { (char *)file }, *texts[1] = { (char *)text };

	sites_of_texts(names, texts, 1, sites, n, cap);
}

static int by_place(const void *a, const void *b)
{
	const struct fb_site *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	return c ? c : x->line - y->line;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int fb_sites_scan(const char *src, struct fb_site **ret, size_t *n, char *why, size_t len)
{
	static const char *const dirs[] = { "fs/ext4", "fs/jbd2" };
	char *names[1024], *texts[1024];
	struct fb_site *sites = NULL;
	size_t cap = 0, nf = 0;
	int rc = 0;

	*n = 0;
	for (int d = 0; d < 2 && !rc; d++) {
		char dir[4096], path[4200];
		char *found[512];
		size_t nn = 0;
		struct dirent *e;
		DIR *dp;

		snprintf(dir, sizeof(dir), "%s/%s", src, dirs[d]);
		dp = opendir(dir);
		if (!dp) {
			snprintf(why, len, "%s: %s", dir, strerror(errno));
			rc = -1;
			break;
		}
		while ((e = readdir(dp)) && nn < sizeof(found) / sizeof(*found)) {
			size_t l = strlen(e->d_name);

			if (l > 2 && l < 40 && !strcmp(e->d_name + l - 2, ".c"))
				found[nn++] = xstrdup(e->d_name);
		}
		closedir(dp);
		qsort(found, nn, sizeof(*found), by_name);
		for (size_t k = 0; k < nn; k++) {
			size_t tl;

			snprintf(path, sizeof(path), "%s/%s", dir, found[k]);
			if (!rc && nf < sizeof(names) / sizeof(*names)) {
				texts[nf] = fb_slurp(path, &tl);
				if (!texts[nf]) {
					snprintf(why, len, "%s: %s", path, strerror(errno));
					rc = -1;
				} else {
					names[nf] = xmalloc(strlen(dirs[d]) + strlen(found[k]) + 2);
					sprintf(names[nf++], "%s/%s", dirs[d], found[k]);
				}
			}
			free(found[k]);
		}
	}
	if (!rc)
		sites_of_texts(names, texts, nf, &sites, n, &cap);
	for (size_t f = 0; f < nf; f++) {
		free(names[f]);
		free(texts[f]);
	}
	if (rc) {
		free(sites);
		return -1;
	}
	qsort(sites, *n, sizeof(*sites), by_place);
	*ret = sites;
	return 0;
}

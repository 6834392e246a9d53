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
	return strstr(name, "error") || strstr(name, "warn") || strstr(name, "WARN");
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
			snprintf(s->why, sizeof(s->why), "%s",
				 i + 1 < from && is(&x->t[i + 1], "return") ?
				 "returns the result to its caller" :
				 "not an if's condition: the result is kept");
			s->how = FB_FAIL_NONE;
			return;
		}
	}
	if (!i) {
		s->how = FB_FAIL_NONE;
		snprintf(s->why, sizeof(s->why), "outside any function");
		return;
	}
	size_t cond = i, body = skip_group(x, cond);

	for (size_t k = to; k < body - 1; k++)
		if ((is(&x->t[k], "&&") || is(&x->t[k], "||")))
			s->joined = true;
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
	if (s->fail_line && s->fail_line == x->t[from].line) {
		s->fail_line = 0;
		snprintf(s->why, sizeof(s->why), "the branch starts on the check's line");
	}
	if (!s->fail_line) {
		s->how = FB_FAIL_NONE;
		s->fail_end = 0;
		s->nreport = 0;
	}
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

void fb_sites_of_text(const char *file, const char *text, struct fb_site **sites,
		      size_t *n, size_t *cap)
{
	struct lexed x = { 0 };
	char func[64] = "", name[96];
	int depth = 0;

	lex(&x, text);
	for (size_t i = 0; i < x.n; i++) {
		const struct tok *t = &x.t[i];

		if (is(t, "{")) {
			/* a function's body: NAME ( ... ) { at depth 0 */
			if (!depth && i > 0 && is(&x.t[i - 1], ")")) {
				int d = 0;
				size_t j = i - 1;

				for (;; j--) {
					if (is(&x.t[j], ")"))
						d++;
					else if (is(&x.t[j], "(") && --d == 0)
						break;
					if (!j)
						break;
				}
				if (j > 0 && x.t[j - 1].kind == T_ID)
					tokcpy(func, sizeof(func), &x.t[j - 1]);
			}
			depth++;
			continue;
		}
		if (is(t, "}")) {
			if (depth > 0 && --depth == 0)
				func[0] = '\0';
			continue;
		}
		if (!depth || fb_site_is_verifier_name(func))
			continue;
		if (t->kind == T_ID && i + 1 < x.n && is(&x.t[i + 1], "(")) {
			tokcpy(name, sizeof(name), t);
			if (!fb_site_is_verifier_name(name))
				continue;
			struct fb_site *s = add(sites, n, cap);

			snprintf(s->file, sizeof(s->file), "%s", file);
			snprintf(s->func, sizeof(s->func), "%s", func);
			snprintf(s->check, sizeof(s->check), "%s", name);
			s->line = t->line;
			branch(&x, i, skip_group(&x, i + 1), i > 0 && is(&x.t[i - 1], "!"), s);
			continue;
		}
		if (is(t, "==") || is(t, "!=")) {
			size_t lf, lt, rf, rt;

			operand(&x, i, -1, &lf, &lt);
			operand(&x, i, 1, &rf, &rt);
			if (!(reads_stored_csum(&x, lf, lt) && !constant(&x, rf, rt)) &&
			    !(reads_stored_csum(&x, rf, rt) && !constant(&x, lf, lt)))
				continue;
			struct fb_site *s = add(sites, n, cap);

			snprintf(s->file, sizeof(s->file), "%s", file);
			snprintf(s->func, sizeof(s->func), "%s", func);
			text_of(&x, lf, rt, s->check, sizeof(s->check));
			s->line = t->line;
			branch(&x, lf, rt, is(t, "!="), s);
		}
	}
	free(x.t);
	free(x.text);
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
	struct fb_site *sites = NULL;
	size_t cap = 0;

	*n = 0;
	for (int d = 0; d < 2; d++) {
		char dir[4096], path[4200], rel[96];
		char *names[512];
		size_t nn = 0;
		struct dirent *e;
		DIR *dp;

		snprintf(dir, sizeof(dir), "%s/%s", src, dirs[d]);
		dp = opendir(dir);
		if (!dp) {
			snprintf(why, len, "%s: %s", dir, strerror(errno));
			free(sites);
			return -1;
		}
		while ((e = readdir(dp)) && nn < sizeof(names) / sizeof(*names)) {
			size_t l = strlen(e->d_name);

			if (l > 2 && l < 40 && !strcmp(e->d_name + l - 2, ".c"))
				names[nn++] = xstrdup(e->d_name);
		}
		closedir(dp);
		qsort(names, nn, sizeof(*names), by_name);
		for (size_t k = 0; k < nn; k++) {
			size_t tl;
			char *text;

			snprintf(path, sizeof(path), "%s/%s", dir, names[k]);
			snprintf(rel, sizeof(rel), "%s/%s", dirs[d], names[k]);
			text = fb_slurp(path, &tl);
			if (!text) {
				snprintf(why, len, "%s: %s", path, strerror(errno));
				for (; k < nn; k++)
					free(names[k]);
				free(sites);
				return -1;
			}
			fb_sites_of_text(rel, text, &sites, n, &cap);
			free(text);
			free(names[k]);
		}
	}
	qsort(sites, *n, sizeof(*sites), by_place);
	*ret = sites;
	return 0;
}

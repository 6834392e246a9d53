// SPDX-License-Identifier: MIT
/*
 * ${EXPR} of scenario values (expr.h): a recursive descent over sums of
 * products of atoms (a decimal number, a variable, a sum in parentheses),
 * each step checked for 64-bit overflow.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scenario/expr.h"

/* One expression being evaluated: P moves from the text's start to END. */
struct eval {
	const struct fb_vars *vars;
	const char *p, *end;
	char why[256];
	bool quiet;		/* failed on a broken variable, already reported */
};

__attribute__((format(printf, 2, 3)))
static bool eval_fail(struct eval *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
	return false;
}

struct fb_var *fb_var_find(const struct fb_vars *vars, const char *name, size_t len)
{
	for (int i = 0; i < vars->n; i++)
		if (strlen(vars->v[i].name) == len && !strncmp(vars->v[i].name, name, len))
			return &vars->v[i];
	return NULL;
}

void fb_var_names(const struct fb_vars *vars, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < vars->n && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "", vars->v[i].name);
	if (!vars->n)
		snprintf(buf, len, "none (a variable is defined in [vars] of the scenario or its fixture)");
}

static void eval_space(struct eval *v)
{
	while (v->p < v->end && isspace((unsigned char)*v->p))
		v->p++;
}

static bool eval_sum(struct eval *v, long long *ret);

/* A decimal number, a variable, or a sum in parentheses. */
static bool eval_atom(struct eval *v, long long *ret)
{
	const char *s;

	eval_space(v);
	s = v->p;
	if (s < v->end && *s == '(') {
		v->p++;
		if (!eval_sum(v, ret))
			return false;
		eval_space(v);
		if (v->p == v->end || *v->p != ')')
			return eval_fail(v, "'(' without ')'");
		v->p++;
		return true;
	}
	if (s < v->end && isdigit((unsigned char)*s)) {
		*ret = 0;
		for (; v->p < v->end && isdigit((unsigned char)*v->p); v->p++)
			if (__builtin_mul_overflow(*ret, 10, ret) ||
			    __builtin_add_overflow(*ret, *v->p - '0', ret))
				return eval_fail(v, "the number %.*s overflows a 64-bit integer",
						 (int)strspn(s, "0123456789"), s);
		return true;
	}
	if (s < v->end && (isalpha((unsigned char)*s) || *s == '_')) {
		const struct fb_var *x;
		char names[512];

		while (v->p < v->end && (isalnum((unsigned char)*v->p) || *v->p == '_'))
			v->p++;
		x = fb_var_find(v->vars, s, v->p - s);
		if (!x) {
			fb_var_names(v->vars, names, sizeof(names));
			return eval_fail(v, "no variable '%.*s'; defined: %s", (int)(v->p - s), s, names);
		}
		if (x->broken) {
			v->quiet = true;
			return eval_fail(v, "%s is broken", x->name);
		}
		*ret = x->value;
		return true;
	}
	if (s == v->end)
		return eval_fail(v, "expected a number, a variable or '(' at the end; accepted: " FB_EXPR_ACCEPTED);
	return eval_fail(v, "expected a number, a variable or '(' at '%.*s'; accepted: " FB_EXPR_ACCEPTED,
			 (int)(v->end - s), s);
}

static bool eval_product(struct eval *v, long long *ret)
{
	long long r;

	if (!eval_atom(v, ret))
		return false;
	for (;;) {
		eval_space(v);
		if (v->p == v->end || *v->p != '*')
			return true;
		v->p++;
		if (!eval_atom(v, &r))
			return false;
		if (__builtin_mul_overflow(*ret, r, ret))
			return eval_fail(v, "overflows a 64-bit integer");
	}
}

static bool eval_sum(struct eval *v, long long *ret)
{
	long long r;
	char op;

	if (!eval_product(v, ret))
		return false;
	for (;;) {
		eval_space(v);
		if (v->p == v->end || (*v->p != '+' && *v->p != '-'))
			return true;
		op = *v->p++;
		if (!eval_product(v, &r))
			return false;
		if (op == '+' ? __builtin_add_overflow(*ret, r, ret) :
				__builtin_sub_overflow(*ret, r, ret))
			return eval_fail(v, "overflows a 64-bit integer");
	}
}

bool fb_expr_eval(const struct fb_vars *vars, const char *text, size_t len, long long *ret,
		  char *why, size_t whylen, bool *quiet)
{
	struct eval v = { .vars = vars, .p = text, .end = text + len };
	bool ok = eval_sum(&v, ret);

	eval_space(&v);
	if (ok && v.p != v.end)
		ok = eval_fail(&v, "unexpected '%.*s'; accepted: " FB_EXPR_ACCEPTED,
			       (int)(v.end - v.p), v.p);
	else if (ok && *ret < 0)
		ok = eval_fail(&v, "is %lld, negative; a size, offset or count is 0 or more", *ret);
	snprintf(why, whylen, "%s", v.why);
	if (quiet)
		*quiet = v.quiet;
	return ok;
}

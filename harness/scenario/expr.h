/* SPDX-License-Identifier: MIT */
/*
 * The expressions of a scenario's values, ${EXPR}: decimal numbers and
 * [vars] variables joined by +, - and *, with parentheses, in 64-bit
 * arithmetic that refuses to overflow. A value is a size, an offset or a
 * count, so a negative result is refused; parts of it may be negative
 * (${a-b+c}). The scenario parser (scenario.c) defines the variables.
 */
#ifndef FLIPBED_EXPR_H
#define FLIPBED_EXPR_H

#include <stdbool.h>
#include <stddef.h>

/* What an expression may hold, for the messages that refuse one. */
#define FB_EXPR_ACCEPTED "decimal numbers and variables joined by +, - and *, with parentheses"

/* A [vars] variable: defined once, replaced by "vars.NAME=VALUE" overrides. */
struct fb_var {
	char *name;
	long long value;
	const char *origin;
	int line;
	bool broken;		/* its definition was refused: uses say nothing more */
};

/* The variables defined so far, in order. */
struct fb_vars {
	struct fb_var *v;
	int n;
};

/* The variable NAME (LEN bytes, not NUL-terminated), or NULL. */
struct fb_var *fb_var_find(const struct fb_vars *vars, const char *name, size_t len);

/* "cluster, limit", or a hint where variables come from when there is none. */
void fb_var_names(const struct fb_vars *vars, char *buf, size_t len);

/*
 * TEXT (LEN bytes) as an expression over VARS, its value in *RET. False
 * with the reason in WHY; *QUIET (unless QUIET is NULL) then says the
 * reason is a broken variable, whose definition was reported already.
 */
bool fb_expr_eval(const struct fb_vars *vars, const char *text, size_t len, long long *ret,
		  char *why, size_t whylen, bool *quiet);

#endif

// SPDX-License-Identifier: MIT
/* fb_die: one line on stderr, then exit (die.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "die.h"

const char *fb_program = "flipbed";

void fb_die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", fb_program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

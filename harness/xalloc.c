// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p && n) {
		perror("flipbed");
		exit(3);
	}
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d) {
		perror("flipbed");
		exit(3);
	}
	return d;
}

// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util.h"

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

int fb_mkdirs(const char *path)
{
	char *p = strdup(path);
	int ret = 0;

	if (!p)
		return -1;
	for (char *s = p + 1; !ret; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			fprintf(stderr, "flipbed: %s: mkdir: %s\n", p,
				strerror(errno));
			ret = -1;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

double fb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

// SPDX-License-Identifier: MIT
/* Paths and atomic output files for the report writers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "report/report_int.h"

char *fb_path(const char *dir, const char *rel, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s%s%s", dir, rel ? rel : "", rel ? "/" : "",
		     name) < 0)
		return NULL;
	return p;
}

bool fb_is_file(const char *path)
{
	struct stat st;

	return path && !stat(path, &st) && S_ISREG(st.st_mode);
}

FILE *fb_out_open(const char *path)
{
	char *tmp;
	FILE *f;

	if (asprintf(&tmp, "%s.tmp", path) < 0)
		return NULL;
	f = fopen(tmp, "w");
	if (!f)
		fprintf(stderr, "flipbed: %s: %s\n", tmp, strerror(errno));
	free(tmp);
	return f;
}

int fb_out_close(FILE *f, const char *path)
{
	char *tmp;
	int err = ferror(f);

	if (fclose(f) || err) {
		fprintf(stderr, "flipbed: %s.tmp: write failed\n", path);
		return -1;
	}
	if (asprintf(&tmp, "%s.tmp", path) < 0)
		return -1;
	if (rename(tmp, path)) {
		fprintf(stderr, "flipbed: %s: %s\n", path, strerror(errno));
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

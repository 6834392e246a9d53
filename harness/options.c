// SPDX-License-Identifier: MIT
/* Options shared by subcommands (options.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"
#include "options.h"

int fb_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

int fb_opt_jobs(const char *cmd, const char *arg, int *ret_jobs)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < 1 || v > 64) {
		fprintf(stderr, "flipbed %s: --jobs %s: expected 1 to 64\n", cmd, arg);
		return -1;
	}
	*ret_jobs = (int)v;
	return 0;
}

int fb_opt_kernel(const char *cmd, const char *arg, const char **ret_name)
{
	const struct fb_kernel *k = fb_kernel_find(arg);

	if (!k) {
		fprintf(stderr, "flipbed %s: --kernel %s: accepted: %s\n", cmd, arg,
			fb_kernel_names());
		return -1;
	}
	*ret_name = k->name;
	return 0;
}

int fb_opt_kernels(const char *cmd, const char *arg, char *buf, size_t len)
{
	const char *p = arg;

	if (!*arg) {
		fprintf(stderr, "flipbed %s: --kernel: expected K[,K...] of %s\n", cmd,
			fb_kernel_names());
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		char name[64];
		const char *k;

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (n >= sizeof(name) || fb_opt_kernel(cmd, name, &k))
			return -1;
		if (strlen(buf) + strlen(k) + 2 > len) {
			fprintf(stderr, "flipbed %s: --kernel %s: too many kernels\n", cmd, arg);
			return -1;
		}
		strcat(strcat(buf, k), " ");
		p += n + (p[n] == ',');
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/* The paths of build products and run files (paths.h). */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"

const char *build_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;

	if (*dir)
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n < 0)
		return strcpy(dir, "build");
	dir[n] = '\0';
	/* build/bin/flipbed -> build; dirname() may return DIR itself: no strcpy */
	const char *parent = dirname(dirname(dir));

	return memmove(dir, parent, strlen(parent) + 1);
}

const char *fb_path_kernel(const struct fb_kernel *k, char *buf, size_t len)
{
	if (k->path)
		snprintf(buf, len, "%s", k->path);
	else
		snprintf(buf, len, "%s/kernel/%s/%s", build_dir(), k->name, k->image);
	return buf;
}

const char *fb_path_kernel_version(const struct fb_kernel *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s/kernel/%s/source-version", build_dir(), k->name);
	return buf;
}

const char *fb_path_initrd(char *buf, size_t len)
{
	snprintf(buf, len, "%s/guest/initramfs.cpio.gz", build_dir());
	return buf;
}

const char *fb_path_plugin(char *buf, size_t len)
{
	snprintf(buf, len, "%s/lib/nbdkit-flipbed-plugin.so", build_dir());
	return buf;
}

const char *fb_path_golden_cache(char *buf, size_t len)
{
	snprintf(buf, len, "%s/cache/images", build_dir());
	return buf;
}

const char *fb_path_case_dir(const char *rundir, const char *sub, char *buf, size_t len)
{
	snprintf(buf, len, "%s/cases/%s", rundir, sub);
	return buf;
}

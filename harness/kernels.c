// SPDX-License-Identifier: MIT
/*
 * The kernel table (kernels.h). kasan boots its bzImage through microvm's
 * firmware: in 6.1 the PVH entry code is KASAN-instrumented and faults
 * before the early shadow exists (QEMU exits after 0.1 s with no console
 * output). KASAN's shadow memory needs the larger guest, and it is built
 * from the patched tree: it prints csum-error lines too.
 */
#include <string.h>

#include "kernels.h"

const struct fb_kernel fb_kernels[] = {
	{ "stock", "vmlinux", 256, "kernels", false },
	{ "patched", "vmlinux", 256, "kernels", true },
	{ "kasan", "bzImage", 512, "kasan", true },
};
const size_t fb_nkernels = sizeof(fb_kernels) / sizeof(fb_kernels[0]);

const struct fb_kernel *fb_kernel_find(const char *name)
{
	for (size_t i = 0; i < fb_nkernels; i++)
		if (!strcmp(fb_kernels[i].name, name))
			return &fb_kernels[i];
	return NULL;
}

const char *fb_kernel_names(void)
{
	static char names[128];

	if (!names[0])
		for (size_t i = 0; i < fb_nkernels; i++)
			strcat(strcat(names, i ? ", " : ""), fb_kernels[i].name);
	return names;
}

size_t fb_kernel_rank(const char *name)
{
	const struct fb_kernel *k = fb_kernel_find(name);

	return k ? (size_t)(k - fb_kernels) : fb_nkernels;
}

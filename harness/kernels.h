/* SPDX-License-Identifier: MIT */
/*
 * The kernels flipbed boots: one table of names (the build/kernel/NAME
 * folders kernel/build.sh writes), what QEMU loads from each, and how much
 * memory the guest gets. Every command, the scenario parser and the
 * reports take their kernel names from here.
 */
#ifndef FLIPBED_KERNELS_H
#define FLIPBED_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

struct fb_kernel {
	const char *name;	/* stock, patched, kasan */
	const char *image;	/* the file QEMU loads: vmlinux (PVH) or bzImage */
	int mem_mb;		/* guest memory */
	const char *make_target;/* what builds it */
	bool csum_lines;	/* prints kernel/README.md's csum-error lines */
};

extern const struct fb_kernel fb_kernels[];
extern const size_t fb_nkernels;

/* The kernel called NAME, or NULL. */
const struct fb_kernel *fb_kernel_find(const char *name);

/* "stock, patched, kasan": for "accepted: ..." messages. */
const char *fb_kernel_names(void);

/* NAME's position in the table (for sorting), fb_nkernels if unknown. */
size_t fb_kernel_rank(const char *name);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The kernels flipbed boots: kernel/kernels.ini, the registry that
 * kernel/build.sh builds from (its build/kernel/NAME folders), read with
 * libinih. Each kernel has a name, what QEMU loads from it, how much memory
 * the guest gets, and the kernel it is a variant of. Every command, the
 * scenario parser and the reports take their kernel names from here.
 *
 * flipbed carries the registry as it was when flipbed was built;
 * FLIPBED_KERNELS_INI=FILE reads another file instead.
 */
#ifndef FLIPBED_KERNELS_H
#define FLIPBED_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

struct fb_kernel {
	const char *name;	/* stock, patched, kasan, stock-6.12, ... */
	const char *source;	/* debian:linux-source-X.Y or git:PATH */
	const char *image;	/* the file QEMU loads: vmlinux (PVH) or bzImage */
	int mem_mb;		/* guest memory */
	const char *make_target;/* what builds it */
	bool csum_lines;	/* prints kernel/README.md's csum-error lines */
	bool gcov;		/* counts fs/ext4 and fs/jbd2 with gcov: the agent
				   hands the counters back per case (coverage = gcov) */
	const char *variant_of;	/* the kernel whose scenario role it takes, or NULL */
	const char *path;	/* --kernel-image: the image itself (absolute), NULL
				   for a kernel of the registry (build/kernel/NAME/) */
	const char *release;	/* --kernel-image: the release its banner names */
	const char *modules;	/* the folder of its modules (lib/modules/RELEASE):
				   build/kernel/NAME/modules for a debian-image
				   source, --modules DIR; NULL: all built in */
};

/* The registry, in file order; filled by fb_kernels_load(). */
extern const struct fb_kernel *fb_kernels;
extern size_t fb_nkernels;

/*
 * Read the registry once (later calls return the first result): 0, or -1
 * after printing each error as FILE:LINE: what, and what is accepted.
 * The functions below call it themselves; a command calls it first so that
 * a broken registry is reported before anything else.
 */
int fb_kernels_load(void);

/*
 * `--kernel-image PATH`: a kernel built elsewhere joins the registry as
 * kernel "image" (kernel_image.h checks it first): its scenario role is
 * patched's when it prints the csum-error lines, stock's otherwise. 0 and
 * *RET_NAME ("image"), or -1 after printing why (exit 2); a second call
 * with another PATH is refused.
 */
int fb_kernel_add_image(const char *path, const char **ret_name);

/*
 * `--modules DIR`: the modules of --kernel-image's kernel, a folder
 * lib/modules/RELEASE (or a root holding one); given before or after
 * --kernel-image. 0, or -1 after a message (exit 2).
 */
int fb_kernel_add_modules(const char *dir);

/*
 * After a command's options: --kernel-image's kernel with its --modules
 * (kernel_modules.h resolves them now), or without, when every driver it
 * needs is built in. 0, or -1 after naming what is wrong (exit 2).
 */
int fb_kernel_image_finish(void);

/* The kernel called NAME, or NULL. */
const struct fb_kernel *fb_kernel_find(const char *name);

/* "stock, patched, kasan, ...": for "accepted: ..." messages. */
const char *fb_kernel_names(void);

/* NAME's position in the registry (for sorting), fb_nkernels if unknown. */
size_t fb_kernel_rank(const char *name);

/*
 * How far kernel NAME is from kernel LISTED along variant-of: 0 when they
 * are the same kernel, 1 when NAME is a variant of LISTED, 2 when a
 * variant of a variant of it, ...; -1 when NAME is not LISTED's at all.
 * A scenario's `kernels =` and `[expect:LISTED]` apply to NAME when >= 0.
 */
int fb_kernel_distance(const char *name, const char *listed);

/*
 * NAME's variant-of chain into CHAIN: NAME, the kernel it is a variant of,
 * and so on, then NULL; at most N entries with the NULL (a name the
 * registry does not know is its own chain).
 */
void fb_kernel_chain(const char *name, const char **chain, size_t n);

#endif

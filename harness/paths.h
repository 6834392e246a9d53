/* SPDX-License-Identifier: MIT */
/*
 * Where flipbed's build products and a run's files are: one function each,
 * so that boot, run, matrix, campaign and image spell no path themselves.
 * Each writes into BUF (LEN bytes) and returns BUF.
 */
#ifndef FLIPBED_PATHS_H
#define FLIPBED_PATHS_H

#include <stddef.h>

#include "kernels.h"

/* build/, found from the running binary (build/bin/flipbed). */
const char *build_dir(void);

/* build/kernel/NAME/IMAGE, or --kernel-image's PATH: what QEMU loads for kernel K. */
const char *fb_path_kernel(const struct fb_kernel *k, char *buf, size_t len);
/* build/kernel/NAME/source-version: the Debian version it was built from. */
const char *fb_path_kernel_version(const struct fb_kernel *k, char *buf, size_t len);
/* build/guest/initramfs.cpio.gz: the guest agent as /init. */
const char *fb_path_initrd(char *buf, size_t len);
/* build/lib/nbdkit-flipbed-plugin.so */
const char *fb_path_plugin(char *buf, size_t len);
/* build/cache/images: golden images, shared by every run. */
const char *fb_path_golden_cache(char *buf, size_t len);
/* RUNDIR/cases/SUB: one case's files (SUB is the case's file name). */
const char *fb_path_case_dir(const char *rundir, const char *sub, char *buf, size_t len);

#endif

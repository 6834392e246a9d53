/* SPDX-License-Identifier: MIT */
/*
 * A kernel whose drivers are modules: Debian's binary kernels (a
 * kernels.ini source debian-image:PACKAGE=VERSION, unpacked into
 * build/kernel/NAME/modules) and `--kernel-image FILE --modules DIR`.
 * The guest's initramfs then carries the modules that flipbed's own
 * kernels build in (kernel/config/flipbed.config: the virtio-mmio
 * transport, the virtio disk and console, crc32c, jbd2, ext4), with the
 * modules they depend on, in the order the kernel's own modules.dep gives;
 * one that modules.builtin lists is built in and left out. Compressed
 * modules (.ko.xz, .ko.zst, .ko.gz) are unpacked on the host, so that
 * any kernel loads them, whatever its MODULE_DECOMPRESS. The agent loads
 * them before it opens its channel or mounts anything (guest/modules.c).
 */
#ifndef FLIPBED_KERNEL_MODULES_H
#define FLIPBED_KERNEL_MODULES_H

#include <stddef.h>

#include "kernels.h"

/*
 * --modules DIR for --kernel-image's kernel K: DIR is lib/modules/RELEASE
 * (or a root holding one lib/modules/RELEASE) with its modules.dep; each
 * module flipbed needs must be there or built in, and built for K's
 * release. Sets K's modules and makes its initramfs. 0, or -1 after naming
 * what is wrong (exit 2).
 */
int fb_modules_attach(struct fb_kernel *k, const char *dir);

/*
 * The initramfs to boot K with, into BUF: build/guest/initramfs.cpio.gz
 * for a kernel with everything built in; for one with modules, a copy of
 * it with K's modules before it, made at the first call (in
 * build/kernel/NAME/initramfs.cpio, remade when the agent's is newer; for
 * --kernel-image in a private folder removed at exit). NULL after a
 * message naming the module or file at fault.
 */
const char *fb_modules_initrd(const struct fb_kernel *k, char *buf, size_t len);

#endif

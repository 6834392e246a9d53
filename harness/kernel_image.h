/* SPDX-License-Identifier: MIT */
/*
 * A kernel built elsewhere (`--kernel-image PATH`): before anything boots,
 * check that the image can run flipbed's cases, and say what is missing.
 *
 * A vmlinux (ELF) is booted through its PVH entry, so it must carry the
 * PVH note; a bzImage is booted through the firmware, and its compressed
 * payload is unpacked with the matching tool (gzip, xz, zstd, lz4, bzip2,
 * lzma, lzop) to be searched. In both, the strings that the needed drivers
 * and ext4 compile in are looked for: the virtio-mmio transport, the
 * virtio block driver (the disks), virtio_console (its virtio-serial
 * port is the agent's channel), the 8250 serial console (the kernel's messages) and ext4.
 * The same search tells whether the kernel prints flipbed's csum-error
 * lines (kernel/README.md) and its release ("Linux version ...").
 */
#ifndef FLIPBED_KERNEL_IMAGE_H
#define FLIPBED_KERNEL_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

/* What the check found in a usable image. */
struct fb_kernel_image {
	const char *format;	/* "vmlinux" or "bzImage" */
	bool csum_lines;	/* prints the csum-error lines */
	char release[128];	/* "6.1.192", from the banner, or "unknown" */
	int lacking;		/* drivers a module may give, not built in (with MODULES) */
};

/*
 * Check the image at PATH: 0 and *RET filled, or -1 after one message on
 * stderr per problem ("--kernel-image PATH: ...", naming what is missing
 * and the kernel option that provides it). With MODULES (--modules DIR),
 * the drivers a module can provide may be absent from the image:
 * kernel_modules.h looks for them in DIR.
 */
int fb_kernel_image_check(const char *path, bool modules, struct fb_kernel_image *ret);

/* The tool that unpacks data starting with P's magic (gzip, xz, zstd, ...), or NULL. */
const char *fb_unpacker(const unsigned char *p, size_t len);

/*
 * Unpack the LEN bytes at P with TOOL -dc into a buffer (*RET, at most MAX
 * bytes): its length, or 0 after a message prefixed by WHO. The kernel
 * appends the unpacked size after a bzImage's stream, which some tools call
 * trailing garbage and exit non-zero for: what counts is that the output is
 * an ELF file.
 */
size_t fb_unpack(const char *who, const char *tool, const unsigned char *p, size_t len,
		 size_t max, unsigned char **ret);

#endif

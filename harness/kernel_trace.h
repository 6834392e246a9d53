/* SPDX-License-Identifier: MIT */
/*
 * A kernel log's call traces with file:line per frame, for a kernel whose
 * debug info flipbed has: build/kernel/NAME/dbg/vmlinux and the debug
 * copies of its modules under build/kernel/NAME/dbg/modules/ (Debian's
 * -dbg package, `make kernels-debian-dbg`). Each frame the kernel printed
 * (`func+0xOFF/0xLEN [module]`, and the RIP line) is looked up with nm
 * (the function's address) and addr2line (the source line of address +
 * OFF, inlined callers too), as the kernel's scripts/decode_stacktrace.sh
 * does. The log is the guest's and hostile: at most MAX_FRAMES frames of
 * its first lines are read, each name checked before any tool sees it.
 */
#ifndef FLIPBED_KERNEL_TRACE_H
#define FLIPBED_KERNEL_TRACE_H

#include <stdio.h>

/*
 * Write TEXT's frames (kernel KERNEL's log) to OUT, each followed by its
 * "    at FUNC FILE:LINE" lines. 1 when something was written; 0 when
 * KERNEL has no debug info or TEXT no frame.
 */
int fb_kernel_trace(const char *kernel, const char *text, FILE *out);

#endif

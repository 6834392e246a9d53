/* SPDX-License-Identifier: MIT */
/*
 * Command-line options that several subcommands share, parsed one way.
 * Each prints "flipbed CMD: --OPT VALUE: expected ..." on stderr and
 * returns -1 on bad input, 0 otherwise.
 */
#ifndef FLIPBED_OPTIONS_H
#define FLIPBED_OPTIONS_H

#include <stddef.h>

/* The default for --jobs: the number of online cores. */
int fb_default_jobs(void);

/* --jobs N: 1 to 64. */
int fb_opt_jobs(const char *cmd, const char *arg, int *ret_jobs);

/*
 * --kernel K[,K...]: every name must be in the kernel table (kernels.h).
 * The names are appended to BUF space-separated (the option may repeat).
 */
int fb_opt_kernels(const char *cmd, const char *arg, char *buf, size_t len);

/* --kernel K: one name of the kernel table. */
int fb_opt_kernel(const char *cmd, const char *arg, const char **ret_name);

#endif

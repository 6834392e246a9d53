/* SPDX-License-Identifier: MIT */
/*
 * Small helpers of the host command. Allocation: out of memory is not a
 * case outcome, so these print and exit with the infra status (3) instead
 * of returning NULL.
 */
#ifndef FLIPBED_UTIL_H
#define FLIPBED_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);	/* NULL is taken as "" */
char *xstrndup(const char *s, size_t n);

/*
 * The whole of file PATH as a NUL-terminated string (free it), its length
 * in *RET_LEN when that is not NULL. Guest-made files are hostile input:
 * at most FB_SLURP_MAX bytes are read, and a longer file is cut there.
 * NULL with errno set when PATH cannot be read.
 */
#define FB_SLURP_MAX (64u << 20)
char *fb_slurp(const char *path, size_t *ret_len);

/* mkdir -p PATH; a failure is printed, naming the directory. 0 or -1. */
int fb_mkdirs(const char *path);

/*
 * A new private directory under $TMPDIR (or /tmp) named flipbed-XXXXXX, made
 * by mkdtemp (mode 0700): no other user can have made it first and be handed
 * the sockets put there. Its path goes to BUF. 0, or -1 with errno set.
 */
int fb_private_dir(char *buf, size_t len);

/* Remove PATH and everything below it, without a shell. 0 or -1. */
int fb_remove_tree(const char *path);

/*
 * Whether S is valid UTF-8 (no overlong forms, no surrogates). Records are
 * JSON, which holds only UTF-8: a path that is not would lose its case's
 * record, so input is checked where it is read.
 */
bool fb_utf8_valid(const char *s);

/*
 * Whether PATH is an ext4 image file: a regular file (not a directory, a
 * device or a pipe: flipbed copies and hashes it) with the superblock
 * magic 0xEF53 at byte 1080. 0, or -1 with the reason in WHY.
 */
int fb_image_is_ext4(const char *path, char *why, size_t len);

/* Seconds on the monotonic clock. */
double fb_now(void);
/* The wall clock in UTC, ISO 8601 with milliseconds: "2026-01-02T03:04:05.678Z". */
void fb_utc_stamp(char *buf, size_t len);

/*
 * S, the whole of it, as a decimal without sign or leading zero, at most
 * MAX, into *RET: 0, or -1 (nothing stored) for anything else. For lines a
 * guest sent: hostile input.
 */
int fb_parse_dec(const char *s, unsigned long long max, unsigned long long *ret);

/*
 * Input refused: PREFIX (who refuses: "flipbed boot", "flipbed:
 * --kernel-image PATH"), ": " and the message, one line on stderr.
 * fb_bad_input returns EXIT_BADINPUT (cmd.h), the status a subcommand
 * exits with; fb_vbad_input serves a helper with arguments of its own.
 */
__attribute__((format(printf, 2, 3)))
int fb_bad_input(const char *prefix, const char *fmt, ...);
__attribute__((format(printf, 2, 0)))
void fb_vbad_input(const char *prefix, const char *fmt, va_list ap);

#endif

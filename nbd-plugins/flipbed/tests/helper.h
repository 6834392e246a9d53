/* SPDX-License-Identifier: MIT */
/* flipbed plugin tests: start the real plugin under nbdkit in a temporary
 * directory, talk to it with libnbd and over the control socket, and clean
 * up (kill nbdkit, remove the directory) at exit, also on failure.
 */
#ifndef FLIPBED_TEST_HELPER_H
#define FLIPBED_TEST_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <libnbd.h>

/* Fail the test with the file, line and a message. */
#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			fbt_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

void fbt_fail(const char *file, int line, const char *cond,
	      const char *fmt, ...) __attribute__((noreturn, format(printf, 4, 5)));

/* The test's directory (made on first use, removed at exit) and paths in it. */
const char *fbt_dir(void);
char *fbt_path(const char *name);	/* static buffer per call: strdup it */

/* The image: size bytes, byte i = fbt_pattern(i). */
void fbt_make_image(uint64_t size);
uint8_t fbt_pattern(uint64_t i);
void fbt_read_image(void *buf, uint64_t len, uint64_t off);
void fbt_write_image(const void *buf, uint64_t len, uint64_t off);

/* Start nbdkit -f with the plugin: file=image control=ctl faultlog=log and
 * the extra key=value words (NULL-terminated). Returns once the pid file
 * exists. fbt_start_fails runs it expecting failure and returns its
 * stderr (malloc'd); it has its own NBD socket and pid file, so it may
 * run while the server of fbt_start does.
 */
void fbt_start(const char *extra, ...);
char *fbt_start_fails(const char *first, ...);
void fbt_stop(void);
/* Environment words to put before "nbdkit" in a shell command line. */
const char *fbt_nbdkit_env(void);
void fbt_restart(void);

struct nbd_handle *fbt_connect(void);
void fbt_pread(struct nbd_handle *h, void *buf, size_t len, uint64_t off);
void fbt_pwrite(struct nbd_handle *h, const void *buf, size_t len,
		uint64_t off, uint32_t flags);

/* Control socket: one connection per call unless a fd is kept. */
int fbt_ctl_open(void);
/* Send line, return the answer (all lines up to the one starting with
 * "ok" or "err"), malloc'd.
 */
char *fbt_ctl_fd(int fd, const char *line);
/* The same on a new connection; the answer is valid until the next call. */
char *fbt_ctl(const char *line);
/* fbt_ctl that must answer with an "ok" line; returns it. */
char *fbt_ctl_ok(const char *line);

/* The fault log's records as a JSON array (jansson), re-read each call. */
struct json_t;
struct json_t *fbt_faultlog(void);

#endif

/* SPDX-License-Identifier: MIT */
/* flipbed plugin tests: start the real plugin under nbdkit in a temporary
 * directory, talk to it with libnbd and over the control socket, and clean
 * up (kill nbdkit, remove the directory) at exit, also on failure.
 *
 * Each test is a cmocka group: its setup makes the image and starts
 * nbdkit (fbt_serve, fbt_start), its cases run in order on that server,
 * and a case stops it (fbt_stop_case, or fbt_stop within a case), not the
 * group teardown: stopping checks nbdkit's exit status, and cmocka does
 * not count a failure in a group teardown. main returns
 * fbt_finish(cmocka_run_group_tests(...)).
 */
#ifndef FLIPBED_TEST_HELPER_H
#define FLIPBED_TEST_HELPER_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cmocka.h>
#include <libnbd.h>

/* Fail the running case through cmocka, with a message that gives the
 * values (printf format); cmocka adds the file and line. In a thread other
 * than the test's, cmocka prints the message and ends the program with a
 * failure status: its jump back to the case belongs to the case's thread.
 */
#define fbt_assert(cond, ...)						\
	do {								\
		if (!(cond))						\
			fail_msg(__VA_ARGS__);				\
	} while (0)

/* What main returns: cmocka's count of failed cases; when one failed, the
 * end of nbdkit's log goes to stderr too.
 */
int fbt_finish(int failed);

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
 * run while the server of fbt_start does. Both skip the test (exit 77)
 * when nbdkit is not installed, and fail it under CI (CI=true), where
 * make deps installs it.
 */
void fbt_start(const char *extra, ...);
char *fbt_start_fails(const char *first, ...);
void fbt_stop(void);
/* fbt_make_image(size) and fbt_start(NULL), for a group setup; returns 0. */
int fbt_serve(uint64_t size);
/* The group setup of a test whose server needs nothing but its image. */
#define FBT_SERVE_SETUP(size)						\
	static int setup(void **state)					\
	{								\
		return fbt_serve(size);					\
	}
/* main: the cases, given as cmocka_unit_test entries, run in order on the
 * server that SETUP starts; the last of them stops it (fbt_stop_case).
 */
#define FBT_MAIN(setup, ...)						\
	int main(void)							\
	{								\
		const struct CMUnitTest tests[] = { __VA_ARGS__ };	\
									\
		return fbt_finish(cmocka_run_group_tests(tests, setup,	\
							 NULL));	\
	}
/* fbt_stop as a cmocka case. */
void fbt_stop_case(void **state);
/* Environment words to put before "nbdkit" in a shell command line. */
const char *fbt_nbdkit_env(void);
void fbt_restart(void);

struct nbd_handle *fbt_connect(void);
/* A case given a connection in *state (struct nbd_handle *), closed after
 * it whether it passed or not: nbdkit waits for its clients to leave
 * before it exits, and a later case stops it.
 */
#define fbt_connected_test(f)						\
	cmocka_unit_test_setup_teardown(f, fbt_connect_setup,		\
					fbt_connect_teardown)
int fbt_connect_setup(void **state);
int fbt_connect_teardown(void **state);
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

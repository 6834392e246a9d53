// SPDX-License-Identifier: MIT
/* flipbed plugin: the control protocol answers exactly as documented, and
 * bad input (malformed rules, unknown keys, ranges outside the disk,
 * garbage bytes, over-long lines, a client leaving mid-line) gets "err" or
 * a dropped connection, never a crash or a changed byte; a client that
 * does not read its answers holds up no other client.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <libnbd.h>

#include "helper.h"

#define SIZE (1 << 20)

static uint8_t bytes[SIZE];	/* what a case read */

static void expect(const char *cmd, const char *want)
{
	char *got = fbt_ctl(cmd);

	fbt_assert(strcmp(got, want) == 0, "'%s' answered '%s', expected '%s'",
		   cmd, got, want);
}

static void expect_err(const char *cmd, const char *part)
{
	char *got = fbt_ctl(cmd);

	fbt_assert(strncmp(got, "err ", 4) == 0 && strstr(got, part) &&
		   !strchr(got, '\n')[1],
		   "'%s' answered '%s', expected err ...%s...", cmd, got, part);
}

static void test_protocol(void **state)
{
	char *s;

	expect("stats", "ok reads=0 writes=0 faults=0 held=0\n");
	expect("release", "ok released=0\n");
	expect("list", "ok\n");
	expect("add on=read at=0x10 len=2 zero", "ok id=r1\n");
	expect("add id=mine on=write at=100 flip=7 count=3 after=1",
	       "ok id=mine\n");
	expect("add on=read at=5 ones", "ok id=r2\n");
	expect("list", "id=r2 on=read at=5 len=1 ones\n"
	       "id=r1 on=read at=16 len=2 zero\n"
	       "id=mine on=write at=100 len=1 flip=7 count=3 after=1\nok\n");
	expect("del r1", "ok\n");
	expect_err("del r1", "no armed rule id=r1");
	expect_err("add id=mine on=read at=1 zero", "already armed");
	expect("clear", "ok\n");
	expect("list", "ok\n");
	/* One connection, several commands, CRLF and blanks tolerated. */
	{
		int fd = fbt_ctl_open();

		s = fbt_ctl_fd(fd, "  stats\r");
		fbt_assert(strncmp(s, "ok reads=", 9) == 0, "stats: %s", s);
		free(s);
		s = fbt_ctl_fd(fd, "list");
		fbt_assert(strcmp(s, "ok\n") == 0, "list: %s", s);
		free(s);
		close(fd);
	}
}

static void test_bad_rules(void **state)
{
	expect_err("", "unknown command");
	expect_err("frobnicate", "unknown command 'frobnicate'");
	expect_err("list now", "takes no argument");
	expect_err("release all", "takes no argument");
	expect_err("add", "on= is required");
	expect_err("add on=read at=0", "an action is required");
	expect_err("add on=read zero", "at=OFFSET is required");
	expect_err("add on=sideways at=0 zero", "expected rest, read or write");
	expect_err("add on=read at=0 zero colour=blue", "unknown key 'colour'");
	expect_err("add on=read at=0 zero ones", "exactly one action");
	expect_err("add on=read at=-1 zero", "expected an unsigned number");
	expect_err("add on=read at=99999999999999999999 zero",
		   "expected an unsigned number");
	expect_err("add on=read at=0 len=0 zero", "len=0");
	expect_err("add on=read at=0 len=2 flip=16", "outside len=2");
	expect_err("add on=read at=0 flip=1,1", "listed twice");
	expect_err("add on=read at=0 random", "needs seed=");
	expect_err("add on=read at=0 drop", "needs on=write");
	expect_err("add on=rest at=0 eio", "needs on=read or on=write");
	expect_err("add on=rest at=0 zero count=1", "rest rule is applied once");
	expect_err("add on=write at=0 misdirect=0", "non-zero");
	expect_err("add on=write at=4096 len=4096 misdirect=-8192", "outside the disk");
	expect_err("add on=read at=1048576 zero", "outside the disk");
	expect_err("add on=read at=1048575 len=2 zero", "outside the disk");
	expect_err("add on=rest at=1048576 ones", "outside the disk");
	expect_err("add on=read at=0 zero count=0", "count=0");
	expect_err("add on=read at=0 zero id=a/b", "id=a/b");
	/* torn= and stall: what the rule alone shows to be wrong. */
	expect_err("add on=write at=0 len=8192 torn=0", "torn=0: expected the "
		   "512-byte sectors of a write to store, 1 to 8388607");
	expect_err("add on=write at=0 len=8192 torn=two", "torn=two: expected");
	expect_err("add on=write at=0 len=8192 torn=-1", "torn=-1: expected");
	expect_err("add on=write at=0 len=8192 torn=8388608", "1 to 8388607");
	expect_err("add on=write at=0 len=8192 torn", "torn needs =N");
	expect_err("add on=write at=0 len=8192 torn=16", "torn=16 keeps 8192 "
		   "bytes, not fewer than len=8192");
	expect_err("add on=write at=0 len=1 torn=1", "not fewer than len=1");
	expect_err("add on=read at=0 len=8192 torn=1", "torn needs on=write");
	expect_err("add on=rest at=0 len=8192 torn=1", "torn needs on=write");
	expect_err("add on=write at=0 torn=1 drop", "exactly one action");
	expect_err("add on=read at=0 stall=0", "stall=0: expected "
		   "milliseconds, 1 to 600000");
	expect_err("add on=read at=0 stall=600001", "1 to 600000");
	expect_err("add on=read at=0 stall=1s", "stall=1s: expected");
	expect_err("add on=rest at=0 stall", "stall needs on=read or on=write");
	expect_err("add on=read at=0 stall eio", "exactly one action");
	expect_err("add on=read at=0 \x01\x02 zero", "printable");
	expect("list", "ok\n");
}

/* Garbage, NUL bytes, a line too long, a client that leaves mid-line. */
static void test_garbage(void **state)
{
	char big[6000], *s;
	int fd;
	ssize_t n;

	fd = fbt_ctl_open();
	assert_int_equal(send(fd, "add on=rest at=0 o\0nes\n", 23, 0), 23);
	n = recv(fd, big, sizeof big - 1, 0);
	/* NUL byte refused */
	assert_true(n > 0 && strncmp(big, "err ", 4) == 0);
	close(fd);

	/* Too long: one answer, then the connection is closed. */
	memset(big, 'x', sizeof big);
	fd = fbt_ctl_open();
	assert_true(send(fd, big, sizeof big, MSG_NOSIGNAL) > 0);
	n = recv(fd, big, sizeof big - 1, 0);
	big[n > 0 ? n : 0] = '\0';
	fbt_assert(n > 0 && strcmp(big, "err line too long: more than 4096 "
				   "bytes with its newline\n") == 0,
		   "long line refused: %s", big);
	n = recv(fd, big, sizeof big, 0);
	assert_true(n <= 0); /* client dropped after a long line */
	close(fd);

	/* A NUL byte is what is wrong with a long line that has one. */
	memset(big, 'x', sizeof big);
	big[10] = '\0';
	fd = fbt_ctl_open();
	assert_true(send(fd, big, sizeof big, MSG_NOSIGNAL) > 0);
	n = recv(fd, big, sizeof big - 1, 0);
	big[n > 0 ? n : 0] = '\0';
	fbt_assert(strcmp(big, "err line contains a NUL byte\n") == 0,
		   "NUL byte in a long line: %s", big);
	close(fd);

	for (n = 0; n < 256; n++)
		big[n] = (char)(n * 37 + 11);
	big[255] = '\n';
	fd = fbt_ctl_open();
	s = fbt_ctl_fd(fd, "stats");	/* garbage lines after a good one */
	free(s);
	assert_int_equal(send(fd, big, 256, MSG_NOSIGNAL), 256);
	close(fd);

	fd = fbt_ctl_open();
	assert_int_equal(send(fd, "add on=rest at=0 len=4096 ones", 30, 0), 30);
	close(fd);		/* no newline: must not be executed */
	expect("list", "ok\n");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Send cmd over and over, len bytes in all, reading no answer. Stops early
 * when the socket takes nothing for 2 s or is closed. Returns the bytes
 * sent.
 */
static size_t flood(int fd, const char *cmd, size_t len)
{
	static char buf[65536];
	size_t n = strlen(cmd), chunk, sent = 0;

	for (chunk = 0; chunk + n <= sizeof buf; chunk += n)
		memcpy(buf + chunk, cmd, n);
	while (sent < len) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		size_t off = sent % chunk, want = chunk - off;
		ssize_t w;

		if (want > len - sent)
			want = len - sent;
		if (poll(&p, 1, 2000) <= 0)
			break;
		w = send(fd, buf + off, want, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (w <= 0)
			break;
		sent += w;
	}
	return sent;
}

/* stats on a new connection must answer within a second. */
static void stats_answers_at_once(const char *when)
{
	double t = now(), took;
	char *s = fbt_ctl("stats");

	took = now() - t;
	fbt_assert(strncmp(s, "ok reads=", 9) == 0, "stats %s: %s", when, s);
	fbt_assert(took < 1.0, "stats %s took %.1f s", when, took);
}

/* A client that sends commands but does not read its answers must not
 * hold up the others; its answers wait for it up to a bound, beyond
 * which it is dropped.
 */
static void test_slow_reader(void **state)
{
	size_t cmds = 8192, sent, lines = 0, got = 0, cap = 1 << 20, i;
	char *buf = malloc(cap);
	int fd = fbt_ctl_open();
	ssize_t r;

	/* 8192 answers of ~30 bytes, each a buffer of its own in the
	 * socket: far more than the socket holds.
	 */
	sent = flood(fd, "stats\n", cmds * 6);
	stats_answers_at_once("while a client does not read");
	fbt_assert(sent == cmds * 6, "sent %zu of %zu bytes", sent, cmds * 6);
	/* Every answer is still there for it, in order. */
	while (lines < cmds) {
		if (got == cap)
			buf = realloc(buf, cap *= 2);
		r = recv(fd, buf + got, cap - got, 0);
		fbt_assert(r > 0, "control socket closed after %zu answers",
			   lines);
		for (i = got; i < got + r; i++)
			lines += buf[i] == '\n';
		got += r;
	}
	fbt_assert(got == lines * (strchr(buf, '\n') - buf + 1),
		   "%zu answers in %zu bytes", lines, got);
	for (i = 0; i < got; i = strchr(buf + i, '\n') - buf + 1)
		fbt_assert(strncmp(buf + i, "ok reads=", 9) == 0,
			   "answer at byte %zu: %.40s", i, buf + i);
	close(fd);

	/* One that never reads is dropped once 1 MiB of answers waits. */
	fd = fbt_ctl_open();
	sent = flood(fd, "stats\n", 64 << 20);
	/* a client that never reads is dropped */
	assert_true(sent < 64 << 20);
	stats_answers_at_once("after a client was dropped");
	for (lines = 0; (r = recv(fd, buf, cap, 0)) > 0;) {
		for (i = 0; i < (size_t)r; i++)
			lines += buf[i] == '\n';
	}
	fbt_assert(lines < sent / 6, "the dropped client got all %zu answers",
		   lines);
	close(fd);
	free(buf);
}

/*
 * freeze: the writes before it reach the image, those after it are
 * acknowledged and dropped, reads after it pass no rule and log nothing.
 */
static void test_freeze(void **state)
{
	struct nbd_handle *h = fbt_connect();
	size_t before;
	json_t *log;

	expect_err("freeze now", "takes no argument");
	memset(bytes, 0xa5, 4096);
	fbt_pwrite(h, bytes, 4096, 8192, 0);
	fbt_ctl_ok("add id=w on=read at=8192 len=16 zero");
	log = fbt_faultlog();
	before = json_array_size(log);
	json_decref(log);
	expect("freeze", "ok\n");
	memset(bytes, 0x5a, 4096);
	fbt_pwrite(h, bytes, 4096, 8192, 0);
	fbt_pwrite(h, bytes, 4096, 0, LIBNBD_CMD_FLAG_FUA);
	fbt_assert(nbd_flush(h, 0) == 0, "flush after freeze: %s",
		   nbd_get_error());
	fbt_pread(h, bytes, 4096, 8192);
	for (size_t i = 0; i < 4096; i++)
		fbt_assert(bytes[i] == 0xa5, "byte %zu after freeze: read "
			   "0x%02x, the image holds 0xa5 (a write went through, "
			   "or a rule applied)", 8192 + i, bytes[i]);
	nbd_close(h);
	fbt_read_image(bytes, 4096, 8192);
	/* the image is unchanged after freeze */
	assert_true(bytes[0] == 0xa5 && bytes[4095] == 0xa5);
	fbt_read_image(bytes, 4096, 0);
	for (size_t i = 0; i < 4096; i++)
		fbt_assert(bytes[i] == fbt_pattern(i),
			   "byte %zu written after freeze", i);
	log = fbt_faultlog();
	fbt_assert(json_array_size(log) == before, "the fault log grew after "
		   "freeze: %zu records, %zu before", json_array_size(log),
		   before);
	json_decref(log);
}

/* The add answer means the rule is live for the very next request. */
static void test_live_at_once(void **state)
{
	struct nbd_handle *h = *state;
	size_t i;

	for (i = 0; i < 50; i++) {
		char cmd[100];

		snprintf(cmd, sizeof cmd, "add id=x%zu on=read at=%zu ones count=1",
			 i, i * 100);
		fbt_ctl_ok(cmd);
		fbt_pread(h, bytes, 1, i * 100);
		fbt_assert(bytes[0] == 0xff, "rule %zu live at once", i);
	}
}

/* Nothing of the bad input above changed a byte or counted a request. */
static void test_unchanged(void **state)
{
	size_t i;

	fbt_read_image(bytes, SIZE, 0);
	for (i = 0; i < SIZE; i++)
		fbt_assert(bytes[i] == fbt_pattern(i),
			   "byte %zu changed by bad input", i);
	expect("stats", "ok reads=50 writes=0 faults=50 held=0\n");
}

FBT_SERVE_SETUP(SIZE)

FBT_MAIN(setup,
	cmocka_unit_test(test_protocol),
	cmocka_unit_test(test_bad_rules),
	cmocka_unit_test(test_garbage),
	cmocka_unit_test(test_slow_reader),
	fbt_connected_test(test_live_at_once),
	cmocka_unit_test(test_unchanged),
	cmocka_unit_test(test_freeze),
	cmocka_unit_test(fbt_stop_case))

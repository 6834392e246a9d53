// SPDX-License-Identifier: MIT
/* flipbed plugin: the read witness. A read of bytes a fault changed (at
 * rest, from rules= at start; in a read; in a write) is logged once with
 * the fault's seq, a read elsewhere not at all; an overwrite is logged
 * once and ends the watch of the bytes it stored, all of them or part; a
 * watch rule logs the same way and changes no byte; 1000 reads give one
 * read record and a summary counting them, and the bound holds for
 * readers and writers on several connections at once; a bad watch range
 * is refused with the errors of the other rules; the bytes a lost,
 * misdirected or torn write left behind are watched too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "helper.h"

#define SIZE (1 << 20)
#define REST 4096		/* rules=: on=rest at=REST+1 len=2 flip=0,9 */
#define WATCH 8192		/* rules=: id=w1 watch at=WATCH len=16 */
#define BUSY 0x80000		/* BUSY_SPANS rest flips, one per 4 KiB */
#define BUSY_SPANS 64
#define THREADS 4
#define OPS 300

static uint8_t buf[SIZE];

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : "";
}

static uint64_t num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	fbt_assert(json_is_integer(v), "field %s is an integer in %s", key,
		   json_dumps(o, 0));
	return json_integer_value(v);
}

/* The witness records of kind (read, overwrite, summary) for rule. */
static size_t witnesses(json_t *log, const char *kind, const char *rule,
			json_t **ret)
{
	size_t i, n = 0;
	json_t *o;

	json_array_foreach(log, i, o) {
		if (strcmp(str(o, "witness"), kind) == 0 &&
		    strcmp(str(o, "rule"), rule) == 0) {
			n++;
			if (ret)
				*ret = o;
		}
	}
	return n;
}

/* The one witness record of kind for rule, checked against the log; the
 * caller owns it.
 */
static json_t *witness(const char *kind, const char *rule)
{
	json_t *log = fbt_faultlog(), *o = NULL;
	size_t n = witnesses(log, kind, rule, &o);

	fbt_assert(n == 1, "%zu %s witness records for rule %s, expected 1", n,
		   kind, rule);
	json_incref(o);
	json_decref(log);
	return o;
}

static void expect_none(const char *kind, const char *rule, const char *why)
{
	json_t *log = fbt_faultlog();
	size_t n = witnesses(log, kind, rule, NULL);

	fbt_assert(n == 0, "%s: %zu %s witness records for rule %s", why, n,
		   kind, rule);
	json_decref(log);
}

/* The seq of the (only) fault record of rule. */
static uint64_t fault_seq(const char *rule)
{
	json_t *log = fbt_faultlog(), *o;
	uint64_t seq = 0;
	size_t i, n = 0;

	json_array_foreach(log, i, o) {
		if (!json_object_get(o, "witness") &&
		    strcmp(str(o, "rule"), rule) == 0) {
			seq = num(o, "seq");
			n++;
		}
	}
	fbt_assert(n == 1, "%zu fault records for rule %s", n, rule);
	json_decref(log);
	return seq;
}

static void expect_record(json_t *o, uint64_t fault, uint64_t off,
			  uint64_t len, const char *op)
{
	fbt_assert(num(o, "offset") == off && num(o, "len") == len &&
		   strcmp(str(o, "op"), op) == 0,
		   "record %s: expected offset %lu len %lu op %s",
		   json_dumps(o, 0), (unsigned long)off, (unsigned long)len,
		   op);
	if (fault)
		fbt_assert(num(o, "fault") == fault,
			   "record %s names fault %lu", json_dumps(o, 0),
			   (unsigned long)fault);
	else
		fbt_assert(!json_object_get(o, "fault"),
			   "a watch rule's record %s names a fault",
			   json_dumps(o, 0));
	json_decref(o);
}

/* The rest flip of rules=: its read is seen, a read beside it is not. */
static void test_rest_read(void **state)
{
	struct nbd_handle *h = *state;
	uint64_t seq = fault_seq("rest");

	fbt_pread(h, buf, 512, 0);
	fbt_pread(h, buf, 4000, REST + 3);	/* ends before WATCH */
	expect_none("read", "rest", "reads beside the flipped bytes");
	fbt_pread(h, buf, 512, REST - 100);
	expect_record(witness("read", "rest"), seq, REST + 1, 2, "read");
	/* the flip is served */
	assert_int_equal(buf[101], (fbt_pattern(REST + 1) ^ 1));
	fbt_pread(h, buf, 1, REST + 2);
	json_decref(witness("read", "rest"));	/* still one */
}

/* Overwrites: a partial one is logged and the rest stays watched; a full
 * one ends the watch, and later reads are not logged.
 */
static void test_overwrite(void **state)
{
	struct nbd_handle *h = *state;
	uint64_t seq;

	memset(buf, 0x5a, 64);
	fbt_ctl_ok("add id=part on=rest at=20000 len=8 zero");
	seq = fault_seq("part");
	fbt_pwrite(h, buf, 4, 19998, 0);	/* bytes 20000 and 20001 */
	expect_record(witness("overwrite", "part"), seq, 20000, 2, "write");
	fbt_pread(h, buf, 2, 20000);
	expect_none("read", "part", "a read of overwritten bytes");
	fbt_pread(h, buf, 4, 20004);
	expect_record(witness("read", "part"), seq, 20004, 4, "read");

	fbt_ctl_ok("add id=full on=rest at=30000 len=8 ones");
	seq = fault_seq("full");
	fbt_assert(nbd_zero(h, 4096, 28672, 0) == 0, "zero: %s",
		   nbd_get_error());
	expect_record(witness("overwrite", "full"), seq, 30000, 8, "zero");
	fbt_pread(h, buf, 4096, 28672);
	expect_none("read", "full", "a read after a full overwrite");
	fbt_pwrite(h, buf, 8, 30000, 0);
	json_decref(witness("overwrite", "full")); /* still one: it ended */
}

/* Faults applied in requests are watched from the next request on. */
static void test_request_faults(void **state)
{
	struct nbd_handle *h = *state;
	uint64_t seq;

	fbt_ctl_ok("add id=once on=read at=40000 len=4 flip=3 count=1");
	fbt_pread(h, buf, 16, 39992);		/* the fault's own read */
	seq = fault_seq("once");
	expect_none("read", "once", "the read that applied the fault");
	fbt_pread(h, buf, 16, 39992);
	expect_record(witness("read", "once"), seq, 40000, 1, "read");

	memset(buf, 0x11, 16);
	fbt_ctl_ok("add id=wr on=write at=50000 len=2 ones count=1");
	fbt_pwrite(h, buf, 16, 49992, 0);
	seq = fault_seq("wr");
	expect_none("overwrite", "wr", "the write that applied the fault");
	fbt_pread(h, buf, 1, 50001);
	expect_record(witness("read", "wr"), seq, 50001, 1, "read");
}

/* Device faults change no byte of the request, yet leave bytes other than
 * the guest believes them: a lost write the old ones, a misdirected one
 * the old ones where it belonged and its own where it landed, a torn one
 * the old ones past the tear. Each is watched from the next request on.
 */
static void test_device_faults(void **state)
{
	struct nbd_handle *h = *state;
	uint64_t seq;
	json_t *log, *o;
	size_t i, n = 0;

	memset(buf, 0x22, 4096);
	fbt_ctl_ok("add id=lost on=write at=90112 len=512 drop count=1");
	fbt_pwrite(h, buf, 512, 90112, 0);
	seq = fault_seq("lost");
	expect_none("read", "lost", "the write that lost the bytes");
	fbt_pread(h, buf, 16, 90112 + 100);
	expect_record(witness("read", "lost"), seq, 90112 + 100, 16, "read");
	/* the lost write's old bytes are served */
	assert_int_equal(buf[0], fbt_pattern(90112 + 100));
	memset(buf, 0x23, 512);
	fbt_pwrite(h, buf, 512, 90112, 0);	/* stored now: the watch ends */
	expect_record(witness("overwrite", "lost"), seq, 90112, 512, "write");
	fbt_pread(h, buf, 512, 90112);
	json_decref(witness("read", "lost"));	/* still one */

	memset(buf, 0x33, 512);
	fbt_ctl_ok("add id=mis on=write at=94208 len=512 misdirect=4096 count=1");
	fbt_pwrite(h, buf, 512, 94208, 0);
	seq = fault_seq("mis");
	fbt_pread(h, buf, 8, 98304 + 8);	/* where it landed */
	/* the misdirected write landed 4096 bytes on */
	assert_int_equal(buf[0], 0x33);
	fbt_pread(h, buf, 8, 94208);		/* where it belonged */
	log = fbt_faultlog();
	json_array_foreach(log, i, o) {
		if (strcmp(str(o, "witness"), "read") || strcmp(str(o, "rule"), "mis"))
			continue;
		/* a read record of the misdirect names its fault */
		assert_int_equal(num(o, "fault"), seq);
		fbt_assert(num(o, "offset") == 98304 + 8 ||
			   num(o, "offset") == 94208,
			   "misdirect read record %s", json_dumps(o, 0));
		n++;
	}
	json_decref(log);
	fbt_assert(n == 2, "%zu read records of the misdirected write, "
		   "expected 2 (both spans)", n);

	memset(buf, 0x44, 4096);
	fbt_ctl_ok("add id=tear on=write at=102400 len=4096 torn=1 count=1");
	fbt_pwrite(h, buf, 4096, 102400, 0);
	seq = fault_seq("tear");
	fbt_pread(h, buf, 512, 102400);		/* the stored sector */
	expect_none("read", "tear", "a read of the sector the torn write stored");
	fbt_pread(h, buf, 4, 102400 + 1024);
	expect_record(witness("read", "tear"), seq, 102400 + 1024, 4, "read");
	/* the torn-off part keeps its old bytes */
	assert_int_equal(buf[0], fbt_pattern(102400 + 1024));
}

/* The watch rule of rules=: logged like a fault, no byte changed. */
static void test_watch_rule(void **state)
{
	struct nbd_handle *h = *state;
	size_t i;

	fbt_assert(strstr(fbt_ctl_ok("list"), "id=w1 watch at=8192 len=16\n"),
		   "list shows the watch rule: %s", fbt_ctl("list"));
	fbt_pread(h, buf, 4096, WATCH - 4090);
	expect_record(witness("read", "w1"), 0, WATCH, 6, "read");
	for (i = 0; i < 4096; i++)
		fbt_assert(buf[i] == fbt_pattern(WATCH - 4090 + i),
			   "a watch rule changed byte %zu", WATCH - 4090 + i);
	fbt_assert(nbd_trim(h, 4, WATCH + 12, 0) == 0, "trim: %s",
		   nbd_get_error());
	expect_record(witness("overwrite", "w1"), 0, WATCH + 12, 4, "trim");
	fbt_pread(h, buf, 16, WATCH);	/* overwrites end no watch rule */
	json_decref(witness("read", "w1"));

	fbt_ctl_ok("add id=w2 watch at=60000 len=8");
	fbt_ctl_ok("del w2");
	fbt_pread(h, buf, 8, 60000);
	expect_none("read", "w2", "a read after del");
	fbt_ctl_ok("add id=w3 watch at=61000 len=8");
	fbt_ctl_ok("clear");
	fbt_pread(h, buf, 8, 61000);
	expect_none("read", "w3", "a read after clear");
}

/* A hot range: 1000 reads, one record; the summary counts them. */
static void test_bound(void **state)
{
	struct nbd_handle *h = *state;
	int i;

	fbt_ctl_ok("add id=hot watch at=70000 len=512");
	for (i = 0; i < 1000; i++)
		fbt_pread(h, buf, 512, 70000);
	expect_record(witness("read", "hot"), 0, 70000, 512, "read");
	expect_none("summary", "hot", "a summary while watched");
}

static void *busy_client(void *arg)
{
	struct nbd_handle *h = fbt_connect();
	unsigned seed = (unsigned)(uintptr_t)arg;
	uint8_t b[8192];
	int i;

	memset(b, 0x33, sizeof b);
	for (i = 0; i < OPS; i++) {
		uint64_t off = BUSY + rand_r(&seed) % (BUSY_SPANS * 4096 - 8192);
		size_t len = 1 + rand_r(&seed) % 8192;

		if (rand_r(&seed) % 4 == 0)
			fbt_pwrite(h, b, len, off, 0);
		else
			fbt_pread(h, b, len, off);
	}
	nbd_close(h);
	return NULL;
}

/* The busy flips' faults, each with at most one read and one overwrite
 * record (and, once nbdkit has exited, one summary).
 */
static void expect_busy_bound(void)
{
	json_t *log = fbt_faultlog(), *o;
	size_t i, k, first = 0, reads[BUSY_SPANS] = { 0 };
	size_t overwrites[BUSY_SPANS] = { 0 }, summaries[BUSY_SPANS] = { 0 };

	json_array_foreach(log, i, o) {
		if (!first && !json_object_get(o, "witness") &&
		    strcmp(str(o, "rule"), "busy0") == 0)
			first = num(o, "seq");
	}
	assert_true(first);	/* the fault record of rule busy0 */
	json_array_foreach(log, i, o) {
		const char *kind = str(o, "witness");

		if (strncmp(str(o, "rule"), "busy", 4) || !*kind)
			continue;
		k = num(o, "fault") - first;
		fbt_assert(k < BUSY_SPANS && num(o, "offset") >= BUSY + k * 4096,
			   "record %s names another fault", json_dumps(o, 0));
		reads[k] += strcmp(kind, "read") == 0;
		overwrites[k] += strcmp(kind, "overwrite") == 0;
		summaries[k] += strcmp(kind, "summary") == 0;
	}
	for (k = 0; k < BUSY_SPANS; k++)
		fbt_assert(reads[k] <= 1 && overwrites[k] <= 1 &&
			   summaries[k] <= 1, "busy%zu: %zu read, %zu overwrite, "
			   "%zu summary records", k, reads[k], overwrites[k],
			   summaries[k]);
	json_decref(log);
}

/* Readers and writers on several connections over the busy spans, while
 * overwrites end and split watches under them.
 */
static void test_busy(void **state)
{
	pthread_t t[THREADS];
	char cmd[128];
	size_t k;

	for (k = 0; k < BUSY_SPANS; k++) {
		snprintf(cmd, sizeof cmd, "add id=busy%zu on=rest at=%zu len=4 "
			 "flip=0,31", k, BUSY + k * 4096 + 100);
		fbt_ctl_ok(cmd);
	}
	for (k = 0; k < THREADS; k++)
		assert_int_equal(pthread_create(&t[k], NULL, busy_client,
						(void *)(uintptr_t)(k + 1)), 0);
	for (k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	expect_busy_bound();
}

static void expect_err(const char *cmd, const char *part)
{
	char *got = fbt_ctl(cmd);

	fbt_assert(strncmp(got, "err ", 4) == 0 && strstr(got, part),
		   "'%s' answered '%s', expected err ...%s...", cmd, got, part);
}

static void test_bad_watch(void **state)
{
	char rules[300], img[300], *err;
	FILE *fp;

	expect_err("add watch at=1048576", "at=1048576 len=1 is outside the "
		   "disk (1048576 bytes)");
	expect_err("add watch at=1048575 len=2", "outside the disk");
	expect_err("add watch at=0 len=0", "len=0: expected at least 1");
	expect_err("add watch at=9223372036854775807",
		   "range ends past 2^63");
	expect_err("add watch at=0x zero", "expected an unsigned number");
	expect_err("add watch len=4", "at=OFFSET is required");
	expect_err("add on=read watch at=0", "watch takes at=, len= and id=");
	expect_err("add watch at=0 count=2", "watch takes at=, len= and id=");
	expect_err("add id=hot watch at=0", "id=hot is already armed");

	fp = fopen(fbt_path("bad.rules"), "w");
	fbt_assert(fp != NULL, "bad.rules: %m");
	fprintf(fp, "# a watch past the end\nwatch at=1048570 len=7\n");
	fclose(fp);
	snprintf(img, sizeof img, "file=%s", fbt_path("image"));
	snprintf(rules, sizeof rules, "rules=%s", fbt_path("bad.rules"));
	err = fbt_start_fails(img, rules, NULL);
	fbt_assert(strstr(err, "bad.rules:2: at=1048570 len=7 is outside "
			  "the disk"), "rules= with a bad watch: %s", err);
	free(err);
}

static void test_summary(void **state)
{
	json_t *o = witness("summary", "hot");

	fbt_assert(num(o, "reads") == 1000 && num(o, "overwrites") == 0 &&
		   num(o, "offset") == 70000 && num(o, "len") == 512 &&
		   strcmp(str(o, "end"), "exit") == 0,
		   "summary of 1000 reads: %s", json_dumps(o, 0));
	json_decref(o);
	o = witness("summary", "w1");
	fbt_assert(num(o, "reads") == 2 && num(o, "overwrites") == 1 &&
		   strcmp(str(o, "end"), "deleted") == 0,
		   "summary of the watch rule ended by clear: %s",
		   json_dumps(o, 0));
	json_decref(o);
	o = witness("summary", "rest");
	fbt_assert(num(o, "reads") == 2 && num(o, "fault") == fault_seq("rest"),
		   "summary of the rest flip: %s", json_dumps(o, 0));
	json_decref(o);
	expect_none("summary", "once", "a summary with nothing unlogged");
	expect_busy_bound();
}

/* rules= at start: a rest flip and a watch rule. */
static int setup(void **state)
{
	char rules[300];
	FILE *fp;

	fbt_make_image(SIZE);
	fp = fopen(fbt_path("start.rules"), "w");
	fbt_assert(fp != NULL, "start.rules: %m");
	fprintf(fp, "id=rest on=rest at=%d len=2 flip=0,9\n"
		"id=w1 watch at=%d len=16\n", REST + 1, WATCH);
	fclose(fp);
	snprintf(rules, sizeof rules, "rules=%s", fbt_path("start.rules"));
	fbt_start(rules, NULL);
	return 0;
}

FBT_MAIN(setup,
	fbt_connected_test(test_rest_read),
	fbt_connected_test(test_overwrite),
	fbt_connected_test(test_request_faults),
	fbt_connected_test(test_device_faults),
	fbt_connected_test(test_watch_rule),
	fbt_connected_test(test_bound),
	cmocka_unit_test(test_busy),
	cmocka_unit_test(test_bad_watch),
	cmocka_unit_test(fbt_stop_case),
	cmocka_unit_test(test_summary))

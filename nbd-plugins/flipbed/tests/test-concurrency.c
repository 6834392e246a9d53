// SPDX-License-Identifier: MIT
/* flipbed plugin: readers on several connections while rules are armed
 * and deleted under them. Every byte a reader sees must be the clean byte
 * or the byte one of the rules would make, and the rules must have acted
 * exactly as often as they say: three rules armed for the whole run flip
 * their byte in every read, in exactly count= reads, and in exactly
 * count= reads after after= reads; the flips by the rules that come and
 * go are at least one and, with those of the three, add up to the
 * plugin's fault count. nbdkit must survive.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"

#define SIZE (1 << 20)
#define REGION 65536
#define READERS 4
#define ROUNDS 300
#define READS (READERS * ROUNDS)
#define NRULES 64		/* rule k flips bit k % 8 of byte k * 1000 */

/* The rules armed for the whole run, each flipping one bit of its byte. */
static const struct {
	const char *add;
	unsigned off, bit;
	unsigned long want;	/* reads it must change */
} fixed[] = {
	{ "add id=always on=read at=65001 flip=0", 65001, 0, READS },
	{ "add id=counted on=read at=65011 flip=1 count=100", 65011, 1, 100 },
	{ "add id=later on=read at=65021 flip=2 after=700 count=50",
	  65021, 2, 50 },
};
#define NFIXED (sizeof fixed / sizeof fixed[0])

static atomic_int done;
static atomic_ulong fixed_seen[NFIXED], churn_seen;

static int fixed_at(size_t i)
{
	size_t k;

	for (k = 0; k < NFIXED; k++) {
		if (fixed[k].off == i)
			return k;
	}
	return -1;
}

/* Check one read of [0, REGION) and count the flips in it. */
static void check_bytes(const uint8_t *b)
{
	size_t i;
	int k;

	for (i = 0; i < REGION; i++) {
		uint8_t clean = fbt_pattern(i);

		if (b[i] == clean)
			continue;
		k = fixed_at(i);
		if (k >= 0) {
			fbt_assert(b[i] == (clean ^ (1 << fixed[k].bit)),
				   "byte %zu is 0x%02x, clean 0x%02x", i, b[i],
				   clean);
			atomic_fetch_add(&fixed_seen[k], 1);
			continue;
		}
		fbt_assert(i % 1000 == 0 && i / 1000 < NRULES &&
			   b[i] == (clean ^ (1 << (i / 1000 % 8))),
			   "byte %zu is 0x%02x, clean 0x%02x", i, b[i], clean);
		atomic_fetch_add(&churn_seen, 1);
	}
}

static void *reader(void *arg)
{
	static _Thread_local uint8_t b[REGION];
	struct nbd_handle *h = fbt_connect();
	int i;

	for (i = 0; i < ROUNDS; i++) {
		fbt_pread(h, b, REGION, 0);
		check_bytes(b);
	}
	nbd_close(h);
	return NULL;
}

/* Arm c0, c1, ... deleting some on the way; after c63 delete them all
 * and start again.
 */
static void *mutator(void *arg)
{
	int fd = fbt_ctl_open(), k = 0, j;
	char cmd[128], *s;

	while (!atomic_load(&done)) {
		snprintf(cmd, sizeof cmd,
			 "add id=c%d on=read at=%d flip=%d", k, k * 1000, k % 8);
		s = fbt_ctl_fd(fd, cmd);
		fbt_assert(strncmp(s, "ok", 2) == 0, "%s: %s", cmd, s);
		free(s);
		if (k % 3 == 2) {
			snprintf(cmd, sizeof cmd, "del c%d", k - 1);
			free(fbt_ctl_fd(fd, cmd));
		}
		if (++k < NRULES)
			continue;
		for (j = 0; j < NRULES; j++) {
			snprintf(cmd, sizeof cmd, "del c%d", j);
			free(fbt_ctl_fd(fd, cmd));
		}
		k = 0;
	}
	close(fd);
	return NULL;
}

static void test_concurrency(void **state)
{
	unsigned long reads, faults, total;
	pthread_t r[READERS], m;
	size_t k;
	char *s;
	int i;

	for (k = 0; k < NFIXED; k++)
		fbt_ctl_ok(fixed[k].add);
	assert_int_equal(pthread_create(&m, NULL, mutator, NULL), 0);
	for (i = 0; i < READERS; i++)
		assert_int_equal(pthread_create(&r[i], NULL, reader, NULL), 0);
	for (i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);
	atomic_store(&done, 1);
	pthread_join(m, NULL);

	total = atomic_load(&churn_seen);
	for (k = 0; k < NFIXED; k++) {
		fbt_assert(atomic_load(&fixed_seen[k]) == fixed[k].want,
			   "'%s' changed %lu reads, expected %lu", fixed[k].add,
			   atomic_load(&fixed_seen[k]), fixed[k].want);
		total += fixed[k].want;
	}
	/* some read saw a flip by the rules armed while reading */
	assert_true(atomic_load(&churn_seen) > 0);
	s = fbt_ctl("stats");
	fbt_assert(sscanf(s, "ok reads=%lu writes=0 faults=%lu", &reads,
			  &faults) == 2 && reads >= READS, "stats: %s", s);
	fbt_assert(faults == total, "the plugin counted %lu faults, the "
		   "readers saw %lu flipped bytes", faults, total);
	printf("concurrency: %d readers x %d reads, %lu flips (%lu by rules "
	       "armed while reading) as expected\n", READERS, ROUNDS, total,
	       atomic_load(&churn_seen));
}

FBT_SERVE_SETUP(SIZE)

FBT_MAIN(setup,
	cmocka_unit_test(test_concurrency),
	cmocka_unit_test(fbt_stop_case))

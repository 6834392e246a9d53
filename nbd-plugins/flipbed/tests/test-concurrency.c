/* flipbed plugin: readers on several connections while rules are armed,
 * deleted and cleared under them. Every byte a reader sees must be the
 * clean byte or the byte one of the rules would make; nbdkit must survive.
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
#define NRULES 64		/* rule k flips bit k % 8 of byte k * 1000 */

static atomic_int done;

static void check_bytes(const uint8_t *b)
{
	size_t i;

	for (i = 0; i < REGION; i++) {
		uint8_t clean = fbt_pattern(i);

		if (b[i] == clean)
			continue;
		CHECK(i % 1000 == 0 && i / 1000 < NRULES &&
		      b[i] == (clean ^ (1 << (i / 1000 % 8))),
		      "byte %zu is 0x%02x, clean 0x%02x", i, b[i], clean);
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

static void *mutator(void *arg)
{
	int fd = fbt_ctl_open(), k = 0;
	char cmd[128], *s;

	while (!atomic_load(&done)) {
		snprintf(cmd, sizeof cmd,
			 "add id=c%d on=read at=%d flip=%d", k, k * 1000, k % 8);
		s = fbt_ctl_fd(fd, cmd);
		CHECK(strncmp(s, "ok", 2) == 0, "%s: %s", cmd, s);
		free(s);
		if (k % 3 == 2) {
			snprintf(cmd, sizeof cmd, "del c%d", k - 1);
			free(fbt_ctl_fd(fd, cmd));
		}
		if (++k == NRULES) {
			free(fbt_ctl_fd(fd, "clear"));
			k = 0;
		}
	}
	close(fd);
	return NULL;
}

int main(void)
{
	pthread_t r[READERS], m;
	char *s;
	int i;

	fbt_make_image(SIZE);
	fbt_start(NULL);
	CHECK(pthread_create(&m, NULL, mutator, NULL) == 0, "thread");
	for (i = 0; i < READERS; i++)
		CHECK(pthread_create(&r[i], NULL, reader, NULL) == 0, "thread");
	for (i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);
	atomic_store(&done, 1);
	pthread_join(m, NULL);
	s = fbt_ctl("stats");
	CHECK(strncmp(s, "ok reads=", 9) == 0 &&
	      strtoull(s + 9, NULL, 10) >= READERS * ROUNDS, "stats: %s", s);
	fbt_stop();
	printf("concurrency: %d readers x %d reads passed\n", READERS, ROUNDS);
	return 0;
}

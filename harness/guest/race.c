// SPDX-License-Identifier: MIT
/*
 * The inode-update race steps (attr-race, attr-check): several threads
 * change the attributes of their own files while others look up the rest
 * of the directory and flush and evict the caches, so that the inodes of
 * one inode table block are written, read and re-read at the same time.
 * Every updater knows the mode and times its last round set; a lost update
 * (the kernel wrote an older copy of the inode over a newer one) shows as
 * a file whose attributes are not its last round's, right after the race
 * (attr-race) and after a remount (attr-check, same arguments).
 *
 * Files: DIR/f0 .. DIR/f{THREADS-1} are updated; every other regular file
 * of DIR whose name starts with 'v' is only looked up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define RACE_MAX_THREADS 64
#define RACE_MAX_ROUNDS 100000
#define RACE_MAX_VICTIMS 256

/* What round R of updater K sets: a mode with owner read kept, and times. */
static mode_t race_mode(unsigned k, unsigned r)
{
	return 0400 | ((r * 7 + k) & 0377);
}

static time_t race_time(unsigned k, unsigned r)
{
	return 1000000 + (time_t)r * 100 + k;
}

struct race {
	char dir[STEP_MAX_LINE + 8];
	unsigned threads, rounds;
	atomic_int running;		/* updaters still at work */
	atomic_int err;			/* first errno an updater met */
	char victims[RACE_MAX_VICTIMS][STEP_MAX_LINE + 8 + 258];
	unsigned nvictims;
	atomic_ulong lookups, flushes;
};

struct updater {
	struct race *race;
	unsigned k;
	pthread_t tid;
};

static void file_path(char *out, size_t len, const char *dir, unsigned k)
{
	snprintf(out, len, "%s/f%u", dir, k);
}

static void *race_update(void *arg)
{
	struct updater *u = arg;
	struct race *rc = u->race;
	char path[sizeof(rc->dir) + 16];

	file_path(path, sizeof(path), rc->dir, u->k);
	for (unsigned r = 1; r <= rc->rounds; r++) {
		struct timespec ts[2] = {
			{ .tv_sec = race_time(u->k, r) }, { .tv_sec = race_time(u->k, r) },
		};
		struct stat st;
		int e = 0;

		if (chmod(path, race_mode(u->k, r)))
			e = errno;
		else if (utimensat(AT_FDCWD, path, ts, 0))
			e = errno;
		else if (stat(path, &st))
			e = errno;
		if (e) {
			int zero = 0;

			atomic_compare_exchange_strong(&rc->err, &zero, e);
			break;
		}
	}
	atomic_fetch_sub(&rc->running, 1);
	return NULL;
}

/* Look the other files up, again and again, while the updaters run. */
static void *race_lookup(void *arg)
{
	struct race *rc = arg;
	struct stat st;

	while (atomic_load(&rc->running) > 0) {
		for (unsigned i = 0; i < rc->nvictims; i++) {
			(void)stat(rc->victims[i], &st);
			atomic_fetch_add(&rc->lookups, 1);
		}
		if (!rc->nvictims)
			usleep(1000);
	}
	return NULL;
}

/* Write the dirty inodes back and evict what is clean, every few ms. */
static void *race_flush(void *arg)
{
	struct race *rc = arg;

	while (atomic_load(&rc->running) > 0) {
		int fd;

		sync();
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
		if (fd >= 0) {
			(void)!write(fd, "3", 1);
			close(fd);
		}
		atomic_fetch_add(&rc->flushes, 1);
		usleep(2000);
	}
	return NULL;
}

static int race_args(const struct step *s, struct race *rc)
{
	unsigned long long t, r;

	snprintf(rc->dir, sizeof(rc->dir), "%s%s", MNT, s->argv[0]);
	if (sscanf(s->argv[1], "%llu", &t) != 1 || sscanf(s->argv[2], "%llu", &r) != 1 ||
	    t < 1 || t > RACE_MAX_THREADS || r < 1 || r > RACE_MAX_ROUNDS)
		return EINVAL;
	rc->threads = (unsigned)t;
	rc->rounds = (unsigned)r;
	return 0;
}

/* Every updated file holds its last round's mode and times. */
static int race_verify(int n, const struct race *rc, char *detail, size_t len)
{
	unsigned lost = 0;

	for (unsigned k = 0; k < rc->threads; k++) {
		char path[sizeof(rc->dir) + 16];
		struct stat st;

		file_path(path, sizeof(path), rc->dir, k);
		if (stat(path, &st))
			return errno;
		mode_t want = race_mode(k, rc->rounds);
		time_t t = race_time(k, rc->rounds);
		if ((st.st_mode & 07777) != want || st.st_mtime != t || st.st_atime != t) {
			chan_send("out %d lost f%u mode %04o mtime %lld atime %lld, want %04o %lld",
				  n, k, (unsigned)(st.st_mode & 07777), (long long)st.st_mtime,
				  (long long)st.st_atime, (unsigned)want, (long long)t);
			lost++;
		}
	}
	snprintf(detail, len, "files=%u lost=%u", rc->threads, lost);
	return lost ? EBADDATA : 0;
}

int op_attr_race(int n, const struct step *s, char *detail, size_t len)
{
	static struct race rc;
	struct updater u[RACE_MAX_THREADS];
	pthread_t lookup, flush;
	struct dirent *d;
	DIR *dir;
	int e;

	memset(&rc, 0, sizeof(rc));
	if ((e = race_args(s, &rc)))
		return e;
	dir = opendir(rc.dir);
	if (!dir)
		return errno;
	while ((d = readdir(dir)) && rc.nvictims < RACE_MAX_VICTIMS) {
		char *v = rc.victims[rc.nvictims];
		size_t dl = strlen(rc.dir);

		if (d->d_name[0] != 'v')
			continue;
		memcpy(v, rc.dir, dl);
		v[dl] = '/';
		memcpy(v + dl + 1, d->d_name, strnlen(d->d_name, 255) + 1);
		rc.nvictims++;
	}
	closedir(dir);

	atomic_store(&rc.running, (int)rc.threads);
	for (unsigned k = 0; k < rc.threads; k++) {
		u[k] = (struct updater){ .race = &rc, .k = k };
		if (pthread_create(&u[k].tid, NULL, race_update, &u[k])) {
			/* the ones not started count as finished */
			atomic_fetch_sub(&rc.running, (int)(rc.threads - k));
			rc.threads = k;
			atomic_store(&rc.err, EAGAIN);
			break;
		}
	}
	int have_lookup = !pthread_create(&lookup, NULL, race_lookup, &rc);
	int have_flush = !pthread_create(&flush, NULL, race_flush, &rc);
	for (unsigned k = 0; k < rc.threads; k++)
		pthread_join(u[k].tid, NULL);
	if (have_lookup)
		pthread_join(lookup, NULL);
	if (have_flush)
		pthread_join(flush, NULL);
	if ((e = atomic_load(&rc.err)))
		return e;
	if (!have_lookup || !have_flush)
		return EAGAIN;
	e = race_verify(n, &rc, detail, len);
	size_t used = strlen(detail);
	snprintf(detail + used, len - used, " rounds=%u victims=%u lookups=%lu flushes=%lu",
		 rc.rounds, rc.nvictims, atomic_load(&rc.lookups), atomic_load(&rc.flushes));
	return e;
}

int op_attr_check(int n, const struct step *s, char *detail, size_t len)
{
	static struct race rc;
	int e;

	memset(&rc, 0, sizeof(rc));
	if ((e = race_args(s, &rc)))
		return e;
	return race_verify(n, &rc, detail, len);
}

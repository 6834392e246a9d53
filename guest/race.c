// SPDX-License-Identifier: MIT
/*
 * The inode-update race steps (attr-race, attr-check): threads change the
 * attributes of the files DIR/fN while another thread, again and again,
 * writes everything back (sync) and at once looks up one of DIR's v* files,
 * so that an inode table block is read (a v* inode whose checksum fails is
 * retried with csum_retry) while the other inodes of the block are being
 * written. Every fN knows the mode and times its last round set: a lost
 * update (the kernel wrote an older copy of the inode over a newer one)
 * shows as a file whose attributes are not its last round's, right after
 * the race (attr-race) and after a remount (attr-check, same arguments).
 *
 * Thread K of THREADS updates the files fN with N % THREADS == K, one
 * round after another: chmod, utimensat and stat of each.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define RACE_MAX_FILES 1024
#define RACE_NAME 64

/* What round R sets on file fN: a mode with owner read kept, and times. */
static mode_t race_mode(unsigned n, unsigned r)
{
	return 0400 | ((r * 7 + n) & 0377);
}

static time_t race_time(unsigned n, unsigned r)
{
	return 1000000 + (time_t)r * 100 + n;
}

struct race {
	char dir[STEP_MAX_LINE + 8];
	unsigned threads, rounds;
	atomic_int running;		/* updaters still at work */
	atomic_int err;			/* first errno an updater met */
	unsigned files[RACE_MAX_FILES];	/* the N of each fN */
	unsigned nfiles;
	char victims[RACE_MAX_FILES][RACE_NAME];
	unsigned nvictims;
	atomic_ulong lookups, flushes;
};

struct updater {
	struct race *race;
	unsigned k;
	pthread_t tid;
};

static void file_path(char *out, size_t len, const char *dir, unsigned n)
{
	snprintf(out, len, "%s/f%u", dir, n);
}

static void *race_update(void *arg)
{
	struct updater *u = arg;
	struct race *rc = u->race;
	char path[sizeof(rc->dir) + 16];

	for (unsigned r = 1; r <= rc->rounds && !atomic_load(&rc->err); r++) {
		for (unsigned i = u->k; i < rc->nfiles; i += rc->threads) {
			unsigned n = rc->files[i];
			struct timespec ts[2] = {
				{ .tv_sec = race_time(n, r) }, { .tv_sec = race_time(n, r) },
			};
			struct stat st;
			int e = 0;

			file_path(path, sizeof(path), rc->dir, n);
			if (chmod(path, race_mode(n, r)))
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
	}
	atomic_fetch_sub(&rc->running, 1);
	return NULL;
}

/* Write everything back, then look one v* file up at once, every 1 ms. */
static void *race_flush(void *arg)
{
	struct race *rc = arg;
	char path[sizeof(rc->dir) + RACE_NAME + 2];
	unsigned i = 0;

	while (atomic_load(&rc->running) > 0) {
		struct stat st;

		sync();
		atomic_fetch_add(&rc->flushes, 1);
		if (rc->nvictims) {
			snprintf(path, sizeof(path), "%s/%s", rc->dir,
				 rc->victims[i++ % rc->nvictims]);
			(void)stat(path, &st);
			atomic_fetch_add(&rc->lookups, 1);
		}
		usleep(1000);
	}
	return NULL;
}

static int race_args(const struct step *s, struct race *rc)
{
	unsigned long long t, r;

	snprintf(rc->dir, sizeof(rc->dir), "%s%s", MNT, s->argv[0]);
	if (sscanf(s->argv[1], "%llu", &t) != 1 || sscanf(s->argv[2], "%llu", &r) != 1 ||
	    t < 1 || t > STEP_MAX_THREADS || r < 1 || r > STEP_MAX_ROUNDS)
		return EINVAL;
	rc->threads = (unsigned)t;
	rc->rounds = (unsigned)r;
	return 0;
}

/* The fN files (their N) and the v* files of the directory. */
static int race_scan(struct race *rc)
{
	struct dirent *d;
	DIR *dir = opendir(rc->dir);

	if (!dir)
		return errno;
	while ((d = readdir(dir))) {
		char *end;
		unsigned long n;

		if (d->d_name[0] == 'f' && d->d_name[1] >= '0' && d->d_name[1] <= '9') {
			n = strtoul(d->d_name + 1, &end, 10);
			if (*end || n > 1000000 || rc->nfiles == RACE_MAX_FILES)
				continue;
			rc->files[rc->nfiles++] = (unsigned)n;
		} else if (d->d_name[0] == 'v' && strlen(d->d_name) < RACE_NAME &&
			   rc->nvictims < RACE_MAX_FILES) {
			snprintf(rc->victims[rc->nvictims++], RACE_NAME, "%s", d->d_name);
		}
	}
	closedir(dir);
	return rc->nfiles ? 0 : ENOENT;
}

/* Every updated file holds its last round's mode and times. */
static int race_verify(int n, const struct race *rc, char *detail, size_t len)
{
	unsigned lost = 0;

	for (unsigned i = 0; i < rc->nfiles; i++) {
		char path[sizeof(rc->dir) + 16];
		unsigned f = rc->files[i];
		struct stat st;

		file_path(path, sizeof(path), rc->dir, f);
		if (stat(path, &st))
			return errno;
		mode_t want = race_mode(f, rc->rounds);
		time_t t = race_time(f, rc->rounds);
		if ((st.st_mode & 07777) != want || st.st_mtime != t || st.st_atime != t) {
			if (lost < 20)
				chan_send("out %d lost f%u mode %04o mtime %lld atime %lld, want %04o %lld",
					  n, f, (unsigned)(st.st_mode & 07777),
					  (long long)st.st_mtime, (long long)st.st_atime,
					  (unsigned)want, (long long)t);
			lost++;
		}
	}
	snprintf(detail, len, "files=%u lost=%u", rc->nfiles, lost);
	return lost ? EBADDATA : 0;
}

int op_attr_race(int n, const struct step *s, char *detail, size_t len)
{
	static struct race rc;
	struct updater u[STEP_MAX_THREADS];
	pthread_t flush;
	unsigned started = 0;
	int e;

	memset(&rc, 0, sizeof(rc));
	if ((e = race_args(s, &rc)) || (e = race_scan(&rc)))
		return e;
	atomic_store(&rc.running, (int)rc.threads);
	for (unsigned k = 0; k < rc.threads; k++) {
		u[k] = (struct updater){ .race = &rc, .k = k };
		if (pthread_create(&u[k].tid, NULL, race_update, &u[k])) {
			atomic_store(&rc.err, EAGAIN);
			atomic_fetch_sub(&rc.running, (int)(rc.threads - k));
			break;
		}
		started++;
	}
	int have_flush = !pthread_create(&flush, NULL, race_flush, &rc);
	for (unsigned k = 0; k < started; k++)
		pthread_join(u[k].tid, NULL);
	if (have_flush)
		pthread_join(flush, NULL);
	if ((e = atomic_load(&rc.err)))
		return e;
	if (!have_flush)
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
	if ((e = race_args(s, &rc)) || (e = race_scan(&rc)))
		return e;
	return race_verify(n, &rc, detail, len);
}

/*
 * update-lookup P Q MS: one thread changes P's mode to UPDATE_MODE while
 * another, MS milliseconds after the first began, looks Q up. With a disk
 * that holds P's update for a while (a stalled read inside it, see
 * kernel/tests/csum-retry-window.sh), Q's lookup runs while P's inode is
 * between being fetched from its table block and written back into it.
 * Each thread's start, end (ms from the step's start) and result is an out
 * line; met when the chmod succeeded and P then has the mode.
 */
#define UPDATE_MODE 0604

struct timed_op {
	char path[STEP_MAX_LINE + 8];
	struct timespec t0;		/* the step's start */
	unsigned delay_ms;
	long start_ms, end_ms;
	int err;
};

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

static void *update_thread(void *arg)
{
	struct timed_op *o = arg;

	o->start_ms = ms_since(&o->t0);
	o->err = chmod(o->path, UPDATE_MODE) ? errno : 0;
	o->end_ms = ms_since(&o->t0);
	return NULL;
}

static void *lookup_thread(void *arg)
{
	struct timed_op *o = arg;
	struct stat st;

	usleep(o->delay_ms * 1000u);
	o->start_ms = ms_since(&o->t0);
	o->err = lstat(o->path, &st) ? errno : 0;
	o->end_ms = ms_since(&o->t0);
	return NULL;
}

/*
 * While the two run: read the disk's first 4 KiB (O_DIRECT) every 50 ms.
 * Without other I/O the guest was seen to take a completed read only with
 * the next completion (the chmod woke from its held read only when the
 * lookup's read completed, 10 of 33 boots); each of these reads
 * brings the completions in.
 */
static atomic_int ticking;

static void *tick_thread(void *arg)
{
	void *buf = NULL;
	int fd = open(agent_disk(), O_RDONLY | O_DIRECT);

	(void)arg;
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (atomic_load(&ticking)) {
		if (pread(fd, buf, 4096, 0) < 0)
			break;
		usleep(50000);
	}
	free(buf);
	close(fd);
	return NULL;
}

int op_update_lookup(int n, const struct step *s, char *detail, size_t len)
{
	static struct timed_op up, look;
	unsigned long long ms;
	pthread_t tu, tl, tt;
	struct stat st;
	char b1[24], b2[24];

	if (sscanf(s->argv[2], "%llu", &ms) != 1 || ms > STEP_MAX_MS)
		return EINVAL;
	memset(&up, 0, sizeof(up));
	memset(&look, 0, sizeof(look));
	snprintf(up.path, sizeof(up.path), "%s%s", MNT, s->argv[0]);
	snprintf(look.path, sizeof(look.path), "%s%s", MNT, s->argv[1]);
	look.delay_ms = (unsigned)ms;
	clock_gettime(CLOCK_MONOTONIC, &up.t0);
	look.t0 = up.t0;
	atomic_store(&ticking, 1);
	int have_tick = !pthread_create(&tt, NULL, tick_thread, NULL);
	int started = !pthread_create(&tu, NULL, update_thread, &up);
	if (started) {
		started = !pthread_create(&tl, NULL, lookup_thread, &look);
		if (started)
			pthread_join(tl, NULL);
		pthread_join(tu, NULL);
	}
	atomic_store(&ticking, 0);
	if (have_tick)
		pthread_join(tt, NULL);
	if (!started)
		return EAGAIN;
	chan_send("out %d update %ld..%ld ms %s", n, up.start_ms, up.end_ms,
		  up.err ? errname(up.err, b1, sizeof(b1)) : "ok");
	chan_send("out %d lookup %ld..%ld ms %s", n, look.start_ms, look.end_ms,
		  look.err ? errname(look.err, b2, sizeof(b2)) : "ok");
	if (up.err)
		return up.err;
	if (lstat(up.path, &st))
		return errno;
	snprintf(detail, len, "mode=%04o", (unsigned)(st.st_mode & 07777));
	return (st.st_mode & 07777) == UPDATE_MODE ? 0 : EBADDATA;
}

/*
 * overlap OP1 P OP2 Q MS: OP1 on P at once, OP2 on Q MS milliseconds later,
 * and a syncfs of /mnt 2*MS milliseconds after the start, each in its own
 * thread (the tick thread of update-lookup running meanwhile). With a disk
 * that holds a read inside OP1 (kernel/tests/csum-retry-overlap.sh), OP2
 * and the sync run while OP1 waits for it.
 */
#define OVERLAP_XATTR "user.overlap"
#define OVERLAP_XATTR_BYTES 64
#define OVERLAP_FALLOC (1 << 20)

struct overlap_op {
	struct timed_op t;
	const char *op;
};

/* Read every extended attribute of PATH: the read probe of getxattr. */
static int overlap_getxattr(const char *path)
{
	char names[4096], val[4096];
	ssize_t n = llistxattr(path, names, sizeof(names));

	if (n < 0)
		return errno;
	for (char *a = names; a < names + n; a += strlen(a) + 1)
		if (lgetxattr(path, a, val, sizeof(val)) < 0 && errno != ERANGE)
			return errno;
	return 0;
}

static int overlap_run(const char *op, const char *path)
{
	unsigned char val[OVERLAP_XATTR_BYTES];
	struct stat st;
	int fd, rc;

	if (!strcmp(op, "stat"))
		return lstat(path, &st) ? errno : 0;
	if (!strcmp(op, "rm"))
		return unlink(path) ? errno : 0;
	if (!strcmp(op, "getxattr"))
		return overlap_getxattr(path);
	if (!strcmp(op, "setxattr")) {
		pattern_fill(path, 0, val, sizeof(val));
		return lsetxattr(path, OVERLAP_XATTR, val, sizeof(val), 0) ? errno : 0;
	}
	if (!strcmp(op, "fallocate")) {
		fd = open(path, O_RDWR | O_CREAT, 0644);
		if (fd < 0)
			return errno;
		rc = fallocate(fd, 0, 0, OVERLAP_FALLOC) ? errno : 0;
		close(fd);
		return rc;
	}
	return EINVAL;
}

static void *overlap_thread(void *arg)
{
	struct overlap_op *o = arg;
	int fd;

	usleep(o->t.delay_ms * 1000u);
	o->t.start_ms = ms_since(&o->t.t0);
	if (o->op) {
		o->t.err = overlap_run(o->op, o->t.path);
	} else {
		fd = open(MNT, O_RDONLY | O_DIRECTORY);
		o->t.err = fd < 0 || syncfs(fd) ? errno : 0;
		if (fd >= 0)
			close(fd);
	}
	o->t.end_ms = ms_since(&o->t.t0);
	return NULL;
}

int op_overlap(int n, const struct step *s, char *detail, size_t len)
{
	static struct overlap_op ops[3];
	unsigned long long ms;
	pthread_t tid[3], tt;
	int started = 0, rc = 0;
	struct timespec t0;
	char b[24];

	if (sscanf(s->argv[4], "%llu", &ms) != 1 || ms > STEP_MAX_MS)
		return EINVAL;
	memset(ops, 0, sizeof(ops));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 3; i++) {
		ops[i].t.t0 = t0;
		ops[i].t.delay_ms = (unsigned)ms * i;
		if (i < 2) {
			ops[i].op = s->argv[2 * i];
			snprintf(ops[i].t.path, sizeof(ops[i].t.path), "%s%s", MNT, s->argv[2 * i + 1]);
		}
	}
	atomic_store(&ticking, 1);
	int have_tick = !pthread_create(&tt, NULL, tick_thread, NULL);
	while (started < 3 && !pthread_create(&tid[started], NULL, overlap_thread, &ops[started]))
		started++;
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	atomic_store(&ticking, 0);
	if (have_tick)
		pthread_join(tt, NULL);
	if (started < 3)
		return EAGAIN;
	for (int i = 0; i < 3; i++) {
		chan_send("out %d %s%d %ld..%ld ms %s", n, i < 2 ? ops[i].op : "sync",
			  i < 2 ? i + 1 : 0, ops[i].t.start_ms, ops[i].t.end_ms,
			  ops[i].t.err ? errname(ops[i].t.err, b, sizeof(b)) : "ok");
		if (!rc)
			rc = ops[i].t.err;
	}
	snprintf(detail, len, "ms=%llu", ms);
	return rc;
}

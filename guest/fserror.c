// SPDX-License-Identifier: MIT
/*
 * fanotify as a second witness of ext4's error reports. Wherever ext4
 * records an error (__ext4_error, __ext4_error_inode, __ext4_error_file,
 * __ext4_std_error) it also calls fsnotify_sb_error(); a FAN_FS_ERROR mark
 * on the whole filesystem (Linux 5.16+, CONFIG_FANOTIFY) turns that into an
 * event with the errno, the inode as a file handle (none for a
 * filesystem-wide error) and how many errors were merged into the event
 * while it waited in the queue.
 *
 * After every mount step that succeeds the filesystem on /mnt is watched;
 * before umount the queue is drained and the watch closed. A thread sends
 * the events as they come (a step that hangs still shows them) and the
 * step runner drains the queue before each result line. Each event is one
 * "fserror ERRNO INO COUNT" line, at most FSERROR_MAX per case, then one
 * "fserror-dropped K" at the end; a kernel that cannot watch says
 * "fserror-unavailable REASON" once. The lines are described in README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "agent.h"

/* struct file_handle's head: handle_bytes, handle_type */
#define HANDLE_HEAD 8
/* exportfs's FILEID_INO32_GEN(_PARENT): a 32-bit inode number first */
#define FILEID_INO32_GEN 1
#define FILEID_INO32_GEN_PARENT 2

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fan = -1;		/* the fanotify group while /mnt is watched */
static int unavailable;		/* said fserror-unavailable: never try again */
static unsigned sent;		/* fserror lines sent */
static unsigned long long dropped;	/* events past FSERROR_MAX, overflows */
static int wake[2] = { -1, -1 };	/* tells the thread the group changed */
static pthread_t thread;
static int running;

static int info_error(const unsigned char *p, size_t len, int *err, unsigned *count)
{
	struct fanotify_event_info_error e;

	if (len < sizeof(e))
		return -1;
	memcpy(&e, p, sizeof(e));
	*err = e.error < 0 ? -e.error : e.error;
	*count = e.error_count;
	return 0;
}

/* The inode of a FID record's file handle, or "-" when it names none. */
static int info_fid(const unsigned char *p, size_t len, char *ino, size_t inolen)
{
	size_t head = sizeof(struct fanotify_event_info_fid);
	unsigned int bytes, type;
	unsigned char f[4];

	if (len < head + HANDLE_HEAD)
		return -1;
	memcpy(&bytes, p + head, 4);
	memcpy(&type, p + head + 4, 4);
	if (bytes > len - head - HANDLE_HEAD)
		return -1;
	if (bytes >= 4 && (type == FILEID_INO32_GEN || type == FILEID_INO32_GEN_PARENT)) {
		memcpy(f, p + head + HANDLE_HEAD, 4);
		snprintf(ino, inolen, "%u", f[0] | f[1] << 8 | f[2] << 16 | (unsigned)f[3] << 24);
	} else {
		snprintf(ino, inolen, "-");
	}
	return 0;
}

int fserror_decode(const void *buf, size_t len, size_t *used, char *line, size_t linelen)
{
	struct fanotify_event_metadata m;
	const unsigned char *p = buf;
	char ino[16] = "-", b[16];
	unsigned count = 0;
	int err = -1;

	if (len < sizeof(m))
		return FSERROR_BAD;
	memcpy(&m, p, sizeof(m));
	if (m.vers != FANOTIFY_METADATA_VERSION || m.event_len < sizeof(m) ||
	    m.event_len > len || m.metadata_len < sizeof(m) || m.metadata_len > m.event_len)
		return FSERROR_BAD;
	*used = m.event_len;
	if (m.mask & FAN_Q_OVERFLOW)
		return FSERROR_OVERFLOW;
	if (!(m.mask & FAN_FS_ERROR))
		return FSERROR_OTHER;
	for (size_t off = m.metadata_len; off + 4 <= m.event_len;) {
		struct fanotify_event_info_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.len < sizeof(h) || h.len > m.event_len - off)
			return FSERROR_BAD;
		if (h.info_type == FAN_EVENT_INFO_TYPE_ERROR &&
		    info_error(p + off, h.len, &err, &count))
			return FSERROR_BAD;
		if (h.info_type == FAN_EVENT_INFO_TYPE_FID &&
		    info_fid(p + off, h.len, ino, sizeof(ino)))
			return FSERROR_BAD;
		off += h.len;
	}
	if (err < 0)
		return FSERROR_BAD;
	snprintf(line, linelen, "%s %s %u", errname(err, b, sizeof(b)), ino, count);
	return FSERROR_EVENT;
}

void fserror_take(const void *buf, size_t len)
{
	size_t off = 0, used;
	char line[64];

	while (off < len) {
		int k = fserror_decode((const char *)buf + off, len - off, &used,
				       line, sizeof(line));

		/* the rest of what read(2) gave cannot be split into events */
		if (k == FSERROR_BAD) {
			dropped++;
			break;
		}
		off += used;
		if (k == FSERROR_OVERFLOW || (k == FSERROR_EVENT && sent == FSERROR_MAX)) {
			dropped++;
		} else if (k == FSERROR_EVENT) {
			sent++;
			chan_send("fserror %s", line);
		}
	}
}

/* Send what the group holds now; the lock is held. */
static void drain_locked(void)
{
	/* aligned as struct fanotify_event_metadata */
	static unsigned long long buf[4096 / sizeof(unsigned long long)];

	while (fan >= 0) {
		ssize_t r = read(fan, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		fserror_take(buf, r);
	}
}

static void drain(void)
{
	pthread_mutex_lock(&lock);
	drain_locked();
	pthread_mutex_unlock(&lock);
}

static void *loop(void *arg)
{
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = wake[0], .events = POLLIN },
			{ .fd = -1, .events = POLLIN },
		};
		char c;

		pthread_mutex_lock(&lock);
		p[1].fd = fan;
		pthread_mutex_unlock(&lock);
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents && read(wake[0], &c, 1) == 1 && c == 'q')
			break;
		drain();
	}
	return NULL;
}

static void poke(char c)
{
	if (running && write(wake[1], &c, 1) != 1)
		chan_send("error fserror: cannot wake its thread: %s", strerror(errno));
}

static void say_unavailable(const char *what, int e)
{
	char b[16];

	unavailable = 1;
	chan_send("fserror-unavailable %s %s", what, errname(e, b, sizeof(b)));
}

static void watch(void)
{
	int fd;

	pthread_mutex_lock(&lock);
	if (fan >= 0 || unavailable) {
		pthread_mutex_unlock(&lock);
		return;
	}
	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_NONBLOCK | FAN_CLOEXEC,
			   O_RDONLY);
	if (fd < 0) {
		say_unavailable("fanotify_init", errno);
	} else if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_FS_ERROR,
				 AT_FDCWD, MNT)) {
		say_unavailable("fanotify_mark", errno);
		close(fd);
	} else {
		fan = fd;
		chan_send("fserror-watch " MNT);
	}
	if (fan >= 0 && !running && !pipe2(wake, O_CLOEXEC))
		running = !pthread_create(&thread, NULL, loop, NULL);
	pthread_mutex_unlock(&lock);
	poke('w');
}

static void unwatch(void)
{
	pthread_mutex_lock(&lock);
	drain_locked();
	if (fan >= 0)
		close(fan);
	fan = -1;
	pthread_mutex_unlock(&lock);
	poke('w');
}

void fserror_before(const struct step *s)
{
	if (s->id == STEP_UMOUNT)
		unwatch();
}

void fserror_after(const struct step *s, int rc)
{
	/* a umount that failed left the filesystem mounted: watch it again */
	if ((s->id == STEP_MOUNT && !rc) || (s->id == STEP_UMOUNT && rc))
		watch();
	drain();
}

void fserror_stop(void)
{
	unwatch();
	if (running) {
		poke('q');
		pthread_join(thread, NULL);
		running = 0;
	}
	if (dropped)
		chan_send("fserror-dropped %llu", dropped);
	/* the next case of a batch starts afresh: its own bound, its own report */
	for (int i = 0; i < 2; i++) {
		if (wake[i] >= 0)
			close(wake[i]);
		wake[i] = -1;
	}
	unavailable = 0;
	sent = 0;
	dropped = 0;
}

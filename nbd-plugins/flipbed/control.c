// SPDX-License-Identifier: MIT
/* flipbed: the control socket (see control.h and the CONTROL SOCKET
 * section of the man page).
 *
 * One thread polls the listening socket and up to MAX_CLIENTS clients.
 * Client sockets are non-blocking and every client has its own queue of
 * answers not yet sent, so a client that does not read its answers
 * stalls only itself; once more than OUT_MAX bytes of them wait, it is
 * dropped. A client that sends a line longer than FB_LINE_MAX is answered
 * "err line too long" and closed once that answer is sent; a partial line
 * left at disconnect is discarded, never executed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdarg.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "command.h"
#include "control.h"
#include "disk.h"
#include "inject.h"
#include "ruleset.h"
#include "stall.h"
#include "stats.h"
#include "witness.h"

#define MAX_CLIENTS 16
#define OUT_MAX (1024 * 1024)	/* unsent answer bytes before a drop */
#define OUT_KEEP 65536		/* an empty queue keeps this much memory */

struct client {
	int fd;
	bool closing;		/* read no more; close once out is sent */
	size_t used;
	char line[FB_LINE_MAX + 1];
	char *out;		/* answers not yet sent: out[sent, len) */
	size_t sent, len, cap;
};

static char *sock_path;
static int listen_fd = -1;
static int stop_pipe[2] = { -1, -1 };	/* wakes the thread to exit */
static pthread_t thread;
static bool running;

/* Make room for our socket at addr's path. A socket nobody listens on
 * (connect is refused: its server is gone) is removed. A socket someone
 * answers on belongs to a live server, and any other file was mistyped:
 * both are left alone and refused.
 */
static int remove_stale(const char *path, const struct sockaddr_un *addr)
{
	struct stat st;
	int fd, r, e;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		nbdkit_error("control=%s: %m", path);
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		nbdkit_error("control=%s: exists and is not a socket", path);
		return -1;
	}
	/* Non-blocking: a live server with a full backlog says EAGAIN
	 * instead of stalling the start.
	 */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		nbdkit_error("control=%s: socket: %m", path);
		return -1;
	}
	r = connect(fd, (const struct sockaddr *)addr, sizeof *addr);
	e = errno;
	close(fd);
	if (r == 0 || e == EAGAIN) {
		nbdkit_error("control=%s: socket is in use: another server "
			     "answers on it (stop that server or choose "
			     "another path)", path);
		return -1;
	}
	if (e != ECONNREFUSED) {
		nbdkit_error("control=%s: cannot tell whether the socket is "
			     "in use: connect: %s", path, strerror(e));
		return -1;
	}
	nbdkit_debug("flipbed: control=%s: replacing a stale socket", path);
	if (unlink(path) < 0 && errno != ENOENT) {
		nbdkit_error("control=%s: removing a stale socket: %m", path);
		return -1;
	}
	return 0;
}

int fb_control_bind(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	mode_t old;
	int r;

	if (strlen(path) >= sizeof addr.sun_path) {
		nbdkit_error("control=%s: path longer than %zu bytes", path,
			     sizeof addr.sun_path - 1);
		return -1;
	}
	strcpy(addr.sun_path, path);
	if (remove_stale(path, &addr) < 0)
		return -1;
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0) {
		nbdkit_error("control=%s: socket: %m", path);
		return -1;
	}
	old = umask(0177);	/* created 0600: only the owner may arm faults */
	r = bind(listen_fd, (struct sockaddr *)&addr, sizeof addr);
	umask(old);
	if (r < 0 || listen(listen_fd, SOMAXCONN) < 0) {
		nbdkit_error("control=%s: %m", path);
		return -1;
	}
	sock_path = strdup(path);
	return 0;
}

/* The thread must be gone before nbdkit unmaps the plugin. */
void fb_control_close(void)
{
	if (running) {
		if (write(stop_pipe[1], "", 1) < 0)
			nbdkit_error("flipbed: stopping the control thread: %m");
		pthread_join(thread, NULL);
		running = false;
	}
	if (stop_pipe[0] >= 0) {
		close(stop_pipe[0]);
		close(stop_pipe[1]);
		stop_pipe[0] = stop_pipe[1] = -1;
	}
	if (listen_fd >= 0) {
		close(listen_fd);
		unlink(sock_path);
	}
	free(sock_path);
	sock_path = NULL;
	listen_fd = -1;
}

/* A watch rule is armed (so that list, del and clear know it) and its
 * range handed to the read witness.
 */
static int arm_watch(struct fb_rule *r, char *err, size_t errlen)
{
	char id[FB_ID_MAX + 1];
	uint64_t at = r->at, len = r->len;

	if (r->id[0] == '\0')
		fb_rules_new_id(r->id);
	strcpy(id, r->id);
	if (fb_rules_arm(r, err, errlen) < 0)
		return -1;
	if (fb_witness_add(0, id, at, len) < 0) {
		fb_rules_del(id);
		snprintf(err, errlen, "watch: %d spans are watched already, "
			 "or out of memory", FB_WITNESS_MAX);
		return -1;
	}
	return 0;
}

int fb_control_arm(struct fb_rule *r, char *err, size_t errlen)
{
	int ret;

	if (fb_rule_check_size(r, fb_disk_size(), err, errlen) < 0) {
		fb_rule_free(r);
		return -1;
	}
	if (r->action == FB_WATCH)
		return arm_watch(r, err, errlen);
	if (r->on != FB_ON_REST)
		return fb_rules_arm(r, err, errlen);
	if (!fb_disk_writable()) {
		snprintf(err, errlen, "on=rest needs a writable image");
		fb_rule_free(r);
		return -1;
	}
	if (r->id[0] == '\0')
		fb_rules_new_id(r->id);
	ret = fb_inject_rest(r);
	if (ret < 0)
		snprintf(err, errlen, "on=rest: %s", strerror(errno));
	fb_rule_free(r);
	return ret;
}

struct list_ctx {
	void (*put)(void *opaque, const char *s, size_t n);
	void *opaque;
};

static void list_one(const struct fb_rule *r, void *opaque)
{
	struct list_ctx *c = opaque;
	int n = fb_rule_format(r, NULL, 0);
	char *line = malloc(n + 2);

	if (!line)
		return;
	fb_rule_format(r, line, n + 1);
	line[n] = '\n';
	c->put(c->opaque, line, n + 1);
	free(line);
}

static void answer(void (*put)(void *, const char *, size_t), void *opaque,
		   const char *fmt, ...)
{
	char s[FB_LINE_MAX + 64];
	va_list ap;
	size_t i, n;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(s, sizeof s - 1, fmt, ap);
	va_end(ap);
	n = r < 0 ? 0 : (size_t)r < sizeof s - 1 ? (size_t)r : sizeof s - 2;
	/* Never echo control bytes a client sent back to it. */
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] < ' ' || (unsigned char)s[i] >= 0x7f)
			s[i] = '?';
	}
	s[n] = '\n';
	put(opaque, s, n + 1);
}

void fb_control_execute(const char *line,
			void (*put)(void *, const char *, size_t), void *opaque)
{
	struct list_ctx lc = { put, opaque };
	char err[512], id[FB_ID_MAX + 1];
	uint64_t reads, writes, faults;
	struct fb_cmd cmd;

	/* Rules that used up their count= are disarmed: list shows them gone. */
	fb_rules_prune();
	if (fb_cmd_parse(line, &cmd, err, sizeof err) < 0) {
		answer(put, opaque, "err %s", err);
		return;
	}
	switch (cmd.kind) {
	case FB_CMD_ADD:
		if (cmd.rule.id[0] == '\0')
			fb_rules_new_id(cmd.rule.id);
		strcpy(id, cmd.rule.id);
		if (fb_control_arm(&cmd.rule, err, sizeof err) < 0)
			answer(put, opaque, "err %s", err);
		else
			answer(put, opaque, "ok id=%s", id);
		break;
	case FB_CMD_DEL:
		if (fb_rules_del(cmd.id) < 0) {
			answer(put, opaque, "err no armed rule id=%s", cmd.id);
			break;
		}
		fb_witness_unwatch(cmd.id);
		answer(put, opaque, "ok");
		break;
	case FB_CMD_CLEAR:
		fb_rules_clear();
		fb_witness_unwatch(NULL);
		answer(put, opaque, "ok");
		break;
	case FB_CMD_LIST:
		fb_rules_foreach(list_one, &lc);
		answer(put, opaque, "ok");
		break;
	case FB_CMD_STATS:
		fb_stats_get(&reads, &writes, &faults);
		answer(put, opaque, "ok reads=%" PRIu64 " writes=%" PRIu64
		       " faults=%" PRIu64 " held=%" PRIu64, reads, writes,
		       faults, fb_stall_held());
		break;
	case FB_CMD_RELEASE:
		answer(put, opaque, "ok released=%" PRIu64, fb_stall_release());
		break;
	case FB_CMD_FREEZE:
		fb_disk_freeze();
		answer(put, opaque, "ok");
		break;
	}
	fb_cmd_free(&cmd);
}

static void drop_client(struct client *c, const char *why)
{
	if (why)
		nbdkit_debug("flipbed: control client dropped: %s", why);
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	*c = (struct client){ .fd = -1 };
}

/* put() for a socket client: queue the answer; flush_client sends it. */
static void put_client(void *opaque, const char *s, size_t n)
{
	struct client *c = opaque;
	size_t cap;
	char *p;

	if (c->fd < 0)
		return;
	if (c->len + n > c->cap) {
		for (cap = c->cap ? c->cap : 4096; cap < c->len + n; cap *= 2)
			;
		p = realloc(c->out, cap);
		if (!p) {
			drop_client(c, "out of memory for its answers");
			return;
		}
		c->out = p;
		c->cap = cap;
	}
	memcpy(c->out + c->len, s, n);
	c->len += n;
}

/* Send what the socket takes without blocking; keep the rest queued. */
static void flush_client(struct client *c)
{
	while (c->fd >= 0 && c->sent < c->len) {
		ssize_t w = send(c->fd, c->out + c->sent, c->len - c->sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (w <= 0) {
			drop_client(c, "gone before reading its answers");
			return;
		}
		c->sent += w;
	}
	if (c->fd < 0)
		return;
	if (c->sent > 0) {
		memmove(c->out, c->out + c->sent, c->len - c->sent);
		c->len -= c->sent;
		c->sent = 0;
	}
	if (c->len == 0 && c->cap > OUT_KEEP) {
		free(c->out);
		c->out = NULL;
		c->cap = 0;
	}
	if (c->len == 0 && c->closing)
		drop_client(c, NULL);
}

/* Answer a last line, then close once it is sent. */
static void close_client(struct client *c, const char *why)
{
	nbdkit_debug("flipbed: control client closed: %s", why);
	answer(put_client, c, "%s", why);
	c->closing = true;
	c->used = 0;
	flush_client(c);
}

/* Execute every complete line in the buffer, keep the rest. Answers go
 * out after each command, so a client reading them never comes near
 * OUT_MAX; one that does not read is dropped before its next command.
 */
static void run_lines(struct client *c)
{
	char *nl;

	while (c->fd >= 0 && !c->closing &&
	       (nl = memchr(c->line, '\n', c->used))) {
		size_t n = nl - c->line + 1;

		if (c->len - c->sent > OUT_MAX) {
			drop_client(c, "more than 1 MiB of answers unread");
			return;
		}
		*nl = '\0';
		if (memchr(c->line, '\0', n - 1))
			answer(put_client, c, "err line contains a NUL byte");
		else
			fb_control_execute(c->line, put_client, c);
		if (c->fd < 0)
			return;
		memmove(c->line, c->line + n, c->used - n);
		c->used -= n;
		flush_client(c);
	}
	/* A full buffer without a newline: the line is too long, unless it
	 * already went wrong earlier with a NUL byte.
	 */
	if (c->fd >= 0 && !c->closing && c->used == FB_LINE_MAX)
		close_client(c, memchr(c->line, '\0', c->used) ?
			     "err line contains a NUL byte" :
			     "err line too long: more than 4096 bytes with "
			     "its newline");
}

static void serve_client(struct client *c, short revents)
{
	ssize_t n;

	if (revents & (POLLOUT | POLLHUP | POLLERR))
		flush_client(c);
	if (c->fd < 0 || c->closing ||
	    !(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = recv(c->fd, c->line + c->used, FB_LINE_MAX - c->used, 0);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0) {
		drop_client(c, NULL);
		return;
	}
	if (n == 0) {
		/* End of its commands: send what is queued, then close. */
		c->closing = true;
		c->used = 0;
		flush_client(c);
		return;
	}
	c->used += n;
	run_lines(c);
}

static void accept_client(struct client *clients)
{
	static const char busy[] = "err too many control clients\n";
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	size_t i;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_CLIENTS; i++) {
		if (clients[i].fd < 0) {
			clients[i] = (struct client){ .fd = fd };
			return;
		}
	}
	nbdkit_debug("flipbed: control client refused: %s", busy);
	if (send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		nbdkit_debug("flipbed: control client refused: %m");
	close(fd);
}

static void *control_thread(void *arg)
{
	static struct client clients[MAX_CLIENTS];
	struct pollfd p[MAX_CLIENTS + 2];
	size_t i;

	for (i = 0; i < MAX_CLIENTS; i++)
		clients[i] = (struct client){ .fd = -1 };
	for (;;) {
		p[0] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = stop_pipe[0], .events = POLLIN };
		for (i = 0; i < MAX_CLIENTS; i++) {
			struct client *c = &clients[i];

			p[i + 2] = (struct pollfd){
				.fd = c->fd,
				.events = (c->closing ? 0 : POLLIN) |
					  (c->len > c->sent ? POLLOUT : 0),
			};
		}
		if (poll(p, MAX_CLIENTS + 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			nbdkit_error("flipbed: control socket: poll: %m");
			break;
		}
		if (p[1].revents)
			break;
		for (i = 0; i < MAX_CLIENTS; i++) {
			if (clients[i].fd >= 0 && p[i + 2].revents)
				serve_client(&clients[i], p[i + 2].revents);
		}
		if (p[0].revents & POLLIN)
			accept_client(clients);
	}
	for (i = 0; i < MAX_CLIENTS; i++)
		drop_client(&clients[i], NULL);
	return NULL;
}

int fb_control_start(void)
{
	int err;

	if (listen_fd < 0)
		return 0;
	if (pipe2(stop_pipe, O_CLOEXEC) < 0) {
		nbdkit_error("flipbed: control thread: pipe: %m");
		return -1;
	}
	err = pthread_create(&thread, NULL, control_thread, NULL);
	if (err) {
		errno = err;
		nbdkit_error("flipbed: control thread: %m");
		return -1;
	}
	running = true;
	return 0;
}

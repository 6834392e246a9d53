/* flipbed: the control socket (see control.h and the CONTROL SOCKET
 * section of the man page).
 *
 * One thread polls the listening socket and up to MAX_CLIENTS clients.
 * A client that sends a line longer than FB_LINE_MAX, or does not read
 * its answers within SEND_TIMEOUT, is dropped; a partial line left at
 * disconnect is discarded, never executed.
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
#include "image.h"
#include "inject.h"
#include "ruleset.h"
#include "stats.h"

#define MAX_CLIENTS 16
#define SEND_TIMEOUT 10		/* seconds */

struct client {
	int fd;
	size_t used;
	char line[FB_LINE_MAX + 1];
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

int fb_control_arm(struct fb_rule *r, char *err, size_t errlen)
{
	int ret;

	if (fb_rule_check_size(r, fb_image_size(), err, errlen) < 0) {
		fb_rule_free(r);
		return -1;
	}
	if (r->on != FB_ON_REST)
		return fb_rules_arm(r, err, errlen);
	if (!fb_image_writable()) {
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
		if (fb_rules_del(cmd.id) < 0)
			answer(put, opaque, "err no armed rule id=%s", cmd.id);
		else
			answer(put, opaque, "ok");
		break;
	case FB_CMD_CLEAR:
		fb_rules_clear();
		answer(put, opaque, "ok");
		break;
	case FB_CMD_LIST:
		fb_rules_foreach(list_one, &lc);
		answer(put, opaque, "ok");
		break;
	case FB_CMD_STATS:
		fb_stats_get(&reads, &writes, &faults);
		answer(put, opaque, "ok reads=%" PRIu64 " writes=%" PRIu64
		       " faults=%" PRIu64, reads, writes, faults);
		break;
	}
	fb_cmd_free(&cmd);
}

/* put() for a socket client: blocking send bounded by SO_SNDTIMEO. A
 * failed send closes the client (fd becomes -1).
 */
static void put_client(void *opaque, const char *s, size_t n)
{
	struct client *c = opaque;

	while (c->fd >= 0 && n > 0) {
		ssize_t w = send(c->fd, s, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(c->fd);
			c->fd = -1;
			return;
		}
		s += w;
		n -= w;
	}
}

static void drop_client(struct client *c, const char *why)
{
	if (why) {
		nbdkit_debug("flipbed: control client dropped: %s", why);
		put_client(c, why, strlen(why));
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->used = 0;
}

/* Execute every complete line in the buffer, keep the rest. */
static void run_lines(struct client *c)
{
	char *nl;

	while (c->fd >= 0 && (nl = memchr(c->line, '\n', c->used))) {
		size_t n = nl - c->line + 1;

		*nl = '\0';
		if (memchr(c->line, '\0', n - 1))
			answer(put_client, c, "err line contains a NUL byte");
		else
			fb_control_execute(c->line, put_client, c);
		memmove(c->line, c->line + n, c->used - n);
		c->used -= n;
	}
	if (c->fd >= 0 && c->used == FB_LINE_MAX)
		drop_client(c, "err line longer than 4096 bytes with its newline\n");
}

static void serve_client(struct client *c)
{
	ssize_t n = recv(c->fd, c->line + c->used, FB_LINE_MAX - c->used, 0);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		drop_client(c, NULL);
		return;
	}
	c->used += n;
	run_lines(c);
}

static void accept_client(struct client *clients)
{
	const struct timeval tv = { SEND_TIMEOUT, 0 };
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	size_t i;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_CLIENTS; i++) {
		if (clients[i].fd < 0) {
			setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
			clients[i].fd = fd;
			clients[i].used = 0;
			return;
		}
	}
	drop_client(&(struct client){ .fd = fd },
		    "err too many control clients\n");
}

static void *control_thread(void *arg)
{
	static struct client clients[MAX_CLIENTS];
	struct pollfd p[MAX_CLIENTS + 2];
	size_t i;

	for (i = 0; i < MAX_CLIENTS; i++)
		clients[i].fd = -1;
	for (;;) {
		p[0] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = stop_pipe[0], .events = POLLIN };
		for (i = 0; i < MAX_CLIENTS; i++)
			p[i + 2] = (struct pollfd){ .fd = clients[i].fd,
						    .events = POLLIN };
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
				serve_client(&clients[i]);
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

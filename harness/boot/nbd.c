// SPDX-License-Identifier: MIT
/*
 * nbdkit as a child of flipbed: see nbd.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "boot/nbd.h"

/*
 * The line of FILE that says why nbdkit failed: its first "error:" line
 * (a usage hint follows it), else its last line.
 */
static void error_line(const char *file, char *out, size_t len)
{
	char buf[4096];
	FILE *f = fopen(file, "r");
	int found = 0;

	snprintf(out, len, "(no output)");
	if (!f)
		return;
	while (!found && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		found = strstr(buf, "error:") != NULL;
		if (*buf)
			snprintf(out, len, "%.*s", (int)len - 1, buf);
	}
	fclose(f);
}

static int pidfile_written(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return 0;
	ok = fgets(buf, sizeof(buf), f) && strchr(buf, '\n');
	fclose(f);
	return ok;
}

static int failed(struct fb_nbd *n, char *why, size_t len, const char *what)
{
	char tail[512];

	error_line(n->log, tail, sizeof(tail));
	snprintf(why, len, "nbdkit %s: %s (log %s)", what, tail, n->log);
	fb_nbd_stop(n);
	return -1;
}

int fb_nbd_start(struct fb_nbd *n, const struct fb_nbd_config *c, char *why, size_t len)
{
	char pidfile[PATH_MAX], file[PATH_MAX + 8], ctl[PATH_MAX + 8],
	     flog[PATH_MAX + 16], deflog[PATH_MAX], wlog[PATH_MAX + 16];
	char *argv[16];
	int i = 0, err;
	struct timespec tick = { 0, 5 * 1000 * 1000 };

	memset(n, 0, sizeof(*n));
	n->ctl_fd = -1;
	snprintf(n->sock, sizeof(n->sock), "%s/nbd.sock", c->dir);
	snprintf(n->log, sizeof(n->log), "%s/nbdkit.log", c->dir);
	snprintf(pidfile, sizeof(pidfile), "%s/nbdkit.pid", c->dir);
	snprintf(file, sizeof(file), "file=%s", c->image);
	argv[i++] = "nbdkit";
	argv[i++] = "--exit-with-parent";
	argv[i++] = "--foreground";
	argv[i++] = "--unix";
	argv[i++] = n->sock;
	argv[i++] = "--pidfile";
	argv[i++] = pidfile;
	argv[i++] = c->plugin ? (char *)c->plugin : "file";
	argv[i++] = file;
	if (c->plugin) {
		snprintf(n->ctl, sizeof(n->ctl), "%s/control.sock", c->dir);
		snprintf(deflog, sizeof(deflog), "%s/faultlog.jsonl", c->dir);
		snprintf(ctl, sizeof(ctl), "control=%s", n->ctl);
		snprintf(flog, sizeof(flog), "faultlog=%s", c->faultlog ? c->faultlog : deflog);
		argv[i++] = ctl;
		argv[i++] = flog;
		if (c->writelog) {
			snprintf(wlog, sizeof(wlog), "writelog=%s", c->writelog);
			argv[i++] = wlog;
		}
	}
	argv[i] = NULL;

	/* a pid file left by an nbdkit killed before would read as ready */
	unlink(pidfile);
	err = open(n->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (err < 0 || fb_proc_spawn(&n->proc, "nbdkit", argv, -1, -1, err)) {
		snprintf(why, len, "cannot start nbdkit: %s", strerror(errno));
		if (err >= 0)
			close(err);
		return -1;
	}
	close(err);
	for (int t = 0; t < 2000; t++) {
		if (pidfile_written(pidfile))
			return 0;
		if (fb_proc_reap(&n->proc, 0))
			return failed(n, why, len, fb_proc_describe(&n->proc));
		if (fb_proc_interrupted())
			return failed(n, why, len, "start interrupted");
		nanosleep(&tick, NULL);
	}
	return failed(n, why, len, "did not serve within 10 s");
}

static int ctl_connect(struct fb_nbd *n, char *reply, size_t len)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if (n->ctl_fd >= 0)
		return 0;
	if (!*n->ctl) {
		snprintf(reply, len, "no control socket: nbdkit runs the file plugin");
		return -1;
	}
	if (strlen(n->ctl) >= sizeof(a.sun_path)) {
		snprintf(reply, len, "control socket path too long (at most %zu bytes)",
			 sizeof(a.sun_path) - 1);
		return -1;
	}
	memcpy(a.sun_path, n->ctl, strlen(n->ctl) + 1);
	n->ctl_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (n->ctl_fd < 0 || connect(n->ctl_fd, (struct sockaddr *)&a, sizeof(a))) {
		snprintf(reply, len, "cannot connect to %s: %s", n->ctl, strerror(errno));
		if (n->ctl_fd >= 0)
			close(n->ctl_fd);
		n->ctl_fd = -1;
		return -1;
	}
	return 0;
}

int fb_nbd_control(struct fb_nbd *n, const char *line, char *reply, size_t len)
{
	char buf[1024];
	size_t got = 0;

	if (ctl_connect(n, reply, len))
		return -1;
	snprintf(buf, sizeof(buf), "%s\n", line);
	if (write(n->ctl_fd, buf, strlen(buf)) != (ssize_t)strlen(buf)) {
		snprintf(reply, len, "control socket %s: %s", n->ctl, strerror(errno));
		return -1;
	}
	/* one answer line; read byte by byte so nothing after it is consumed */
	while (got < sizeof(buf) - 1) {
		ssize_t r = read(n->ctl_fd, buf + got, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(reply, len, "control socket %s closed without an answer", n->ctl);
			return -1;
		}
		if (buf[got] == '\n')
			break;
		got++;
	}
	buf[got] = '\0';
	snprintf(reply, len, "%s", buf);
	if (!strncmp(buf, "ok", 2))
		return 0;
	return 1;
}

int fb_nbd_alive(struct fb_nbd *n)
{
	return n->proc.pid && !fb_proc_reap(&n->proc, 0);
}

void fb_nbd_stop(struct fb_nbd *n)
{
	if (n->ctl_fd >= 0)
		close(n->ctl_fd);
	n->ctl_fd = -1;
	fb_proc_kill(&n->proc);
}

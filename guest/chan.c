// SPDX-License-Identifier: MIT
/*
 * The agent's line channel to the host: a virtio-serial port (agent.h says
 * why not a console), so no tty layer: bytes go as written. Every line goes
 * out in one locked write loop, so the kmsg thread and the step runner never
 * interleave; a write sleeps until the port has room, it never drops.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

static int fd = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char inbuf[8192];
static size_t inlen, inpos;

int chan_open(const char *path)
{
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	return fd < 0 ? -1 : 0;
}

void chan_send(const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	size_t len, done = 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	len = n < 0 ? 0 : (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
	line[len++] = '\n';
	pthread_mutex_lock(&lock);
	while (done < len) {
		ssize_t w = write(fd, line + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += w;
	}
	pthread_mutex_unlock(&lock);
}

char *chan_recv(void)
{
	static char line[STEP_MAX_LINE + 64];

	for (;;) {
		char *nl = memchr(inbuf + inpos, '\n', inlen - inpos);
		ssize_t r;

		if (nl) {
			size_t n = nl - (inbuf + inpos);

			if (n >= sizeof(line))
				n = sizeof(line) - 1;
			memcpy(line, inbuf + inpos, n);
			line[n] = '\0';
			if (n && line[n - 1] == '\r')
				line[n - 1] = '\0';
			inpos = nl - inbuf + 1;
			return line;
		}
		memmove(inbuf, inbuf + inpos, inlen - inpos);
		inlen -= inpos;
		inpos = 0;
		if (inlen == sizeof(inbuf))
			inlen = 0;	/* a line longer than the buffer: drop it */
		r = read(fd, inbuf + inlen, sizeof(inbuf) - inlen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return NULL;
		inlen += r;
	}
}

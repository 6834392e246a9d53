// SPDX-License-Identifier: MIT
/*
 * Forward kernel messages from /dev/kmsg to the host, each record as
 * "kmsg SEQ LEVEL USEC TEXT". A thread forwards them as they come (so a hung
 * step still shows its hung-task report); the step runner also drains before
 * each result line, so the messages a step caused come before its result.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

static int kfd = -1;
static int stop_pipe[2] = { -1, -1 };
static pthread_t thread;
static pthread_mutex_t read_lock = PTHREAD_MUTEX_INITIALIZER;

/* One record: "PRIO,SEQ,USEC,FLAGS[,...];TEXT\n" then " KEY=VALUE" lines. */
static void forward(char *rec)
{
	char *text = strchr(rec, ';');
	char *nl;
	unsigned long prio;
	unsigned long long seq, usec;

	if (!text || sscanf(rec, "%lu,%llu,%llu", &prio, &seq, &usec) != 3)
		return;
	text++;
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	chan_send("kmsg %llu %lu %llu %s", seq, prio & 7, usec, text);
}

void kmsg_drain(void)
{
	char rec[8192];

	if (kfd < 0)
		return;
	pthread_mutex_lock(&read_lock);
	for (;;) {
		ssize_t r = read(kfd, rec, sizeof(rec) - 1);

		if (r < 0 && (errno == EINTR || errno == EPIPE))
			continue;	/* EPIPE: records were overwritten; go on */
		if (r <= 0)
			break;
		rec[r] = '\0';
		forward(rec);
	}
	pthread_mutex_unlock(&read_lock);
}

static void *loop(void *arg)
{
	struct pollfd p[2] = {
		{ .fd = kfd, .events = POLLIN },
		{ .fd = stop_pipe[0], .events = POLLIN },
	};

	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		kmsg_drain();
		if (p[1].revents)
			break;
	}
	return NULL;
}

int kmsg_start(void)
{
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd < 0 || pipe2(stop_pipe, O_CLOEXEC) < 0)
		return -1;
	return pthread_create(&thread, NULL, loop, NULL) ? -1 : 0;
}

void kmsg_stop(void)
{
	if (stop_pipe[1] < 0)
		return;
	if (write(stop_pipe[1], "x", 1) == 1)
		pthread_join(thread, NULL);
	kmsg_drain();
}

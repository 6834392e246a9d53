// SPDX-License-Identifier: MIT
/* flipbed: the fault log (see faultlog.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <nbdkit-plugin.h>

#include "faultlog.h"
#include "stats.h"

static int log_fd = -1;
static _Atomic uint64_t seq;

int fb_faultlog_open(const char *path)
{
	log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	return log_fd < 0 ? -1 : 0;
}

void fb_faultlog_close(void)
{
	if (log_fd >= 0)
		close(log_fd);
	log_fd = -1;
}

/* A growing string; on allocation failure it stays NULL. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->cap == 0 && !b->s) {
		b->cap = 512;
		b->s = malloc(b->cap);
	}
	for (;;) {
		char *t;

		if (!b->s)
			return;
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < b->cap - b->len) {
			b->len += n;
			return;
		}
		b->cap = 2 * b->cap + n;
		t = realloc(b->s, b->cap);
		if (!t) {
			free(b->s);
			b->s = NULL;
		}
		b->s = t;
	}
}

static void write_all(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(log_fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			nbdkit_error("flipbed: fault log: %m");
			return;
		}
		s += w;
		n -= w;
	}
}

/* {"seq":N,"ns":T, */
static void head(struct sbuf *b, uint64_t n)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	add(b, "{\"seq\":%" PRIu64 ",\"ns\":%" PRIu64 ",", n,
	    (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

static void format(struct sbuf *b, const struct fb_fault *f, uint64_t n)
{
	const struct fb_rule *r = f->rule;
	size_t i;

	head(b, n);
	add(b, "\"rule\":\"%s\",\"op\":\"%s\",\"action\":\"%s\","
	    "\"offset\":%" PRIu64 ",\"len\":%" PRIu64, r->id, f->op,
	    fb_action_name(r->action), f->offset, f->len);
	if (r->action == FB_MISDIRECT)
		add(b, ",\"to\":%" PRIu64, f->offset + (uint64_t)r->delta);
	if (r->action == FB_STALL)
		add(b, ",\"ms\":%" PRIu64, r->stall_ms);
	if (f->tear_known)
		add(b, ",\"stored_changed\":%s,\"lost_changed\":%s",
		    f->stored_changed ? "true" : "false",
		    f->lost_changed ? "true" : "false");
	if (f->changes) {
		const struct fb_changes *c = f->changes;

		add(b, ",\"changed\":%" PRIu64 ",\"changes\":[", c->changed);
		for (i = 0; i < c->n; i++)
			add(b, "%s{\"offset\":%" PRIu64 ",\"old\":%u,\"new\":%u}",
			    i ? "," : "", c->v[i].offset, c->v[i].old,
			    c->v[i].new);
		add(b, "]");
	}
	add(b, "}\n");
}

static void emit(struct sbuf *b)
{
	if (!b->s) {
		nbdkit_error("flipbed: fault log: out of memory");
		return;
	}
	write_all(b->s, b->len);
	free(b->s);
}

uint64_t fb_faultlog_write(const struct fb_fault *f)
{
	uint64_t n = atomic_fetch_add(&seq, 1) + 1;
	struct sbuf b = { 0 };

	fb_stats_fault();
	nbdkit_debug("flipbed: injecting rule %s: %s %s offset %" PRIu64
		     " len %" PRIu64, f->rule->id, f->op,
		     fb_action_name(f->rule->action), f->offset, f->len);
	if (log_fd < 0)
		return n;
	format(&b, f, n);
	emit(&b);
	return n;
}

void fb_faultlog_note(const char *fmt, ...)
{
	uint64_t n = atomic_fetch_add(&seq, 1) + 1;
	struct sbuf b = { 0 };
	char *body;
	va_list ap;
	int r;

	if (log_fd < 0)
		return;
	va_start(ap, fmt);
	r = vasprintf(&body, fmt, ap);
	va_end(ap);
	if (r < 0) {
		nbdkit_error("flipbed: fault log: out of memory");
		return;
	}
	head(&b, n);
	add(&b, "%s}\n", body);
	free(body);
	emit(&b);
}

/* SPDX-License-Identifier: MIT */
/*
 * The disk server: nbdkit serving an image on a unix socket, with the
 * flipbed plugin (faults, control socket, fault log) or nbdkit's file
 * plugin when the flipbed plugin is not built.
 */
#ifndef FLIPBED_NBD_H
#define FLIPBED_NBD_H

#include <limits.h>
#include <stddef.h>

#include "boot/proc.h"

struct fb_nbd_config {
	const char *image;	/* served read-write, in place */
	const char *plugin;	/* path of nbdkit-flipbed-plugin.so, or NULL: file plugin */
	const char *faultlog;	/* flipbed plugin only; NULL = DIR/faultlog.jsonl */
	const char *dir;	/* private directory for the sockets and logs */
	const char *writelog;	/* flipbed plugin only; NULL = no write log */
};

struct fb_nbd {
	struct fb_proc proc;
	char sock[PATH_MAX];	/* the NBD socket QEMU connects to */
	char ctl[PATH_MAX];	/* the control socket ("" with the file plugin) */
	char log[PATH_MAX];	/* nbdkit's stderr */
	int ctl_fd;
};

/*
 * Start nbdkit and wait until it serves (at most 10 s). Returns 0, or -1
 * with a one-line reason in WHY (the tail of nbdkit's log included).
 */
int fb_nbd_start(struct fb_nbd *n, const struct fb_nbd_config *c, char *why, size_t len);

/*
 * Send one control line ("add on=read offset=... flip=3") and read the
 * answer into REPLY. Returns 0 for "ok ...", 1 for "err ..." (REPLY says
 * why), -1 when the server cannot be reached (REPLY says why).
 */
int fb_nbd_control(struct fb_nbd *n, const char *line, char *reply, size_t len);

/* Whether nbdkit is still running (reaps it when it is not). */
int fb_nbd_alive(struct fb_nbd *n);

/* Stop nbdkit (it flushes nothing: the file plugin writes through). */
void fb_nbd_stop(struct fb_nbd *n);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Child processes (QEMU, nbdkit) that never outlive flipbed.
 *
 * Every child runs in its own process group with PR_SET_PDEATHSIG=SIGKILL,
 * so it dies when flipbed dies, even by SIGKILL. Children are registered
 * while alive; fb_proc_kill_all() (also run at exit) kills and reaps them.
 * SIGINT, SIGTERM and SIGHUP are turned into a readable file descriptor so
 * an event loop can notice them, clean up and exit.
 */
#ifndef FLIPBED_PROC_H
#define FLIPBED_PROC_H

#include <sys/resource.h>
#include <sys/types.h>

struct fb_proc {
	pid_t pid;		/* 0 once reaped */
	const char *name;	/* for messages: "qemu", "nbdkit" */
	int status;		/* waitpid status once reaped */
	struct rusage usage;	/* its CPU time, once reaped */
};

/*
 * Install the signal handlers and the atexit cleanup, first thing. Returns
 * fb_proc_events_fd(), or -1. Calling it again returns the same fd, except in
 * a forked child, which gets an event pipe of its own (so parent and child
 * do not take each other's wake-ups).
 */
int fb_proc_init(void);

/*
 * A non-blocking fd that becomes readable on SIGINT/SIGTERM/SIGHUP (and
 * SIGCHLD, so event loops can reap children).
 */
int fb_proc_events_fd(void);

/* The terminating signal received (SIGINT, SIGTERM, SIGHUP), or 0. */
int fb_proc_interrupted(void);

/* Empty the fd returned by fb_proc_init() after poll() said it is readable. */
void fb_proc_clear_events(void);

/*
 * Start ARGV (searched in PATH) with stdin from IN, stdout to OUT, stderr to
 * ERR (-1 = /dev/null). Returns 0, or -1 with errno (exec failures included).
 */
int fb_proc_spawn(struct fb_proc *p, const char *name, char *const argv[], int in,
	       int out, int err);

/*
 * fb_proc_spawn() with at most MIB MiB of address space for the child
 * (RLIMIT_AS; 0: no limit): for a host tool reading a guest-made image,
 * whose allocations a corrupted size field can drive into gigabytes.
 */
int fb_proc_spawn_bounded(struct fb_proc *p, const char *name, char *const argv[], int in,
			  int out, int err, unsigned long mib);

/* Reap P if it has exited (WAIT: block until it has). 1 if reaped. */
int fb_proc_reap(struct fb_proc *p, int wait);

/* SIGKILL P's process group and reap it. */
void fb_proc_kill(struct fb_proc *p);

/* Kill and reap every registered child. */
void fb_proc_kill_all(void);

/* "exited with status 1", "killed by signal 9" for P's status. */
const char *fb_proc_describe(const struct fb_proc *p);

/*
 * Run ARGV (a host tool on a guest-made image: e2fsck, flipbed-replay)
 * with its stdout and stderr appended to the file OUT, after a line
 * "$ SHOWN" (NULL: ARGV joined by spaces), for at most SECONDS and with at
 * most MIB MiB of address space (0: no limit); then "# exit RC" and a
 * blank line. Returns the exit status; -1 when it could not run, was
 * ended by a signal ("# killed by signal N (NAME)"), or flipbed was
 * interrupted (it is killed then); -2 when it ran past SECONDS and was
 * killed ("# killed after S s"). CPU, when not NULL, gets the CPU time
 * (user + system, seconds) the tool used, its children included.
 */
int fb_proc_run_logged(char *const argv[], const char *shown, const char *out, int seconds,
		       unsigned long mib, double *cpu);

/* The CPU time (user + system, seconds) of a reaped child, from P's usage. */
double fb_proc_cpu(const struct fb_proc *p);

/*
 * The CPU time (user + system, seconds) a running process PID has used so
 * far, from /proc/PID/stat; -1 when it cannot be read.
 */
double fb_proc_cpu_now(pid_t pid);

#endif

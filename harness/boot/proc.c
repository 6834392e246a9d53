// SPDX-License-Identifier: MIT
/*
 * Child processes that never outlive flipbed: see proc.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot/proc.h"

#define MAX_CHILDREN 16

static struct fb_proc *children[MAX_CHILDREN];
static int event_pipe[2] = { -1, -1 };
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	int saved = errno;

	if (sig != SIGCHLD)
		interrupted = sig;
	/* when the pipe is full, a wake-up is already pending */
	ssize_t unused = write(event_pipe[1], "", 1);

	(void)unused;
	errno = saved;
}

int fb_proc_init(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };
	static pid_t owner;
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	int fds[2];

	if (owner == getpid())
		return event_pipe[0];
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC))
		return -1;
	if (owner) {
		/* a forked child: leave the parent's pipe to the parent */
		close(event_pipe[0]);
		close(event_pipe[1]);
	} else {
		atexit(fb_proc_kill_all);
	}
	event_pipe[0] = fds[0];
	event_pipe[1] = fds[1];
	owner = getpid();
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return event_pipe[0];
}

int fb_proc_events_fd(void)
{
	return event_pipe[0];
}

int fb_proc_interrupted(void)
{
	return interrupted;
}

void fb_proc_clear_events(void)
{
	char buf[64];

	while (read(event_pipe[0], buf, sizeof(buf)) > 0)
		;
}

static void track(struct fb_proc *p, int add)
{
	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (add && !children[i]) {
			children[i] = p;
			return;
		}
		if (!add && children[i] == p)
			children[i] = NULL;
	}
}

/*
 * In the child: never outlive the parent, start with default signals, and
 * with at most MIB MiB of address space when MIB is not 0.
 */
static void child_setup(pid_t parent, int in, int out, int err, unsigned long mib)
{
	int null = open("/dev/null", O_RDWR);
	sigset_t none;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);	/* the parent died before prctl */
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	dup2(in >= 0 ? in : null, 0);
	dup2(out >= 0 ? out : null, 1);
	dup2(err >= 0 ? err : null, 2);
	if (mib) {
		struct rlimit as = { .rlim_cur = (rlim_t)mib << 20, .rlim_max = (rlim_t)mib << 20 };

		if (setrlimit(RLIMIT_AS, &as))
			_exit(127);
	}
}

int fb_proc_spawn(struct fb_proc *p, const char *name, char *const argv[], int in,
	       int out, int err)
{
	return fb_proc_spawn_bounded(p, name, argv, in, out, err, 0);
}

int fb_proc_spawn_bounded(struct fb_proc *p, const char *name, char *const argv[], int in,
			  int out, int err, unsigned long mib)
{
	pid_t parent = getpid();
	int report[2], child_errno = 0;
	sigset_t all, old;

	if (pipe2(report, O_CLOEXEC))
		return -1;
	/* no handler may run in the child between fork and exec */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	p->name = name;
	p->status = 0;
	p->pid = fork();
	if (p->pid == 0) {
		child_setup(parent, in, out, err, mib);
		execvp(argv[0], argv);
		child_errno = errno;
		ssize_t unused = write(report[1], &child_errno, sizeof(child_errno));

		(void)unused;
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(report[1]);
	if (p->pid < 0) {
		close(report[0]);
		return -1;
	}
	/* also in the parent, so that a kill before exec reaches the group */
	setpgid(p->pid, p->pid);
	track(p, 1);
	if (read(report[0], &child_errno, sizeof(child_errno)) == sizeof(child_errno)) {
		close(report[0]);
		fb_proc_reap(p, 1);
		errno = child_errno;
		return -1;
	}
	close(report[0]);
	return 0;
}

int fb_proc_reap(struct fb_proc *p, int wait)
{
	pid_t r;

	if (!p->pid)
		return 1;
	do
		r = wait4(p->pid, &p->status, wait ? 0 : WNOHANG, &p->usage);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	track(p, 0);
	p->pid = 0;
	return 1;
}

void fb_proc_kill(struct fb_proc *p)
{
	if (!p->pid)
		return;
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
	fb_proc_reap(p, 1);
}

void fb_proc_kill_all(void)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i])
			fb_proc_kill(children[i]);
}

const char *fb_proc_describe(const struct fb_proc *p)
{
	static char buf[64];

	if (WIFSIGNALED(p->status))
		snprintf(buf, sizeof(buf), "killed by signal %d (%s)", WTERMSIG(p->status),
			 strsignal(WTERMSIG(p->status)));
	else
		snprintf(buf, sizeof(buf), "exited with status %d", WEXITSTATUS(p->status));
	return buf;
}

static double monotonic(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

double fb_proc_cpu(const struct fb_proc *p)
{
	return p->usage.ru_utime.tv_sec + p->usage.ru_utime.tv_usec / 1e6 +
	       p->usage.ru_stime.tv_sec + p->usage.ru_stime.tv_usec / 1e6;
}

double fb_proc_cpu_now(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long utime, stime;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: fields follow the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &utime, &stime) != 2)
		return -1;
	return (double)(utime + stime) / sysconf(_SC_CLK_TCK);
}

int fb_proc_run_logged(char *const argv[], const char *shown, const char *out, int seconds,
		       unsigned long mib, double *cpu)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	double deadline = monotonic() + seconds;
	struct timespec tick = { 0, 5 * 1000 * 1000 };
	struct fb_proc p = { 0 };
	int rc = -1, reaped = 0;

	if (fd < 0)
		return -1;
	if (shown) {
		dprintf(fd, "$ %s\n", shown);
	} else {
		dprintf(fd, "$");
		for (int i = 0; argv[i]; i++)
			dprintf(fd, " %s", argv[i]);
		dprintf(fd, "\n");
	}
	if (fb_proc_spawn_bounded(&p, argv[0], argv, -1, fd, fd, mib) == 0) {
		while (!(reaped = fb_proc_reap(&p, 0)) && monotonic() < deadline &&
		       !fb_proc_interrupted())
			nanosleep(&tick, NULL);
		if (!reaped) {
			fb_proc_kill(&p);
			if (fb_proc_interrupted()) {
				dprintf(fd, "# interrupted\n");
			} else {
				dprintf(fd, "# killed after %d s\n", seconds);
				rc = -2;
			}
		} else if (WIFEXITED(p.status)) {
			rc = WEXITSTATUS(p.status);
		} else {
			dprintf(fd, "# %s\n", fb_proc_describe(&p));
		}
	}
	if (cpu)
		*cpu = fb_proc_cpu(&p);
	dprintf(fd, "# exit %d\n\n", rc);
	close(fd);
	return rc;
}

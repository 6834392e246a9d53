// SPDX-License-Identifier: MIT
/*
 * flipbed's guest agent: /init of the initramfs. It mounts the pseudo
 * filesystems, says "ready" on the host channel, receives the steps, runs
 * them, reports each one, forwards kernel messages, and reboots (QEMU runs
 * with -no-reboot, so it exits). It never judges the kernel: it reports
 * what each step returned and the host decides. Protocol: README.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define MAX_STEPS 1024

static char *steps[MAX_STEPS];
static int nsteps;
static int crashed;	/* a crash step ran: reboot now, without sync */

/* Last words go to the console: the host channel may be what failed. */
static void die(const char *what)
{
	fprintf(stderr, "flipbed-agent: %s: %s\n", what, strerror(errno));
	sync();
	reboot(RB_AUTOBOOT);
	_exit(1);
}

static void setup(void)
{
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir(MNT, 0755);
	if (mount("proc", "/proc", "proc", 0, NULL))
		die("mount /proc");
	if (mount("sysfs", "/sys", "sysfs", 0, NULL))
		die("mount /sys");
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) && errno != EBUSY)
		die("mount /dev");
	/* tracepoints (ext4:ext4_csum_error ...), where the kernel has tracing */
	(void)mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
}

/* Device nodes appear when their driver probes; give it a few seconds. */
static void wait_for(const char *path)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	for (int i = 0; i < 1000 && access(path, F_OK); i++)
		nanosleep(&ts, NULL);
}

/* Collect "step TEXT" lines until "go"; 0 on go, -1 if the host left. */
static int receive_steps(void)
{
	char *line;

	while ((line = chan_recv())) {
		if (!strcmp(line, "go"))
			return 0;
		if (strncmp(line, "step ", 5))
			continue;
		if (nsteps == MAX_STEPS) {
			chan_send("error more than %d steps; the rest are ignored", MAX_STEPS);
			continue;
		}
		steps[nsteps++] = strdup(line + 5);
	}
	return -1;
}

/* Run step I; 1 if it met its expectation, 0 if not, -1 for "may". */
static int run_step(int i)
{
	char detail[512], why[256], b[16];
	const char *result = "ok";
	struct step s;
	int rc;

	if (step_parse(steps[i], &s, why, sizeof(why))) {
		chan_send("step %d %s -> err EINVAL %s", i + 1, steps[i], why);
		return 0;
	}
	fserror_before(&s);
	rc = op_run(i + 1, &s, detail, sizeof(detail));
	crashed |= s.id == STEP_CRASH;
	if (rc)
		result = rc == EBADDATA ? "EBADDATA" : errname(rc, b, sizeof(b));
	/* the kernel messages and fanotify events it caused come before its result */
	kmsg_drain();
	fserror_after(&s, rc);
	chan_send("step %d %s -> %s%s%s%s", i + 1, steps[i], rc ? "err " : "ok",
		  rc ? result : "", *detail ? " " : "", detail);
	return s.expect == EXPECT_ANY ? -1 : step_met(&s, result);
}

int main(void)
{
	int passed = 0, failed = 0;

	setup();
	wait_for(CHANNEL);
	if (chan_open(CHANNEL))
		die("open " CHANNEL);
	if (kmsg_start())
		die("/dev/kmsg");
	chan_send("ready");
	if (receive_steps())
		die("the host closed the channel before 'go'");
	wait_for(DISK);
	for (int i = 0; i < nsteps && !crashed; i++) {
		int met = run_step(i);

		passed += met == 1;
		failed += met == 0;
	}
	fserror_stop();
	kmsg_stop();
	chan_send("done %d %d", passed, failed);
	chan_drain();
	/* a crash step leaves the disk as the kernel left it: no sync */
	if (!crashed)
		sync();
	reboot(RB_AUTOBOOT);
	die("reboot");
}

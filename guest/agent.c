// SPDX-License-Identifier: MIT
/*
 * flipbed's guest agent: /init of the initramfs. It mounts the pseudo
 * filesystems, says "ready" on the host channel, receives the steps, runs
 * them, reports each one, forwards kernel messages, and reboots (QEMU runs
 * with -no-reboot, so it exits). It never judges the kernel: it reports
 * what each step returned and the host decides. Protocol: README.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

static char *steps[STEP_MAX_STEPS];
static int nsteps;
static int ignored;	/* steps past STEP_MAX_STEPS in this case, said once at "go" */
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
	/* a coverage kernel's counters (gcov.c), where the kernel has debugfs */
	(void)mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
}

/* Device nodes appear when their driver probes; give it a few seconds. */
static void wait_for(const char *path)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	for (int i = 0; i < 1000 && access(path, F_OK); i++)
		nanosleep(&ts, NULL);
}

static char disk[64] = DEFAULT_DISK;
static char serial[32];	/* the host's name of the current case's disk, or "" */

const char *agent_disk(void)
{
	return disk;
}

/*
 * The disk whose virtio serial number is SERIAL (QEMU's serial= of the
 * virtio-blk device): the kernel names the disks in the order it probes
 * them, the host knows them by the serial it gave. 0, or ENODEV after
 * waiting as wait_for() does.
 */
static int find_disk(const char *want)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	char path[64], got[64];

	for (int i = 0; i < 1000; i++) {
		for (char c = 'a'; c <= 'z'; c++) {
			FILE *f;

			snprintf(path, sizeof(path), "/sys/block/vd%c/serial", c);
			f = fopen(path, "r");
			if (!f)
				continue;
			got[0] = '\0';
			if (!fgets(got, sizeof(got), f))
				got[0] = '\0';
			fclose(f);
			got[strcspn(got, "\n")] = '\0';
			if (!strcmp(got, want)) {
				snprintf(disk, sizeof(disk), "/dev/vd%c", c);
				wait_for(disk);
				return 0;
			}
		}
		nanosleep(&ts, NULL);
	}
	return ENODEV;
}

/*
 * Collect the host's lines for one case: "disk SERIAL" (a batch: the disk
 * of this case), "watch OFFSET LENGTH" (the target's bytes, bioread.c),
 * "coverage" (send this case's gcov counters, gcov.c), "step TEXT" lines,
 * then "go" (1). "halt" (0): no more
 * cases; "release" (2): unmount what the last case left; -1 if the host
 * left.
 */
static int receive_steps(void)
{
	char *line;

	while ((line = chan_recv())) {
		if (!strcmp(line, "go")) {
			if (ignored)
				chan_send("error more than %d steps; the last %d are ignored",
					  STEP_MAX_STEPS, ignored);
			ignored = 0;
			return 1;
		}
		if (!strcmp(line, "halt"))
			return 0;
		if (!strcmp(line, "release"))
			return 2;
		if (!strcmp(line, "coverage")) {
			gcov_want();
			continue;
		}
		if (!strncmp(line, "watch ", 6)) {
			bioread_watch(line + 6);
			continue;
		}
		if (!strncmp(line, "disk ", 5)) {
			snprintf(serial, sizeof(serial), "%s", line + 5);
			if (find_disk(serial))
				chan_send("error no disk has the serial number %s", serial);
			continue;
		}
		if (strncmp(line, "step ", 5))
			continue;
		if (nsteps == STEP_MAX_STEPS) {
			ignored++;
			continue;
		}
		steps[nsteps++] = strdup(line + 5);
	}
	return -1;
}

/*
 * The start of a case of a batch in the kernel log, where the host cuts
 * the shared log into cases (classify/split.c): "flipbed-mark case-SERIAL"
 * at level 5, which the quiet console does not show; the console is cut
 * by its printk time.
 */
static void mark_case(void)
{
	char line[64];
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC), n;

	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "<5>flipbed-mark case-%s", serial);
	if (write(fd, line, n) != n)
		chan_send("error cannot write the case mark to /dev/kmsg: %s", strerror(errno));
	close(fd);
}

/* Whether MNT is still a mount point: the case left its filesystem mounted. */
static int mounted(void)
{
	struct stat a, b;

	return !stat(MNT, &a) && !stat("/", &b) && a.st_dev != b.st_dev;
}

/*
 * "release": the last case left /mnt mounted, and the host has frozen its
 * disk (nothing written now reaches it, as after the reboot that ends a
 * case alone): unmount it, a mark before, so that the host keeps these
 * lines out of the case's transcript, and say "released ok" or
 * "released ERRNAME" when /mnt is still mounted.
 */
static void release(void)
{
	char line[64], b[16];
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC), n, e = 0;

	if (fd >= 0) {
		n = snprintf(line, sizeof(line), "<5>flipbed-mark release-%s", serial);
		if (write(fd, line, n) != n)
			chan_send("error cannot write the release mark to /dev/kmsg: %s",
				  strerror(errno));
		close(fd);
	}
	for (int i = 0; i < 3 && mounted(); i++)
		if (umount(MNT))
			e = errno;
	if (mounted() && umount2(MNT, MNT_DETACH))
		e = errno;
	kmsg_drain();
	chan_send("released %s", mounted() ? errname(e ? e : EBUSY, b, sizeof(b)) : "ok");
}


/*
 * The heartbeat: "beat N" each second that step N has been running
 * through, so that the host tells a slow step of a kernel that keeps
 * answering from a guest that stopped: a timeout after a silence is a
 * hang, one during beats is not (harness/classify/classify.c).
 */
static int running;	/* the step running, 0 between steps */

static void *beat(void *arg)
{
	int last = 0;

	for (;;) {
		int now;

		sleep(1);
		now = __atomic_load_n(&running, __ATOMIC_RELAXED);
		if (now && now == last)
			chan_send("beat %d", now);
		last = now;
	}
	return NULL;
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
	bioread_step(i + 1);
	__atomic_store_n(&running, i + 1, __ATOMIC_RELAXED);
	rc = op_run(i + 1, &s, detail, sizeof(detail));
	__atomic_store_n(&running, 0, __ATOMIC_RELAXED);
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

/*
 * One case: its steps, the descriptors they kept closed, a sync, then
 * "done PASSED FAILED", with " mounted"
 * when it left /mnt mounted (the host then ends the batch: the next case's
 * mount would stack on it). The sync writes back what the workload left,
 * as the sync before a reboot does for a case alone: a case of a batch
 * gets its disk frozen at "done", and must leave it as a reboot would.
 * Its kernel lines and filesystem errors are the case's. A crash step
 * skips it: the disk stays as the kernel left it.
 */
static void run_case(void)
{
	int passed = 0, failed = 0;

	if (*serial)
		mark_case();
	gcov_case_start();
	wait_for(disk);
	bioread_start();
	for (int i = 0; i < nsteps && !crashed; i++) {
		int met = run_step(i);

		passed += met == 1;
		failed += met == 0;
	}
	/* a crash leaves them open: a close may write (ext4's auto_da_alloc) */
	if (!crashed) {
		fd_close_all();
		sync();
	}
	fserror_stop();
	bioread_stop();
	kmsg_drain();
	gcov_case_end();
	chan_send("done %d %d%s", passed, failed, mounted() ? " mounted" : "");
	for (int i = 0; i < nsteps; i++)
		free(steps[i]);
	nsteps = 0;
}

/*
 * The device of the virtio-serial port named CHANNEL_NAME: the kernel
 * names it vportNpM, after the order its devices probed, and gives its
 * name in /sys/class/virtio-ports/vportNpM/name. 0, or ENODEV after
 * waiting as wait_for() does.
 */
static int find_channel(char *path, size_t len)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	for (int i = 0; i < 1000; i++) {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char f[300], name[64] = "";
			FILE *fp;

			if (e->d_name[0] == '.')
				continue;
			snprintf(f, sizeof(f), "/sys/class/virtio-ports/%s/name", e->d_name);
			fp = fopen(f, "re");
			if (!fp)
				continue;
			if (!fgets(name, sizeof(name), fp))
				name[0] = '\0';
			fclose(fp);
			name[strcspn(name, "\n")] = '\0';
			if (!strcmp(name, CHANNEL_NAME)) {
				snprintf(path, len, "/dev/%s", e->d_name);
				closedir(d);
				wait_for(path);
				return 0;
			}
		}
		if (d)
			closedir(d);
		nanosleep(&ts, NULL);
	}
	errno = ENODEV;
	return ENODEV;
}

int main(void)
{
	char channel[300];
	pthread_t beater;
	int more, e;

	/* a kernel whose drivers are modules: the channel and disks come now */
	modules_load();
	setup();
	if (find_channel(channel, sizeof(channel)))
		die("no virtio-serial port named " CHANNEL_NAME);
	if (chan_open(channel))
		die(channel);
	if (kmsg_start())
		die("/dev/kmsg");
	e = pthread_create(&beater, NULL, beat, NULL);
	if (e)
		chan_send("error no heartbeat: %s", strerror(e));
	chan_send("ready");
	more = receive_steps();
	if (more < 0)
		die("the host closed the channel before 'go'");
	/* a batch: the host sends the next case, or "halt", after each "done" */
	while (more > 0) {
		run_case();
		/*
		 * A port's write returns once its buffer is queued: QEMU may still
		 * hold it (the host reading slowly) and a reset discards it. The
		 * host answers every "done" (halt, release, a next case), so its
		 * answer means it has read everything before: wait for it.
		 */
		if (crashed) {
			(void)chan_recv();
			break;
		}
		more = receive_steps();
		if (more == 2) {
			release();
			more = receive_steps();
		}
	}
	kmsg_stop();
	/* a crash step leaves the disk as the kernel left it: no sync */
	if (!crashed)
		sync();
	reboot(RB_AUTOBOOT);
	die("reboot");
}

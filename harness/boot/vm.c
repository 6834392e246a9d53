// SPDX-License-Identifier: MIT
/*
 * One guest boot under QEMU: see vm.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "boot/vm.h"
#include "util.h"

#define LINE_MAX_LEN 8192

struct linebuf {
	char buf[LINE_MAX_LEN];
	size_t len;
};

struct run {
	const struct fb_vm_config *c;
	const struct fb_vm_hooks *h;
	struct fb_vm_result *r;
	struct fb_proc qemu;
	struct timespec start;
	int con_fd, agent_fd, events_fd;
	struct linebuf con, agent;
	char log[4096];
	char mem[16], smp[16], disk[PATH_MAX + 128], src[PATH_MAX + 128], chan[PATH_MAX + 64];	/* QEMU arguments */
	char (*bdisk)[PATH_MAX + 160];	/* a batch's -blockdev and -device arguments */
	double deadline;	/* since start: the current case's end */
	double agent_at;	/* since start: the agent's last line, 0 before its first */
	int done;
};

static double since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

static double cpu_seconds(const struct rusage *u)
{
	return u->ru_utime.tv_sec + u->ru_utime.tv_usec / 1e6 +
	       u->ru_stime.tv_sec + u->ru_stime.tv_usec / 1e6;
}

const char *fb_vm_end_name(enum fb_vm_end e)
{
	static const char *names[] = { "clean", "reboot", "infra", "timeout",
				       "interrupted", "aborted" };

	return names[e];
}

const char *fb_vm_step_result(const char *line, int n, const char *text,
			   char *result, size_t len)
{
	char head[64];
	size_t hl, tl = strlen(text);
	const char *p;

	hl = snprintf(head, sizeof(head), "step %d ", n);
	if (strncmp(line, head, hl) || strncmp(line + hl, text, tl) ||
	    strncmp(line + hl + tl, " -> ", 4))
		return NULL;
	p = line + hl + tl + 4;
	if (!strncmp(p, "ok", 2) && (p[2] == ' ' || !p[2])) {
		snprintf(result, len, "ok");
		p += 2;
	} else if (!strncmp(p, "err ", 4)) {
		size_t e = strcspn(p + 4, " ");

		snprintf(result, len, "%.*s", (int)e, p + 4);
		p += 4 + e;
	} else {
		return NULL;
	}
	return *p ? p + 1 : p;
}

/* The last line of QEMU's stderr, for messages. */
static void qemu_log_tail(struct run *x, char *out, size_t len)
{
	char buf[1024];
	FILE *f = fopen(x->log, "r");

	snprintf(out, len, "no message");
	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (*buf)
			snprintf(out, len, "%.*s", (int)len - 1, buf);
	}
	fclose(f);
}

static void send_line(struct run *x, const char *fmt, const char *arg)
{
	char line[LINE_MAX_LEN];
	size_t n = snprintf(line, sizeof(line), fmt, arg), done = 0;

	while (done < n) {
		ssize_t w = write(x->agent_fd, line + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;	/* QEMU went away; the loop sees it */
		done += w;
	}
}

static void end(struct run *x, enum fb_vm_end e, const char *fmt, const char *arg)
{
	if (x->done)
		return;
	x->done = 1;
	x->r->end = e;
	snprintf(x->r->why, sizeof(x->r->why), fmt, arg);
}

static void on_agent_line(struct run *x, char *line)
{
	struct fb_vm_result *r = x->r;

	x->agent_at = since(&x->start);
	if (x->h->agent)
		x->h->agent(x->h->ctx, line);
	if (!strcmp(line, "ready")) {
		r->t.ready = since(&x->start);
		r->t.cpu_ready = fb_proc_cpu_now(x->qemu.pid);
		if (x->c->serial)
			send_line(x, "disk %s\n", x->c->serial);
		if (x->c->watch)
			send_line(x, "watch %s\n", x->c->watch);
		if (x->c->coverage)
			send_line(x, "%s\n", "coverage");
		for (int i = 0; i < x->c->nsteps; i++)
			send_line(x, "step %s\n", x->c->steps[i]);
		send_line(x, "%s\n", "go");
	} else if (!strncmp(line, "wait ", 5)) {
		if (x->h->wait && x->h->wait(x->h->ctx, line + 5)) {
			end(x, FB_VM_END_ABORTED, "stopped at wait %s", line + 5);
			fb_proc_kill(&x->qemu);
			return;
		}
		send_line(x, "continue %s\n", line + 5);
	} else if (sscanf(line, "done %d %d", &r->passed, &r->failed) == 2 ||
		   !strncmp(line, "released ", 9)) {
		struct fb_vm_segment seg = { 0 };
		int next;

		if (line[0] == 'd')
			r->t.done = since(&x->start);
		next = x->h->next ? x->h->next(x->h->ctx, &seg) : 0;
		if (next == 2) {
			/* the unmount gets a timeout of its own, not what the case left */
			x->deadline = since(&x->start) + x->c->timeout;
			send_line(x, "%s\n", "release");
			return;
		}
		if (!next) {
			send_line(x, "%s\n", "halt");
			return;
		}
		/* the "done" was the last case's: the next one has said nothing yet */
		r->t.done = -1;
		x->deadline = since(&x->start) + seg.timeout;
		if (seg.serial)
			send_line(x, "disk %s\n", seg.serial);
		if (seg.watch)
			send_line(x, "watch %s\n", seg.watch);
		if (x->c->coverage)
			send_line(x, "%s\n", "coverage");
		for (int i = 0; i < seg.nsteps; i++)
			send_line(x, "step %s\n", seg.steps[i]);
		send_line(x, "%s\n", "go");
	}
}

static void on_console_line(struct run *x, char *line)
{
	if (x->h->console)
		x->h->console(x->h->ctx, line);
	/* guest/modules.c: a module did not load, and the guest reboots */
	if (!strncmp(line, "flipbed-agent: module ", 22))
		end(x, FB_VM_END_INFRA, "the guest could not load %.400s", line + 15);
}

/* Split DATA into lines (without "\r\n"); flush a partial line at EOF. */
static void feed(struct run *x, struct linebuf *b, const char *data, size_t n,
		 void (*cb)(struct run *, char *))
{
	for (size_t i = 0; i < n; i++) {
		char c = data[i];

		if (c == '\n' || b->len == sizeof(b->buf) - 1) {
			b->buf[b->len] = '\0';
			if (b->len && b->buf[b->len - 1] == '\r')
				b->buf[b->len - 1] = '\0';
			cb(x, b->buf);
			b->len = 0;
			if (c == '\n')
				continue;
		}
		b->buf[b->len++] = c;
	}
	if (!n && b->len) {
		b->buf[b->len] = '\0';
		cb(x, b->buf);
		b->len = 0;
	}
}

/* Read what FD has; -1 at EOF or error (the fd is then closed). */
static int pump(struct run *x, int *fd, struct linebuf *b,
		void (*cb)(struct run *, char *))
{
	char data[4096];
	ssize_t n = read(*fd, data, sizeof(data));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n > 0) {
		if (fd == &x->con_fd && x->r->t.console < 0)
			x->r->t.console = since(&x->start);
		feed(x, b, data, n, cb);
		return 0;
	}
	feed(x, b, data, 0, cb);
	close(*fd);
	*fd = -1;
	return -1;
}

static void build_argv(struct run *x, char **argv)
{
	const struct fb_vm_config *c = x->c;
	int i = 0;

	snprintf(x->mem, sizeof(x->mem), "%d", c->mem_mb);
	snprintf(x->smp, sizeof(x->smp), "%d", c->cpus > 1 ? c->cpus : 1);
	snprintf(x->disk, sizeof(x->disk), "driver=nbd,server.type=unix,server.path=%s,"
		 "node-name=disk0,cache.direct=off,cache.no-flush=off", c->disk_sock);
	if (c->source)
		snprintf(x->src, sizeof(x->src), "driver=raw,node-name=src0,read-only=on,"
			 "file.driver=file,file.filename=%s,file.locking=off", c->source);
	snprintf(x->chan, sizeof(x->chan), "socket,id=agent,path=%s/agent.sock,server=on,wait=on",
		 c->dir);
	argv[i++] = "qemu-system-x86_64";
	argv[i++] = "-M";
	/*
	 * A distribution's kernel finds microvm's virtio-mmio devices only
	 * through ACPI (it lacks CONFIG_VIRTIO_MMIO_CMDLINE_DEVICES), and under
	 * TCG microvm with ACPI gets no timer tick: such a kernel boots the pc
	 * machine, its devices on PCI.
	 */
	argv[i++] = c->pci ? "pc" : "microvm,acpi=off";
	argv[i++] = "-accel";
	argv[i++] = "tcg";
	argv[i++] = "-cpu";
	argv[i++] = "max";
	argv[i++] = "-smp";
	argv[i++] = x->smp;
	argv[i++] = "-m";
	argv[i++] = x->mem;
	argv[i++] = "-nodefaults";
	argv[i++] = "-no-user-config";
	argv[i++] = "-display";
	argv[i++] = "none";
	argv[i++] = "-no-reboot";
	argv[i++] = "-kernel";
	argv[i++] = (char *)c->kernel;
	argv[i++] = "-initrd";
	argv[i++] = (char *)c->initrd;
	argv[i++] = "-append";
	/*
	 * noapictimer: under TCG the local APIC timer fails its verification
	 * anyway (the PIT ticks instead) after ~0.15 CPU-s of calibration;
	 * no_timer_check skips the IO-APIC timer test for the same reason.
	 */
	/*
	 * A distribution's kernel (c->pci: its drivers are modules) also
	 * skips what it builds in and a rebuild leaves out: the crypto
	 * self-tests at each algorithm's registration (cryptomgr.notests;
	 * crc32c still computes as shipped) and ACPI (acpi=off: the pc
	 * machine's MP table and PCI routing describe the same devices).
	 * Together they take a third off its boot under TCG.
	 */
	argv[i++] = c->pci ? "console=ttyS0 reboot=t panic=-1 quiet noapictimer no_timer_check "
			     "cryptomgr.notests acpi=off"
			   : "console=ttyS0 reboot=t panic=-1 quiet noapictimer no_timer_check";
	argv[i++] = "-chardev";
	argv[i++] = "stdio,id=con,signal=off";
	argv[i++] = "-serial";
	argv[i++] = "chardev:con";
	if (c->ndisks) {
		/* a batch: the guest finds each case's disk by its serial */
		for (int d = 0; d < c->ndisks; d++) {
			snprintf(x->bdisk[2 * d], sizeof(x->bdisk[0]),
				 "driver=nbd,server.type=unix,server.path=%s,node-name=disk%d,"
				 "cache.direct=off,cache.no-flush=off", c->disks[d].sock, d);
			snprintf(x->bdisk[2 * d + 1], sizeof(x->bdisk[0]),
				 "virtio-blk-%s,drive=disk%d,serial=%s", c->pci ? "pci" : "device", d,
				 c->disks[d].serial);
			argv[i++] = "-blockdev";
			argv[i++] = x->bdisk[2 * d];
			argv[i++] = "-device";
			argv[i++] = x->bdisk[2 * d + 1];
		}
	} else {
		argv[i++] = "-blockdev";
		argv[i++] = x->disk;
		argv[i++] = "-device";
		argv[i++] = c->pci ? "virtio-blk-pci,drive=disk0" : "virtio-blk-device,drive=disk0";
	}
	/*
	 * The source disk is declared after the disk under test, so that the
	 * guest names it vdb; the agent checks which one is read-only before
	 * copy-source writes anything.
	 */
	if (c->source) {
		argv[i++] = "-blockdev";
		argv[i++] = x->src;
		argv[i++] = "-device";
		argv[i++] = c->pci ? "virtio-blk-pci,drive=src0" : "virtio-blk-device,drive=src0";
	}
	argv[i++] = "-device";
	argv[i++] = c->pci ? "virtio-serial-pci" : "virtio-serial-device";
	argv[i++] = "-chardev";
	argv[i++] = x->chan;
	argv[i++] = "-device";
	/* a port, not virtconsole: guest/agent.h says why */
	argv[i++] = "virtserialport,chardev=agent,name=flipbed.agent";
	argv[i] = NULL;
}

static int start_qemu(struct run *x)
{
	char *argv[48 + 4 * FB_VM_MAX_DISKS];
	int out[2], err, rc;

	snprintf(x->log, sizeof(x->log), "%s/qemu.log", x->c->dir);
	err = open(x->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (err < 0 || pipe2(out, O_CLOEXEC)) {
		snprintf(x->r->why, sizeof(x->r->why), "%.400s: %s", x->log, strerror(errno));
		return -1;
	}
	build_argv(x, argv);
	clock_gettime(CLOCK_MONOTONIC, &x->start);
	rc = fb_proc_spawn(&x->qemu, "qemu", argv, -1, out[1], err);
	x->r->qemu = rc ? 0 : x->qemu.pid;
	if (rc)
		snprintf(x->r->why, sizeof(x->r->why), "cannot start %s: %s", argv[0],
			 strerror(errno));
	close(out[1]);
	close(err);
	x->con_fd = out[0];
	return rc;
}

/* QEMU blocks on the agent socket (wait=on) until we connect: no lost line. */
static int connect_agent(struct run *x)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timespec tick = { 0, 2 * 1000 * 1000 };
	int n = snprintf(a.sun_path, sizeof(a.sun_path), "%s/agent.sock", x->c->dir);

	if (n >= (int)sizeof(a.sun_path)) {
		end(x, FB_VM_END_INFRA, "%s: the agent socket path is too long for a unix socket",
		    x->c->dir);
		return -1;
	}
	while (since(&x->start) < x->c->timeout) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a))) {
			x->agent_fd = fd;
			x->r->t.channel = since(&x->start);
			return 0;
		}
		if (fd >= 0)
			close(fd);
		if (fb_proc_interrupted() || fb_proc_reap(&x->qemu, 0))
			return -1;
		nanosleep(&tick, NULL);
	}
	return -1;
}

/* QEMU has exited: take the rest of its output, then say how it ended. */
static void qemu_exited(struct run *x)
{
	char tail[256];

	while (x->con_fd >= 0)
		pump(x, &x->con_fd, &x->con, on_console_line);
	while (x->agent_fd >= 0)
		pump(x, &x->agent_fd, &x->agent, on_agent_line);
	x->r->t.exit = since(&x->start);
	if (WIFEXITED(x->qemu.status) && WEXITSTATUS(x->qemu.status) == 0) {
		if (x->r->t.done >= 0)
			end(x, FB_VM_END_CLEAN, "%s", "the guest finished and rebooted");
		else
			end(x, FB_VM_END_REBOOT, "%s", "the guest rebooted before the agent finished (panic, or init died)");
		return;
	}
	qemu_log_tail(x, tail, sizeof(tail));
	snprintf(x->r->why, sizeof(x->r->why), "qemu %s: %.200s (log %.200s)",
		 fb_proc_describe(&x->qemu), tail, x->log);
	x->done = 1;
	x->r->end = FB_VM_END_INFRA;
}

/* Kill QEMU because of E and take what it had already written. */
static void stop(struct run *x, enum fb_vm_end e, const char *fmt, const char *arg)
{
	end(x, e, fmt, arg);
	fb_proc_kill(&x->qemu);
	x->r->t.exit = since(&x->start);
	while (x->con_fd >= 0)
		pump(x, &x->con_fd, &x->con, on_console_line);
	while (x->agent_fd >= 0)
		pump(x, &x->agent_fd, &x->agent, on_agent_line);
}

/* The first of a batch's nbdkits that has died, or -1. */
static int dead_peer(struct run *x)
{
	for (int i = 0; i < x->c->npeers; i++)
		if (x->c->peers[i] && fb_proc_reap(x->c->peers[i], 0))
			return i;
	return -1;
}

static void check_events(struct run *x)
{
	static char buf[64];

	fb_proc_clear_events();
	if (fb_proc_interrupted()) {
		snprintf(buf, sizeof(buf), "%s", strsignal(fb_proc_interrupted()));
		stop(x, FB_VM_END_INTERRUPTED, "interrupted by %s", buf);
	} else if (x->c->peer && fb_proc_reap(x->c->peer, 0)) {
		stop(x, FB_VM_END_INFRA, "nbdkit %s", fb_proc_describe(x->c->peer));
	} else if (dead_peer(x) >= 0) {
		snprintf(buf, sizeof(buf), "%d", dead_peer(x) + 1);
		stop(x, FB_VM_END_INFRA, "the nbdkit of the batch's disk %s died", buf);
	} else if (fb_proc_reap(&x->qemu, 0)) {
		qemu_exited(x);
	}
}

static void loop(struct run *x)
{
	while (!x->done) {
		struct pollfd p[3] = {
			{ .fd = x->events_fd, .events = POLLIN },
			{ .fd = x->con_fd, .events = POLLIN },
			{ .fd = x->agent_fd, .events = POLLIN },
		};
		double left = x->deadline - since(&x->start);

		if (left <= 0) {
			char t[128];

			/* how long the guest was silent: the classifier's hang evidence */
			snprintf(t, sizeof(t), "no end within the timeout of %g s; ", x->c->timeout);
			if (x->agent_at > 0)
				snprintf(t + strlen(t), sizeof(t) - strlen(t),
					 "the agent's last line %.1f s before", since(&x->start) - x->agent_at);
			else
				snprintf(t + strlen(t), sizeof(t) - strlen(t), "no line from the agent");
			stop(x, FB_VM_END_TIMEOUT, "%s", t);
			break;
		}
		if (poll(p, 3, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			pump(x, &x->con_fd, &x->con, on_console_line);
		if (p[2].revents)
			pump(x, &x->agent_fd, &x->agent, on_agent_line);
		if (p[0].revents || fb_proc_interrupted())
			check_events(x);
	}
}

int fb_vm_run(const struct fb_vm_config *c, const struct fb_vm_hooks *h, struct fb_vm_result *r)
{
	struct run x = { .c = c, .h = h, .r = r, .con_fd = -1, .agent_fd = -1 };

	memset(r, 0, sizeof(*r));
	r->t = (struct fb_vm_times){ -1, -1, -1, -1, -1, -1, -1 };
	if (c->ndisks < 0 || c->ndisks > FB_VM_MAX_DISKS) {
		r->end = FB_VM_END_INFRA;
		snprintf(r->why, sizeof(r->why), "%d disks: a boot takes 1 to %d", c->ndisks,
			 FB_VM_MAX_DISKS);
		return -1;
	}
	x.deadline = c->timeout;
	x.bdisk = xcalloc(2 * (c->ndisks + 1), sizeof(*x.bdisk));
	x.events_fd = fb_proc_events_fd();
	if (start_qemu(&x)) {
		r->end = FB_VM_END_INFRA;
		free(x.bdisk);
		return -1;
	}
	if (connect_agent(&x)) {
		check_events(&x);
		if (!x.done && since(&x.start) >= c->timeout)
			stop(&x, FB_VM_END_TIMEOUT, "%s", "QEMU did not open the agent channel within the timeout");
		if (!x.done)
			stop(&x, FB_VM_END_INFRA, "%s", "QEMU did not open the agent channel");
	}
	loop(&x);
	if (x.qemu.pid)
		fb_proc_kill(&x.qemu);
	r->t.cpu = cpu_seconds(&x.qemu.usage);
	r->qemu = 0;
	if (x.con_fd >= 0)
		close(x.con_fd);
	if (x.agent_fd >= 0)
		close(x.agent_fd);
	free(x.bdisk);
	return 0;
}

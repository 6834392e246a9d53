/* SPDX-License-Identifier: MIT */
/*
 * One guest boot: QEMU (TCG, microvm, PVH vmlinux, -no-reboot) with the
 * agent's initramfs, the disk from an NBD socket and the agent's line
 * channel on a virtio-serial port. fb_vm_run() starts QEMU, feeds the agent its
 * steps, calls the hooks for every console and agent line and at every
 * "wait NAME", and returns when QEMU has exited or was killed. A batch
 * gives the guest one disk per case and, at each "done", the next case's
 * steps (the next hook) until the last, then "halt".
 */
#ifndef FLIPBED_VM_H
#define FLIPBED_VM_H

#include <stdbool.h>
#include <stddef.h>

#include "boot/proc.h"

/*
 * microvm has eight virtio-mmio transports; the agent's channel takes one,
 * so a boot has at most seven disks under test.
 */
#define FB_VM_MAX_DISKS 7

/* One disk of a batch: its NBD socket and the serial number the guest sees. */
struct fb_vm_disk {
	const char *sock;
	const char *serial;
};

/*
 * What the agent runs next: one case's steps, on the disk whose serial is
 * SERIAL (NULL: /dev/vda), within TIMEOUT seconds of being sent.
 */
struct fb_vm_segment {
	const char *serial;
	const char *watch;	/* "OFFSET LENGTH" of its target's bytes, or NULL */
	const char *const *steps;
	int nsteps;
	double timeout;
};

struct fb_vm_config {
	const char *kernel;	/* vmlinux (PVH entry) */
	const char *initrd;	/* build/guest/initramfs.cpio.gz */
	const char *disk_sock;	/* NBD unix socket serving the disk (one case) */
	const struct fb_vm_disk *disks;	/* a batch: one disk per case, instead */
	int ndisks;
	const char *serial;	/* the first case's disk in a batch, or NULL */
	const char *watch;	/* the first case's target bytes, "OFFSET LENGTH"
				 * sent as "watch" for the agent's bioread, or NULL */
	const char *source;	/* NULL, or an image attached read-only as /dev/vdb */
	const char *dir;	/* private directory: agent socket, qemu.log */
	int mem_mb;		/* 256; KASAN kernels need 512 */
	bool pci;		/* a kernel with modules (kernel_modules.h): QEMU's pc
				 * machine with virtio over PCI, not microvm */
	bool coverage;		/* a coverage kernel: each case asks the agent for its
				 * gcov counters ("coverage", coverage/receive.h) */
	int cpus;		/* vCPUs: 0 or 1, one; more run as threads of
				 * their own (multi-threaded TCG), for races */
	double timeout;		/* seconds from QEMU's start to the first "done" */
	const char *const *steps;	/* step texts, sent after "ready" */
	int nsteps;
	struct fb_proc *peer;	/* nbdkit: its death ends the boot as infra */
	struct fb_proc *const *peers;	/* a batch: every case's nbdkit, instead */
	int npeers;
};

struct fb_vm_hooks {
	void *ctx;
	void (*console)(void *ctx, const char *line);	/* serial console */
	void (*agent)(void *ctx, const char *line);	/* every agent line */
	/*
	 * At "wait NAME" (after the agent hook saw the line): arm faults,
	 * then return 0 to let the guest continue, -1 to end the boot
	 * (FB_VM_END_ABORTED). NULL: continue at once.
	 */
	int (*wait)(void *ctx, const char *name);
	/*
	 * At "done" and at "released" (after the agent hook saw the line):
	 * 1 with SEG filled to run another case in this boot, 0 to end it
	 * ("halt": the agent syncs and reboots), 2 to have the agent unmount
	 * what the case left mounted first ("release"; the hook is called
	 * again at "released"). NULL: end it. The timeout restarts for SEG.
	 */
	int (*next)(void *ctx, struct fb_vm_segment *seg);
};

enum fb_vm_end {
	FB_VM_END_CLEAN,		/* agent said "done", then QEMU exited 0 (guest reboot) */
	FB_VM_END_REBOOT,		/* QEMU exited 0 without "done": panic, or init died */
	FB_VM_END_INFRA,		/* QEMU failed to start or died, or the peer died */
	FB_VM_END_TIMEOUT,		/* the timeout passed; QEMU was killed */
	FB_VM_END_INTERRUPTED,	/* SIGINT/SIGTERM/SIGHUP; QEMU was killed */
	FB_VM_END_ABORTED,		/* a wait hook asked to stop; QEMU was killed */
};

/* Seconds since QEMU was started; -1 when the event did not happen. */
struct fb_vm_times {
	double channel;		/* QEMU has connected the agent channel (before the guest runs) */
	double console;		/* first console byte */
	double ready;		/* agent "ready": kernel booted, agent up */
	double done;		/* agent "done": steps finished */
	double exit;		/* QEMU exited (or was killed) */
	double cpu;		/* QEMU's CPU time (user + system), seconds */
	double cpu_ready;	/* ... what of it QEMU had used at "ready"; -1 if unknown */
};

struct fb_vm_result {
	enum fb_vm_end end;
	int passed, failed;	/* from the agent's "done" line */
	struct fb_vm_times t;
	pid_t qemu;		/* QEMU's process while it runs (for the hooks), 0 before */
	char why[512];		/* one line for INFRA/TIMEOUT/...: what happened */
};


/*
 * Boot once (fb_proc_init() must have run). H is required, its members are
 * optional. Returns 0 when QEMU ran (see R->end), -1 if it could not start
 * (R->end is FB_VM_END_INFRA, R->why says why).
 */
int fb_vm_run(const struct fb_vm_config *c, const struct fb_vm_hooks *h, struct fb_vm_result *r);

/* "clean", "reboot", "infra", "timeout", "interrupted", "aborted". */
const char *fb_vm_end_name(enum fb_vm_end e);

/*
 * If LINE is the result line of step N whose text is TEXT ("step N TEXT ->
 * ok DETAIL" or "-> err ERRNAME DETAIL"), put "ok" or ERRNAME in RESULT
 * and return a pointer to the detail ("" if none); else NULL.
 */
const char *fb_vm_step_result(const char *line, int n, const char *text,
			   char *result, size_t len);

#endif

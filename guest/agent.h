/* SPDX-License-Identifier: MIT */
/*
 * The guest agent's internal surface (one file per job: chan.c talks to the
 * host, kmsg.c forwards kernel messages, ops.c runs steps, race.c the
 * concurrent ones, fds.c the descriptors kept across steps, modules.c
 * loads a modular kernel's drivers, pattern.c
 * makes file contents, fserror.c watches for
 * ext4's error reports, bioread.c sees how the kernel read the target,
 * gcov.c hands a coverage kernel's counters back). The protocol is described in README.md.
 */
#ifndef FLIPBED_AGENT_H
#define FLIPBED_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "steps.h"

#define MNT "/mnt"
#define DEFAULT_DISK "/dev/vda"	/* the disk under test when the host names none */
/*
 * The host channel: the virtio-serial port QEMU names so (harness/boot/vm.c),
 * not a virtio console: hvc's put_chars() copies each write with
 * GFP_ATOMIC and throws the output away when that fails, where a port's
 * write allocates as it may sleep (kernel/tests/agent-channel.sh).
 */
#define CHANNEL_NAME "flipbed.agent"

/* Not an errno: a step found content or a size other than the pattern's. */
#define EBADDATA 1000

/* modules.c: load the initramfs's modules, if any; a failure reboots. */
void modules_load(void);

/* agent.c: the disk under test of the current case ("/dev/vda" alone). */
const char *agent_disk(void);

/* chan.c: the line channel to the host (a virtio-serial port). */
int chan_open(const char *path);
__attribute__((format(printf, 1, 2)))
void chan_send(const char *fmt, ...);
/* Next line from the host without its newline; NULL at end of file. */
char *chan_recv(void);

/* kmsg.c: forward /dev/kmsg as "kmsg SEQ LEVEL USEC TEXT" lines. */
int kmsg_start(void);
void kmsg_drain(void);	/* forward what is pending now */
void kmsg_stop(void);	/* drain and end the thread */

/*
 * gcov.c: a coverage kernel's counters: gcov_want() when the host asks
 * ("coverage"), zeroed at the case's start, sent before its "done".
 */
void gcov_want(void);
void gcov_case_start(void);
void gcov_case_end(void);

/* pattern.c: deterministic file contents and digests. */
void pattern_fill(const char *path, uint64_t off, unsigned char *buf, size_t len);
uint64_t fnv1a(uint64_t h, const void *buf, size_t len);
#define FNV1A_INIT 0xcbf29ce484222325ULL

/*
 * ops.c: run step S (step number N, for "out N ..." lines). Returns 0 or an
 * errno value (or EBADDATA); DETAIL gets a short text for the result line.
 */
int op_run(int n, const struct step *s, char *detail, size_t len);
/* Write N bytes of P's pattern to FD, from file offset OFF: 0 or an errno. */
int pattern_write(int fd, const char *p, off_t off, size_t n);

/*
 * fds.c: the descriptors `open P` keeps (at most FD_MAX) for write-fd,
 * fsync-fd and close; fd_close_all at the end of a case.
 */
#define FD_MAX 8
int op_open(const struct step *s, char *detail, size_t len);
int op_write_fd(const struct step *s, char *detail, size_t len);
int op_fsync_fd(const struct step *s);
int op_close(const struct step *s);
void fd_close_all(void);

/* copy.c: the copy-source step (the tree of the read-only disk /dev/vdb). */
int op_copy_source(int n, const struct step *s, char *detail, size_t len);

/*
 * race.c: the inode-update race (attr-race), its check after a remount,
 * one update with a lookup at a chosen moment inside it (update-lookup),
 * and two operations and a sync at chosen moments (overlap).
 */
int op_attr_race(int n, const struct step *s, char *detail, size_t len);
int op_attr_check(int n, const struct step *s, char *detail, size_t len);
int op_update_lookup(int n, const struct step *s, char *detail, size_t len);
int op_overlap(int n, const struct step *s, char *detail, size_t len);

/*
 * fserror.c: ext4's error reports as fanotify FAN_FS_ERROR events of /mnt,
 * sent as "fserror ERRNO INO COUNT" lines (at most FSERROR_MAX a boot).
 * fserror_before/after go around every step: a umount closes the watch, a
 * mount that succeeded opens it, and the events so far are sent.
 * fserror_stop sends the rest and "fserror-dropped K" when some were not.
 */
#define FSERROR_MAX 64
void fserror_before(const struct step *s);
void fserror_after(const struct step *s, int rc);
void fserror_stop(void);

/*
 * The first fanotify event of BUF (LEN bytes, as read(2) gave them): its
 * length in *USED and, for FAN_FS_ERROR, "ERRNO INO COUNT" in LINE.
 */
enum { FSERROR_EVENT, FSERROR_OVERFLOW, FSERROR_OTHER, FSERROR_BAD };
int fserror_decode(const void *buf, size_t len, size_t *used, char *line, size_t linelen);
/* Send the events of BUF as fserror lines, or count them once FSERROR_MAX are sent. */
void fserror_take(const void *buf, size_t len);

/*
 * bioread.c: the block layer's reads of the target's bytes
 * (block:block_bio_queue), with their flags. bioread_watch takes the
 * host's "watch OFFSET LENGTH" for the next case; bioread_start arms the
 * tracepoint when the case starts, bioread_step marks step N's start in
 * the trace, bioread_stop sends "bioread RWBS SECTOR SECTORS STEP" lines
 * (at most BIOREAD_MAX) and "bioread-end K" after its steps.
 */
#define BIOREAD_MAX 64
void bioread_watch(const char *args);
void bioread_start(void);
void bioread_step(int n);
void bioread_stop(void);
/* "OFFSET LENGTH" in bytes, LENGTH > 0; -1 when malformed. */
int bioread_parse(const char *args, unsigned long long *off, unsigned long long *len);
/*
 * Whether trace LINE is a block_bio_queue read on device MAJ:MIN that
 * overlaps sectors [FROM, TO); its "RWBS SECTOR SECTORS" in OUT then.
 */
int bioread_match(const char *line, unsigned maj, unsigned min, unsigned long long from,
		  unsigned long long to, char *out, size_t outlen);

#endif

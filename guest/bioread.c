// SPDX-License-Identifier: MIT
/*
 * How the kernel read the target's bytes, seen from inside the guest. The
 * plugin's witness on the host sees a read of the changed bytes, not who
 * asked for it; the block layer's block_bio_queue tracepoint gives every
 * bio the kernel submits with its flags (rwbs: the operation, R for a
 * read, then A for read-ahead (REQ_RAHEAD), M for metadata, S for sync).
 * A read-ahead fills the cache speculatively (ext4_readdir reads ahead in
 * the block device's own cache, mballoc prefetches block bitmaps); ext4
 * verifies an object when it loads it from there, whatever brought the
 * block in.
 *
 * The host names the target with "watch OFFSET LENGTH" (bytes of the
 * case's disk). At the start of the case the tracepoint is filtered to the
 * disk and to the bios that start at most BIOREAD_REACH sectors before the
 * target's last sector (a bio is at most 1 MiB), enabled, and the buffer
 * emptied; after the case's steps it is disabled and each read bio that
 * overlaps the target is sent as "bioread RWBS SECTOR SECTORS STEP", at
 * most BIOREAD_MAX, then "bioread-end K": K reads not sent (past the bound,
 * or events the ring buffer lost, which may have been reads). STEP is the
 * step the bio was submitted in (0: before the first): the agent writes
 * "flipbed-step N" into the trace (trace_marker) as each step starts, so
 * that the host can leave out the reads made before its fault fired. A
 * kernel without the tracepoint says "bioread-unavailable REASON" instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "agent.h"

#define EVENT "/sys/kernel/tracing/events/block/block_bio_queue/"
#define TRACE "/sys/kernel/tracing/trace"
#define MARKER "/sys/kernel/tracing/trace_marker"
#define STEP_MARK "tracing_mark_write: flipbed-step "
/* a bio is at most 1 MiB: one that reaches the target starts no earlier */
#define BIOREAD_REACH 2048ULL
/* how much of the trace is read: the filter keeps it to a few lines */
#define TRACE_CAP (4 << 20)

static int watching;		/* a "watch" line came for this case */
static unsigned long long first, end;	/* the target's sectors [first, end) */
static int on;			/* the event is enabled for this case */
static unsigned dev_major, dev_minor;

/* Parse "OFFSET LENGTH" (decimal bytes, LENGTH > 0); -1 when malformed. */
int bioread_parse(const char *args, unsigned long long *off, unsigned long long *len)
{
	char *e;

	if (*args < '0' || *args > '9')
		return -1;
	errno = 0;
	*off = strtoull(args, &e, 10);
	if (errno || *e != ' ' || e[1] < '0' || e[1] > '9')
		return -1;
	*len = strtoull(e + 1, &e, 10);
	if (errno || *e || !*len || *off > (1ULL << 60) || *len > (1ULL << 30))
		return -1;
	return 0;
}

void bioread_watch(const char *args)
{
	unsigned long long off, len;

	if (bioread_parse(args, &off, &len)) {
		chan_send("error watch: not OFFSET LENGTH: %s", args);
		return;
	}
	watching = 1;
	first = off / 512;
	end = (off + len + 511) / 512;
}

static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), e = 0;
	size_t n = strlen(text);

	if (fd < 0)
		return errno;
	if (write(fd, text, n) != (ssize_t)n)
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

static void unavailable(const char *what, int e)
{
	char b[16];

	chan_send("bioread-unavailable %s %s", what, errname(e, b, sizeof(b)));
}

void bioread_step(int n)
{
	char text[32];

	if (!on)
		return;
	snprintf(text, sizeof(text), "flipbed-step %d", n);
	if (put(MARKER, text))
		on = 2;	/* the steps of the reads are not known: incomplete */
}

void bioread_start(void)
{
	char filter[160];
	struct stat st;
	int e;

	on = 0;
	if (!watching)
		return;
	if (stat(agent_disk(), &st) || !S_ISBLK(st.st_mode)) {
		unavailable("disk", errno ? errno : ENOTBLK);
		return;
	}
	dev_major = major(st.st_rdev);
	dev_minor = minor(st.st_rdev);
	/* the kernel's dev_t in a filter is MAJOR << 20 | MINOR */
	snprintf(filter, sizeof(filter), "dev == %llu && sector >= %llu && sector < %llu",
		 ((unsigned long long)dev_major << 20) | dev_minor,
		 first > BIOREAD_REACH ? first - BIOREAD_REACH : 0, end);
	if ((e = put(EVENT "filter", filter))) {
		unavailable(EVENT "filter", e);
		return;
	}
	/* emptied before enabling: the buffer holds this case's bios only */
	if ((e = put(TRACE, "")) || (e = put(EVENT "enable", "1"))) {
		unavailable("block_bio_queue", e);
		return;
	}
	on = 1;
}

/*
 * One line of the trace: its bio as "RWBS SECTOR SECTORS" in OUT when it
 * is a read of the target on the disk; 1 then, 0 for any other line.
 */
int bioread_match(const char *line, unsigned maj, unsigned min, unsigned long long from,
		  unsigned long long to, char *out, size_t outlen)
{
	const char *p = strstr(line, " block_bio_queue: ");
	unsigned a, b, nr;
	unsigned long long sector;
	char rwbs[16];
	const char *op;

	if (!p || sscanf(p + 18, "%u,%u %15s %llu + %u", &a, &b, rwbs, &sector, &nr) != 5)
		return 0;
	/* rwbs: F (preflush) first, then the operation */
	op = rwbs[0] == 'F' ? rwbs + 1 : rwbs;
	if (a != maj || b != min || *op != 'R' || !nr || sector >= to || sector + nr <= from)
		return 0;
	snprintf(out, outlen, "%s %llu %u", rwbs, sector, nr);
	return 1;
}

/* "# entries-in-buffer/entries-written: IN/WRITTEN": events the buffer lost. */
static unsigned long long lost_in(const char *line)
{
	unsigned long long in, written;

	if (sscanf(line, "# entries-in-buffer/entries-written: %llu/%llu", &in, &written) == 2 &&
	    written > in)
		return written - in;
	return 0;
}

void bioread_stop(void)
{
	static char buf[TRACE_CAP + 1];
	unsigned long long dropped = 0;
	unsigned sent = 0, step = 0;
	size_t have = 0;
	char *line, *next, *m;
	int fd, e, marks = on == 1;

	if (!on) {
		watching = 0;
		return;
	}
	on = watching = 0;
	if ((e = put(EVENT "enable", "0")))
		chan_send("error bioread: cannot disable block_bio_queue: %s", strerror(e));
	fd = open(TRACE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		unavailable(TRACE, errno);
		return;
	}
	for (;;) {
		ssize_t n = read(fd, buf + have, TRACE_CAP - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			dropped++;	/* what was not read is not known */
		if (n <= 0)
			break;
		have += n;
		if (have == TRACE_CAP)
			break;
	}
	close(fd);
	buf[have] = '\0';
	for (line = buf; line && *line; line = next) {
		char out[64];

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else if (have == TRACE_CAP) {
			/* cut at the cap: what followed is not known */
			dropped++;
			break;
		}
		if (*line == '#') {
			dropped += lost_in(line);
			continue;
		}
		if ((m = strstr(line, STEP_MARK))) {
			step = strtoul(m + strlen(STEP_MARK), NULL, 10);
			continue;
		}
		if (!bioread_match(line, dev_major, dev_minor, first, end, out, sizeof(out)))
			continue;
		if (sent < BIOREAD_MAX) {
			chan_send("bioread %s %u", out, step);
			sent++;
		} else {
			dropped++;
		}
	}
	/* a marker that could not be written: the steps said may be wrong */
	chan_send("bioread-end %llu", dropped + !marks);
}

// SPDX-License-Identifier: MIT
/*
 * A coverage kernel's counters, one case at a time. A kernel built with
 * gcov (kernel/kernels.ini: stock-gcov, patched-gcov) keeps a counter per
 * arc of fs/ext4 and fs/jbd2 and shows them in debugfs as one .gcda file
 * per object. When the host asks ("coverage" before "go"), the agent
 * zeroes them all when the case starts and sends them back when it has
 * ended, before "done", so that a case's counts are its own, in a batch
 * too:
 *
 *   gcov-build HEX                the kernel's GNU build id (/sys/kernel/notes)
 *   gcda PATH SIZE                a file follows: PATH below debugfs's gcov/
 *   gcdata BASE64                 its bytes, at most GCOV_CHUNK a line
 *   gcda-end PATH FNV1A           its end, with the FNV-1a hash of its bytes
 *   gcov-end FILES                every file sent
 *   gcov-unavailable REASON       no counters to send, and why
 *
 * The host checks every line (harness/coverage/receive.c); the agent only
 * reads and reports.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

#define GCOV_ROOT "/sys/kernel/debug/gcov"
#define GCOV_CHUNK 2400		/* bytes a "gcdata" line carries: 3200 characters */
#define GCOV_MAX_FILE (8 << 20)	/* no object's counters come near this */

static int wanted;

void gcov_want(void)
{
	wanted = 1;
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static size_t b64_encode(const unsigned char *in, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = in[i] << 16;

		if (i + 1 < n)
			v |= in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

/* Zero every counter now: the case's counts start here. */
void gcov_case_start(void)
{
	int fd;

	if (!wanted)
		return;
	fd = open(GCOV_ROOT "/reset", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		chan_send("gcov-unavailable cannot open " GCOV_ROOT "/reset: %s", strerror(errno));
		wanted = 0;
		return;
	}
	if (write(fd, "1", 1) != 1) {
		chan_send("gcov-unavailable cannot reset the counters: %s", strerror(errno));
		wanted = 0;
	}
	close(fd);
}

/* The kernel's GNU build id, from its ELF notes, as hex; "" if none. */
static void build_id(char *hex, size_t len)
{
	unsigned char buf[4096];
	ssize_t n;
	size_t at = 0;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	*hex = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && at + 12 <= (size_t)n) {
		unsigned namesz, descsz, type;

		memcpy(&namesz, buf + at, 4);
		memcpy(&descsz, buf + at + 4, 4);
		memcpy(&type, buf + at + 8, 4);
		size_t name = at + 12, desc = name + ((namesz + 3) & ~3u);

		if (desc + descsz > (size_t)n || namesz > 64 || descsz > 64)
			return;
		if (type == 3 && namesz == 4 && !memcmp(buf + name, "GNU", 4)) {
			for (unsigned i = 0; i < descsz && 2 * i + 2 < len; i++)
				snprintf(hex + 2 * i, 3, "%02x", buf[desc + i]);
			return;
		}
		at = desc + ((descsz + 3) & ~3u);
	}
}

/* Send one .gcda file: 0, or -1 when it could not be read (said). */
static int send_file(const char *path, const char *rel)
{
	static unsigned char data[GCOV_MAX_FILE];
	static char line[4 * GCOV_CHUNK / 3 + 8];
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		chan_send("gcov-unavailable cannot open %s: %s", rel, strerror(errno));
		return -1;
	}
	while (n < sizeof(data) && (r = read(fd, data + n, sizeof(data) - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			chan_send("gcov-unavailable cannot read %s: %s", rel, strerror(errno));
			close(fd);
			return -1;
		}
		n += r;
	}
	close(fd);
	if (n == sizeof(data)) {
		chan_send("gcov-unavailable %s is larger than %d bytes", rel, GCOV_MAX_FILE);
		return -1;
	}
	chan_send("gcda %s %zu", rel, n);
	for (size_t at = 0; at < n; at += GCOV_CHUNK) {
		b64_encode(data + at, n - at < GCOV_CHUNK ? n - at : GCOV_CHUNK, line);
		chan_send("gcdata %s", line);
	}
	chan_send("gcda-end %s %016llx", rel,
		  (unsigned long long)fnv1a(FNV1A_INIT, data, n));
	return 0;
}

/* Every .gcda below DIR (REL its name below gcov/); the files sent, or -1. */
static int send_dir(const char *dir, const char *rel, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int files = 0;

	if (!d) {
		chan_send("gcov-unavailable cannot open %s: %s", *rel ? rel : GCOV_ROOT,
			  strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char path[1024], sub[1024];
		size_t l = strlen(e->d_name);
		struct stat st;
		int n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth < 24) {
			n = send_dir(path, sub, depth + 1);
			if (n < 0) {
				closedir(d);
				return -1;
			}
			files += n;
		} else if (S_ISREG(st.st_mode) && l > 5 && !strcmp(e->d_name + l - 5, ".gcda")) {
			if (send_file(path, sub)) {
				closedir(d);
				return -1;
			}
			files++;
		}
	}
	closedir(d);
	return files;
}

/* The case has ended: send its counters. */
void gcov_case_end(void)
{
	char id[160];
	int files;

	if (!wanted)
		return;
	wanted = 0;
	build_id(id, sizeof(id));
	chan_send("gcov-build %s", *id ? id : "none");
	files = send_dir(GCOV_ROOT, "", 0);
	if (files >= 0)
		chan_send("gcov-end %d", files);
}

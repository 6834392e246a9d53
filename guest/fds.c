// SPDX-License-Identifier: MIT
/*
 * Descriptors kept across steps: `open P` opens a file and keeps it, so
 * that a later write-fd or fsync-fd goes through a descriptor opened
 * before whatever happened in between (an error that made the filesystem
 * read-only), as a long-running program's would. One per path, at most
 * FD_MAX; the case's end closes those a close step did not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

static struct {
	char path[STEP_MAX_LINE];	/* as the step named it; "" when free */
	int fd;
} kept[FD_MAX];

static int find(const char *path)
{
	for (int i = 0; i < FD_MAX; i++)
		if (kept[i].path[0] && !strcmp(kept[i].path, path))
			return i;
	return -1;
}

int op_open(const struct step *s, char *detail, size_t len)
{
	char path[STEP_MAX_LINE + 8];
	int i, fd;

	if (find(s->argv[0]) >= 0)
		return EBUSY;
	for (i = 0; i < FD_MAX && kept[i].path[0]; i++)
		;
	if (i == FD_MAX)
		return EMFILE;
	snprintf(path, sizeof(path), "%s%s", MNT, s->argv[0]);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	kept[i].fd = fd;
	snprintf(kept[i].path, sizeof(kept[i].path), "%s", s->argv[0]);
	snprintf(detail, len, "kept=%d", i);
	return 0;
}

int op_write_fd(const struct step *s, char *detail, size_t len)
{
	size_t n = strtoull(s->argv[1], NULL, 10);
	int i = find(s->argv[0]), rc;

	if (i < 0)
		return EBADF;
	if (lseek(kept[i].fd, 0, SEEK_SET) < 0)
		return errno;
	rc = pattern_write(kept[i].fd, s->argv[0], 0, n);
	if (!rc)
		snprintf(detail, len, "bytes=%zu at=0", n);
	return rc;
}

int op_fsync_fd(const struct step *s)
{
	int i = find(s->argv[0]);

	if (i < 0)
		return EBADF;
	return fsync(kept[i].fd) ? errno : 0;
}

int op_close(const struct step *s)
{
	int i = find(s->argv[0]), rc;

	if (i < 0)
		return EBADF;
	rc = close(kept[i].fd) ? errno : 0;
	kept[i].path[0] = '\0';
	return rc;
}

void fd_close_all(void)
{
	for (int i = 0; i < FD_MAX; i++) {
		if (!kept[i].path[0])
			continue;
		close(kept[i].fd);
		kept[i].path[0] = '\0';
	}
}

// SPDX-License-Identifier: MIT
/*
 * Write the initramfs as a newc cpio archive on stdout: the directories the
 * agent mounts on, /dev/console (so the kernel gives /init a console before
 * devtmpfs exists) and /init. Written here rather than with cpio(1) because a
 * device node in an archive would otherwise need root or fakeroot.
 *
 * Usage: mkcpio AGENT > initramfs.cpio
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned ino = 1;

static void pad(size_t n)
{
	for (; n % 4; n++)
		putchar(0);
}

/* One entry: header, name, data; every part padded to 4 bytes. */
static void entry(const char *name, unsigned mode, unsigned rmaj, unsigned rmin,
		  const void *data, size_t size)
{
	size_t namesize = strlen(name) + 1;

	printf("070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
	       ino++, mode, 0, 0, S_ISDIR(mode) ? 2 : 1, 0, size, 0, 0, rmaj, rmin,
	       namesize, 0);
	fwrite(name, 1, namesize, stdout);
	pad(110 + namesize);
	fwrite(data, 1, size, stdout);
	pad(size);
}

static void *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "mkcpio: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		fprintf(stderr, "mkcpio: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*size = n;
	return buf;
}

int main(int argc, char **argv)
{
	static const char *dirs[] = { "dev", "proc", "sys", "mnt" };
	size_t size;
	void *init;

	if (argc != 2) {
		fprintf(stderr, "usage: mkcpio AGENT > initramfs.cpio\n");
		return 2;
	}
	init = slurp(argv[1], &size);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		entry(dirs[i], S_IFDIR | 0755, 0, 0, NULL, 0);
	entry("dev/console", S_IFCHR | 0600, 5, 1, NULL, 0);
	entry("init", S_IFREG | 0755, 0, 0, init, size);
	entry("TRAILER!!!", 0, 0, 0, NULL, 0);
	free(init);
	return fflush(stdout) ? 1 : 0;
}

// SPDX-License-Identifier: MIT
/*
 * The modules of a kernel whose drivers are not built in (Debian's binary
 * kernels, --kernel-image with --modules): the host puts them in the
 * initramfs under /flipbed-modules with a file "order", one "NAME PATH"
 * line each, dependencies first (harness/kernel_modules.c). They are
 * loaded before the agent opens its channel or mounts a disk. Each gets
 * the NAME.PARAM=VALUE words of the kernel command line as its parameters,
 * as modprobe would give them (virtio_mmio's device= lines: QEMU writes
 * microvm's devices there). A module that does not load ends the boot
 * with one console line naming it, which the host reports as infra.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"

#define ORDER "/flipbed-modules/order"
#define CMDLINE_MAX 4096

/* Whether the word W (up to its '.') names module NAME; '-' and '_' are one. */
static int for_module(const char *w, const char *name)
{
	for (; *name; w++, name++)
		if (*w != *name && !((*w == '-' || *w == '_') && (*name == '-' || *name == '_')))
			return 0;
	return *w == '.';
}

/* NAME's parameters from CMDLINE into BUF: "PARAM=VALUE PARAM=VALUE". */
static void params_of(const char *cmdline, const char *name, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const char *w = cmdline; *w;) {
		size_t k = strcspn(w, " \n");
		size_t skip = strlen(name) + 1;

		if (k > skip && for_module(w, name) && n + (k - skip) + 2 < len)
			n += snprintf(buf + n, len - n, "%s%.*s", n ? " " : "", (int)(k - skip), w + skip);
		w += k;
		w += strspn(w, " \n");
	}
}

void modules_load(void)
{
	char cmdline[CMDLINE_MAX] = "", line[512], params[CMDLINE_MAX];
	FILE *order = fopen(ORDER, "r");
	int fd;

	if (!order)
		return;	/* everything is built in */
	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, cmdline, sizeof(cmdline) - 1);

		cmdline[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	while (fgets(line, sizeof(line), order)) {
		char name[128], path[256];

		if (sscanf(line, "%127s %255s", name, path) != 2)
			continue;
		params_of(cmdline, name, params, sizeof(params));
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (syscall(SYS_finit_module, fd, params, 0) && errno != EEXIST)) {
			/* harness/boot/vm.c knows this line */
			int e = errno;

			/* finit_module's ENOENT is a symbol no module loaded before exports */
			fprintf(stderr, "flipbed-agent: module %s (%s): %s%s\n", name, path, strerror(e),
				fd >= 0 && e == ENOENT ? " (an unknown symbol: is a dependency missing from modules.dep?)" : "");
			sync();
			reboot(RB_AUTOBOOT);
			_exit(1);
		}
		close(fd);
	}
	fclose(order);
}

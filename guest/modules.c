// SPDX-License-Identifier: MIT
/*
 * The modules of a kernel whose drivers are not built in (Debian's binary
 * kernels, --kernel-image with --modules): the host puts them in the
 * initramfs under /flipbed-modules with a file "order", one "NAME PATH"
 * line each, dependencies first (harness/kernel_modules.c). They are
 * loaded first of all, before the agent mounts anything or opens its
 * channel, without parameters (the devices are on PCI: nothing to tell
 * them). A module that does not load ends the boot with one console line
 * naming it, which the host reports as infra.
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
void modules_load(void)
{
	char line[512];
	FILE *order = fopen(ORDER, "r");
	int fd;

	if (!order)
		return;	/* everything is built in */
	while (fgets(line, sizeof(line), order)) {
		char name[128], path[256];

		if (sscanf(line, "%127s %255s", name, path) != 2)
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)) {
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

// SPDX-License-Identifier: MIT
/*
 * The results commands on their own (report-cli report|show|diff|merge ...),
 * so run.sh tests them before and independently of build/bin/flipbed.
 */
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "report/report.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "report", cmd_report }, { "show", cmd_show },
		{ "diff", cmd_diff }, { "merge", cmd_merge },
	};

	for (size_t i = 0; argc > 1 && i < sizeof(cmds) / sizeof(*cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "usage: report-cli report|show|diff|merge ARGS...\n");
	return 2;
}

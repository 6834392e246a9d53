// SPDX-License-Identifier: MIT
/*
 * flipbed: the user's command. Dispatches to a subcommand (cmd.h).
 */
#include <ext2fs/ext2_err.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "kernels.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "run", cmd_run, "run scenario files as cases: flipbed run SCENARIO... [--kernel K] [--jobs N] ..." },
	{ "matrix", cmd_matrix, "run a matrix of cases: flipbed matrix quick|ci|full|FILE.mat [options]" },
	{ "report", cmd_report, "rebuild a run's reports: flipbed report DIR [--ktap]; list the expectations no case needed: --loose RUN...; the order property's violations: --order RUN...; the IRON table: --iron RUN; runs side by side: --history DIR... --out OUT" },
	{ "show", cmd_show, "print one case: flipbed show CASE [--run DIR]" },
	{ "diff", cmd_diff, "cases whose outcome changed: flipbed diff DIR1 DIR2 | DIR --by kernel" },
	{ "merge", cmd_merge, "combine shard results: flipbed merge OUT DIR..." },
	{ "campaign", cmd_campaign, "seeded random corruption and its findings: flipbed campaign --seed S --count N [options]" },
	{ "crash", cmd_crash, "power cuts at every flush point of a workload: flipbed crash SCENARIO [--points all|N] [--kernel K] [--out DIR]" },
	{ "bisect", cmd_bisect, "the first kernel commit that changes a case's outcome: flipbed bisect CASE --tree DIR --good REV --bad REV" },
	{ "coverage", cmd_coverage, "which checksum checks and failure branches a run reached: flipbed coverage DIR | --sites KERNEL" },
	{ "image", cmd_image, "run an existing ext4 image as a case: flipbed image IMAGE [--kernel K] [--workload W]" },
	{ "boot", cmd_boot, "boot a kernel on an image and run agent steps (flipbed boot --help)" },
};

static int usage(FILE *f, int status)
{
	fprintf(f, "usage: flipbed COMMAND [ARGS]\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	return status;
}

int main(int argc, char **argv)
{
	/* libext2fs' messages: without the table, "Unknown code ext2 19" */
	initialize_ext2_error_table();
	if (argc < 2)
		return usage(stderr, EXIT_BADINPUT);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout, EXIT_MET);
	/* every command names kernels: a broken registry is reported first */
	if (fb_kernels_load())
		return EXIT_BADINPUT;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "flipbed: unknown command '%s'; accepted:", argv[1]);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(stderr, " %s", commands[i].name);
	fprintf(stderr, "\n");
	return EXIT_BADINPUT;
}

/* SPDX-License-Identifier: MIT */
/*
 * flipbed's subcommands: each takes the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit status.
 */
#ifndef FLIPBED_CMD_H
#define FLIPBED_CMD_H

/* Exit statuses shared by every subcommand. */
enum {
	EXIT_MET = 0,		/* everything met its expectation */
	EXIT_UNMET = 1,		/* something did not */
	EXIT_BADINPUT = 2,	/* bad arguments or input files; nothing ran */
	EXIT_INFRA = 3,		/* QEMU or nbdkit failed */
	EXIT_TIMEOUT = 4,	/* the guest did not finish in time */
	EXIT_INTERRUPTED = 130,	/* SIGINT or SIGTERM: 128 + SIGINT, as a shell reports it */
};

int cmd_boot(int argc, char **argv);		/* boot/boot.c */
int cmd_run(int argc, char **argv);		/* cmd/run_cmd.c */
int cmd_matrix(int argc, char **argv);		/* cmd/run_cmd.c */
int cmd_image(int argc, char **argv);		/* cmd/image_cmd.c */
int cmd_campaign(int argc, char **argv);	/* campaign/campaign.c */
int cmd_crash(int argc, char **argv);		/* crash/crash.c */
int cmd_bisect(int argc, char **argv);		/* bisect/bisect.c */
int cmd_coverage(int argc, char **argv);	/* coverage/coverage.c */

/*
 * The results commands (report/report_cmds.c). report and merge return the
 * run's status (fb_run_status), show 0, diff 0 when no outcome changed and
 * 1 when one did; 2 for bad input everywhere.
 */
int cmd_report(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif

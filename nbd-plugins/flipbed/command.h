/* SPDX-License-Identifier: MIT */
/* flipbed: parse one control socket line into a command.
 *
 * Pure code like rule.c: the control thread and the fuzzer share it.
 */
#ifndef FLIPBED_COMMAND_H
#define FLIPBED_COMMAND_H

#include <stddef.h>

#include "rule.h"

enum fb_cmd_kind { FB_CMD_ADD, FB_CMD_DEL, FB_CMD_CLEAR, FB_CMD_LIST,
		   FB_CMD_STATS, FB_CMD_RELEASE, FB_CMD_FREEZE };

struct fb_cmd {
	enum fb_cmd_kind kind;
	struct fb_rule rule;		/* add: owns rule.bits */
	char id[FB_ID_MAX + 1];		/* del */
};

/* line has no newline. Returns -1 with a reason in err, else 0; call
 * fb_cmd_free after a successful parse.
 */
int fb_cmd_parse(const char *line, struct fb_cmd *cmd, char *err, size_t errlen);
void fb_cmd_free(struct fb_cmd *cmd);

#endif

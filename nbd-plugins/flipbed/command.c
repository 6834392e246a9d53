// SPDX-License-Identifier: MIT
/* flipbed: the control line grammar. One command per line:
 *   add RULE | del ID | clear | list | stats | release
 * Words are separated by spaces or tabs; a trailing \r is ignored so that
 * interactive clients sending CRLF work.
 */
#include <stdio.h>
#include <string.h>

#include "command.h"

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static size_t word_len(const char *p)
{
	size_t n = 0;

	while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\r')
		n++;
	return n;
}

static int end_of_line(const char *p)
{
	p = skip_blanks(p);
	return *p == '\0' || (p[0] == '\r' && p[1] == '\0');
}

static int parse_id(const char *p, struct fb_cmd *cmd, char *err, size_t errlen)
{
	size_t n = word_len(p);

	if (n == 0) {
		snprintf(err, errlen, "del needs a rule id");
		return -1;
	}
	if (n > FB_ID_MAX || !end_of_line(p + n)) {
		snprintf(err, errlen, "del takes one rule id of at most %d bytes",
			 FB_ID_MAX);
		return -1;
	}
	memcpy(cmd->id, p, n);
	cmd->id[n] = '\0';
	return 0;
}

int fb_cmd_parse(const char *line, struct fb_cmd *cmd, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum fb_cmd_kind kind;
	} cmds[] = {
		{ "add", FB_CMD_ADD }, { "del", FB_CMD_DEL },
		{ "clear", FB_CMD_CLEAR }, { "list", FB_CMD_LIST },
		{ "stats", FB_CMD_STATS }, { "release", FB_CMD_RELEASE },
		{ "freeze", FB_CMD_FREEZE },
	};
	const char *p = skip_blanks(line);
	size_t n = word_len(p), i;

	memset(cmd, 0, sizeof *cmd);
	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		if (n == strlen(cmds[i].name) &&
		    memcmp(p, cmds[i].name, n) == 0)
			break;
	}
	if (i == sizeof cmds / sizeof cmds[0]) {
		snprintf(err, errlen, "unknown command '%.*s' (expected add, "
			 "del, clear, list, stats, release or freeze)",
			 (int)(n > 32 ? 32 : n), p);
		return -1;
	}
	cmd->kind = cmds[i].kind;
	p = skip_blanks(p + n);
	switch (cmd->kind) {
	case FB_CMD_ADD:
		return fb_rule_parse(p, &cmd->rule, err, errlen);
	case FB_CMD_DEL:
		return parse_id(p, cmd, err, errlen);
	default:
		if (!end_of_line(p)) {
			snprintf(err, errlen, "%s takes no argument",
				 cmds[i].name);
			return -1;
		}
		return 0;
	}
}

void fb_cmd_free(struct fb_cmd *cmd)
{
	if (cmd->kind == FB_CMD_ADD)
		fb_rule_free(&cmd->rule);
}

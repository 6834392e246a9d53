// SPDX-License-Identifier: MIT
/* flipbed: libFuzzer target for the control-line and rule parsers.
 *
 * Each input is one control line. Whatever parses must format back to a
 * line that parses to an equal rule, and applying it to a window of bytes
 * must stay inside the window (ASan checks that).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "mutate.h"
#include "rule.h"

static void check_rule(const struct fb_rule *r)
{
	static struct fb_changes ch;
	static uint8_t window[4096];
	struct fb_rule again;
	char err[512];
	int n = fb_rule_format(r, NULL, 0);
	char *line = malloc(n + 1);

	fb_rule_format(r, line, n + 1);
	if (fb_rule_parse(line, &again, err, sizeof err) < 0 ||
	    !fb_rule_equal(r, &again))
		abort();
	fb_rule_free(&again);
	free(line);
	ch.n = ch.changed = 0;
	/* A window around the rule's start, cutting it. */
	fb_mutate(r, r->at > 100 ? r->at - 100 : 0, window, sizeof window, &ch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct fb_cmd cmd;
	struct fb_rule r;
	char err[512];

	memcpy(line, data, size);
	line[size] = '\0';
	if (fb_cmd_parse(line, &cmd, err, sizeof err) == 0) {
		if (cmd.kind == FB_CMD_ADD)
			check_rule(&cmd.rule);
		fb_cmd_free(&cmd);
	}
	if (fb_rule_parse(line, &r, err, sizeof err) == 0) {
		check_rule(&r);
		fb_rule_free(&r);
	}
	free(line);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the guest agent's step parser, as the agent runs it on
 * each line from the host and the host runs it on each scenario step. The
 * input is one step line; what parses is judged against the results the
 * agent reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guest/steps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const results[] = { "ok", "EROFS", "EBADMSG", "EIO", "" };
	char *text = malloc(size + 1), why[512];
	struct step s;

	memcpy(text, data, size);
	text[size] = '\0';
	if (!step_parse(text, &s, why, sizeof(why))) {
		step_name(s.id);
		for (size_t i = 0; i < sizeof(results) / sizeof(*results); i++)
			step_met(&s, results[i]);
	}
	errname_canon(text);
	free(text);
	return 0;
}

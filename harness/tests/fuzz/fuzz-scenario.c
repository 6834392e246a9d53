// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the scenario parser. The input is a scenario file,
 * optionally followed by a line "=== set" and --set overrides, one
 * "section.key=value" per line. The file is written into a sandbox laid
 * out like the repository (scenarios/fuzz/input.scn beside
 * scenarios/fixtures/ with real fixtures) and loaded with
 * fb_scenario_load (which reads it with fb_scenario_read); what loads is
 * printed for each kernel, as `flipbed matrix --list` does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kernels.h"
#include "scenario/matrix.h"
#include "scenario/scenario.h"
#include "util.h"

#define MAX_SETS 16

static char input[4096];
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const fixtures[] = { "base", "journal", "bigalloc-64k" };
	const char *box = fuzz_sandbox();
	char dir[4096], from[256], to[4096];

	snprintf(dir, sizeof(dir), "%s/scenarios/fixtures", box);
	snprintf(to, sizeof(to), "%s/scenarios/fuzz", box);
	if (fb_mkdirs(dir) || fb_mkdirs(to))
		abort();
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++) {
		snprintf(from, sizeof(from), "scenarios/fixtures/%s.fix", fixtures[i]);
		snprintf(to, sizeof(to), "%s/%s.fix", dir, fixtures[i]);
		fuzz_copy(from, to);
	}
	snprintf(input, sizeof(input), "%s/scenarios/fuzz/input.scn", box);
	devnull = fopen("/dev/null", "w");
	if (!devnull || fb_kernels_load())
		abort();
	return 0;
}

/* The "section.key=value" lines of [P, P + LEN) into SETS. */
static int parse_sets(const uint8_t *p, size_t len, struct fb_entry *sets)
{
	int n = 0;

	while (len && n < MAX_SETS) {
		const uint8_t *nl = memchr(p, '\n', len);
		size_t k = nl ? (size_t)(nl - p) : len;
		char *line = xstrndup((const char *)p, k);

		if (!fb_entry_parse_set(line, &sets[n]))
			n++;
		free(line);
		p += k + !!nl;
		len -= k + !!nl;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fb_entry sets[MAX_SETS];
	struct fb_scenario *scn;
	const uint8_t *tail;
	size_t head_len, tail_len;
	int nsets;

	fuzz_split(data, size, "=== set", &tail, &head_len, &tail_len);
	fuzz_write(input, data, head_len);
	nsets = parse_sets(tail, tail_len, sets);
	if (!fb_scenario_load(input, sets, nsets, &scn)) {
		for (size_t k = 0; k < fb_nkernels; k++)
			fb_scenario_print(devnull, scn, fb_kernels[k].name);
		fb_scenario_axis(scn, "fault.timing");
		fb_scenario_in_group(scn, "quick");
		fb_scenario_free(scn);
	}
	for (int i = 0; i < nsets; i++) {
		free(sets[i].section);
		free(sets[i].key);
		free(sets[i].value);
	}
	return 0;
}

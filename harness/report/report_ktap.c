// SPDX-License-Identifier: MIT
/*
 * KTAP version 1 (the kernel's Documentation/dev-tools/ktap.rst), one test
 * per case in name order: "ok N NAME", "not ok N NAME # fail: MISMATCH",
 * "not ok N NAME # infra: WHY", "ok N NAME # SKIP WHY", "ok N NAME # SKIP
 * interrupted by SIGNAL...". A failed or infra case is preceded by a
 * "# repro: ..." diagnostic line; a run cut short, after the plan, by
 * "# interrupted: R of P planned cases ran...".
 */
#include <string.h>
#include "report/report_int.h"

int fb_report_ktap_run(const struct fb_run *run, FILE *out)
{
	char why[1024], what[160];

	fprintf(out, "KTAP version 1\n1..%zu\n", run->n);
	if (fb_run_interrupted(run, what, sizeof(what)))
		fprintf(out, "# %s\n", what);
	for (size_t i = 0; i < run->n; i++) {
		const struct fb_case *c = &run->cases[i];
		const char *repro = fb_case_str(c, "repro");

		fb_case_reason(c, why, sizeof(why));
		switch (c->verdict) {
		case FB_VERDICT_PASS:
			fprintf(out, "ok %zu %s\n", i + 1, c->name);
			break;
		case FB_VERDICT_SKIP:
			fprintf(out, "ok %zu %s # SKIP %s\n", i + 1, c->name, why);
			break;
		case FB_VERDICT_INTERRUPTED:	/* why: "interrupted by SIGNAL..." as a rule */
			fprintf(out, "ok %zu %s # SKIP %s%s\n", i + 1, c->name,
				strncmp(why, "interrupted", 11) ? "interrupted: " : "", why);
			break;
		default:
			if (repro)
				fprintf(out, "# repro: %s\n", repro);
			fprintf(out, "not ok %zu %s # %s: %s\n", i + 1, c->name,
				fb_verdict_name(c->verdict), why);
		}
	}
	return 0;
}

int fb_report_ktap(const char *dir, FILE *out)
{
	struct fb_run run;
	int ret = fb_run_load(dir, &run);

	if (!ret)
		ret = fb_report_ktap_run(&run, out);
	fb_run_free(&run);
	return ret;
}

// SPDX-License-Identifier: MIT
/* The oracle's bounds from the environment (limits.h). */
#include <stdlib.h>

#include "judge/limits.h"
#include "util.h"

/* The environment's NAME as a decimal from LO to HI, else DEF. */
static unsigned long long env_limit(const char *name, unsigned long long def,
				    unsigned long long lo, unsigned long long hi)
{
	const char *env = getenv(name);
	unsigned long long v;

	return env && !fb_parse_dec(env, hi, &v) && v >= lo ? v : def;
}

int fb_oracle_seconds(void)
{
	static int secs = -1;

	if (secs < 0)
		secs = (int)env_limit("FLIPBED_ORACLE_SECONDS", 120, 0, 86400);
	return secs;
}

unsigned long fb_oracle_mib(void)
{
	static unsigned long mib;

	if (!mib)
		mib = (unsigned long)env_limit("FLIPBED_ORACLE_MIB", 1024, 64, 1ul << 20);
	return mib;
}

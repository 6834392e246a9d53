// SPDX-License-Identifier: MIT
/* vocab.h: object types from the corruptor library, steps from the agent's table. */
#include <string.h>

#include "flipbed-ext4.h"
#include "guest/steps.h"
#include "scenario/vocab.h"

bool fb_vocab_type_known(const char *name)
{
	enum fbx_type t;

	return fbx_type_parse(name, &t) == 0;
}

const char *fb_vocab_type_list(void)
{
	static char list[1024];

	if (!list[0]) {
		size_t n = 0;
		for (int t = 0; t < FBX_TYPE_COUNT && n < sizeof(list); t++)
			n += snprintf(list + n, sizeof(list) - n, "%s%s", t ? ", " : "",
				      fbx_type_name(t));
	}
	return list;
}

bool fb_vocab_step_valid(const char *text, char *why, size_t whylen)
{
	struct step s;

	if (step_parse(text, &s, why, whylen))
		return false;
	/* a case goes on after its workload (probe, umount, next mount) */
	if (s.id == STEP_CRASH) {
		snprintf(why, whylen, "crash ends the guest; it is a step of flipbed boot, not of a scenario");
		return false;
	}
	return true;
}

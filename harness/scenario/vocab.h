/* SPDX-License-Identifier: MIT */
/*
 * Names that other components own, as the scenario parser checks them:
 * object types come from the corruptor library, workload steps from the guest
 * agent's step table (guest/steps.def). One place, so a scenario is
 * validated on the host before anything boots.
 */
#ifndef FLIPBED_VOCAB_H
#define FLIPBED_VOCAB_H

#include <stdbool.h>
#include <stddef.h>

/* Is NAME an object type the corruptor knows? */
bool fb_vocab_type_known(const char *name);
/* All object type names, comma-separated, for error messages. */
const char *fb_vocab_type_list(void);
/* Is TEXT a valid guest step? If not, WHY says what is wrong and what is accepted. */
bool fb_vocab_step_valid(const char *text, char *why, size_t whylen);

#endif

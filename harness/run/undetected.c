// SPDX-License-Identifier: MIT
/* Why a fault went undetected (undetected.h). */
#include <string.h>

#include "run/undetected.h"

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static long long num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* The seq of WITNESS's first KIND ("read", "overwrite") record of FAULT, or -1. */
static long long first_seen(const json_t *witness, long long fault, const char *kind)
{
	long long best = -1;
	size_t i;
	json_t *w;

	json_array_foreach(witness, i, w)
		if (num(w, "fault") == fault && !strcmp(str(w, "witness"), kind) &&
		    (best < 0 || num(w, "seq") < best))
			best = num(w, "seq");
	return best;
}

bool fb_fault_was_read(const json_t *faults, const json_t *witness, bool *ret_overwritten)
{
	bool overwritten = false;
	size_t i;
	json_t *f;

	json_array_foreach(faults, i, f) {
		long long seq = num(f, "seq"), r, o;

		/*
		 * A fault applied in a read: the guest received the changed
		 * bytes, or (eio) the error in their place.
		 */
		if (!strcmp(str(f, "op"), "read")) {
			*ret_overwritten = false;
			return true;
		}
		if (seq < 0)
			continue;
		r = first_seen(witness, seq, "read");
		o = first_seen(witness, seq, "overwrite");
		if (r >= 0 && (o < 0 || r < o)) {
			*ret_overwritten = false;
			return true;
		}
		overwritten |= o >= 0;
	}
	*ret_overwritten = overwritten;
	return false;
}

enum fb_undetected fb_undetected_cause(const json_t *target, bool breaks_csum,
				       const json_t *faults, const json_t *witness)
{
	const char *type = str(target, "type");
	bool overwritten;

	if (!json_array_size(faults))
		return FB_UNDET_NA;
	if (!fb_fault_was_read(faults, witness, &overwritten))
		return overwritten ? FB_UNDET_OVERWRITTEN : FB_UNDET_NEVER_READ;
	if (!strcmp(type, "data"))
		return FB_UNDET_DATA_BLOCK;
	if (!strcmp(type, "superblock-backup"))
		return FB_UNDET_REDUNDANT_COPY;
	if (json_is_true(json_object_get(target, "reseal")))
		return FB_UNDET_RESEALED;
	if (!breaks_csum)
		return FB_UNDET_NOT_COVERED;
	return FB_UNDET_UNEXPLAINED;
}

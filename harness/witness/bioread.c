// SPDX-License-Identifier: MIT
/* The read-ahead witness on the host side (bioread.h). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "witness/bioread.h"

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The block layer's rwbs letters (blk_fill_rwbs), a read among them. */
static int parse_rwbs(const char *s, char *out, size_t len)
{
	size_t n = strlen(s);
	const char *op = s[0] == 'F' ? s + 1 : s;

	if (!n || n >= len || *op != 'R' || strspn(s, "FRAMSED") != n)
		return -1;
	memcpy(out, s, n + 1);
	return 0;
}

static int parse_bio(struct fb_bioread *b, char *args)
{
	char *sector = strchr(args, ' '), *count, *step;
	struct fb_bioread_bio bio;
	unsigned long long v, st;

	if (!sector)
		return -1;
	*sector++ = '\0';
	if (!(count = strchr(sector, ' ')))
		return -1;
	*count++ = '\0';
	if (!(step = strchr(count, ' ')))
		return -1;
	*step++ = '\0';
	if (parse_rwbs(args, bio.rwbs, sizeof(bio.rwbs)) ||
	    fb_parse_dec(sector, 1ULL << 55, &bio.sector) ||
	    fb_parse_dec(count, 65536, &v) || !v || fb_parse_dec(step, 65536, &st))
		return -1;
	bio.sectors = v;
	bio.step = st;
	if (b->n == FB_BIOREAD_MAX)
		b->dropped++;
	else
		b->bio[b->n++] = bio;
	return 0;
}

static int parse_line(struct fb_bioread *b, char *line)
{
	unsigned long long v;
	size_t n;

	if (b->ended || b->unavailable)
		return -1;
	if (starts(line, "bioread "))
		return parse_bio(b, line + strlen("bioread "));
	if (starts(line, "bioread-end ")) {
		if (fb_parse_dec(line + strlen("bioread-end "), 1ULL << 48, &v))
			return -1;
		b->ended = true;
		b->dropped += v;
		return 0;
	}
	if (starts(line, "bioread-unavailable ")) {
		const char *r = line + strlen("bioread-unavailable ");

		n = strlen(r);
		if (!n || n >= sizeof(b->reason))
			return -1;
		for (const char *p = r; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				return -1;
		b->unavailable = true;
		memcpy(b->reason, r, n + 1);
		return 0;
	}
	return -1;
}

int fb_bioread_line(struct fb_bioread *b, const char *line)
{
	char buf[FB_BIOREAD_LINE_MAX + 1];
	size_t n;

	if (!starts(line, "bioread"))
		return 0;
	n = strnlen(line, sizeof(buf));
	if (n == sizeof(buf) || parse_line(b, memcpy(buf, line, n + 1))) {
		b->malformed++;
		return -1;
	}
	return 1;
}

unsigned fb_bioread_fault_step(long long fault_ns, const long long *step_ns, int nsteps)
{
	for (int i = 0; i < nsteps; i++)
		if (step_ns[i] > 0 && step_ns[i] >= fault_ns)
			return i + 1;
	return nsteps + 1;
}

json_t *fb_bioread_json(const struct fb_bioread *b, bool watched, unsigned fault_step)
{
	json_t *o, *bios;
	const char *state;

	if (!watched)
		return NULL;
	if (b->unavailable)
		return json_pack("{s:s, s:s}", "state", "unavailable", "reason", b->reason);
	state = b->ended && !b->dropped && !b->malformed ? "complete" : "incomplete";
	bios = json_array();
	for (int i = 0; i < b->n; i++)
		json_array_append_new(bios, json_pack("{s:s, s:I, s:i, s:i}", "rwbs", b->bio[i].rwbs,
						      "sector", (json_int_t)b->bio[i].sector,
						      "sectors", (int)b->bio[i].sectors,
						      "step", (int)b->bio[i].step));
	o = json_pack("{s:s, s:o, s:I, s:i}", "state", state, "bios", bios,
		      "dropped", (json_int_t)b->dropped, "fault_step", (int)fault_step);
	if (b->malformed)
		json_object_set_new(o, "malformed", json_integer(b->malformed));
	return o;
}

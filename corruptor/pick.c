// SPDX-License-Identifier: MIT
/*
 * pick.c --- choose the bits to hit from a seed, turn a patch into plugin
 * rules, or write it into the image.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbx-int.h"

#define MAX_RANGES	4096
#define MAX_BITS	4096

/* splitmix64: tiny, well mixed, and the same on every platform. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

errcode_t fbx_region_parse(const char *s, enum fbx_region *ret_region,
			   const char **ret_field)
{
	*ret_field = NULL;
	if (!strcmp(s, "covered"))
		*ret_region = FBX_REGION_COVERED;
	else if (!strcmp(s, "csum"))
		*ret_region = FBX_REGION_CSUM;
	else if (!strcmp(s, "any"))
		*ret_region = FBX_REGION_ANY;
	else if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyz_0123456789") ==
		       strlen(s)) {
		*ret_region = FBX_REGION_FIELD;
		*ret_field = s;
	} else {
		return FBX_ET_BAD_REGION;
	}
	return 0;
}

errcode_t fbx_on_parse(const char *s, enum fbx_on *ret_on)
{
	static const char *const names[] = { "rest", "read", "write" };
	unsigned k;

	for (k = 0; k < 3; k++)
		if (!strcmp(s, names[k])) {
			*ret_on = k;
			return 0;
		}
	return FBX_ET_BAD_ON;
}

static errcode_t region_ranges(struct fbx_map *m, size_t i,
			       const struct fbx_pick_opts *o, uint64_t *rng,
			       struct fbx_range *r, size_t *ret_n)
{
	const struct fbx_object *obj = &m->obj[i];
	errcode_t err;
	size_t n = 0, k;

	switch (o->region) {
	case FBX_REGION_COVERED:
		for (k = 0; k < obj->ncovered; k++)
			r[n++] = obj->covered[k];
		break;
	case FBX_REGION_CSUM:
		for (k = 0; k < obj->ncsum; k++)
			r[n++] = obj->csum[k];
		break;
	case FBX_REGION_ANY:
		r[n++] = (struct fbx_range){ obj->offset, obj->length };
		break;
	case FBX_REGION_FIELD:
		if (!o->field)
			return FBX_ET_BAD_FIELD;
		err = fbx_field_ranges(m, i, o->field, r, MAX_RANGES, &n);
		if (err)
			return err;
		/* a repeated field: one instance, chosen by the seed */
		if (n > 1) {
			r[0] = r[next_rand(rng) % n];
			n = 1;
		}
		break;
	}
	*ret_n = n;
	return 0;
}

/* Bit B of the concatenated ranges, as an image offset and a bit. */
static void locate_bit(const struct fbx_range *r, size_t n, uint64_t b,
		       uint64_t *ret_off, unsigned *ret_bit)
{
	size_t k;

	for (k = 0; k < n && b >= r[k].len * 8; k++)
		b -= r[k].len * 8;
	*ret_off = r[k].off + b / 8;
	*ret_bit = b % 8;
}

errcode_t fbx_object_pick(fbx_map_t m, size_t i,
			  const struct fbx_pick_opts *o,
			  struct fbx_patch **ret_patch)
{
	struct fbx_range *r = malloc(MAX_RANGES * sizeof(*r));
	uint64_t rng = o->seed ^ 0x666c6970626564ULL, total = 0;
	uint64_t chosen[MAX_BITS];
	struct fbx_patch *p = NULL;
	unsigned nb = 0, k;
	errcode_t err;
	size_t n;
	int ok;

	if (!r)
		return ENOMEM;
	if (i >= m->n) {
		err = EINVAL;
		goto fail;
	}
	err = region_ranges(m, i, o, &rng, r, &n);
	if (err)
		goto fail;
	for (k = 0; k < n; k++)
		total += r[k].len * 8;
	err = FBX_ET_EMPTY_REGION;
	if (!total)
		goto fail;
	err = FBX_ET_BAD_BITS;
	if (!o->bits || o->bits > MAX_BITS || o->bits > total)
		goto fail;
	err = ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto fail;
	while (nb < o->bits) {
		uint64_t b = next_rand(&rng) % total;

		for (k = 0; k < nb && chosen[k] != b; k++)
			;
		if (k == nb)
			chosen[nb++] = b;
	}
	for (k = 0; k < nb; k++) {
		uint64_t off;
		unsigned bit;
		uint8_t old;

		locate_bit(r, n, chosen[k], &off, &bit);
		err = fbx_pread(m, off, &old, 1);
		if (!err)
			err = fbx_patch_set(p, off, old, old ^ (1u << bit), 0);
		if (err)
			goto fail;
	}
	if (o->reseal) {
		err = fbx_seal(m, i, p, 1, &ok);
		/*
		 * The sealed object must verify: when the flipped field is what
		 * locates the checksum (a dirent's rec_len on the way to the
		 * tail, an htree's info_length or limit), libext2fs seals
		 * somewhere else, and the change would not be a resealed one.
		 * When a header field puts the checksum outside the block,
		 * before or after the change, fbx_map_explain() says which.
		 */
		if (!err)
			err = fbx_seal(m, i, p, 0, &ok);
		if (err == FBX_ET_UNVERIFIABLE)
			goto fail;
		if (err || !ok) {
			err = FBX_ET_RESEAL;
			goto fail;
		}
	}
	free(r);
	*ret_patch = p;
	return 0;
fail:
	free(r);
	fbx_patch_free(p);
	return err;
}

static errcode_t add_rule(char ***rules, size_t *n, char *rule)
{
	char **nr = realloc(*rules, (*n + 2) * sizeof(char *));

	if (!nr) {
		free(rule);
		return ENOMEM;
	}
	nr[(*n)++] = rule;
	nr[*n] = NULL;
	*rules = nr;
	return 0;
}

/* One rule per run of adjacent changed bytes. */
errcode_t fbx_patch_rules(const struct fbx_patch *p, enum fbx_on on,
			  char ***ret_rules)
{
	static const char *const ons[] = { "rest", "read", "write" };
	char **rules = calloc(1, sizeof(char *));
	size_t nrules = 0, k = 0, e, j;
	errcode_t err = 0;

	if (!rules)
		return ENOMEM;
	while (k < p->n && !err) {
		char *s = NULL, *bits = NULL;
		size_t sz = 0;
		FILE *f;

		for (e = k + 1; e < p->n && p->b[e].off == p->b[e - 1].off + 1;
		     e++)
			;
		f = open_memstream(&bits, &sz);
		if (!f) {
			err = ENOMEM;
			break;
		}
		for (j = k; j < e; j++) {
			unsigned x = p->b[j].old ^ p->b[j].new, bit;

			for (bit = 0; bit < 8; bit++)
				if (x & (1u << bit))
					fprintf(f, "%s%zu", ftell(f) ? "," : "",
						(j - k) * 8 + bit);
		}
		fclose(f);
		if (asprintf(&s, "on=%s at=0x%" PRIx64 " len=%zu flip=%s",
			     ons[on], p->b[k].off, e - k, bits) < 0)
			s = NULL;
		free(bits);
		err = s ? add_rule(&rules, &nrules, s) : ENOMEM;
		k = e;
	}
	if (err) {
		fbx_rules_free(rules);
		return err;
	}
	*ret_rules = rules;
	return 0;
}

void fbx_rules_free(char **rules)
{
	char **r;

	if (!rules)
		return;
	for (r = rules; *r; r++)
		free(*r);
	free(rules);
}

errcode_t fbx_patch_apply(fbx_map_t m, const struct fbx_patch *p)
{
	size_t k;
	uint8_t cur;
	errcode_t err;

	if (!m->rw)
		return FBX_ET_READ_ONLY;
	for (k = 0; k < p->n; k++) {
		err = fbx_pread(m, p->b[k].off, &cur, 1);
		if (err)
			return err;
		if (cur != p->b[k].old)
			return FBX_ET_STALE;
	}
	for (k = 0; k < p->n; k++)
		if (pwrite(m->fd, &p->b[k].new, 1, p->b[k].off) != 1)
			return errno ? errno : FBX_ET_SHORT_IO;
	return fsync(m->fd) ? errno : 0;
}

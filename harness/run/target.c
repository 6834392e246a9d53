// SPDX-License-Identifier: MIT
/*
 * A scenario's target as plugin rules (target.h), found with the corruptor
 * library (corruptor/flipbed-ext4.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flipbed-ext4.h"
#include "run/badobj.h"
#include "run/target.h"

static const char *on_word(enum fb_timing t)
{
	return t == FB_TIMING_REST ? "rest" : t == FB_TIMING_WRITE ? "write" : "read";
}

/* " count=N" for transient timings; nothing for rest and sticky reads. */
static void count_words(const struct fb_scenario *s, char *buf, size_t len)
{
	buf[0] = '\0';
	if (s->timing == FB_TIMING_READ || s->timing == FB_TIMING_WRITE)
		snprintf(buf, len, " count=%lld", s->count ? s->count : 1);
}

__attribute__((format(printf, 2, 3)))
static void add_rule(struct fb_target *t, const char *fmt, ...)
{
	va_list ap;
	char *r;

	if (t->nrules == FB_TARGET_MAX_RULES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&r, fmt, ap) >= 0)
		t->rules[t->nrules++] = r;
	va_end(ap);
}

/* The action words of a whole-range rule: anything but a chosen bit flip. */
static void range_action(const struct fb_scenario *s, char *buf, size_t len)
{
	if (!strcmp(s->action, "flip"))
		snprintf(buf, len, "flip-random=%u seed=%llu", s->bits,
			 (unsigned long long)s->seed);
	else if (!strcmp(s->action, "random"))
		snprintf(buf, len, "random seed=%llu", (unsigned long long)s->seed);
	else
		snprintf(buf, len, "%s", s->action);
}

/* N of torn=N, or 0 for any other action. */
static long long torn_sectors(const struct fb_scenario *s)
{
	return strncmp(s->action, "torn=", 5) ? 0 : strtoll(s->action + 5, NULL, 10);
}

/*
 * The rule's range: "at=OFF len=LEN". A torn=N rule with a range no longer
 * than its N sectors would never tear a write of just the range, and the
 * plugin refuses it: such a rule is given at= alone, so that it tears
 * every write longer than N sectors that touches the range's first byte
 * (for an object within one sector, every write of it).
 */
static void range_words(const struct fb_scenario *s, unsigned long long at,
			unsigned long long len, char *buf, size_t size)
{
	long long torn = torn_sectors(s);

	if (torn && len <= (unsigned long long)torn * 512)
		snprintf(buf, size, "at=%llu", at);
	else
		snprintf(buf, size, "at=%llu len=%llu", at, len);
}

/* Whether bytes [OFF, OFF + LEN) meet a checksum of O or the bytes it covers. */
static bool hits_csum(const struct fbx_object *o, uint64_t off, uint64_t len)
{
	if (!o->ncsum)
		return false;
	for (unsigned i = 0; i < o->ncsum; i++)
		if (off < o->csum[i].off + o->csum[i].len && o->csum[i].off < off + len)
			return true;
	for (unsigned i = 0; i < o->ncovered; i++)
		if (off < o->covered[i].off + o->covered[i].len && o->covered[i].off < off + len)
			return true;
	return false;
}

/*
 * Whether O's checksum, or bytes it covers, lie outside O: a write of O
 * lost (dropped, or failed) while the rest reached the disk tears it (an
 * inode's base and its i_checksum_hi; a bitmap and its descriptor).
 */
static bool tears(const struct fbx_object *o)
{
	const struct fbx_range *r[] = { o->csum, o->covered };
	unsigned n[] = { o->ncsum, o->ncovered };

	if (!o->ncsum)
		return false;
	for (int k = 0; k < 2; k++)
		for (unsigned i = 0; i < n[k]; i++)
			if (r[k][i].off < o->offset ||
			    r[k][i].off + r[k][i].len > o->offset + o->length)
				return true;
	return false;
}

/*
 * The csum-error line a patched kernel prints for the fault, when it breaks
 * the object's checksum: bytes that checksum covers, or the checksum
 * itself, changed in place (a flip, zeros, ones, random bytes) and not
 * resealed, or a write of an object whose checksum reaches past it lost.
 * An EIO on read leaves the object whole, a lost write of a whole block
 * stale but valid; a misdirected write breaks another object's checksum.
 * A torn=N write breaks an object longer than N sectors (the tear is
 * counted from the start of the request, and ext4 writes a metadata block
 * as a request of its own, so its first N sectors are new and the rest
 * old), and like a lost write one whose checksum lies outside it.
 */
static void expect_csum_error(const struct fb_scenario *s, const struct fbx_object *obj,
			      const struct fbx_patch *patch, struct fb_target *t)
{
	bool hit = false;

	if (s->reseal)
		return;
	if (patch) {
		for (size_t i = 0; i < patch->n && !hit; i++)
			hit = hits_csum(obj, patch->b[i].off, 1);
	} else if (!strcmp(s->action, "zero") || !strcmp(s->action, "ones") ||
		   !strcmp(s->action, "random")) {
		hit = hits_csum(obj, obj->offset, obj->length);
	} else if (!strcmp(s->action, "drop") ||
		   (!strcmp(s->action, "eio") && s->timing == FB_TIMING_WRITE)) {
		hit = tears(obj);
	} else if (torn_sectors(s)) {
		hit = tears(obj) || obj->length > (uint64_t)torn_sectors(s) * 512;
	}
	if (!hit || fb_csum_object_expect(s->type, obj->ino, obj->group, obj->pblk,
					  &t->csum_error))
		return;
	t->breaks_csum = true;
}

/* The target record's "csum_error": the line's fields, or null. */
static void record_csum_error(struct fb_target *t)
{
	char buf[160];

	if (!t->breaks_csum) {
		json_object_set_new(t->record, "csum_error", json_null());
		return;
	}
	fb_csum_object_format(&t->csum_error, buf, sizeof(buf));
	json_object_set_new(t->record, "csum_error", json_string(buf));
}

static int object_rules(const struct fb_scenario *s, const char *image,
			struct fb_target *t, char *why, size_t len)
{
	struct fbx_selector sel = FBX_SELECTOR_INIT;
	struct fbx_pick_opts po = FBX_PICK_OPTS_INIT;
	struct fbx_patch *patch = NULL;
	char count[32], action[96], range[64], **rules = NULL;
	fbx_map_t map;
	size_t *idx = NULL, n = 0;
	errcode_t err;
	int rc = -1;

	err = fbx_map_open(image, 0, &map);
	if (err) {
		snprintf(why, len, "corruptor: cannot map %s: %s", image, fbx_error_message(err));
		return -1;
	}
	fbx_type_parse(s->type, &sel.type);
	sel.path = s->path;
	sel.ino = s->ino > 0 ? s->ino : 0;
	sel.group = s->group;
	err = fbx_map_find(map, &sel, &idx, &n);
	if (err) {
		snprintf(why, len, "target %s: %s", s->type, fbx_map_explain(map));
		goto out;
	}
	if ((size_t)s->index >= n) {
		snprintf(why, len, "target %s: index %lld, but the image has %zu such objects",
			 s->type, s->index, n);
		goto out;
	}
	const struct fbx_object *obj = fbx_map_object(map, idx[s->index]);
	count_words(s, count, sizeof(count));
	t->record = json_pack("{s:s, s:s?, s:I, s:I, s:I, s:I, s:I, s:s, s:b, s:s, s:s}",
			      "type", s->type, "path", obj->path, "ino", (json_int_t)obj->ino,
			      "group", (json_int_t)obj->group, "pblk", (json_int_t)obj->pblk,
			      "offset", (json_int_t)obj->offset, "length", (json_int_t)obj->length,
			      "region", s->region, "reseal", s->reseal,
			      "timing", fb_timing_name(s->timing), "arm", s->arm);
	if (strcmp(s->action, "flip")) {
		range_action(s, action, sizeof(action));
		range_words(s, obj->offset, obj->length, range, sizeof(range));
		add_rule(t, "on=%s %s %s%s", on_word(s->timing), range, action, count);
		expect_csum_error(s, obj, NULL, t);
		record_csum_error(t);
		rc = 0;
		goto out;
	}
	po.bits = s->bits;
	po.seed = s->seed;
	po.reseal = s->reseal;
	err = fbx_region_parse(s->region, &po.region, &po.field);
	if (!err)
		err = fbx_object_pick(map, idx[s->index], &po, &patch);
	if (!err)
		err = fbx_patch_rules(patch, s->timing == FB_TIMING_REST ? FBX_ON_REST :
				      s->timing == FB_TIMING_WRITE ? FBX_ON_WRITE : FBX_ON_READ, &rules);
	if (err) {
		snprintf(why, len, "target %s region %s: %s", s->type, s->region,
			 fbx_error_message(err));
		goto out;
	}
	for (char **r = rules; *r; r++)
		add_rule(t, "%s%s", *r, count);
	expect_csum_error(s, obj, patch, t);
	record_csum_error(t);
	rc = 0;
out:
	fbx_rules_free(rules);
	fbx_patch_free(patch);
	free(idx);
	fbx_map_close(map);
	return rc;
}

/*
 * An image from elsewhere run with no fault: the objects whose checksums
 * already fail in it stand in for a fault. Each is watched (the plugin's
 * watch rule, named by the object's id) and listed in the record's
 * "verify"; an image libext2fs cannot open gets the reason instead.
 */
static void watch_bad_objects(const char *image, struct fb_target *t)
{
	json_t *verify, *o;
	char why[512];
	size_t i;

	if (fb_badobj_find(image, FB_BADOBJ_MAX, &verify, why, sizeof(why))) {
		json_object_set_new(t->record, "verify", json_pack("{s:s}", "error", why));
		return;
	}
	json_array_foreach(json_object_get(verify, "objects"), i, o)
		if (json_is_true(json_object_get(o, "watched")))
			add_rule(t, "watch at=%lld len=%lld id=%s",
				 json_integer_value(json_object_get(o, "offset")),
				 json_integer_value(json_object_get(o, "length")),
				 json_string_value(json_object_get(o, "id")));
	t->watch_only = t->nrules > 0;
	json_object_set_new(t->record, "verify", verify);
}

int fb_target_rules(const struct fb_scenario *s, const char *image,
		    struct fb_target *ret, char *why, size_t len)
{
	char count[32], action[96], range[64];
	struct stat st;

	memset(ret, 0, sizeof(*ret));
	if (!strcmp(s->type, "none")) {
		/* no fault: the workload and e2fsck alone (a control case) */
		ret->record = json_pack("{s:s}", "type", "none");
		if (s->image)
			watch_bad_objects(image, ret);
		return 0;
	}
	if (strcmp(s->type, "range")) {
		if (object_rules(s, image, ret, why, len) == 0)
			return 0;
		fb_target_free(ret);
		return -1;
	}
	if (stat(image, &st) == 0 && s->range_at + s->range_len > st.st_size) {
		snprintf(why, len, "target range at=%lld len=%lld: past the end of the %lld-byte image",
			 s->range_at, s->range_len, (long long)st.st_size);
		return -1;
	}
	count_words(s, count, sizeof(count));
	range_action(s, action, sizeof(action));
	range_words(s, s->range_at, s->range_len, range, sizeof(range));
	add_rule(ret, "on=%s %s %s%s", on_word(s->timing), range, action, count);
	ret->record = json_pack("{s:s, s:I, s:I, s:s, s:s}", "type", "range",
				"offset", (json_int_t)s->range_at,
				"length", (json_int_t)s->range_len,
				"timing", fb_timing_name(s->timing), "arm", s->arm);
	return 0;
}

void fb_target_free(struct fb_target *t)
{
	for (int i = 0; i < t->nrules; i++)
		free(t->rules[i]);
	json_decref(t->record);
	memset(t, 0, sizeof(*t));
}

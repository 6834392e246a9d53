// SPDX-License-Identifier: MIT
/* The failing objects of an image, as watch rules (badobj.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flipbed-ext4.h"
#include "run/badobj.h"
#include "util.h"

#define PATH_MAX_SHOWN 256	/* an owner's path from the image, at most */

/*
 * The owner's path when it is UTF-8 without control characters (it is
 * printed on a terminal) and short enough to show, else null.
 */
static json_t *path_json(const char *path)
{
	if (!path || strlen(path) > PATH_MAX_SHOWN || !fb_utf8_valid(path))
		return json_null();
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return json_null();
	return json_string(path);
}

/*
 * The record of object I, the K-th that fails. "watched" is false for one
 * without bytes within the image's SIZE (an unverifiable object past a
 * short image's end): the plugin refuses a rule past the disk's end.
 */
static json_t *object_json(fbx_map_t map, size_t i, enum fbx_verdict v, size_t k,
			   uint64_t size)
{
	const struct fbx_object *o = fbx_map_object(map, i);
	bool inside = o->length && o->offset < size && o->length <= size - o->offset;
	char id[24];

	snprintf(id, sizeof(id), "bad%zu", k + 1);
	return json_pack("{s:s, s:s, s:s, s:I, s:I, s:o, s:I, s:I, s:I, s:b}", "id", id,
			 "type", fbx_type_name(o->type), "verdict", fbx_verdict_name(v),
			 "ino", (json_int_t)o->ino, "group", (json_int_t)o->group,
			 "path", path_json(o->path), "pblk", (json_int_t)o->pblk,
			 "offset", (json_int_t)o->offset, "length", (json_int_t)o->length,
			 "watched", inside);
}

int fb_badobj_find(const char *image, size_t max, json_t **ret, char *why, size_t len)
{
	enum fbx_verdict *v = NULL;
	json_t *objects = json_array();
	size_t nbad = 0, failed = 0, unwatched = 0, n, i;
	struct stat st;
	fbx_map_t map;
	errcode_t err;

	*ret = NULL;
	if ((err = fbx_map_open(image, 0, &map))) {
		snprintf(why, len, "verify %s: %s", image, fbx_error_message(err));
		json_decref(objects);
		return -1;
	}
	if ((err = fbx_map_verify(map, &v, &nbad))) {
		snprintf(why, len, "verify %s: %s", image, fbx_error_message(err));
		fbx_map_close(map);
		json_decref(objects);
		return -1;
	}
	if (stat(image, &st))
		st.st_size = 0;
	n = fbx_map_count(map);
	for (i = 0; i < n; i++) {
		json_t *o;

		if (v[i] != FBX_CSUM_BAD && v[i] != FBX_CSUM_UNVERIFIABLE)
			continue;
		if (failed++ >= max) {
			unwatched++;
			continue;
		}
		o = object_json(map, i, v[i], failed - 1, (uint64_t)st.st_size);
		unwatched += !json_is_true(json_object_get(o, "watched"));
		json_array_append_new(objects, o);
	}
	*ret = json_pack("{s:I, s:o, s:I}", "failed", (json_int_t)failed, "objects", objects,
			 "unwatched", (json_int_t)unwatched);
	free(v);
	fbx_map_close(map);
	return 0;
}

void fb_badobj_print(FILE *f, const json_t *verify)
{
	const json_t *o;
	size_t i;

	json_array_foreach(json_object_get(verify, "objects"), i, o) {
		const char *path = json_string_value(json_object_get(o, "path"));

		fprintf(f, "flipbed image: checksum fails: %s %s ino=%lld group=%lld pblk=%lld offset=%lld length=%lld%s%s%s\n",
			json_string_value(json_object_get(o, "type")),
			json_string_value(json_object_get(o, "verdict")),
			json_integer_value(json_object_get(o, "ino")),
			json_integer_value(json_object_get(o, "group")),
			json_integer_value(json_object_get(o, "pblk")),
			json_integer_value(json_object_get(o, "offset")),
			json_integer_value(json_object_get(o, "length")),
			path ? " path=" : "", path ? path : "",
			json_is_true(json_object_get(o, "watched")) ? "" : " (not watched: past the image's end)");
	}
	fprintf(f, "flipbed image: %lld objects fail their checksum; %lld left unwatched (at most %d are watched)\n",
		json_integer_value(json_object_get(verify, "failed")),
		json_integer_value(json_object_get(verify, "unwatched")), FB_BADOBJ_MAX);
}

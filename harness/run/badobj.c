// SPDX-License-Identifier: MIT
/* The failing objects of an image, as watch rules (badobj.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flipbed-ext4.h"
#include "run/badobj.h"
#include "util.h"

#define PATH_MAX_SHOWN 256	/* an owner's path from the image, at most */
#define FREE_SCAN_MAX (1u << 22)	/* inodes the free-inode scan reads, at most */

/* What was found so far: the records kept, and the counts. */
struct found {
	json_t *objects;
	size_t max, failed, unwatched;
	uint64_t size;		/* the image file's bytes */
};

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
 * Count failing object O (a new record) and keep it among the first MAX,
 * named badK. "watched" is false for one without bytes within the image
 * (an unverifiable object past a short image's end, a hostile inode table
 * location): the plugin refuses a rule past the disk's end.
 */
static void found_add(struct found *f, json_t *o)
{
	json_int_t off = json_integer_value(json_object_get(o, "offset"));
	json_int_t len = json_integer_value(json_object_get(o, "length"));
	bool inside = off >= 0 && len > 0 && (uint64_t)off < f->size &&
		      (uint64_t)len <= f->size - (uint64_t)off;
	char id[24];

	if (f->failed++ >= f->max) {
		f->unwatched++;
		json_decref(o);
		return;
	}
	snprintf(id, sizeof(id), "bad%zu", f->failed);
	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "watched", json_boolean(inside));
	f->unwatched += !inside;
	json_array_append_new(f->objects, o);
}

/* Object I of the corruptor's map, whose verdict is V. */
static json_t *object_json(fbx_map_t map, size_t i, enum fbx_verdict v)
{
	const struct fbx_object *o = fbx_map_object(map, i);

	return json_pack("{s:s, s:s, s:I, s:I, s:o, s:I, s:I, s:I, s:n}",
			 "type", fbx_type_name(o->type), "verdict", fbx_verdict_name(v),
			 "ino", (json_int_t)o->ino, "group", (json_int_t)o->group,
			 "path", path_json(o->path), "pblk", (json_int_t)o->pblk,
			 "offset", (json_int_t)o->offset, "length", (json_int_t)o->length,
			 "note");
}

/* Free inode INO, whose checksum fails, as an object record. */
static json_t *free_inode_json(ext2_filsys fs, ext2_ino_t ino)
{
	unsigned isize = EXT2_INODE_SIZE(fs->super), bsize = fs->blocksize;
	dgrp_t group = (ino - 1) / fs->super->s_inodes_per_group;
	uint64_t index = (ino - 1) % fs->super->s_inodes_per_group;
	uint64_t table = ext2fs_inode_table_loc(fs, group);
	uint64_t off = table * bsize + index * isize;

	return json_pack("{s:s, s:s, s:I, s:I, s:n, s:I, s:I, s:I, s:s}",
			 "type", "inode", "verdict", "bad", "ino", (json_int_t)ino,
			 "group", (json_int_t)group, "path", "pblk", (json_int_t)(off / bsize),
			 "offset", (json_int_t)off, "length", (json_int_t)isize,
			 "note", "not in use");
}

/*
 * The inodes not in use (their bit clear in the inode bitmap) that hold
 * something and fail their checksum. The corruptor maps the inodes in use
 * only; e2fsck's pass 1 checks every initialised inode, and e2fsprogs'
 * own tests carry such an image (f_deleted_inode_bad_csum). The scan
 * skips the groups' uninitialised tails (EXT2_SF_DO_LAZY) and reads at
 * most FREE_SCAN_MAX inodes. Returns "complete", or why it stopped, in WHY.
 */
static const char *free_inodes(ext2_filsys fs, struct found *f, char *why, size_t len)
{
	unsigned isize = EXT2_INODE_SIZE(fs->super), scanned = 0;
	ext2_inode_scan scan;
	ext2_ino_t ino = 0;
	errcode_t err;
	char *inode;

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return "complete";
	if ((!fs->inode_map && (err = ext2fs_read_inode_bitmap(fs))) ||
	    (err = ext2fs_open_inode_scan(fs, 0, &scan))) {
		snprintf(why, len, "error: %s", fbx_error_message(err));
		return why;
	}
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE | EXT2_SF_DO_LAZY, 0);
	inode = xrealloc(NULL, isize);
	snprintf(why, len, "complete");
	for (;;) {
		err = ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)inode, isize);
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err) {
			snprintf(why, len, "error at inode %u: %s", ino, fbx_error_message(err));
			break;
		}
		if (!ino)
			break;
		if (++scanned > FREE_SCAN_MAX) {
			snprintf(why, len, "stopped after %u inodes", FREE_SCAN_MAX);
			break;
		}
		/* an all-zero inode verifies: a never-used one is not listed */
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino) &&
		    !ext2fs_inode_csum_verify(fs, ino, (struct ext2_inode_large *)inode))
			found_add(f, free_inode_json(fs, ino));
	}
	free(inode);
	ext2fs_close_inode_scan(scan);
	return why;
}

int fb_badobj_find(const char *image, size_t max, json_t **ret, char *why, size_t len)
{
	struct found f = { .objects = json_array(), .max = max };
	enum fbx_verdict *v = NULL;
	size_t nbad = 0, n, i;
	char scan[160];
	const char *free_scan;
	struct stat st;
	fbx_map_t map;
	errcode_t err;

	*ret = NULL;
	if ((err = fbx_map_open(image, 0, &map))) {
		snprintf(why, len, "verify %s: %s", image, fbx_error_message(err));
		json_decref(f.objects);
		return -1;
	}
	if ((err = fbx_map_verify(map, &v, &nbad))) {
		snprintf(why, len, "verify %s: %s", image, fbx_error_message(err));
		fbx_map_close(map);
		json_decref(f.objects);
		return -1;
	}
	f.size = stat(image, &st) ? 0 : (uint64_t)st.st_size;
	n = fbx_map_count(map);
	for (i = 0; i < n; i++)
		if (v[i] == FBX_CSUM_BAD || v[i] == FBX_CSUM_UNVERIFIABLE)
			found_add(&f, object_json(map, i, v[i]));
	free_scan = free_inodes(fbx_map_fs(map), &f, scan, sizeof(scan));
	*ret = json_pack("{s:I, s:o, s:I, s:s}", "failed", (json_int_t)f.failed,
			 "objects", f.objects, "unwatched", (json_int_t)f.unwatched,
			 "free_inodes", free_scan);
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
		const char *note = json_string_value(json_object_get(o, "note"));

		fprintf(f, "flipbed image: checksum fails: %s %s ino=%lld group=%lld pblk=%lld offset=%lld length=%lld%s%s%s%s%s\n",
			json_string_value(json_object_get(o, "type")),
			json_string_value(json_object_get(o, "verdict")),
			json_integer_value(json_object_get(o, "ino")),
			json_integer_value(json_object_get(o, "group")),
			json_integer_value(json_object_get(o, "pblk")),
			json_integer_value(json_object_get(o, "offset")),
			json_integer_value(json_object_get(o, "length")),
			path ? " path=" : "", path ? path : "",
			note ? " (" : "", note ? note : "", note ? ")" : "");
		if (!json_is_true(json_object_get(o, "watched")))
			fprintf(f, "flipbed image:   not watched: its bytes are not all within the image\n");
	}
	fprintf(f, "flipbed image: %lld objects fail their checksum; %lld left unwatched (at most %d are watched); free inodes: %s\n",
		json_integer_value(json_object_get(verify, "failed")),
		json_integer_value(json_object_get(verify, "unwatched")), FB_BADOBJ_MAX,
		json_string_value(json_object_get(verify, "free_inodes")));
}

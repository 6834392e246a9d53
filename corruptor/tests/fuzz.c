// SPDX-License-Identifier: MIT
/*
 * fuzz.c --- libFuzzer target for the corruptor library.
 *
 * Each input is the start of an ext4 image; the rest of the image reads as
 * zeros, up to the size its superblock gives (at most MAX_IMAGE, so a
 * larger claim also tries the truncated-image path). The image is mapped,
 * every record printed as text and JSON, every checksum verified, and for
 * the first records of each type every field's ranges and a resealed pick
 * are computed. libext2fs may refuse an input; the corruptor must neither
 * crash, read outside its buffers (ASan, UBSan) nor hang (-timeout).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flipbed-ext4.h"

#define MAX_IMAGE	(8 << 20)
#define PICKS_PER_TYPE	4

static int fd = -1;
static char path[64];
static FILE *devnull;

static uint32_t le32_at(const uint8_t *b)
{
	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

/* s_blocks_count_lo x block size, within [SIZE, MAX_IMAGE]. */
static uint64_t image_size(const uint8_t *data, size_t size)
{
	uint64_t blocks, fs;
	uint32_t log;

	if (size < 2048)
		return size;
	blocks = le32_at(data + 1024 + 4);
	log = le32_at(data + 1024 + 24);
	if (log > 6)
		return size;
	fs = blocks << (10 + log);
	if (fs > MAX_IMAGE)
		fs = MAX_IMAGE;
	return fs < size ? size : fs;
}

static int write_image(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		fd = memfd_create("fbx-fuzz", 0);
		devnull = fopen("/dev/null", "w");
		if (fd < 0 || !devnull)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) !=
					  (ssize_t)size))
		abort();
	return ftruncate(fd, image_size(data, size));
}

/* Every field of object I, then a resealed flip of its covered bytes. */
static void pick_all(fbx_map_t m, size_t i)
{
	const char *const *f = fbx_type_fields(fbx_map_object(m, i)->type);
	struct fbx_pick_opts o = FBX_PICK_OPTS_INIT;
	struct fbx_patch *p;
	char **rules;

	o.seed = i;
	for (; f && *f; f++) {
		o.region = FBX_REGION_FIELD;
		o.field = *f;
		if (!fbx_object_pick(m, i, &o, &p))
			fbx_patch_free(p);
	}
	o.region = FBX_REGION_COVERED;
	o.field = NULL;
	o.reseal = 1;
	o.bits = 3;
	if (fbx_object_pick(m, i, &o, &p))
		return;
	if (!fbx_patch_rules(p, FBX_ON_READ, &rules))
		fbx_rules_free(rules);
	fbx_patch_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned picked[FBX_TYPE_COUNT] = { 0 };
	struct fbx_selector sel = FBX_SELECTOR_INIT;
	uint64_t isize, fsize;
	enum fbx_verdict *v;
	size_t i, n, past, nbad, *idx;
	fbx_map_t m;

	if (write_image(data, size) || fbx_map_open(path, 0, &m))
		return 0;
	fbx_map_check_size(m, &isize, &fsize, &past);
	fbx_map_print(m, FBX_FMT_TEXT, devnull);
	fbx_map_print(m, FBX_FMT_JSON, devnull);
	if (!fbx_map_verify(m, &v, &nbad)) {
		for (i = 0; i < fbx_map_count(m); i++) {
			if (v[i] != FBX_CSUM_UNVERIFIABLE)
				continue;
			fbx_object_verify(m, i, &v[i]);
			fbx_verdict_print(m, i, v[i], fbx_map_explain(m),
					  FBX_FMT_JSON, devnull);
		}
		free(v);
	}
	for (i = 0; i < fbx_map_count(m); i++) {
		enum fbx_type t = fbx_map_object(m, i)->type;

		if (picked[t]++ < PICKS_PER_TYPE)
			pick_all(m, i);
	}
	sel.type = FBX_DIR_LEAF;
	sel.path = "/d";
	if (!fbx_map_find(m, &sel, &idx, &n))
		free(idx);
	fbx_map_close(m);
	return 0;
}

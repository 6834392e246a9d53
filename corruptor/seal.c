/*
 * seal.c --- checksums of map records, checked and recomputed with
 * libext2fs' own functions (csum.c, orphan.c) on the bytes of the image,
 * optionally with a pending patch applied: verification is sealing with
 * nothing to change.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fbx-int.h"

static size_t patch_find(const struct fbx_patch *p, uint64_t off)
{
	size_t lo = 0, hi = p ? p->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->b[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

errcode_t fbx_patch_set(struct fbx_patch *p, uint64_t off, uint8_t old,
			uint8_t new, int csum)
{
	size_t k = patch_find(p, off);

	if (k < p->n && p->b[k].off == off) {
		p->b[k].new = new;
		p->b[k].csum |= csum;
		if (p->b[k].new == p->b[k].old) {
			memmove(&p->b[k], &p->b[k + 1],
				(p->n - k - 1) * sizeof(p->b[0]));
			p->n--;
		}
		return 0;
	}
	if (old == new)
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct fbx_byte_change *b = realloc(p->b, cap * sizeof(*b));

		if (!b)
			return ENOMEM;
		p->b = b;
		p->cap = cap;
	}
	memmove(&p->b[k + 1], &p->b[k], (p->n - k) * sizeof(p->b[0]));
	p->b[k] = (struct fbx_byte_change){ off, old, new, !!csum };
	p->n++;
	return 0;
}

void fbx_patch_free(struct fbx_patch *p)
{
	if (p) {
		free(p->b);
		free(p);
	}
}

errcode_t fbx_read_patched(struct fbx_map *m, const struct fbx_patch *p,
			   uint64_t off, void *buf, size_t len)
{
	errcode_t err = fbx_pread(m, off, buf, len);
	size_t k;

	if (err)
		return err;
	for (k = patch_find(p, off); p && k < p->n && p->b[k].off < off + len;
	     k++)
		((uint8_t *)buf)[p->b[k].off - off] = p->b[k].new;
	return 0;
}

/* Record in P every byte of BUF (image offset OFF) that differs. */
errcode_t fbx_patch_diff(struct fbx_map *m, struct fbx_patch *p, uint64_t off,
			 const void *buf, size_t len, int csum)
{
	uint8_t *orig = malloc(len);
	const uint8_t *nb = buf;
	errcode_t err;
	size_t k;

	if (!orig)
		return ENOMEM;
	err = fbx_pread(m, off, orig, len);
	for (k = 0; !err && k < len; k++) {
		size_t at = patch_find(p, off + k);
		int pending = at < p->n && p->b[at].off == off + k;

		if (nb[k] != orig[k] || pending)
			err = fbx_patch_set(p, off + k, orig[k], nb[k], csum);
	}
	free(orig);
	return err;
}

/* Run FN with group G's descriptor in memory replaced by the image's. */
struct gd_swap {
	void *slot;
	unsigned size;
	unsigned char save[EXT2_MAX_DESC_SIZE];
};

static errcode_t gd_load(struct fbx_map *m, const struct fbx_patch *p,
			 dgrp_t g, struct gd_swap *s)
{
	s->slot = ext2fs_group_desc(m->fs, m->fs->group_desc, g);
	s->size = EXT2_DESC_SIZE(m->fs->super);
	memcpy(s->save, s->slot, s->size);
	return fbx_read_patched(m, p, m->obj[m->gd_rec[g]].offset, s->slot,
				s->size);
}

static void gd_restore(struct gd_swap *s)
{
	memcpy(s->slot, s->save, s->size);
}

static errcode_t seal_gd(struct fbx_map *m, const struct fbx_object *o,
			 struct fbx_patch *p, int set, int *ret_ok)
{
	struct gd_swap s;
	errcode_t err = gd_load(m, p, o->group, &s);

	if (!err) {
		*ret_ok = ext2fs_group_desc_csum_verify(m->fs, o->group);
		if (set) {
			ext2fs_group_desc_csum_set(m->fs, o->group);
			err = fbx_patch_diff(m, p, o->offset, s.slot, s.size, 1);
		}
	}
	gd_restore(&s);
	return err;
}

/* Bitmap checksums live in the descriptor, itself checksummed. */
static errcode_t seal_bitmap(struct fbx_map *m, const struct fbx_object *o,
			     struct fbx_patch *p, int set, int *ret_ok)
{
	int block = o->type == FBX_BLOCK_BITMAP;
	int size = o->covered[0].len;
	char *buf = malloc(m->bs);
	struct gd_swap s;
	errcode_t err;

	if (!buf)
		return ENOMEM;
	err = fbx_read_patched(m, p, o->offset, buf, m->bs);
	if (!err)
		err = gd_load(m, p, o->group, &s);
	if (err) {
		free(buf);
		return err;
	}
	*ret_ok = block ?
		ext2fs_block_bitmap_csum_verify(m->fs, o->group, buf, size) :
		ext2fs_inode_bitmap_csum_verify(m->fs, o->group, buf, size);
	if (set) {
		if (block)
			ext2fs_block_bitmap_csum_set(m->fs, o->group, buf, size);
		else
			ext2fs_inode_bitmap_csum_set(m->fs, o->group, buf, size);
		ext2fs_group_desc_csum_set(m->fs, o->group);
		err = fbx_patch_diff(m, p, m->obj[m->gd_rec[o->group]].offset,
				     s.slot, s.size, 1);
	}
	gd_restore(&s);
	free(buf);
	return err;
}

/* Bytes [OFF, OFF+LEN) checked/sealed in place by libext2fs. */
static errcode_t seal_buffer(struct fbx_map *m, const struct fbx_object *o,
			     uint64_t off, size_t len, struct fbx_patch *p,
			     int set, int *ret_ok)
{
	ext2_filsys fs = m->fs;
	char *buf = calloc(1, len < m->bs ? m->bs : len);
	errcode_t err;

	if (!buf)
		return ENOMEM;
	err = fbx_read_patched(m, p, off, buf, len);
	if (err)
		goto out;
	switch (o->type) {
	case FBX_SUPERBLOCK:
	case FBX_SUPERBLOCK_BACKUP:
		*ret_ok = ext2fs_superblock_csum_verify(fs, (void *)buf);
		if (set)
			err = ext2fs_superblock_csum_set(fs, (void *)buf);
		break;
	case FBX_INODE:
	case FBX_INODE_EXTRA:
	case FBX_INLINE_DATA:
		*ret_ok = ext2fs_inode_csum_verify(fs, o->ino, (void *)buf);
		if (set)
			err = ext2fs_inode_csum_set(fs, o->ino, (void *)buf);
		break;
	case FBX_EXTENT_INDEX:
	case FBX_EXTENT_LEAF:
		*ret_ok = ext2fs_extent_block_csum_verify(fs, o->ino,
							  (void *)buf);
		if (set)
			err = ext2fs_extent_block_csum_set(fs, o->ino,
							   (void *)buf);
		break;
	case FBX_DIR_LEAF:
	case FBX_DX_ROOT:
	case FBX_DX_NODE:
		*ret_ok = ext2fs_dir_block_csum_verify(fs, o->ino, (void *)buf);
		if (set)
			err = ext2fs_dir_block_csum_set(fs, o->ino, (void *)buf);
		break;
	case FBX_XATTR_BLOCK:
		*ret_ok = ext2fs_ext_attr_block_csum_verify(fs, o->ino, o->pblk,
							    (void *)buf);
		if (set)
			err = ext2fs_ext_attr_block_csum_set(fs, o->ino,
							     o->pblk,
							     (void *)buf);
		break;
	case FBX_MMP:
		*ret_ok = ext2fs_mmp_csum_verify(fs, (void *)buf);
		if (set)
			err = ext2fs_mmp_csum_set(fs, (void *)buf);
		break;
	case FBX_ORPHAN_BLOCK:
		*ret_ok = ext2fs_orphan_file_block_csum_verify(fs, o->ino,
							      o->pblk, buf);
		if (set)
			err = ext2fs_orphan_file_block_csum_set(fs, o->ino,
								o->pblk, buf);
		break;
	default:
		*ret_ok = 1;
		break;
	}
	if (!err && set)
		err = fbx_patch_diff(m, p, off, buf, len, 1);
out:
	free(buf);
	return err;
}

/* Where the inode holding inode-part record O starts. */
static uint64_t inode_start(const struct fbx_object *o)
{
	if (o->type == FBX_INODE_EXTRA)
		return o->offset - EXT2_GOOD_OLD_INODE_SIZE;
	if (o->type == FBX_INLINE_DATA)
		return o->offset - offsetof(struct ext2_inode, i_block);
	return o->offset;
}

errcode_t fbx_seal(struct fbx_map *m, size_t i, struct fbx_patch *p, int set,
		   int *ret_ok)
{
	const struct fbx_object *o = &m->obj[i];
	struct fbx_patch empty = { 0, 0, NULL };
	errcode_t err;

	if (!p)
		p = &empty;
	*ret_ok = 1;
	if (!o->ncsum)
		return 0;
	switch (o->type) {
	case FBX_GROUP_DESC:
		err = seal_gd(m, o, p, set, ret_ok);
		break;
	case FBX_BLOCK_BITMAP:
	case FBX_INODE_BITMAP:
		err = seal_bitmap(m, o, p, set, ret_ok);
		break;
	case FBX_JOURNAL_SB:
	case FBX_JOURNAL_DESCRIPTOR:
	case FBX_JOURNAL_COMMIT:
	case FBX_JOURNAL_REVOKE:
	case FBX_JOURNAL_DATA:
		err = fbx_journal_seal(m, i, p, set, ret_ok);
		break;
	case FBX_INODE:
	case FBX_INODE_EXTRA:
	case FBX_INLINE_DATA:
		err = seal_buffer(m, o, inode_start(o), m->isize, p, set,
				  ret_ok);
		break;
	case FBX_SUPERBLOCK:
	case FBX_SUPERBLOCK_BACKUP:
	case FBX_MMP:
		err = seal_buffer(m, o, o->offset, o->length, p, set, ret_ok);
		break;
	default:
		err = seal_buffer(m, o, o->offset, m->bs, p, set, ret_ok);
		break;
	}
	free(empty.b);
	return err;
}

errcode_t fbx_object_verify(fbx_map_t m, size_t i,
			    enum fbx_verdict *ret_verdict)
{
	const struct fbx_object *o = &m->obj[i];
	errcode_t err;
	int ok;

	if (!o->ncsum) {
		*ret_verdict = FBX_CSUM_NONE;
		return 0;
	}
	/* A pointer that leads outside the filesystem: nothing to check. */
	if (o->pblk >= ext2fs_blocks_count(m->fs->super)) {
		*ret_verdict = FBX_CSUM_SKIPPED;
		return 0;
	}
	err = fbx_seal(m, i, NULL, 0, &ok);
	if (!err)
		*ret_verdict = ok ? FBX_CSUM_OK : FBX_CSUM_BAD;
	return err;
}

errcode_t fbx_map_verify(fbx_map_t m, enum fbx_verdict **ret_verdicts,
			 size_t *ret_nbad)
{
	enum fbx_verdict *v = calloc(m->n ? m->n : 1, sizeof(*v));
	size_t i, nbad = 0;
	errcode_t err = 0;

	if (!v)
		return ENOMEM;
	for (i = 0; i < m->n && !err; i++) {
		const struct fbx_object *o = &m->obj[i];
		enum fbx_verdict pv = o->parent == FBX_NONE ? FBX_CSUM_OK :
				      v[o->parent];

		if (pv == FBX_CSUM_BAD || pv == FBX_CSUM_SKIPPED)
			v[i] = FBX_CSUM_SKIPPED;
		else if (o->flags & FBX_OBJ_CSUM_SHARED)
			v[i] = FBX_CSUM_SHARED;
		else
			err = fbx_object_verify(m, i, &v[i]);
		nbad += v[i] == FBX_CSUM_BAD;
	}
	if (err) {
		free(v);
		return err;
	}
	*ret_nbad = nbad;
	if (ret_verdicts)
		*ret_verdicts = v;
	else
		free(v);
	return 0;
}

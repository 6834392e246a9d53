// SPDX-License-Identifier: MIT
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

/*
 * The tail search of libext2fs (__get_dirent_tail) reads the rec_len of
 * the entry that ends the block: 4 to 6 bytes past it. Buffers handed to
 * its directory checksum functions are this much longer, zeroed.
 */
#define DIR_SLACK	8

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

/*
 * libext2fs' checksum functions locate the checksum from header fields
 * and read there without checking them against the block size:
 * ext2fs_extent_block_csum_verify() takes eh_max on trust (0xffff sends
 * it 786 KiB past a 4 KiB block) and the directory tail search follows
 * rec_len wherever it leads. So the fields are checked here first, the
 * way libext2fs reads them. Each check returns 1 when libext2fs can find
 * the checksum inside the block, else 0 with WHY naming the field, its
 * value and what would be accepted.
 */
static int extent_layout_ok(struct fbx_map *m, const unsigned char *b,
			    char *why, size_t len)
{
	unsigned max = fbx_le16(b + offsetof(struct ext3_extent_header,
					     eh_max));
	unsigned fit = (m->bs - sizeof(struct ext3_extent_header) -
			sizeof(struct ext3_extent_tail)) /
		       sizeof(struct ext3_extent);
	unsigned long long tail = sizeof(struct ext3_extent_header) +
				  (unsigned long long)max *
				  sizeof(struct ext3_extent);

	if (max <= fit)
		return 1;
	snprintf(why, len, "eh_max %u puts et_checksum at byte %llu of a "
		 "%u-byte block (eh_max at most %u)", max, tail, m->bs, fit);
	return 0;
}

/* A directory leaf: the rec_len chain must land on the 12-byte tail. */
static int dirent_tail_ok(struct fbx_map *m, const unsigned char *b,
			  char *why, size_t len)
{
	unsigned top = m->bs - sizeof(struct ext2_dir_entry_tail);
	unsigned pos = 0, rl;

	while (pos < top) {
		rl = fbx_le16(b + pos + 4);
		if (rl < 8 || rl % 4) {
			snprintf(why, len, "rec_len %u of the entry at byte %u "
				 "(wanted a multiple of 4, at least 8)", rl,
				 pos);
			return 0;
		}
		if (pos + rl > m->bs) {
			snprintf(why, len, "rec_len %u of the entry at byte %u "
				 "runs past the %u-byte block", rl, pos, m->bs);
			return 0;
		}
		pos += rl;
	}
	if (pos != top) {
		snprintf(why, len, "the entries end at byte %u, not at the "
			 "checksum tail at byte %u", pos, top);
		return 0;
	}
	if (fbx_le32(b + top) || fbx_le16(b + top + 4) != 12 ||
	    fbx_le16(b + top + 6) != EXT2_DIR_NAME_LEN_CSUM) {
		snprintf(why, len, "no checksum tail at byte %u (inode %u, "
			 "rec_len %u, name_len 0x%04x; wanted 0, 12, 0x%04x)",
			 top, fbx_le32(b + top), fbx_le16(b + top + 4),
			 fbx_le16(b + top + 6), EXT2_DIR_NAME_LEN_CSUM);
		return 0;
	}
	return 1;
}

/* An htree root or node: its header, then limit and count. */
static int dx_layout_ok(struct fbx_map *m, const unsigned char *b,
			char *why, size_t len)
{
	unsigned rl = fbx_le16(b + 4), coff, limit, count, fit;

	if (rl == m->bs && !fbx_le16(b + 6)) {
		coff = 8;
	} else if (rl == 12) {
		rl = fbx_le16(b + 12 + 4);
		if (rl != m->bs - 12) {
			snprintf(why, len, "the rec_len of '..' is %u (an "
				 "htree root's is %u)", rl, m->bs - 12);
			return 0;
		}
		if (fbx_le32(b + 24) ||
		    b[29] != sizeof(struct ext2_dx_root_info)) {
			snprintf(why, len, "reserved_zero %u, info_length %u "
				 "(wanted 0 and %zu)", fbx_le32(b + 24), b[29],
				 sizeof(struct ext2_dx_root_info));
			return 0;
		}
		coff = 24 + sizeof(struct ext2_dx_root_info);
	} else {
		snprintf(why, len, "the first entry's rec_len %u is neither "
			 "an htree root's (12) nor an htree node's (%u)", rl,
			 m->bs);
		return 0;
	}
	limit = fbx_le16(b + coff);
	count = fbx_le16(b + coff + 2);
	fit = (m->bs - coff - sizeof(struct ext2_dx_tail)) /
	      sizeof(struct ext2_dx_entry);
	if (limit > fit) {
		snprintf(why, len, "limit %u puts dt_checksum at byte %zu of "
			 "a %u-byte block (limit at most %u)", limit,
			 coff + limit * sizeof(struct ext2_dx_entry) + 4,
			 m->bs, fit);
		return 0;
	}
	if (count > (m->bs - coff) / sizeof(struct ext2_dx_entry)) {
		snprintf(why, len, "count %u runs past the %u-byte block "
			 "(count at most %zu)", count, m->bs,
			 (m->bs - coff) / sizeof(struct ext2_dx_entry));
		return 0;
	}
	return 1;
}

/* libext2fs tries the leaf tail first, then the htree header. */
static int dir_layout_ok(struct fbx_map *m, enum fbx_type type,
			 const unsigned char *b, char *why, size_t len)
{
	char other[256];

	if (type == FBX_DIR_LEAF)
		return dirent_tail_ok(m, b, why, len) ||
		       dx_layout_ok(m, b, other, sizeof(other));
	return dx_layout_ok(m, b, why, len) ||
	       dirent_tail_ok(m, b, other, sizeof(other));
}

/*
 * Whether libext2fs can find the checksum of object O in BUF; if not,
 * the map's explain line says which object and why.
 */
static int layout_ok(struct fbx_map *m, const struct fbx_object *o,
		     const unsigned char *buf)
{
	char why[256];
	int ok;

	switch (o->type) {
	case FBX_EXTENT_INDEX:
	case FBX_EXTENT_LEAF:
		ok = extent_layout_ok(m, buf, why, sizeof(why));
		break;
	case FBX_DIR_LEAF:
	case FBX_DX_ROOT:
	case FBX_DX_NODE:
		ok = dir_layout_ok(m, o->type, buf, why, sizeof(why));
		break;
	default:
		return 1;
	}
	if (!ok)
		snprintf(m->explain, sizeof(m->explain), "%s id=%zu at 0x%llx: "
			 "%s", fbx_type_name(o->type), (size_t)(o - m->obj),
			 (unsigned long long)o->offset, why);
	return ok;
}

/* Bytes [OFF, OFF+LEN) checked/sealed in place by libext2fs. */
static errcode_t seal_buffer(struct fbx_map *m, const struct fbx_object *o,
			     uint64_t off, size_t len, struct fbx_patch *p,
			     int set, int *ret_ok)
{
	ext2_filsys fs = m->fs;
	char *buf = calloc(1, (len < m->bs ? m->bs : len) + DIR_SLACK);
	errcode_t err;

	if (!buf)
		return ENOMEM;
	err = fbx_read_patched(m, p, off, buf, len);
	if (err)
		goto out;
	if (!layout_ok(m, o, (unsigned char *)buf)) {
		err = FBX_ET_UNVERIFIABLE;
		goto out;
	}
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
	/* A truncated image: what the checksum needs is not there. */
	if (err == FBX_ET_SHORT_IO)
		snprintf(m->explain, sizeof(m->explain), "%s id=%zu at 0x%llx: "
			 "bytes it needs lie past the end of %s (%llu bytes)",
			 fbx_type_name(o->type), i,
			 (unsigned long long)o->offset, m->image,
			 (unsigned long long)m->image_size);
	if (err == FBX_ET_UNVERIFIABLE || err == FBX_ET_SHORT_IO) {
		*ret_verdict = FBX_CSUM_UNVERIFIABLE;
		return 0;
	}
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

		if (pv == FBX_CSUM_BAD || pv == FBX_CSUM_SKIPPED ||
		    pv == FBX_CSUM_UNVERIFIABLE)
			v[i] = FBX_CSUM_SKIPPED;
		else if (o->flags & FBX_OBJ_CSUM_SHARED)
			v[i] = FBX_CSUM_SHARED;
		else
			err = fbx_object_verify(m, i, &v[i]);
		nbad += v[i] == FBX_CSUM_BAD || v[i] == FBX_CSUM_UNVERIFIABLE;
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

const char *fbx_verdict_name(enum fbx_verdict v)
{
	static const char *const names[] = {
		[FBX_CSUM_OK] = "ok",
		[FBX_CSUM_BAD] = "bad",
		[FBX_CSUM_NONE] = "none",
		[FBX_CSUM_SKIPPED] = "skipped",
		[FBX_CSUM_SHARED] = "shared",
		[FBX_CSUM_UNVERIFIABLE] = "unverifiable",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] :
								NULL;
}

// SPDX-License-Identifier: MIT
/*
 * map.c --- open an ext4 image with libext2fs and record where every
 * metadata object lives, in the spirit of e2image's mark_table_blocks():
 * the layout comes from libext2fs (group descriptors, bitmaps, inode
 * tables, extent handles, directory iteration), never from a parser of
 * our own. Records are appended parents first, so that verification can
 * walk them in order and skip the children of a failed parent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbx-int.h"

/* What the blocks of an inode are, as far as the map cares. */
/* Deeper than any extent tree ext4 builds (the kernel stops at 5). */
#define MAX_DEPTH 8

enum run_kind { RUN_NONE, RUN_DATA, RUN_DIR, RUN_JOURNAL, RUN_ORPHAN };

struct dir_block {
	ext2_ino_t ino;
	uint32_t lblk;
	blk64_t pblk;
	size_t parent;
};

struct builder {
	struct fbx_map *m;
	struct dir_block *db;
	size_t ndb, capdb;
	blk64_t *xattr_seen;	/* open-addressing set: shared xattr blocks */
	size_t xcap, xn;
};

errcode_t fbx_pread(struct fbx_map *m, uint64_t off, void *buf, size_t len)
{
	ssize_t r;

	while (len) {
		r = pread(m->fd, buf, len, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			return FBX_ET_SHORT_IO;
		buf = (char *)buf + r;
		off += r;
		len -= r;
	}
	return 0;
}

size_t fbx_add(struct fbx_map *m, enum fbx_type type)
{
	struct fbx_object *o;

	if (m->n == m->cap) {
		m->obj = fbx_buf_reserve(&m->objbuf,
					 (m->n + 1) * sizeof(*m->obj));
		m->cap = m->objbuf.size / sizeof(*m->obj);
	}
	/* Records are only ever appended, and objbuf's new bytes read as
	 * zero: no memset (it cost 7% of map on the bench image). */
	o = &m->obj[m->n];
	o->type = type;
	o->group = -1;
	o->lblk = -1;
	o->parent = FBX_NONE;
	return m->n++;
}

void fbx_cover(struct fbx_object *o, uint64_t off, uint64_t len)
{
	if (len && o->ncovered < FBX_MAX_COVER)
		o->covered[o->ncovered++] = (struct fbx_range){ off, len };
}

void fbx_csum_at(struct fbx_object *o, uint64_t off, uint64_t len)
{
	if (o->ncsum < FBX_MAX_CSUM)
		o->csum[o->ncsum++] = (struct fbx_range){ off, len };
}

/* A block-sized object at PBLK, its group derived from the block. */
size_t fbx_add_block(struct fbx_map *m, enum fbx_type type, blk64_t pblk,
			ext2_ino_t ino, int64_t lblk, size_t parent)
{
	size_t r = fbx_add(m, type);
	struct fbx_object *o = &m->obj[r];

	o->pblk = pblk;
	o->offset = pblk * m->bs;
	o->length = m->bs;
	o->ino = ino;
	o->lblk = lblk;
	o->parent = parent;
	if (pblk < ext2fs_blocks_count(m->fs->super))
		o->group = ext2fs_group_of_blk2(m->fs, pblk);
	return r;
}

static int has_csum(struct fbx_map *m)
{
	return ext2fs_has_feature_metadata_csum(m->fs->super);
}

static void map_superblocks(struct fbx_map *m)
{
	ext2_filsys fs = m->fs;
	unsigned cso = offsetof(struct ext2_super_block, s_checksum);
	struct fbx_object *o;
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		uint64_t off;
		size_t r;

		if (g && !ext2fs_bg_has_super(fs, g))
			continue;
		off = g ? ext2fs_group_first_block2(fs, g) * m->bs :
			  SUPERBLOCK_OFFSET;
		r = fbx_add(m, g ? FBX_SUPERBLOCK_BACKUP : FBX_SUPERBLOCK);
		o = &m->obj[r];
		o->group = g;
		o->offset = off;
		o->length = SUPERBLOCK_SIZE;
		o->pblk = off / m->bs;
		if (has_csum(m)) {
			fbx_csum_at(o, off + cso, 4);
			fbx_cover(o, off, cso);
		}
		if (!g)
			m->sb_rec = r;
	}
}

static void map_group_descs(struct fbx_map *m)
{
	ext2_filsys fs = m->fs;
	unsigned dsz = EXT2_DESC_SIZE(fs->super);
	unsigned per = m->bs / dsz;
	unsigned cso = offsetof(struct ext2_group_desc, bg_checksum);
	dgrp_t g;

	m->gd_rec = calloc(fs->group_desc_count, sizeof(*m->gd_rec));
	if (!m->gd_rec)
		abort();
	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t blk = ext2fs_descriptor_block_loc2(fs,
				fs->super->s_first_data_block, g / per);
		size_t r = fbx_add(m, FBX_GROUP_DESC);
		struct fbx_object *o = &m->obj[r];

		o->group = g;
		o->pblk = blk;
		o->offset = blk * m->bs + (g % per) * dsz;
		o->length = dsz;
		o->parent = m->sb_rec;
		if (ext2fs_has_group_desc_csum(fs)) {
			fbx_csum_at(o, o->offset + cso, 2);
			fbx_cover(o, o->offset, cso);
			fbx_cover(o, o->offset + cso + 2, dsz - cso - 2);
		}
		m->gd_rec[g] = r;
	}
}

/* A bitmap whose checksum lives in its group descriptor at LO/HI. */
static void add_bitmap(struct fbx_map *m, enum fbx_type type, dgrp_t g,
		       blk64_t blk, unsigned nbytes, unsigned lo, unsigned hi,
		       unsigned hi_end)
{
	struct fbx_object *o;
	uint64_t gd = m->obj[m->gd_rec[g]].offset;
	size_t r;

	if (!blk || blk >= ext2fs_blocks_count(m->fs->super))
		return;
	r = fbx_add_block(m, type, blk, 0, -1, m->gd_rec[g]);
	o = &m->obj[r];
	o->group = g;
	if (type == FBX_BLOCK_BITMAP && ext2fs_has_feature_bigalloc(m->fs->super))
		o->flags |= FBX_OBJ_CLUSTER_BITMAP;
	if (!has_csum(m))
		return;
	fbx_cover(o, o->offset, nbytes);
	fbx_csum_at(o, gd + lo, 2);
	if (EXT2_DESC_SIZE(m->fs->super) >= hi_end)
		fbx_csum_at(o, gd + hi, 2);
}

static void map_bitmaps(struct fbx_map *m)
{
	ext2_filsys fs = m->fs;
	int gdcsum = ext2fs_has_group_desc_csum(fs);
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		if (!(gdcsum && ext2fs_bg_flags_test(fs, g, EXT2_BG_BLOCK_UNINIT)))
			add_bitmap(m, FBX_BLOCK_BITMAP, g,
				   ext2fs_block_bitmap_loc(fs, g),
				   EXT2_CLUSTERS_PER_GROUP(fs->super) / 8,
				   offsetof(struct ext4_group_desc,
					    bg_block_bitmap_csum_lo),
				   offsetof(struct ext4_group_desc,
					    bg_block_bitmap_csum_hi),
				   EXT4_BG_BLOCK_BITMAP_CSUM_HI_LOCATION + 2);
		if (!(gdcsum && ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT)))
			add_bitmap(m, FBX_INODE_BITMAP, g,
				   ext2fs_inode_bitmap_loc(fs, g),
				   EXT2_INODES_PER_GROUP(fs->super) / 8,
				   offsetof(struct ext4_group_desc,
					    bg_inode_bitmap_csum_lo),
				   offsetof(struct ext4_group_desc,
					    bg_inode_bitmap_csum_hi),
				   EXT4_BG_INODE_BITMAP_CSUM_HI_END);
	}
}

static void dir_add(struct builder *b, ext2_ino_t ino, uint32_t lblk,
		    blk64_t pblk, size_t parent)
{
	if (b->ndb == b->capdb) {
		b->capdb = b->capdb ? b->capdb * 2 : 256;
		b->db = realloc(b->db, b->capdb * sizeof(*b->db));
		if (!b->db)
			abort();
	}
	b->db[b->ndb++] = (struct dir_block){ ino, lblk, pblk, parent };
}

/* LEN blocks of an inode from LBLK at PBLK, found under record PARENT. */
static void add_run(struct builder *b, enum run_kind kind, ext2_ino_t ino,
		    size_t parent, blk64_t lblk, blk64_t pblk, blk64_t len,
		    int uninit)
{
	struct fbx_map *m = b->m;
	blk64_t k;

	switch (kind) {
	case RUN_NONE:
		break;
	case RUN_DATA: {
		struct fbx_object *last = m->n ? &m->obj[m->n - 1] : NULL;
		size_t r;

		if (last && last->type == FBX_DATA && last->ino == ino &&
		    !uninit && !(last->flags & FBX_OBJ_UNINIT) &&
		    last->pblk + last->length / m->bs == pblk &&
		    (uint64_t)last->lblk + last->length / m->bs == lblk) {
			last->length += len * m->bs;
			break;
		}
		r = fbx_add_block(m, FBX_DATA, pblk, ino, lblk, parent);
		m->obj[r].length = len * m->bs;
		if (uninit)
			m->obj[r].flags |= FBX_OBJ_UNINIT;
		break;
	}
	case RUN_DIR:
		for (k = 0; k < len; k++)
			dir_add(b, ino, lblk + k, pblk + k, parent);
		break;
	case RUN_JOURNAL:
		for (k = 0; k < len && lblk + k < m->j.nblocks; k++)
			m->j.blocks[lblk + k] = pblk + k;
		break;
	case RUN_ORPHAN:
		for (k = 0; k < len; k++) {
			size_t r = fbx_add_block(m, FBX_ORPHAN_BLOCK, pblk + k, ino,
					     lblk + k, parent);
			struct fbx_object *o = &m->obj[r];

			if (has_csum(m)) {
				fbx_cover(o, o->offset, m->bs - 8);
				fbx_csum_at(o, o->offset + m->bs - 4, 4);
			}
		}
		break;
	}
}

static size_t add_extent_block(struct fbx_map *m, enum fbx_type type,
			       ext2_ino_t ino, blk64_t lblk, blk64_t pblk,
			       size_t parent)
{
	size_t r = fbx_add_block(m, type, pblk, ino, lblk, parent);
	struct fbx_object *o = &m->obj[r];
	/* Where libext2fs and the kernel put the tail: after eh_max
	 * entries, eh_max being what fits in the block. */
	unsigned max = (m->bs - sizeof(struct ext3_extent_header)) /
		       sizeof(struct ext3_extent);
	unsigned tail = sizeof(struct ext3_extent_header) +
			max * sizeof(struct ext3_extent);

	if (has_csum(m)) {
		fbx_cover(o, o->offset, tail);
		fbx_csum_at(o, o->offset + tail, 4);
	}
	return r;
}

/* Walk an extent tree with libext2fs; index entries name the blocks. */
static void walk_extents(struct builder *b, ext2_ino_t ino,
			 struct ext2_inode *inode, size_t irec,
			 enum run_kind kind)
{
	struct fbx_map *m = b->m;
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	struct ext2_extent_info info;
	size_t level_rec[MAX_DEPTH + 2];
	int op = EXT2_EXTENT_ROOT;

	if (ext2fs_extent_open2(m->fs, ino, inode, &h))
		return;
	level_rec[0] = irec;
	while (!ext2fs_extent_get(h, op, &e)) {
		unsigned lvl;

		op = EXT2_EXTENT_NEXT;
		if (ext2fs_extent_get_info(h, &info))
			break;
		lvl = info.curr_level;
		if (lvl > MAX_DEPTH)
			break;
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			enum fbx_type t;

			if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
				continue;
			t = (int)lvl + 1 == info.max_depth ? FBX_EXTENT_LEAF :
							     FBX_EXTENT_INDEX;
			level_rec[lvl + 1] = add_extent_block(m, t, ino,
					e.e_lblk, e.e_pblk, level_rec[lvl]);
			continue;
		}
		add_run(b, kind, ino, level_rec[lvl], e.e_lblk, e.e_pblk,
			e.e_len, !!(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT));
	}
	ext2fs_extent_free(h);
}

struct blockmap_ctx {
	struct builder *b;
	ext2_ino_t ino;
	enum run_kind kind;
	size_t irec;
};

static int blockmap_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		       blk64_t ref_blk, int ref_offset, void *priv)
{
	struct blockmap_ctx *c = priv;

	if (blockcnt >= 0)
		add_run(c->b, c->kind, c->ino, c->irec, blockcnt, *blocknr, 1,
			0);
	return 0;
}

/* Block-mapped (ext2/3 style) inode: data and directory blocks only. */
static void walk_blockmap(struct builder *b, ext2_ino_t ino, size_t irec,
			  enum run_kind kind)
{
	struct blockmap_ctx c = { b, ino, kind, irec };

	ext2fs_block_iterate3(b->m->fs, ino,
			      BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY,
			      NULL, blockmap_cb, &c);
}

static int xattr_seen(struct builder *b, blk64_t blk)
{
	size_t h;

	if (b->xn * 2 >= b->xcap) {
		blk64_t *old = b->xattr_seen;
		size_t oldcap = b->xcap, k;

		b->xcap = b->xcap ? b->xcap * 2 : 1024;
		b->xattr_seen = calloc(b->xcap, sizeof(blk64_t));
		if (!b->xattr_seen)
			abort();
		b->xn = 0;
		for (k = 0; k < oldcap; k++)
			if (old[k])
				xattr_seen(b, old[k]);
		free(old);
	}
	for (h = (blk * 0x9E3779B97F4A7C15ULL) % b->xcap; b->xattr_seen[h];
	     h = (h + 1) % b->xcap)
		if (b->xattr_seen[h] == blk)
			return 1;
	b->xattr_seen[h] = blk;
	b->xn++;
	return 0;
}

static enum run_kind kind_of(struct fbx_map *m, ext2_ino_t ino,
			     struct ext2_inode *in)
{
	struct ext2_super_block *sb = m->fs->super;

	if (LINUX_S_ISDIR(in->i_mode))
		return RUN_DIR;
	if (ino == sb->s_journal_inum && ext2fs_has_feature_journal(sb))
		return RUN_JOURNAL;
	if (ino == sb->s_orphan_file_inum &&
	    ext2fs_has_feature_orphan_file(sb))
		return RUN_ORPHAN;
	if (ino < EXT2_FIRST_INODE(sb) || ino == sb->s_usr_quota_inum ||
	    ino == sb->s_grp_quota_inum || ino == sb->s_prj_quota_inum)
		return RUN_NONE;
	if (LINUX_S_ISREG(in->i_mode) ||
	    (LINUX_S_ISLNK(in->i_mode) && !ext2fs_is_fast_symlink(in)))
		return RUN_DATA;
	return RUN_NONE;
}

static void map_one_inode(struct builder *b, dgrp_t g, ext2_ino_t ino,
			  uint64_t off, struct ext2_inode_large *in)
{
	struct fbx_map *m = b->m;
	struct ext2_inode *base = (struct ext2_inode *)in;
	int csum = has_csum(m);
	int has_hi = m->isize > EXT2_GOOD_OLD_INODE_SIZE &&
		     in->i_extra_isize >= EXT4_INODE_CSUM_HI_EXTRA_END;
	unsigned lo = offsetof(struct ext2_inode_large, i_checksum_lo);
	unsigned hi = offsetof(struct ext2_inode_large, i_checksum_hi);
	enum run_kind kind;
	struct fbx_object *o;
	size_t r, x;
	blk64_t acl;

	r = fbx_add(m, FBX_INODE);
	o = &m->obj[r];
	o->group = g;
	o->ino = ino;
	o->offset = off;
	o->length = EXT2_GOOD_OLD_INODE_SIZE;
	o->pblk = off / m->bs;
	o->parent = m->gd_rec[g];
	if (csum) {
		fbx_csum_at(o, off + lo, 2);
		if (has_hi)
			fbx_csum_at(o, off + hi, 2);
		fbx_cover(o, off, lo);
		fbx_cover(o, off + lo + 2, EXT2_GOOD_OLD_INODE_SIZE - lo - 2);
	}
	m->inode_rec[ino] = r;
	m->imode[ino] = in->i_mode;

	if (m->isize > EXT2_GOOD_OLD_INODE_SIZE) {
		x = fbx_add(m, FBX_INODE_EXTRA);
		o = &m->obj[x];
		*o = m->obj[r];
		o->type = FBX_INODE_EXTRA;
		o->offset = off + EXT2_GOOD_OLD_INODE_SIZE;
		o->length = m->isize - EXT2_GOOD_OLD_INODE_SIZE;
		o->parent = r;
		o->flags |= FBX_OBJ_CSUM_SHARED;
		o->ncovered = 0;
		if (csum && has_hi) {
			fbx_cover(o, o->offset, hi - EXT2_GOOD_OLD_INODE_SIZE);
			fbx_cover(o, off + hi + 2, m->isize - hi - 2);
		} else if (csum) {
			fbx_cover(o, o->offset, o->length);
		}
	}
	if (in->i_flags & EXT4_INLINE_DATA_FL) {
		unsigned ib = offsetof(struct ext2_inode, i_block);

		x = fbx_add(m, FBX_INLINE_DATA);
		o = &m->obj[x];
		*o = m->obj[r];
		o->type = FBX_INLINE_DATA;
		o->offset = off + ib;
		o->length = sizeof(base->i_block);
		o->parent = r;
		o->flags |= FBX_OBJ_CSUM_SHARED;
		o->ncovered = 0;
		if (csum)
			fbx_cover(o, o->offset, o->length);
	}

	acl = ext2fs_file_acl_block(m->fs, base);
	if (acl && acl < ext2fs_blocks_count(m->fs->super) &&
	    !xattr_seen(b, acl)) {
		x = fbx_add_block(m, FBX_XATTR_BLOCK, acl, ino, -1, r);
		o = &m->obj[x];
		if (csum) {
			unsigned c = offsetof(struct ext2_ext_attr_header,
					      h_checksum);

			fbx_csum_at(o, o->offset + c, 4);
			fbx_cover(o, o->offset, c);
			fbx_cover(o, o->offset + c + 4, m->bs - c - 4);
		}
	}

	if (ino == EXT2_RESIZE_INO || (in->i_flags & EXT4_INLINE_DATA_FL))
		return;
	kind = kind_of(m, ino, base);
	if (kind == RUN_JOURNAL && !m->j.blocks) {
		/*
		 * i_size is only a claim: 0xffffffff blocks wrapped the
		 * count + 1 below to 0 and add_run() wrote past the array.
		 * The journal cannot hold more blocks than the filesystem.
		 */
		uint64_t n = EXT2_I_SIZE(base) / m->bs;

		if (n > ext2fs_blocks_count(m->fs->super))
			n = ext2fs_blocks_count(m->fs->super);
		if (n >= UINT32_MAX)
			n = UINT32_MAX - 1;
		m->j.nblocks = n;
		m->j.blocks = calloc((size_t)n + 1, sizeof(blk64_t));
		if (!m->j.blocks)
			abort();
	}
	if (in->i_flags & EXT4_EXTENTS_FL)
		walk_extents(b, ino, base, r, kind);
	else if (kind != RUN_NONE && base->i_block[0])
		walk_blockmap(b, ino, r, kind);
}

static int all_zero(const void *p, size_t len)
{
	const unsigned char *c = p;

	return len == 0 || (c[0] == 0 && !memcmp(c, c + 1, len - 1));
}

/* Read each group's used inode table in one go and map in-use inodes. */
static void map_inodes(struct builder *b)
{
	struct fbx_map *m = b->m;
	ext2_filsys fs = m->fs;
	unsigned ipg = EXT2_INODES_PER_GROUP(fs->super);
	int gdcsum = ext2fs_has_group_desc_csum(fs);
	struct fbx_buf itable = { NULL, 0 };
	char *buf = fbx_buf_reserve(&itable, (size_t)ipg * m->isize);
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t it = ext2fs_inode_table_loc(fs, g);
		unsigned n = ipg, i;

		if (gdcsum) {
			if (ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
				continue;
			if (ext2fs_bg_itable_unused(fs, g) <= ipg)
				n = ipg - ext2fs_bg_itable_unused(fs, g);
		}
		if (!it || it >= ext2fs_blocks_count(fs->super) ||
		    fbx_pread(m, it * m->bs, buf, (size_t)n * m->isize))
			continue;
		for (i = 0; i < n; i++) {
			ext2_ino_t ino = g * ipg + i + 1;
			char *raw = buf + (size_t)i * m->isize;

			if (fs->inode_map &&
			    !ext2fs_fast_test_inode_bitmap2(fs->inode_map, ino))
				continue;
			if (all_zero(raw, EXT2_GOOD_OLD_INODE_SIZE))
				continue;
			map_one_inode(b, g, ino,
				      it * m->bs + (uint64_t)i * m->isize,
				      (struct ext2_inode_large *)raw);
		}
	}
	fbx_buf_free(&itable);
}

/* Logical block LBLK of the directory whose blocks are DB[0..N). */
static struct dir_block *dir_lookup(struct dir_block *db, size_t n,
				    uint32_t lblk)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (db[k].lblk == lblk)
			return &db[k];
	return NULL;
}

/*
 * Mark the htree interior blocks below a dx block (its count/limit at
 * COFF in BUF): children are nodes while LEVELS index levels remain.
 */
static void mark_dx_nodes(struct fbx_map *m, struct dir_block *db, size_t n,
			  unsigned char *is_node, const char *buf,
			  unsigned coff, unsigned levels)
{
	unsigned count = fbx_le16(buf + coff +
				  offsetof(struct ext2_dx_countlimit, count));
	unsigned k;
	char *child;

	if (!levels || coff + count * 8 > m->bs)
		return;
	child = malloc(m->bs);
	if (!child)
		abort();
	for (k = 0; k < count; k++) {
		uint32_t lb = fbx_le32(buf + coff + k * 8 +
				       offsetof(struct ext2_dx_entry, block)) &
			      0x0fffffff;
		struct dir_block *d = dir_lookup(db, n, lb);

		if (!d || is_node[d - db])
			continue;
		is_node[d - db] = 1;
		if (levels > 1 && !fbx_pread(m, d->pblk * m->bs, child, m->bs))
			mark_dx_nodes(m, db, n, is_node, child, 8, levels - 1);
	}
	free(child);
}

static void add_dx_block(struct fbx_map *m, const struct dir_block *d,
			 enum fbx_type type, const char *buf, unsigned coff)
{
	size_t r = fbx_add_block(m, type, d->pblk, d->ino, d->lblk, d->parent);
	struct fbx_object *o = &m->obj[r];
	unsigned limit = fbx_le16(buf + coff +
				  offsetof(struct ext2_dx_countlimit, limit));
	unsigned count = fbx_le16(buf + coff +
				  offsetof(struct ext2_dx_countlimit, count));
	unsigned fit = (m->bs - coff - sizeof(struct ext2_dx_tail)) /
		       sizeof(struct ext2_dx_entry);
	uint64_t tail;

	if (!has_csum(m))
		return;
	/*
	 * A limit past the block leaves the checksum where a sound one puts
	 * it (after as many entries as fit): verify then reports the block
	 * unverifiable, not unchecked. A count past the limit is covered up
	 * to the tail.
	 */
	if (limit > fit)
		limit = fit;
	if (count > limit)
		count = limit;
	tail = coff + (uint64_t)limit * sizeof(struct ext2_dx_entry);
	/* ext2fs_dx_csum(): the entries in use, then dt_reserved */
	fbx_cover(o, o->offset, coff + count * sizeof(struct ext2_dx_entry));
	fbx_cover(o, o->offset + tail, 4);
	fbx_csum_at(o, o->offset + tail + 4, 4);
}

/* The blocks DB[0..N) of one directory: dx-root, dx-node or dir-leaf. */
static void map_dir(struct fbx_map *m, struct dir_block *db, size_t n)
{
	ext2_ino_t ino = db[0].ino;
	unsigned char *is_node = calloc(n, 1);
	char *root = malloc(m->bs), *node = malloc(m->bs);
	struct dir_block *r0 = dir_lookup(db, n, 0);
	struct ext2_inode in;
	unsigned rcoff = 0;
	size_t k, r;

	if (!is_node || !root || !node)
		abort();
	if (r0 && !fbx_pread(m, m->obj[m->inode_rec[ino]].offset, &in,
			     sizeof(in)) &&
	    (in.i_flags & EXT2_INDEX_FL) &&
	    !fbx_pread(m, r0->pblk * m->bs, root, m->bs)) {
		const struct ext2_dx_root_info *ri = (const void *)(root + 24);

		rcoff = 24 + ri->info_length;
		if (rcoff + 8 <= m->bs)
			mark_dx_nodes(m, db, n, is_node, root, rcoff,
				      ri->indirect_levels);
		else
			rcoff = 0;
	}
	for (k = 0; k < n; k++) {
		struct dir_block *d = &db[k];

		if (rcoff && d == r0) {
			add_dx_block(m, d, FBX_DX_ROOT, root, rcoff);
		} else if (is_node[k]) {
			if (!fbx_pread(m, d->pblk * m->bs, node, m->bs))
				add_dx_block(m, d, FBX_DX_NODE, node, 8);
		} else {
			r = fbx_add_block(m, FBX_DIR_LEAF, d->pblk, ino, d->lblk,
				      d->parent);
			if (has_csum(m)) {
				struct fbx_object *o = &m->obj[r];

				fbx_cover(o, o->offset, m->bs - 12);
				fbx_csum_at(o, o->offset + m->bs - 4, 4);
			}
		}
	}
	free(is_node);
	free(root);
	free(node);
}

static void map_dirs(struct builder *b)
{
	size_t k = 0, e;

	while (k < b->ndb) {
		for (e = k; e < b->ndb && b->db[e].ino == b->db[k].ino; e++)
			;
		map_dir(b->m, b->db + k, e - k);
		k = e;
	}
}

struct walk {
	struct fbx_map *m;
	ext2_ino_t *queue;
	size_t qn, qcap;
	ext2_ino_t dir;
	size_t dir_at, dir_len;	/* its path in pathbuf */
};

const char *fbx_ino_path(struct fbx_map *m, ext2_ino_t ino)
{
	if (ino > m->ninodes || !m->path_at[ino])
		return NULL;
	return m->pathbuf.p + m->path_at[ino] - 1;
}

/*
 * Append "DIR/NAME" (DIR: PLEN bytes at AT in pathbuf; NAME ends at a NUL
 * byte, if any) as the path of C.
 */
static void set_path(struct fbx_map *m, ext2_ino_t c, size_t at, size_t plen,
		     const char *name, int len)
{
	size_t nlen = strnlen(name, len);
	char *p;

	p = fbx_buf_reserve(&m->pathbuf, m->pathlen + plen + nlen + 2);
	memcpy(p + m->pathlen, p + at, plen);
	p[m->pathlen + plen] = '/';
	memcpy(p + m->pathlen + plen + 1, name, nlen);
	p[m->pathlen + plen + 1 + nlen] = 0;
	m->path_at[c] = m->pathlen + 1;
	m->pathlen += plen + nlen + 2;
}

static int walk_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *d,
		   int offset, int blocksize, char *buf, void *priv)
{
	struct walk *w = priv;
	struct fbx_map *m = w->m;
	int len = ext2fs_dirent_name_len(d);
	ext2_ino_t c = d->inode;

	if (!c || c > m->fs->super->s_inodes_count || m->path_at[c])
		return 0;
	if ((len == 1 && d->name[0] == '.') ||
	    (len == 2 && d->name[0] == '.' && d->name[1] == '.'))
		return 0;
	set_path(m, c, w->dir_at, w->dir_len, d->name, len);
	if (LINUX_S_ISDIR(m->imode[c])) {
		if (w->qn == w->qcap) {
			w->qcap = w->qcap ? w->qcap * 2 : 256;
			w->queue = realloc(w->queue,
					   w->qcap * sizeof(*w->queue));
			if (!w->queue)
				abort();
		}
		w->queue[w->qn++] = c;
	}
	return 0;
}

/* Name every reachable inode, breadth first from the root. */
static void map_paths(struct fbx_map *m)
{
	struct walk w = { .m = m };
	size_t k;

	strcpy(fbx_buf_reserve(&m->pathbuf, 2), "/");
	m->pathlen = 2;
	m->path_at[EXT2_ROOT_INO] = 1;
	w.queue = malloc(256 * sizeof(*w.queue));
	if (!w.queue)
		abort();
	w.qcap = 256;
	w.queue[w.qn++] = EXT2_ROOT_INO;
	for (k = 0; k < w.qn; k++) {
		w.dir = w.queue[k];
		w.dir_at = m->path_at[w.dir] - 1;
		w.dir_len = strlen(m->pathbuf.p + w.dir_at);
		if (w.dir_len == 1)	/* "/": "/name", not "//name" */
			w.dir_len = 0;
		ext2fs_dir_iterate2(m->fs, w.dir, 0, NULL, walk_cb, &w);
	}
	free(w.queue);
}

static void map_mmp(struct fbx_map *m)
{
	struct ext2_super_block *sb = m->fs->super;
	struct fbx_object *o;
	size_t r;

	if (!ext2fs_has_feature_mmp(sb) || !sb->s_mmp_block ||
	    sb->s_mmp_block >= ext2fs_blocks_count(sb))
		return;
	r = fbx_add_block(m, FBX_MMP, sb->s_mmp_block, 0, -1, m->sb_rec);
	o = &m->obj[r];
	o->length = sizeof(struct mmp_struct);
	if (has_csum(m)) {
		unsigned c = offsetof(struct mmp_struct, mmp_checksum);

		fbx_cover(o, o->offset, c);
		fbx_csum_at(o, o->offset + c, 4);
	}
}

static errcode_t open_fs(struct fbx_map *m)
{
	static const unsigned sizes[] = { 1024, 2048, 4096, 8192, 16384,
					  32768, 65536 };
	int flags = EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS |
		    EXT2_FLAG_SKIP_MMP;
	errcode_t err, first;
	unsigned k;

	first = ext2fs_open2(m->image, NULL, flags, 0, 0, unix_io_manager,
			     &m->fs);
	if (!first)
		return 0;
	/* Like e2fsck: the first backup lives in group 1. */
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		blk64_t sb = sizes[k] * 8 + (sizes[k] == 1024);

		err = ext2fs_open2(m->image, NULL, flags, sb, sizes[k],
				   unix_io_manager, &m->fs);
		if (!err) {
			m->from_backup = 1;
			return 0;
		}
	}
	return first;
}

errcode_t fbx_map_open(const char *image, int flags, fbx_map_t *ret_map)
{
	struct fbx_map *m = calloc(1, sizeof(*m));
	struct builder b = { m, NULL, 0, 0, NULL, 0, 0 };
	ext2_ino_t ninodes;
	errcode_t err;

	if (!m)
		return ENOMEM;
	m->fd = -1;
	m->image = strdup(image);
	m->rw = !!(flags & FBX_OPEN_RW);
	m->sb_rec = FBX_NONE;
	m->j.sb_rec = FBX_NONE;
	m->fd = open(image, m->rw ? O_RDWR : O_RDONLY);
	if (m->fd < 0) {
		err = errno;
		fbx_map_close(m);
		return err;
	}
	err = open_fs(m);
	if (err) {
		fbx_map_close(m);
		return err;
	}
	/* lseek, not fstat: fstat says 0 bytes for a block device. */
	m->image_size = lseek(m->fd, 0, SEEK_END);
	m->bs = m->fs->blocksize;
	m->isize = EXT2_INODE_SIZE(m->fs->super);
	if (ext2fs_read_inode_bitmap(m->fs)) {
		ext2fs_free_inode_bitmap(m->fs->inode_map);
		m->fs->inode_map = NULL;
	}
	ninodes = m->ninodes = m->fs->super->s_inodes_count;
	m->path_at = fbx_buf_reserve(&m->inodebuf, (size_t)(ninodes + 1) *
				     (2 * sizeof(size_t) + sizeof(uint16_t)));
	m->inode_rec = m->path_at + ninodes + 1;
	m->imode = (uint16_t *)(m->inode_rec + ninodes + 1);

	map_superblocks(m);
	map_group_descs(m);
	map_bitmaps(m);
	map_mmp(m);
	map_inodes(&b);
	map_dirs(&b);
	if (m->fs->super->s_journal_inum <= ninodes &&
	    m->inode_rec[m->fs->super->s_journal_inum] && m->j.blocks)
		fbx_map_journal(m, m->inode_rec[m->fs->super->s_journal_inum]);
	map_paths(m);
	free(b.db);
	free(b.xattr_seen);
	*ret_map = m;
	return 0;
}

void fbx_map_close(fbx_map_t m)
{
	if (!m)
		return;
	if (m->fs)
		ext2fs_close_free(&m->fs);
	if (m->fd >= 0)
		close(m->fd);
	fbx_buf_free(&m->inodebuf);
	fbx_buf_free(&m->pathbuf);
	free(m->gd_rec);
	free(m->j.blocks);
	fbx_buf_free(&m->objbuf);
	free(m->image);
	free(m);
}

ext2_filsys fbx_map_fs(fbx_map_t m)
{
	return m->fs;
}

const char *fbx_map_image(fbx_map_t m)
{
	return m->image;
}

int fbx_map_opened_from_backup(fbx_map_t m)
{
	return m->from_backup;
}

errcode_t fbx_map_check_size(fbx_map_t m, uint64_t *ret_image_size,
			     uint64_t *ret_fs_size, size_t *ret_past_end)
{
	uint64_t fs_size = ext2fs_blocks_count(m->fs->super) * m->bs;
	size_t i, past = 0;

	for (i = 0; m->image_size < fs_size && i < m->n; i++)
		past += m->obj[i].offset + m->obj[i].length > m->image_size;
	*ret_image_size = m->image_size;
	*ret_fs_size = fs_size;
	*ret_past_end = past;
	return m->image_size < fs_size ? FBX_ET_TRUNCATED : 0;
}

size_t fbx_map_count(fbx_map_t m)
{
	return m->n;
}

/*
 * The path is filled in on the way out: setting it in every record when
 * mapping was a pass over all of them (8% of map on the bench image).
 */
const struct fbx_object *fbx_map_object(fbx_map_t m, size_t i)
{
	if (i >= m->n)
		return NULL;
	m->obj[i].path = fbx_ino_path(m, m->obj[i].ino);
	return &m->obj[i];
}

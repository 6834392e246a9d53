// SPDX-License-Identifier: MIT
/*
 * fields.c --- type names and the structure fields `--region FIELD` can
 * name. Offsets come from libext2fs' structures (offsetof) except for the
 * jbd2 ones, which journal.c owns. A field that repeats (an extent entry,
 * a directory entry, a journal tag) has one instance per entry; pick
 * chooses the instance from the seed.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fbx-int.h"
#include <ext2fs/ext2_ext_attr.h>

static const char *const type_names[FBX_TYPE_COUNT] = {
	[FBX_SUPERBLOCK] = "superblock",
	[FBX_SUPERBLOCK_BACKUP] = "superblock-backup",
	[FBX_GROUP_DESC] = "group-desc",
	[FBX_BLOCK_BITMAP] = "block-bitmap",
	[FBX_INODE_BITMAP] = "inode-bitmap",
	[FBX_INODE] = "inode",
	[FBX_INODE_EXTRA] = "inode-extra",
	[FBX_INLINE_DATA] = "inline-data",
	[FBX_EXTENT_INDEX] = "extent-index",
	[FBX_EXTENT_LEAF] = "extent-leaf",
	[FBX_DIR_LEAF] = "dir-leaf",
	[FBX_DX_ROOT] = "dx-root",
	[FBX_DX_NODE] = "dx-node",
	[FBX_XATTR_BLOCK] = "xattr-block",
	[FBX_JOURNAL_SB] = "journal-sb",
	[FBX_JOURNAL_DESCRIPTOR] = "journal-descriptor",
	[FBX_JOURNAL_COMMIT] = "journal-commit",
	[FBX_JOURNAL_REVOKE] = "journal-revoke",
	[FBX_JOURNAL_DATA] = "journal-data",
	[FBX_MMP] = "mmp",
	[FBX_ORPHAN_BLOCK] = "orphan-block",
	[FBX_DATA] = "data",
};

const char *fbx_type_name(enum fbx_type type)
{
	return (unsigned)type < FBX_TYPE_COUNT ? type_names[type] : NULL;
}

errcode_t fbx_type_parse(const char *name, enum fbx_type *ret_type)
{
	unsigned t;

	for (t = 0; t < FBX_TYPE_COUNT; t++)
		if (!strcmp(name, type_names[t])) {
			*ret_type = t;
			return 0;
		}
	return FBX_ET_BAD_TYPE;
}

/* How a field's instances are found inside an object. */
enum kind {
	K_ONE,		/* at off from the object's start */
	K_CSUM,		/* the object's (first) checksum */
	K_TAIL,		/* off bytes before the end of the block */
	K_EXTENT,	/* in each extent entry (eh_entries of them) */
	K_DIRENT,	/* in each directory entry; len 0: the name */
	K_DXCL,		/* in the htree count/limit header */
	K_DXENT,	/* in each htree entry; off 0 (hash) skips entry 0 */
	K_XATTR,	/* in each xattr block entry */
	K_JTAG,		/* in each journal descriptor tag */
	K_REVOKE,	/* each revoked block number */
};

struct field {
	enum fbx_type type;	/* FBX_TYPE_COUNT: both extent types */
	const char *name;
	enum kind kind;
	unsigned off, len;
};

#define SZ(s, f) sizeof(((struct s *)0)->f)
#define SB(f) { FBX_SUPERBLOCK, #f, K_ONE, \
		offsetof(struct ext2_super_block, f), SZ(ext2_super_block, f) }
#define GD(f) { FBX_GROUP_DESC, #f, K_ONE, \
		offsetof(struct ext4_group_desc, f), SZ(ext4_group_desc, f) }
#define IN(f) { FBX_INODE, #f, K_ONE, \
		offsetof(struct ext2_inode_large, f), SZ(ext2_inode_large, f) }
#define IX(f) { FBX_INODE_EXTRA, #f, K_ONE, \
		offsetof(struct ext2_inode_large, f) - EXT2_GOOD_OLD_INODE_SIZE, \
		SZ(ext2_inode_large, f) }
#define MMP(f) { FBX_MMP, #f, K_ONE, \
		offsetof(struct mmp_struct, f), SZ(mmp_struct, f) }
#define JHDR(t) { t, "h_magic", K_ONE, 0, 4 }, \
		{ t, "h_blocktype", K_ONE, 4, 4 }, \
		{ t, "h_sequence", K_ONE, 8, 4 }
#define BOTH_EXTENT FBX_TYPE_COUNT

static const struct field fields[] = {
	SB(s_inodes_count), SB(s_blocks_count), SB(s_r_blocks_count),
	SB(s_free_blocks_count), SB(s_free_inodes_count),
	SB(s_first_data_block), SB(s_log_block_size), SB(s_log_cluster_size),
	SB(s_blocks_per_group), SB(s_clusters_per_group),
	SB(s_inodes_per_group), SB(s_mtime), SB(s_wtime), SB(s_mnt_count),
	SB(s_max_mnt_count), SB(s_magic), SB(s_state), SB(s_errors),
	SB(s_rev_level), SB(s_first_ino), SB(s_inode_size),
	SB(s_feature_compat), SB(s_feature_incompat), SB(s_feature_ro_compat),
	SB(s_uuid), SB(s_volume_name), SB(s_last_mounted),
	SB(s_reserved_gdt_blocks), SB(s_journal_inum), SB(s_desc_size),
	SB(s_log_groups_per_flex), SB(s_checksum_type), SB(s_mmp_block),
	SB(s_orphan_file_inum), SB(s_checksum),

	GD(bg_block_bitmap), GD(bg_inode_bitmap), GD(bg_inode_table),
	GD(bg_free_blocks_count), GD(bg_free_inodes_count),
	GD(bg_used_dirs_count), GD(bg_flags), GD(bg_exclude_bitmap_lo),
	GD(bg_block_bitmap_csum_lo), GD(bg_inode_bitmap_csum_lo),
	GD(bg_itable_unused), GD(bg_checksum), GD(bg_block_bitmap_hi),
	GD(bg_inode_bitmap_hi), GD(bg_inode_table_hi),

	IN(i_mode), IN(i_uid), IN(i_size), IN(i_atime), IN(i_ctime),
	IN(i_mtime), IN(i_dtime), IN(i_gid), IN(i_links_count), IN(i_blocks),
	IN(i_flags), IN(i_block), IN(i_generation), IN(i_file_acl),
	IN(i_size_high), IN(i_checksum_lo),

	IX(i_extra_isize), IX(i_checksum_hi), IX(i_ctime_extra),
	IX(i_mtime_extra), IX(i_atime_extra), IX(i_crtime),
	IX(i_crtime_extra), IX(i_version_hi), IX(i_projid),

	{ FBX_INLINE_DATA, "i_block", K_ONE, 0, 60 },

	{ BOTH_EXTENT, "eh_magic", K_ONE, 0, 2 },
	{ BOTH_EXTENT, "eh_entries", K_ONE, 2, 2 },
	{ BOTH_EXTENT, "eh_max", K_ONE, 4, 2 },
	{ BOTH_EXTENT, "eh_depth", K_ONE, 6, 2 },
	{ BOTH_EXTENT, "eh_generation", K_ONE, 8, 4 },
	{ BOTH_EXTENT, "et_checksum", K_CSUM, 0, 0 },
	{ FBX_EXTENT_INDEX, "ei_block", K_EXTENT, 0, 4 },
	{ FBX_EXTENT_INDEX, "ei_leaf", K_EXTENT, 4, 6 },
	{ FBX_EXTENT_LEAF, "ee_block", K_EXTENT, 0, 4 },
	{ FBX_EXTENT_LEAF, "ee_len", K_EXTENT, 4, 2 },
	{ FBX_EXTENT_LEAF, "ee_start", K_EXTENT, 6, 6 },

	{ FBX_DIR_LEAF, "inode", K_DIRENT, 0, 4 },
	{ FBX_DIR_LEAF, "rec_len", K_DIRENT, 4, 2 },
	{ FBX_DIR_LEAF, "name_len", K_DIRENT, 6, 1 },
	{ FBX_DIR_LEAF, "file_type", K_DIRENT, 7, 1 },
	{ FBX_DIR_LEAF, "name", K_DIRENT, 8, 0 },
	{ FBX_DIR_LEAF, "det_checksum", K_CSUM, 0, 0 },

	{ FBX_DX_ROOT, "hash_version", K_ONE, 28, 1 },
	{ FBX_DX_ROOT, "info_length", K_ONE, 29, 1 },
	{ FBX_DX_ROOT, "indirect_levels", K_ONE, 30, 1 },
	{ FBX_DX_ROOT, "limit", K_DXCL, 0, 2 },
	{ FBX_DX_ROOT, "count", K_DXCL, 2, 2 },
	{ FBX_DX_ROOT, "block", K_DXENT, 4, 4 },
	{ FBX_DX_ROOT, "hash", K_DXENT, 0, 4 },
	{ FBX_DX_ROOT, "dt_checksum", K_CSUM, 0, 0 },
	{ FBX_DX_NODE, "rec_len", K_ONE, 4, 2 },
	{ FBX_DX_NODE, "limit", K_DXCL, 0, 2 },
	{ FBX_DX_NODE, "count", K_DXCL, 2, 2 },
	{ FBX_DX_NODE, "block", K_DXENT, 4, 4 },
	{ FBX_DX_NODE, "hash", K_DXENT, 0, 4 },
	{ FBX_DX_NODE, "dt_checksum", K_CSUM, 0, 0 },

	{ FBX_XATTR_BLOCK, "h_magic", K_ONE, 0, 4 },
	{ FBX_XATTR_BLOCK, "h_refcount", K_ONE, 4, 4 },
	{ FBX_XATTR_BLOCK, "h_blocks", K_ONE, 8, 4 },
	{ FBX_XATTR_BLOCK, "h_hash", K_ONE, 12, 4 },
	{ FBX_XATTR_BLOCK, "h_checksum", K_ONE, 16, 4 },
	{ FBX_XATTR_BLOCK, "e_name_len", K_XATTR, 0, 1 },
	{ FBX_XATTR_BLOCK, "e_name_index", K_XATTR, 1, 1 },
	{ FBX_XATTR_BLOCK, "e_value_offs", K_XATTR, 2, 2 },
	{ FBX_XATTR_BLOCK, "e_value_inum", K_XATTR, 4, 4 },
	{ FBX_XATTR_BLOCK, "e_value_size", K_XATTR, 8, 4 },
	{ FBX_XATTR_BLOCK, "e_hash", K_XATTR, 12, 4 },

	JHDR(FBX_JOURNAL_SB),
	{ FBX_JOURNAL_SB, "s_blocksize", K_ONE, 12, 4 },
	{ FBX_JOURNAL_SB, "s_maxlen", K_ONE, 16, 4 },
	{ FBX_JOURNAL_SB, "s_first", K_ONE, 20, 4 },
	{ FBX_JOURNAL_SB, "s_sequence", K_ONE, 24, 4 },
	{ FBX_JOURNAL_SB, "s_start", K_ONE, 28, 4 },
	{ FBX_JOURNAL_SB, "s_errno", K_ONE, 32, 4 },
	{ FBX_JOURNAL_SB, "s_feature_compat", K_ONE, 36, 4 },
	{ FBX_JOURNAL_SB, "s_feature_incompat", K_ONE, 40, 4 },
	{ FBX_JOURNAL_SB, "s_uuid", K_ONE, 48, 16 },
	{ FBX_JOURNAL_SB, "s_checksum_type", K_ONE, 80, 1 },
	{ FBX_JOURNAL_SB, "s_checksum", K_ONE, 0xFC, 4 },
	JHDR(FBX_JOURNAL_DESCRIPTOR),
	{ FBX_JOURNAL_DESCRIPTOR, "t_blocknr", K_JTAG, 0, 0 },
	{ FBX_JOURNAL_DESCRIPTOR, "t_flags", K_JTAG, 0, 0 },
	{ FBX_JOURNAL_DESCRIPTOR, "t_checksum", K_JTAG, 0, 0 },
	{ FBX_JOURNAL_DESCRIPTOR, "tail_checksum", K_CSUM, 0, 0 },
	JHDR(FBX_JOURNAL_COMMIT),
	{ FBX_JOURNAL_COMMIT, "h_chksum_type", K_ONE, 12, 1 },
	{ FBX_JOURNAL_COMMIT, "h_chksum_size", K_ONE, 13, 1 },
	{ FBX_JOURNAL_COMMIT, "h_chksum", K_CSUM, 0, 0 },
	{ FBX_JOURNAL_COMMIT, "h_commit_sec", K_ONE, 48, 8 },
	{ FBX_JOURNAL_COMMIT, "h_commit_nsec", K_ONE, 56, 4 },
	JHDR(FBX_JOURNAL_REVOKE),
	{ FBX_JOURNAL_REVOKE, "r_count", K_ONE, 12, 4 },
	{ FBX_JOURNAL_REVOKE, "r_blocknr", K_REVOKE, 0, 0 },
	{ FBX_JOURNAL_REVOKE, "tail_checksum", K_CSUM, 0, 0 },

	MMP(mmp_magic), MMP(mmp_seq), MMP(mmp_time), MMP(mmp_nodename),
	MMP(mmp_bdevname), MMP(mmp_check_interval), MMP(mmp_checksum),

	{ FBX_ORPHAN_BLOCK, "ob_magic", K_TAIL, 8, 4 },
	{ FBX_ORPHAN_BLOCK, "ob_checksum", K_CSUM, 0, 0 },
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static int field_of(const struct field *f, enum fbx_type t)
{
	if (t == FBX_SUPERBLOCK_BACKUP)
		t = FBX_SUPERBLOCK;
	if (f->type == BOTH_EXTENT)
		return t == FBX_EXTENT_INDEX || t == FBX_EXTENT_LEAF;
	return f->type == t;
}

const char *const *fbx_type_fields(enum fbx_type type)
{
	static const char *names[FBX_TYPE_COUNT][NFIELDS + 1];
	size_t k, n = 0;

	if ((unsigned)type >= FBX_TYPE_COUNT)
		return NULL;
	if (!names[type][0])
		for (k = 0; k < NFIELDS; k++)
			if (field_of(&fields[k], type))
				names[type][n++] = fields[k].name;
	return names[type];
}

struct inst {
	struct fbx_range *r;
	size_t max, n;
	uint64_t base;		/* image offset of the object */
	uint64_t end;		/* object end (image offset) */
};

static void inst_add(struct inst *in, uint64_t rel, uint64_t len)
{
	if (in->n < in->max && len && in->base + rel + len <= in->end)
		in->r[in->n++] = (struct fbx_range){ in->base + rel, len };
}

static void each_extent(const unsigned char *b, const struct field *f,
			struct inst *in)
{
	const struct ext3_extent_header *eh = (const void *)b;
	unsigned k, n = ext2fs_le16_to_cpu(eh->eh_entries);

	for (k = 0; k < n; k++)
		inst_add(in, 12 + 12 * k + f->off, f->len);
}

static void each_dirent(struct fbx_map *m, const unsigned char *b,
			const struct field *f, struct inst *in)
{
	unsigned pos = 0, end = m->bs;

	if (ext2fs_has_feature_metadata_csum(m->fs->super))
		end -= sizeof(struct ext2_dir_entry_tail);
	while (pos + 8 <= end) {
		const struct ext2_dir_entry *d = (const void *)(b + pos);
		unsigned rl = ext2fs_le16_to_cpu(d->rec_len);
		unsigned nl = ext2fs_dirent_name_len(d);

		inst_add(in, pos + f->off, f->len ? f->len : nl);
		if (rl < 8 || rl % 4)
			break;
		pos += rl;
	}
}

static void each_dx(const unsigned char *b, enum fbx_type t,
		    const struct field *f, struct inst *in)
{
	unsigned coff = t == FBX_DX_ROOT ? 24 + b[29] : 8;
	unsigned k, count;

	count = fbx_le16(b + coff + offsetof(struct ext2_dx_countlimit, count));
	if (f->kind == K_DXCL) {
		inst_add(in, coff + f->off, f->len);
		return;
	}
	for (k = f->off ? 0 : 1; k < count; k++)
		inst_add(in, coff + 8 * k + f->off, f->len);
}

static void each_xattr(struct fbx_map *m, const unsigned char *b,
		       const struct field *f, struct inst *in)
{
	const unsigned char *p = b + sizeof(struct ext2_ext_attr_header);

	while (p + sizeof(struct ext2_ext_attr_entry) <= b + m->bs &&
	       !EXT2_EXT_IS_LAST_ENTRY(p)) {
		const struct ext2_ext_attr_entry *e = (const void *)p;

		inst_add(in, p - b + f->off, f->len);
		p = (const unsigned char *)EXT2_EXT_ATTR_NEXT(e);
	}
}

static void each_revoke(struct fbx_map *m, const unsigned char *b,
			struct inst *in)
{
	uint32_t count;
	unsigned sz = m->j.has64 ? 8 : 4, pos;

	memcpy(&count, b + 12, 4);
	count = be32toh(count);
	for (pos = 16; pos + sz <= count && pos + sz <= m->bs; pos += sz)
		inst_add(in, pos, sz);
}

static void each_jtag(struct fbx_map *m, size_t i, const struct field *f,
		      struct inst *in)
{
	uint64_t tags[1024];
	size_t n = fbx_journal_tags(m, i, tags, 1024), k;
	unsigned off, len;

	if (!fbx_journal_tag_field(m, f->name, &off, &len))
		return;
	for (k = 0; k < n; k++)
		inst_add(in, tags[k] + off, len);
}

errcode_t fbx_field_ranges(struct fbx_map *m, size_t i, const char *name,
			   struct fbx_range *ret_r, size_t max, size_t *ret_n)
{
	const struct fbx_object *o = &m->obj[i];
	struct inst in = { ret_r, max, 0, o->offset, o->offset + o->length };
	const struct field *f = NULL;
	unsigned char *b;
	size_t k;

	for (k = 0; k < NFIELDS && !f; k++)
		if (field_of(&fields[k], o->type) &&
		    !strcmp(fields[k].name, name))
			f = &fields[k];
	if (!f)
		return FBX_ET_BAD_FIELD;
	b = malloc(m->bs);
	if (!b)
		return ENOMEM;
	if (fbx_pread(m, o->offset, b, o->length < m->bs ? o->length : m->bs)) {
		free(b);
		return FBX_ET_SHORT_IO;
	}
	switch (f->kind) {
	case K_ONE:
		inst_add(&in, f->off, f->len);
		break;
	case K_CSUM:
		if (o->ncsum)
			ret_r[in.n++] = o->csum[0];
		break;
	case K_TAIL:
		inst_add(&in, o->length - f->off, f->len);
		break;
	case K_EXTENT:
		each_extent(b, f, &in);
		break;
	case K_DIRENT:
		each_dirent(m, b, f, &in);
		break;
	case K_DXCL:
	case K_DXENT:
		each_dx(b, o->type, f, &in);
		break;
	case K_XATTR:
		each_xattr(m, b, f, &in);
		break;
	case K_JTAG:
		each_jtag(m, i, f, &in);
		break;
	case K_REVOKE:
		each_revoke(m, b, &in);
		break;
	}
	free(b);
	*ret_n = in.n;
	return 0;
}

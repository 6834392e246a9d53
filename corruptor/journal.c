// SPDX-License-Identifier: MIT
/*
 * journal.c --- the live part of the jbd2 log and its checksums.
 *
 * This is the one place where flipbed reads an on-disk format itself:
 * libext2fs 1.47 installs no jbd2 header (kernel-jbd.h stays inside
 * e2fsprogs) and exports no journal reader or jbd2 checksum function. The
 * few offsets below follow the jbd2 format (big-endian; see the kernel's
 * include/linux/jbd2.h and Documentation/filesystems/ext4/journal.rst);
 * the journal's blocks come from the journal inode through libext2fs and
 * the CRC is libext2fs' ext2fs_crc32c_le().
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "fbx-int.h"

#define JBD2_MAGIC		0xC03B3998U
#define JBD2_DESCRIPTOR_BLOCK	1
#define JBD2_COMMIT_BLOCK	2
#define JBD2_SUPERBLOCK_V1	3
#define JBD2_SUPERBLOCK_V2	4
#define JBD2_REVOKE_BLOCK	5

/* journal superblock: offsets of the fields we use */
#define JSB_SIZE		1024
#define JSB_MAXLEN		0x10
#define JSB_FIRST		0x14
#define JSB_SEQUENCE		0x18
#define JSB_START		0x1C
#define JSB_INCOMPAT		0x28
#define JSB_UUID		0x30
#define JSB_CHECKSUM		0xFC

#define JBD2_INCOMPAT_64BIT	0x2
#define JBD2_INCOMPAT_CSUM_V2	0x8
#define JBD2_INCOMPAT_CSUM_V3	0x10

#define JBD2_FLAG_SAME_UUID	0x2
#define JBD2_FLAG_LAST_TAG	0x8

#define HDR_SIZE		12	/* magic, blocktype, sequence */
#define COMMIT_CHKSUM		16	/* h_chksum[0] of the commit block */
#define TAIL_SIZE		4	/* jbd2_journal_block_tail */

static uint32_t be32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint16_t be16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

static void put_be32(unsigned char *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static uint32_t next_log_block(const struct fbx_journal *j, uint32_t b)
{
	return b + 1 >= j->maxlen ? j->first : b + 1;
}

/* Tag layout (kernel journal_tag_bytes()): v3 tags are 16 bytes. */
static unsigned tag_bytes(uint32_t incompat)
{
	unsigned sz = 12;

	if (incompat & JBD2_INCOMPAT_CSUM_V3)
		return 16;
	if (incompat & JBD2_INCOMPAT_CSUM_V2)
		sz += 2;
	return incompat & JBD2_INCOMPAT_64BIT ? sz : sz - 4;
}

int fbx_journal_tag_field(struct fbx_map *m, const char *field,
			  unsigned *ret_off, unsigned *ret_len)
{
	int v3 = m->j.csum_ver == 3;

	if (!strcmp(field, "t_blocknr")) {
		*ret_off = 0;
		*ret_len = 4;
	} else if (!strcmp(field, "t_flags")) {
		*ret_off = v3 ? 4 : 6;
		*ret_len = v3 ? 4 : 2;
	} else if (!strcmp(field, "t_checksum") && m->j.csum_ver) {
		*ret_off = v3 ? 12 : 4;
		*ret_len = v3 ? 4 : 2;
	} else {
		return 0;
	}
	return 1;
}

/* Walk the tags of descriptor BUF: their offsets, up to MAX of them. */
static size_t walk_tags(const struct fbx_journal *j, unsigned bs,
			const unsigned char *buf, uint64_t *ret_off, size_t max)
{
	unsigned end = bs - (j->csum_ver ? TAIL_SIZE : 0);
	unsigned off = HDR_SIZE, flags;
	size_t n = 0;

	while (off + j->tag_bytes <= end && n < max) {
		flags = j->csum_ver == 3 ? be32(buf + off + 4) :
					   be16(buf + off + 6);
		ret_off[n++] = off;
		off += j->tag_bytes;
		if (!(flags & JBD2_FLAG_SAME_UUID))
			off += 16;
		if (flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	return n;
}

size_t fbx_journal_tags(struct fbx_map *m, size_t i, uint64_t *ret_off,
			size_t max)
{
	unsigned char *buf = malloc(m->bs);
	size_t n = 0;

	if (!buf)
		abort();
	if (!fbx_pread(m, m->obj[i].offset, buf, m->bs))
		n = walk_tags(&m->j, m->bs, buf, ret_off, max);
	free(buf);
	return n;
}

static size_t add_log_block(struct fbx_map *m, enum fbx_type type,
			    uint32_t lb, size_t parent, uint32_t seq)
{
	ext2_ino_t jino = m->fs->super->s_journal_inum;
	size_t r = fbx_add_block(m, type, m->j.blocks[lb], jino, lb, parent);

	m->obj[r].jseq = seq;
	return r;
}

/* One descriptor block and the data blocks its tags announce. */
static uint32_t map_descriptor(struct fbx_map *m, const unsigned char *buf,
			       uint32_t lb, uint32_t seq)
{
	struct fbx_journal *j = &m->j;
	size_t d = add_log_block(m, FBX_JOURNAL_DESCRIPTOR, lb, j->sb_rec, seq);
	uint64_t tags[1024], doff = m->obj[d].offset;
	size_t n = walk_tags(j, m->bs, buf, tags, 1024), k;

	if (j->csum_ver) {
		fbx_cover(&m->obj[d], doff, m->bs - TAIL_SIZE);
		fbx_csum_at(&m->obj[d], doff + m->bs - TAIL_SIZE, TAIL_SIZE);
	}
	for (k = 0; k < n; k++) {
		unsigned coff, clen;
		size_t r;

		lb = next_log_block(j, lb);
		if (lb >= j->nblocks || !j->blocks[lb])
			break;
		r = add_log_block(m, FBX_JOURNAL_DATA, lb, d, seq);
		if (fbx_journal_tag_field(m, "t_checksum", &coff, &clen)) {
			fbx_cover(&m->obj[r], m->obj[r].offset, m->bs);
			fbx_csum_at(&m->obj[r], doff + tags[k] + coff, clen);
		}
	}
	return lb;
}

static void map_log(struct fbx_map *m, unsigned char *buf)
{
	struct fbx_journal *j = &m->j;
	uint32_t lb = j->start, seq = j->sequence, steps;
	size_t r;

	for (steps = 0; steps < j->maxlen; steps++) {
		if (lb >= j->nblocks || !j->blocks[lb] ||
		    fbx_pread(m, j->blocks[lb] * m->bs, buf, m->bs) ||
		    be32(buf) != JBD2_MAGIC || be32(buf + 8) != seq)
			return;
		switch (be32(buf + 4)) {
		case JBD2_DESCRIPTOR_BLOCK:
			lb = map_descriptor(m, buf, lb, seq);
			break;
		case JBD2_REVOKE_BLOCK:
			r = add_log_block(m, FBX_JOURNAL_REVOKE, lb, j->sb_rec,
					  seq);
			if (j->csum_ver) {
				uint64_t o = m->obj[r].offset;

				fbx_cover(&m->obj[r], o, m->bs - TAIL_SIZE);
				fbx_csum_at(&m->obj[r], o + m->bs - TAIL_SIZE,
					    TAIL_SIZE);
			}
			break;
		case JBD2_COMMIT_BLOCK:
			r = add_log_block(m, FBX_JOURNAL_COMMIT, lb, j->sb_rec,
					  seq);
			if (j->csum_ver) {
				uint64_t o = m->obj[r].offset;

				fbx_cover(&m->obj[r], o, COMMIT_CHKSUM);
				fbx_cover(&m->obj[r], o + COMMIT_CHKSUM + 4,
					  m->bs - COMMIT_CHKSUM - 4);
				fbx_csum_at(&m->obj[r], o + COMMIT_CHKSUM, 4);
			}
			seq++;
			break;
		default:
			return;
		}
		lb = next_log_block(j, lb);
	}
}

void fbx_map_journal(struct fbx_map *m, size_t irec)
{
	struct fbx_journal *j = &m->j;
	unsigned char *buf = malloc(m->bs);
	uint32_t incompat, type;
	struct fbx_object *o;

	if (!buf)
		abort();
	if (!j->nblocks || !j->blocks[0] ||
	    fbx_pread(m, j->blocks[0] * m->bs, buf, m->bs))
		goto out;
	type = be32(buf + 4);
	if (be32(buf) != JBD2_MAGIC ||
	    (type != JBD2_SUPERBLOCK_V1 && type != JBD2_SUPERBLOCK_V2))
		goto out;
	incompat = type == JBD2_SUPERBLOCK_V2 ? be32(buf + JSB_INCOMPAT) : 0;
	j->present = 1;
	j->csum_ver = incompat & JBD2_INCOMPAT_CSUM_V3 ? 3 :
		      incompat & JBD2_INCOMPAT_CSUM_V2 ? 2 : 0;
	j->seed = ext2fs_crc32c_le(~0U, buf + JSB_UUID, 16);
	j->tag_bytes = tag_bytes(incompat);
	j->has64 = !!(incompat & JBD2_INCOMPAT_64BIT);
	j->maxlen = be32(buf + JSB_MAXLEN);
	j->first = be32(buf + JSB_FIRST);
	j->sequence = be32(buf + JSB_SEQUENCE);
	j->start = be32(buf + JSB_START);
	if (j->maxlen > j->nblocks)
		j->maxlen = j->nblocks;

	j->sb_rec = fbx_add_block(m, FBX_JOURNAL_SB, j->blocks[0],
				  m->fs->super->s_journal_inum, 0, irec);
	o = &m->obj[j->sb_rec];
	o->length = JSB_SIZE;
	if (j->csum_ver) {
		fbx_cover(o, o->offset, JSB_CHECKSUM);
		fbx_cover(o, o->offset + JSB_CHECKSUM + 4,
			  JSB_SIZE - JSB_CHECKSUM - 4);
		fbx_csum_at(o, o->offset + JSB_CHECKSUM, 4);
	}
	/* s_start == 0: the journal is clean, nothing in it will replay. */
	if (j->start && j->first && j->start < j->maxlen)
		map_log(m, buf);
out:
	free(buf);
}

/*
 * Check (and with SET, rewrite into P) the jbd2 checksum of journal record
 * I: the superblock's s_checksum, a descriptor's or revoke block's tail,
 * a commit block's h_chksum[0], or a data block's tag checksum (and then
 * its descriptor's tail, which covers the tag).
 */
errcode_t fbx_journal_seal(struct fbx_map *m, size_t i, struct fbx_patch *p,
			   int set, int *ret_ok)
{
	const struct fbx_object *o = &m->obj[i];
	const struct fbx_journal *j = &m->j;
	unsigned char *buf = malloc(m->bs), cs[4], seqb[4];
	uint64_t coff;
	unsigned len = o->type == FBX_JOURNAL_SB ? JSB_SIZE : m->bs;
	uint32_t crc;
	errcode_t err;

	if (!buf)
		return ENOMEM;
	err = fbx_read_patched(m, p, o->offset, buf, len);
	if (err)
		goto out;
	coff = o->csum[0].off;
	if (o->type == FBX_JOURNAL_DATA) {
		put_be32(seqb, o->jseq);
		crc = ext2fs_crc32c_le(j->seed, seqb, 4);
		crc = ext2fs_crc32c_le(crc, buf, m->bs);
	} else {
		memset(buf + (coff - o->offset), 0, 4);
		crc = ext2fs_crc32c_le(o->type == FBX_JOURNAL_SB ? ~0U : j->seed,
				       buf, len);
	}
	/* v2 data tags keep the low 16 bits, big-endian */
	if (o->csum[0].len == 2) {
		cs[0] = crc >> 8;
		cs[1] = crc;
	} else {
		put_be32(cs, crc);
	}
	err = fbx_read_patched(m, p, coff, buf, o->csum[0].len);
	if (err)
		goto out;
	*ret_ok = !memcmp(buf, cs, o->csum[0].len);
	if (!set)
		goto out;
	err = fbx_patch_diff(m, p, coff, cs, o->csum[0].len, 1);
	if (!err && o->type == FBX_JOURNAL_DATA)
		err = fbx_journal_seal(m, o->parent, p, 1, ret_ok);
out:
	free(buf);
	return err;
}

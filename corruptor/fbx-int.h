/* SPDX-License-Identifier: MIT */
/*
 * fbx-int.h --- internals shared by the corruptor library's source files.
 * Not installed; the public surface is flipbed-ext4.h.
 */
#ifndef FBX_INT_H
#define FBX_INT_H

#include "flipbed-ext4.h"

/* A growable buffer in 2 MiB pages (buf.c): new bytes read as zero. */
struct fbx_buf {
	char *p;
	size_t size;
};

/* The live part of the jbd2 log, as found by journal.c. */
struct fbx_journal {
	int present;		/* a valid jbd2 superblock was found */
	int csum_ver;		/* 0 (none or v1), 2 or 3 */
	uint32_t seed;		/* crc32c(~0, s_uuid) for v2/v3 */
	unsigned tag_bytes;
	int has64;		/* revoke records are 8 bytes */
	uint32_t maxlen, first, start, sequence;
	blk64_t *blocks;	/* journal inode: logical -> physical */
	uint32_t nblocks;
	size_t sb_rec;		/* record of the journal superblock */
};

struct fbx_map {
	char *image;
	uint64_t image_size;	/* bytes in the image file (or device) */
	int fd;
	int rw;
	ext2_filsys fs;
	int from_backup;
	unsigned bs;		/* filesystem block size */
	unsigned isize;		/* inode size */
	ext2_ino_t ninodes;

	struct fbx_object *obj;	/* in objbuf; .path is set only by
				   fbx_map_object(): use fbx_ino_path() */
	size_t n, cap;
	struct fbx_buf objbuf;

	/* By inode number, all three in inodebuf (one 2 MiB page for
	 * 100,000 inodes): */
	size_t *path_at;	/* 1 + offset of its path in pathbuf; 0: unknown */
	size_t *inode_rec;	/* its FBX_INODE record */
	uint16_t *imode;	/* i_mode of every mapped inode */
	struct fbx_buf inodebuf;
	struct fbx_buf pathbuf;	/* the paths, NUL-terminated */
	size_t pathlen;
	size_t *gd_rec;		/* by group: its FBX_GROUP_DESC record */
	size_t sb_rec;

	struct fbx_journal j;
	char explain[512];
};

/*
 * Little-endian fields at any address: an htree's count and limit sit at
 * 24 + info_length, odd when info_length is, and a misaligned struct
 * access is undefined (UBSan stops there).
 */
static inline unsigned fbx_le16(const void *p)
{
	const unsigned char *b = p;

	return b[0] | b[1] << 8;
}

static inline uint32_t fbx_le32(const void *p)
{
	const unsigned char *b = p;

	return fbx_le16(b) | (uint32_t)fbx_le16(b + 2) << 16;
}

/* buf.c: the buffer holds at least NEED bytes; returns b->p. */
void *fbx_buf_reserve(struct fbx_buf *b, size_t need);
void fbx_buf_free(struct fbx_buf *b);

/* map.c */
size_t fbx_add(struct fbx_map *m, enum fbx_type type);
size_t fbx_add_block(struct fbx_map *m, enum fbx_type type, blk64_t pblk,
		     ext2_ino_t ino, int64_t lblk, size_t parent);
void fbx_cover(struct fbx_object *o, uint64_t off, uint64_t len);
void fbx_csum_at(struct fbx_object *o, uint64_t off, uint64_t len);
/* Path of inode INO, NULL when unknown. */
const char *fbx_ino_path(struct fbx_map *m, ext2_ino_t ino);
errcode_t fbx_pread(struct fbx_map *m, uint64_t off, void *buf, size_t len);

/* journal.c: jbd2 format code (libext2fs exports no jbd2 reader) */
void fbx_map_journal(struct fbx_map *m, size_t inode_rec);
errcode_t fbx_journal_seal(struct fbx_map *m, size_t i, struct fbx_patch *p,
			   int set, int *ret_ok);
/* Offsets (within the descriptor) of the tags of descriptor record I. */
size_t fbx_journal_tags(struct fbx_map *m, size_t i, uint64_t *ret_off,
			size_t max);
/* Field position of FIELD in a tag ("t_blocknr", "t_flags", "t_checksum"). */
int fbx_journal_tag_field(struct fbx_map *m, const char *field,
			  unsigned *ret_off, unsigned *ret_len);

/* seal.c: checksums through libext2fs */
errcode_t fbx_seal(struct fbx_map *m, size_t i, struct fbx_patch *p, int set,
		   int *ret_ok);
errcode_t fbx_read_patched(struct fbx_map *m, const struct fbx_patch *p,
			   uint64_t off, void *buf, size_t len);
errcode_t fbx_patch_diff(struct fbx_map *m, struct fbx_patch *p,
			 uint64_t off, const void *buf, size_t len, int csum);
errcode_t fbx_patch_set(struct fbx_patch *p, uint64_t off, uint8_t old,
			uint8_t new, int csum);

/* fields.c */
errcode_t fbx_field_ranges(struct fbx_map *m, size_t i, const char *field,
			   struct fbx_range *ret_r, size_t max, size_t *ret_n);

#endif

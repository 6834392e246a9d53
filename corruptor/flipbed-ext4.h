/* SPDX-License-Identifier: MIT */
/*
 * flipbed-ext4.h --- the corruptor library: where every ext4 metadata object
 * of an image lives, which bytes its checksum covers, and which bits to hit.
 *
 * Built on libext2fs (no second ext4 parser). Typical use by the harness:
 *
 *	fbx_map_t map;
 *	struct fbx_selector sel = FBX_SELECTOR_INIT;
 *	size_t *idx, n;
 *	struct fbx_patch *p;
 *	struct fbx_pick_opts o = FBX_PICK_OPTS_INIT;
 *
 *	fbx_map_open("disk.img", 0, &map);          open + map every object
 *	fbx_type_parse("extent-leaf", &sel.type);
 *	sel.path = "/a/b";
 *	fbx_map_find(map, &sel, &idx, &n);           filter by type + selector
 *	o.seed = 42; o.reseal = 1;
 *	fbx_object_pick(map, idx[0], &o, &p);        choose bits (+ checksum)
 *	fbx_patch_rules(p, FBX_ON_READ, &rules);     "on=read at=0x… len=1 flip=3"
 *	fbx_patch_apply(map, p);                     or change the file now
 *	fbx_patch_free(p); free(idx); fbx_map_close(map);
 *
 * Conventions (e2fsprogs style): functions return errcode_t (0 on success;
 * libext2fs/com_err codes or the FBX_ET_* codes below, all printable with
 * fbx_error_message()), take the map handle first and return through ret_*
 * parameters last. Offsets and lengths are bytes within the image file.
 */
#ifndef FLIPBED_EXT4_H
#define FLIPBED_EXT4_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <ext2fs/ext2fs.h>

/* Object types. Keep fbx_type_name()'s table in the same order. */
enum fbx_type {
	FBX_SUPERBLOCK,
	FBX_SUPERBLOCK_BACKUP,
	FBX_GROUP_DESC,
	FBX_BLOCK_BITMAP,
	FBX_INODE_BITMAP,
	FBX_INODE,		/* the 128-byte base of an in-use inode */
	FBX_INODE_EXTRA,	/* bytes 128..inode_size: in-inode xattrs, system.data */
	FBX_INLINE_DATA,	/* i_block (60 bytes) of an inline file or directory */
	FBX_EXTENT_INDEX,	/* an on-disk extent tree index block */
	FBX_EXTENT_LEAF,	/* an on-disk extent tree leaf block */
	FBX_DIR_LEAF,
	FBX_DX_ROOT,
	FBX_DX_NODE,
	FBX_XATTR_BLOCK,
	FBX_JOURNAL_SB,
	FBX_JOURNAL_DESCRIPTOR,
	FBX_JOURNAL_COMMIT,
	FBX_JOURNAL_REVOKE,
	FBX_JOURNAL_DATA,
	FBX_MMP,
	FBX_ORPHAN_BLOCK,
	FBX_DATA,		/* user file data: the uncovered control */
	FBX_TYPE_COUNT
};

/* "extent-leaf" for FBX_EXTENT_LEAF; NULL when out of range. */
const char *fbx_type_name(enum fbx_type type);
/* FBX_ET_BAD_TYPE for an unknown name. */
errcode_t fbx_type_parse(const char *name, enum fbx_type *ret_type);

/* A byte range within the image. */
struct fbx_range {
	uint64_t off;
	uint64_t len;
};

#define FBX_MAX_CSUM	2	/* e.g. i_checksum_lo and i_checksum_hi */
#define FBX_MAX_COVER	3
#define FBX_NONE	((size_t)-1)

/* fbx_object.flags */
#define FBX_OBJ_CLUSTER_BITMAP	0x1	/* bigalloc: one bit per cluster */
#define FBX_OBJ_CSUM_SHARED	0x2	/* the checksum is the parent inode's:
					   verify reports it as that inode */
#define FBX_OBJ_UNINIT		0x4	/* data extent marked uninitialized */

/*
 * One metadata object (a map record). Strings are owned by the map.
 * Fields are ordered so that there is no padding (160 bytes, not 184): a
 * map holds about three records per file.
 */
struct fbx_object {
	enum fbx_type type;
	uint32_t ino;		/* owning inode, 0 when none */
	int64_t group;		/* block group, -1 when none */
	const char *path;	/* path of ino where known, else NULL */
	int64_t lblk;		/* logical block in the owner, -1 when none */
	uint64_t pblk;		/* filesystem block holding the first byte */
	uint64_t offset;	/* bytes within the image */
	uint64_t length;
	unsigned ncsum;		/* where the checksum lives (0: no checksum) */
	unsigned ncovered;	/* bytes the checksum protects */
	struct fbx_range csum[FBX_MAX_CSUM];
	struct fbx_range covered[FBX_MAX_COVER];
	unsigned flags;		/* FBX_OBJ_* */
	uint32_t jseq;		/* journal objects: transaction sequence */
	size_t parent;		/* record whose checksummed bytes lead here
				   (descriptor, inode, index block…), or
				   FBX_NONE; verify skips children of a
				   failed parent */
};

typedef struct fbx_map *fbx_map_t;

/* fbx_map_open() flags */
#define FBX_OPEN_RW	0x1	/* fbx_patch_apply() will write the image */

/*
 * Open IMAGE with libext2fs (falling back to a backup superblock when the
 * primary is unusable) and map every object. When no superblock is usable,
 * the error is libext2fs' for the primary (EXT2_ET_BAD_MAGIC…).
 */
errcode_t fbx_map_open(const char *image, int flags, fbx_map_t *ret_map);
void fbx_map_close(fbx_map_t map);

ext2_filsys fbx_map_fs(fbx_map_t map);
const char *fbx_map_image(fbx_map_t map);
/* Nonzero when the primary superblock could not be used to open. */
int fbx_map_opened_from_backup(fbx_map_t map);
/*
 * FBX_ET_TRUNCATED when the image file is shorter than the filesystem its
 * superblock describes (blocks count x block size). Either way, both
 * sizes and the number of records that end past the image's end.
 */
errcode_t fbx_map_check_size(fbx_map_t map, uint64_t *ret_image_size,
			     uint64_t *ret_fs_size, size_t *ret_past_end);
size_t fbx_map_count(fbx_map_t map);
const struct fbx_object *fbx_map_object(fbx_map_t map, size_t i);

/* Selector: which objects of a type. Unused fields keep their INIT value. */
struct fbx_selector {
	enum fbx_type type;
	const char *path;	/* owner's path (resolved to its inode) */
	uint32_t ino;		/* 0: any */
	int64_t group;		/* -1: any */
	int64_t index;		/* -1: all matches; K: only the K-th match */
};
#define FBX_SELECTOR_INIT { FBX_TYPE_COUNT, NULL, 0, -1, -1 }

/*
 * Indexes (map order) of the objects matching SEL, malloc'ed (free()).
 * FBX_ET_NO_PATH when sel->path does not resolve, FBX_ET_TYPE_ABSENT when
 * the image has no object of that type at all, FBX_ET_NO_MATCH when it has
 * some but none match the selector. fbx_map_explain() names why.
 */
errcode_t fbx_map_find(fbx_map_t map, const struct fbx_selector *sel,
		       size_t **ret_idx, size_t *ret_count);
/*
 * One line saying why the last fbx_map_find() failed, or why the last
 * object verified or picked is unverifiable (owned by the map).
 */
const char *fbx_map_explain(fbx_map_t map);

/* Verification states. */
enum fbx_verdict {
	FBX_CSUM_OK,
	FBX_CSUM_BAD,
	FBX_CSUM_NONE,		/* no checksum covers this object */
	FBX_CSUM_SKIPPED,	/* its parent failed: its location is suspect */
	FBX_CSUM_SHARED,	/* covered by its inode's checksum */
	FBX_CSUM_UNVERIFIABLE	/* its checksum cannot be located: a header
				   field puts it outside the block, or the
				   object lies past the end of the image */
};

/* "ok", "bad", "none", "skipped", "shared", "unverifiable". */
const char *fbx_verdict_name(enum fbx_verdict verdict);

/*
 * Check one object's checksum against the bytes in the image file now.
 * Header fields that locate the checksum (an extent block's eh_max, a
 * directory block's rec_len chain, an htree's count, limit and
 * info_length) are checked against the block size first: when they put it
 * outside the block, or bytes it needs lie past the end of the image
 * file, the verdict is FBX_CSUM_UNVERIFIABLE and fbx_map_explain() says
 * why.
 */
errcode_t fbx_object_verify(fbx_map_t map, size_t i,
			    enum fbx_verdict *ret_verdict);
/*
 * Check every checksum; RET_VERDICTS (malloc'ed, one per object, may be
 * NULL) and the number of objects that fail: FBX_CSUM_BAD or
 * FBX_CSUM_UNVERIFIABLE.
 */
errcode_t fbx_map_verify(fbx_map_t map, enum fbx_verdict **ret_verdicts,
			 size_t *ret_nbad);

/* What to hit inside an object. */
enum fbx_region {
	FBX_REGION_COVERED,	/* bytes protected by the checksum */
	FBX_REGION_CSUM,	/* the checksum itself */
	FBX_REGION_ANY,		/* any byte of the object */
	FBX_REGION_FIELD	/* a named structure field (opts.field) */
};
errcode_t fbx_region_parse(const char *s, enum fbx_region *ret_region,
			   const char **ret_field);

struct fbx_pick_opts {
	unsigned bits;		/* distinct bits to flip (default 1) */
	enum fbx_region region;
	const char *field;	/* FBX_REGION_FIELD: "ee_start", "rec_len"… */
	uint64_t seed;		/* same seed + image = same bits */
	int reseal;		/* also rewrite the checksum(s) to match */
};
#define FBX_PICK_OPTS_INIT { 1, FBX_REGION_ANY, NULL, 0, 0 }

/* Field names of TYPE, NULL-terminated (static storage). */
const char *const *fbx_type_fields(enum fbx_type type);

/* A set of byte changes to the image: sorted by offset, one per byte. */
struct fbx_byte_change {
	uint64_t off;
	uint8_t old;
	uint8_t new;
	uint8_t csum;		/* 1: checksum rewritten by reseal */
};
struct fbx_patch {
	size_t n, cap;
	struct fbx_byte_change *b;
};

/*
 * Choose OPTS->bits bits of object I (region, field and seed from OPTS) and,
 * with opts->reseal, the checksum bytes that make the object verify again
 * (for bitmaps that includes the group descriptor's own checksum, for
 * journal data the descriptor's tag and tail). Nothing is written.
 * FBX_ET_EMPTY_REGION when the region has no byte (checksums off,
 * no such field); with reseal, FBX_ET_UNVERIFIABLE when a header field
 * puts the checksum outside the block (fbx_map_explain() names it).
 */
errcode_t fbx_object_pick(fbx_map_t map, size_t i,
			  const struct fbx_pick_opts *opts,
			  struct fbx_patch **ret_patch);
void fbx_patch_free(struct fbx_patch *patch);

/* When the plugin applies a rule. */
enum fbx_on { FBX_ON_REST, FBX_ON_READ, FBX_ON_WRITE };
errcode_t fbx_on_parse(const char *s, enum fbx_on *ret_on);

/*
 * Plugin rules for PATCH (nbdkit-flipbed-plugin syntax, one per run of
 * adjacent changed bytes: "on=read at=0x1234 len=2 flip=3,9"), a
 * NULL-terminated malloc'ed array of malloc'ed strings: fbx_rules_free().
 */
errcode_t fbx_patch_rules(const struct fbx_patch *patch, enum fbx_on on,
			  char ***ret_rules);
void fbx_rules_free(char **rules);

/*
 * Write PATCH into the image file (the map must be opened FBX_OPEN_RW).
 * Fails with FBX_ET_STALE, writing nothing, if a byte no longer holds its
 * 'old' value. The map describes the image before the change: reopen it
 * to map or verify the result.
 */
errcode_t fbx_patch_apply(fbx_map_t map, const struct fbx_patch *patch);

/* Output of records: one line of key=value words, or one JSON object. */
enum fbx_format { FBX_FMT_TEXT, FBX_FMT_JSON };
errcode_t fbx_object_print(fbx_map_t map, size_t i, enum fbx_format fmt,
			   FILE *out);
/*
 * The record of object I with its verdict: text adds "verdict=V", JSON
 * adds "verdict" and, when WHY is not NULL, "why".
 */
errcode_t fbx_verdict_print(fbx_map_t map, size_t i,
			    enum fbx_verdict verdict, const char *why,
			    enum fbx_format fmt, FILE *out);
/* Every record, in map order (for text, faster than one call each). */
errcode_t fbx_map_print(fbx_map_t map, enum fbx_format fmt, FILE *out);

/* Library error codes (outside com_err's ranges). */
#define FBX_ET_BASE		0x46425800L	/* "FBX\0" */
#define FBX_ET_BAD_TYPE		(FBX_ET_BASE + 2)
#define FBX_ET_NO_PATH		(FBX_ET_BASE + 3)
#define FBX_ET_TYPE_ABSENT	(FBX_ET_BASE + 4)
#define FBX_ET_NO_MATCH		(FBX_ET_BASE + 5)
#define FBX_ET_EMPTY_REGION	(FBX_ET_BASE + 6)
#define FBX_ET_BAD_FIELD	(FBX_ET_BASE + 7)
#define FBX_ET_BAD_REGION	(FBX_ET_BASE + 8)
#define FBX_ET_BAD_ON		(FBX_ET_BASE + 9)
#define FBX_ET_RESEAL		(FBX_ET_BASE + 10)
#define FBX_ET_STALE		(FBX_ET_BASE + 11)
#define FBX_ET_READ_ONLY	(FBX_ET_BASE + 12)
#define FBX_ET_SHORT_IO		(FBX_ET_BASE + 13)
#define FBX_ET_BAD_BITS		(FBX_ET_BASE + 14)
#define FBX_ET_UNVERIFIABLE	(FBX_ET_BASE + 15)
#define FBX_ET_TRUNCATED	(FBX_ET_BASE + 16)

/* Message for FBX_ET_* codes, libext2fs codes and errno values. */
const char *fbx_error_message(errcode_t code);

#endif

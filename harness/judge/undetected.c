// SPDX-License-Identifier: MIT
/* Why a fault went undetected (undetected.h). */
#include <string.h>

#include "judge/undetected.h"

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static long long num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

/*
 * Whether witness record W touched the target's bytes. A lost or
 * misdirected write's span is the request's (several blocks), wider than
 * the object: a read of the block beside it says nothing of it. A target
 * without offset and length takes every record.
 */
static bool on_target(const json_t *target, const json_t *w)
{
	long long off = num(target, "offset"), len = num(target, "length");
	long long woff = num(w, "offset"), wlen = num(w, "len");

	if (off < 0 || len <= 0 || woff < 0 || wlen <= 0)
		return true;
	return woff < off + len && woff + wlen > off;
}

/*
 * Whether fault record F's watched span is narrowed to the target: a lost
 * or misdirected write (drop, misdirect), whose watch is the whole
 * request. The plugin watches the bytes a data rule changed, wherever
 * they lie (a flip of an inode's checksum field is outside the inline data
 * its target names): all of them are the fault's. So are a torn write's:
 * its watch is the part of the request the tear did not store (the fault
 * record's span), and a read of any of those bytes, the target's block or
 * the one beside it, gave the guest the disk's old bytes where the kernel
 * had written new ones.
 */
static bool span_fault(const json_t *f)
{
	const char *a = str(f, "action");

	return !strcmp(a, "drop") || !strcmp(a, "misdirect");
}

/*
 * The seq of WITNESS's first KIND ("read", "overwrite") record of fault
 * record F, on TARGET's bytes for a lost or misdirected write, or -1.
 */
static long long first_seen(const json_t *target, const json_t *witness, const json_t *f,
			    const char *kind)
{
	long long best = -1, fault = num(f, "seq");
	bool span = span_fault(f);
	size_t i;
	json_t *w;

	json_array_foreach(witness, i, w)
		if (num(w, "fault") == fault && !strcmp(str(w, "witness"), kind) &&
		    (!span || on_target(target, w)) && (best < 0 || num(w, "seq") < best))
			best = num(w, "seq");
	return best;
}

/*
 * An image run with no fault (flipbed image): the objects whose checksums
 * failed the corruptor's verify before the boot, the target record's
 * "verify" (run/badobj.h), stand in for the fault. Each watched one is
 * watched by a watch rule named by its "id", whose witness records name
 * the rule and no fault. NULL for any other target.
 */
static const json_t *verify_objects(const json_t *target)
{
	const json_t *o = json_object_get(json_object_get(target, "verify"), "objects");

	return json_is_array(o) ? o : NULL;
}

/* The seq of WITNESS's first KIND record of watch rule ID, or -1. */
static long long first_watched(const json_t *witness, const char *id, const char *kind)
{
	long long best = -1;
	size_t i;
	json_t *w;

	json_array_foreach(witness, i, w)
		if (!json_object_get(w, "fault") && !strcmp(str(w, "rule"), id) &&
		    !strcmp(str(w, "witness"), kind) && (best < 0 || num(w, "seq") < best))
			best = num(w, "seq");
	return best;
}

/* What the objects the guest read are, when all of one kind. */
enum read_kind {
	READ_MIXED,
	READ_BACKUPS,		/* superblock backups only */
	READ_FREE_INODES,	/* inodes not in use only */
};

/*
 * Whether the guest read a watched object before any overwrite of it;
 * *RET_OVERWRITTEN: none was, and some was overwritten first; *RET_KIND:
 * what every one read was.
 */
static bool objects_read(const json_t *objects, const json_t *witness, bool *ret_overwritten,
			 enum read_kind *ret_kind)
{
	bool overwritten = false, read = false, backups = true, free_inodes = true;
	size_t i;
	json_t *o;

	json_array_foreach(objects, i, o) {
		const char *id = str(o, "id");
		long long r, w;

		if (!*id || !json_is_true(json_object_get(o, "watched")))
			continue;
		r = first_watched(witness, id, "read");
		w = first_watched(witness, id, "overwrite");
		if (r >= 0 && (w < 0 || r < w)) {
			read = true;
			backups &= !strcmp(str(o, "type"), "superblock-backup");
			free_inodes &= !strcmp(str(o, "type"), "inode") &&
				       !strcmp(str(o, "note"), "not in use");
		} else {
			overwritten |= w >= 0;
		}
	}
	*ret_overwritten = !read && overwritten;
	*ret_kind = !read ? READ_MIXED : backups ? READ_BACKUPS :
		    free_inodes ? READ_FREE_INODES : READ_MIXED;
	return read;
}

/*
 * The cause for an image's failing objects: what the witness saw (none of
 * them read: never-read, or overwritten-before-read), then what they are.
 * Only superblock backups read: redundant-copy-unused. Only inodes not in
 * use read: freed, as for a fault's inode whose file was removed. ext4
 * verifies an inode's checksum when it loads it (__ext4_iget), and it
 * loads one that a directory entry, the orphan list or the superblock
 * names; a free inode's table block is read for its neighbours (and by
 * __ext4_new_inode, which writes a new inode over it unverified). What
 * changed in an object is not known (no fault made it), so the causes
 * that look at the change (stale, resealed, log-end...) do not apply: any
 * other object read and not detected is unexplained. None watched (all
 * past the image's end, or none failed): nothing to explain.
 */
static enum fb_undetected objects_cause(const json_t *objects, const json_t *witness)
{
	enum read_kind kind;
	size_t i, watched = 0;
	bool overwritten;
	json_t *o;

	json_array_foreach(objects, i, o)
		watched += json_is_true(json_object_get(o, "watched"));
	if (!watched)
		return FB_UNDET_NA;
	if (!objects_read(objects, witness, &overwritten, &kind))
		return overwritten ? FB_UNDET_OVERWRITTEN : FB_UNDET_NEVER_READ;
	if (kind == READ_BACKUPS)
		return FB_UNDET_REDUNDANT_COPY;
	return kind == READ_FREE_INODES ? FB_UNDET_FREED : FB_UNDET_UNEXPLAINED;
}

bool fb_fault_was_read(const json_t *target, const json_t *faults, const json_t *witness,
		       bool *ret_overwritten)
{
	const json_t *objects = verify_objects(target);
	bool overwritten = false;
	enum read_kind kind;
	size_t i;
	json_t *f;

	if (objects)
		return objects_read(objects, witness, ret_overwritten, &kind);

	json_array_foreach(faults, i, f) {
		long long seq = num(f, "seq"), r, o;

		/*
		 * A fault applied in a read: the guest received the changed
		 * bytes, or (eio) the error in their place.
		 */
		if (!strcmp(str(f, "op"), "read")) {
			*ret_overwritten = false;
			return true;
		}
		if (seq < 0)
			continue;
		r = first_seen(target, witness, f, "read");
		o = first_seen(target, witness, f, "overwrite");
		if (r >= 0 && (o < 0 || r < o)) {
			*ret_overwritten = false;
			return true;
		}
		overwritten |= o >= 0;
	}
	*ret_overwritten = overwritten;
	return false;
}

/* Whether a fault's span meets [FROM, TO) (absolute offsets). */
static bool fault_meets(const json_t *f, long long from, long long to)
{
	long long off = num(f, "offset"), len = num(f, "len");

	return off >= 0 && len > 0 && off < to && off + len > from;
}

static bool any_fault_meets(const json_t *faults, long long from, long long to)
{
	size_t i;
	json_t *f;

	json_array_foreach(faults, i, f)
		if (fault_meets(f, from, to))
			return true;
	return false;
}

/*
 * Every fault a lost or misdirected write (drop, misdirect), or a torn one
 * whose unstored part holds the whole target: no byte of the target
 * changed, and what the guest read back of it is its previous version,
 * valid once. ext4's checksums cover a block's contents and owner (inode,
 * group), not when it was written, so they verify it; only a check across
 * objects (e2fsck) can see it is old. (Where a misdirected write landed is
 * another object's block, not the target's.) A torn write that cut through
 * the target is stale too when its stored part changed nothing (the
 * plugin's "stored_changed" false: the disk holds the whole request's old
 * version); else it mixes two versions, which the checksum fails, unless
 * the lost part held what was there already (no_change).
 */
static bool stale(const json_t *target, const json_t *faults)
{
	long long off = num(target, "offset"), len = num(target, "length");
	size_t i;
	json_t *f;

	if (!json_array_size(faults))
		return false;
	json_array_foreach(faults, i, f) {
		const char *a = str(f, "action");

		if (!strcmp(a, "drop") || !strcmp(a, "misdirect"))
			continue;
		if (!strcmp(a, "torn") && off >= 0 && len > 0 && num(f, "offset") <= off &&
		    num(f, "offset") + num(f, "len") >= off + len)
			continue;
		if (!strcmp(a, "torn") && json_is_false(json_object_get(f, "stored_changed")))
			continue;
		return false;
	}
	return true;
}

/*
 * Every fault a torn write whose lost part held, byte for byte, what the
 * disk already had there (the plugin's "lost_changed" false): the disk
 * ends as the kernel meant it, and there is nothing to detect.
 */
static bool no_change(const json_t *faults)
{
	size_t i;
	json_t *f;

	if (!json_array_size(faults))
		return false;
	json_array_foreach(faults, i, f)
		if (strcmp(str(f, "action"), "torn") ||
		    !json_is_false(json_object_get(f, "lost_changed")))
			return false;
	return true;
}

/*
 * The primary superblock changed in reads only, outside the three fields
 * ext4_load_super takes from its first read (s_log_block_size and
 * s_log_cluster_size at 0x18-0x1f, s_magic at 0x38), and every changed
 * read was read again. ext4_load_super reads the superblock at 1 KiB to
 * learn the block size, uses those three fields, drops that copy
 * (brelse, then kill_bdev in sb_set_blocksize) and reads the block again
 * at its size; the checksum is verified on the second copy, which a
 * one-shot fault no longer changes. A file system of 1 KiB blocks keeps
 * and verifies the first copy, so its changed read is not re-read before
 * the mount's verification: it detects the change.
 */
static bool discarded_read(const json_t *target, const json_t *faults,
			   const json_t *witness)
{
	long long sb = num(target, "offset");
	size_t i;
	json_t *f;

	if (strcmp(str(target, "type"), "superblock") || sb != 1024 ||
	    !json_array_size(faults))
		return false;
	if (any_fault_meets(faults, sb + 0x18, sb + 0x20) ||
	    any_fault_meets(faults, sb + 0x38, sb + 0x3a))
		return false;
	json_array_foreach(faults, i, f)
		if (strcmp(str(f, "op"), "read") ||
		    first_seen(target, witness, f, "read") < 0)
			return false;
	return true;
}

/*
 * A descriptor, commit or revoke block whose header (h_magic, h_blocktype,
 * h_sequence: its first 12 bytes) changed. jbd2's recovery scan
 * (do_one_pass) ends the log at the first block whose magic is not the
 * journal's, whose sequence is not the transaction it expects, or whose
 * type it does not know, and checks no checksum of that block: a damaged
 * header and the log's real end are one case to it, and the transactions
 * from there on are not replayed (the fsck and data oracles judge what
 * that lost).
 */
static bool log_end(const json_t *target, const json_t *faults)
{
	const char *type = str(target, "type");
	long long off = num(target, "offset");

	return (!strcmp(type, "journal-descriptor") || !strcmp(type, "journal-commit") ||
		!strcmp(type, "journal-revoke")) && off >= 0 &&
	       any_fault_meets(faults, off, off + 12);
}

/*
 * An inode (its fields, its extra fields or its inline data) changed only
 * as it was written, whose file a workload step removed (`rm PATH` of the
 * target's path succeeded). ext4 verifies an inode's checksum when it
 * loads the inode from its table block (__ext4_iget); the changed bytes
 * were written from the inode it had loaded, and a freed inode is never
 * loaded again, though the table block holding it is read for its
 * neighbours, which is what the witness saw. A change at rest or in a
 * read is not explained so: the removal itself loads the inode.
 */
static bool freed(const json_t *target, const json_t *faults, const json_t *steps)
{
	const char *type = str(target, "type"), *path = str(target, "path");
	size_t i;
	json_t *s, *f;

	if (!*path || (strcmp(type, "inode") && strcmp(type, "inode-extra") &&
		       strcmp(type, "inline-data")))
		return false;
	json_array_foreach(faults, i, f)
		if (strcmp(str(f, "op"), "write"))
			return false;
	json_array_foreach(steps, i, s) {
		const char *text = str(s, "text");

		if (!strcmp(str(s, "result"), "ok") && !strncmp(text, "rm ", 3) &&
		    !strcmp(text + 3, path))
			return true;
	}
	return false;
}

/*
 * Types whose loader verifies the object every time it takes it from the
 * cache, however the block got there, and which nothing reads ahead and
 * then uses unverified: the bitmaps (ext4_read_block_bitmap_nowait and
 * ext4_read_inode_bitmap verify a buffer already up to date, unless a
 * verification passed), inodes (__ext4_iget verifies each load), directory
 * and extent blocks (verified on first use, buffer_verified after) and
 * xattr blocks. The journal's blocks too, but for recovery, which reads
 * ahead (do_readahead, REQ_RAHEAD) and then checks what it read: a read
 * during a mount step is not taken. Not the superblock, the group
 * descriptors (read ahead at mount, then all verified by
 * ext4_check_descriptors: an undetected flip there is a gap) or the MMP
 * and orphan blocks.
 */
static int read_ahead_type(const char *type)
{
	static const char *const verified[] = {
		"block-bitmap", "inode-bitmap", "inode", "inode-extra", "inline-data",
		"extent-index", "extent-leaf", "dir-leaf", "dx-root", "dx-node",
		"xattr-block",
	};
	static const char *const journal[] = {
		"journal-descriptor", "journal-commit", "journal-revoke", "journal-data",
	};

	for (size_t i = 0; i < sizeof(verified) / sizeof(*verified); i++)
		if (!strcmp(type, verified[i]))
			return 1;
	for (size_t i = 0; i < sizeof(journal) / sizeof(*journal); i++)
		if (!strcmp(type, journal[i]))
			return 2;
	return 0;
}

/* Whether step N (1-based) of STEPS is a mount: where jbd2 recovers. */
static bool mount_step(const json_t *steps, long long n)
{
	size_t i;
	json_t *s;

	json_array_foreach(steps, i, s)
		if (num(s, "n") == n) {
			const char *t = str(s, "text");

			if (!strncmp(t, "may ", 4))
				t += 4;
			return !strncmp(t, "mount", 5) && (!t[5] || t[5] == ' ');
		}
	return true;	/* unknown: could have been one */
}

/*
 * Every read of the target's bytes that the guest's block layer submitted
 * was a read-ahead, and there was one: the agent's bio witness (bioread.h)
 * is complete and each read bio overlapping the target carries REQ_RAHEAD
 * (the A of rwbs). A read-ahead fills a cache speculatively: ext4_readdir
 * reads ahead in the block device's own page cache from a directory block
 * (page_cache_sync_readahead on the bdev mapping), whatever the blocks
 * after it hold, and mballoc prefetches block bitmaps (ext4_mb_prefetch).
 * Neither verifies anything; for the types above, the loader does, so an
 * object read only ahead and never detected was never loaded. Not decided
 * for the disk's first 4 KiB: the kernel's partition scan reads it at
 * boot, before the agent traces. Reads of the steps before the one the
 * fault fired in ("fault_step", the host's clock against the plugin's)
 * saw the bytes unchanged: a journal block read by recovery before jbd2
 * wrote it again with the flip.
 */
static bool read_ahead(const json_t *target, const json_t *steps, const json_t *bio_reads)
{
	long long off = num(target, "offset"), len = num(target, "length");
	long long from = num(bio_reads, "fault_step");
	int kind = read_ahead_type(str(target, "type"));
	const json_t *b;
	size_t i;
	int seen = 0;

	if (!kind || off < 4096 || len <= 0 || strcmp(str(bio_reads, "state"), "complete"))
		return false;
	json_array_foreach(json_object_get(bio_reads, "bios"), i, b) {
		long long s = num(b, "sector"), n = num(b, "sectors"), step = num(b, "step");

		if (s < 0 || n <= 0 || step < 0)
			return false;
		if (s * 512 >= off + len || (s + n) * 512 <= off)
			continue;
		if (step && step < from)
			continue;
		if (!strchr(str(b, "rwbs"), 'A') || (kind == 2 && mount_step(steps, step)))
			return false;
		seen++;
	}
	return seen > 0;
}

enum fb_undetected fb_undetected_cause(const json_t *target, bool breaks_csum,
				       const json_t *faults, const json_t *witness,
				       const json_t *steps, const json_t *bio_reads)
{
	const char *type = str(target, "type");
	const json_t *objects = verify_objects(target);
	bool overwritten;

	if (objects)
		return objects_cause(objects, witness);
	if (!json_array_size(faults))
		return FB_UNDET_NA;
	if (!fb_fault_was_read(target, faults, witness, &overwritten))
		return overwritten ? FB_UNDET_OVERWRITTEN : FB_UNDET_NEVER_READ;
	if (!strcmp(type, "data"))
		return FB_UNDET_DATA_BLOCK;
	if (!strcmp(type, "superblock-backup"))
		return FB_UNDET_REDUNDANT_COPY;
	/* before the change's own causes: a lost or misdirected write changes no byte */
	if (no_change(faults))
		return FB_UNDET_NO_CHANGE;
	if (stale(target, faults))
		return FB_UNDET_STALE;
	if (json_is_true(json_object_get(target, "reseal")))
		return FB_UNDET_RESEALED;
	if (!breaks_csum)
		return FB_UNDET_NOT_COVERED;
	if (discarded_read(target, faults, witness))
		return FB_UNDET_DISCARDED_READ;
	if (log_end(target, faults))
		return FB_UNDET_LOG_END;
	if (freed(target, faults, steps))
		return FB_UNDET_FREED;
	if (read_ahead(target, steps, bio_reads))
		return FB_UNDET_READ_AHEAD;
	return FB_UNDET_UNEXPLAINED;
}

/*
 * records.c --- select records, print them (text or JSON), name errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <ext2fs/ext2_err.h>

#include "fbx-int.h"

/* Why an image may lack a type: said in the "absent" error. */
static const char *absent_hint(struct fbx_map *m, enum fbx_type t)
{
	struct ext2_super_block *sb = m->fs->super;

	switch (t) {
	case FBX_SUPERBLOCK_BACKUP:
		return "the filesystem has a single group";
	case FBX_INODE_EXTRA:
		return "inodes are 128 bytes";
	case FBX_INLINE_DATA:
		return ext2fs_has_feature_inline_data(sb) ?
		       "no inline file or directory" :
		       "feature inline_data is off";
	case FBX_EXTENT_INDEX:
		return "no extent tree of depth 2 or more";
	case FBX_EXTENT_LEAF:
		return "no extent tree of depth 1 or more";
	case FBX_DX_ROOT:
		return ext2fs_has_feature_dir_index(sb) ?
		       "no htree (indexed) directory" :
		       "feature dir_index is off";
	case FBX_DX_NODE:
		return "no htree directory with an interior level";
	case FBX_XATTR_BLOCK:
		return "no inode has an xattr block";
	case FBX_JOURNAL_SB:
		return ext2fs_has_feature_journal(sb) ?
		       "the journal superblock is unreadable" :
		       "feature has_journal is off";
	case FBX_JOURNAL_DESCRIPTOR:
	case FBX_JOURNAL_COMMIT:
	case FBX_JOURNAL_REVOKE:
	case FBX_JOURNAL_DATA:
		if (!m->j.present)
			return "no journal";
		if (!m->j.start)
			return "the journal is clean: no committed transaction "
			       "waits for replay";
		return "no such block in the transactions waiting for replay";
	case FBX_MMP:
		return ext2fs_has_feature_mmp(sb) ? "the MMP block is unreadable"
						  : "feature mmp is off";
	case FBX_ORPHAN_BLOCK:
		return ext2fs_has_feature_orphan_file(sb) ?
		       "the orphan file has no blocks" :
		       "feature orphan_file is off";
	case FBX_DATA:
		return "no file has data blocks";
	default:
		return "none mapped";
	}
}

const char *fbx_map_explain(fbx_map_t m)
{
	return m->explain;
}

static int matches(const struct fbx_object *o, const struct fbx_selector *s,
		   ext2_ino_t path_ino)
{
	if (o->type != s->type)
		return 0;
	if (s->ino && o->ino != s->ino)
		return 0;
	if (path_ino && o->ino != path_ino)
		return 0;
	return s->group < 0 || o->group == s->group;
}

static void describe_selector(const struct fbx_selector *s, char *buf,
			      size_t len)
{
	int n = 0;

	buf[0] = 0;
	if (s->path)
		n += snprintf(buf + n, len - n, " path=%s", s->path);
	if (s->ino && n < (int)len)
		n += snprintf(buf + n, len - n, " ino=%u", s->ino);
	if (s->group >= 0 && n < (int)len)
		n += snprintf(buf + n, len - n, " group=%" PRId64, s->group);
	if (s->index >= 0 && n < (int)len)
		snprintf(buf + n, len - n, " index=%" PRId64, s->index);
}

errcode_t fbx_map_find(fbx_map_t m, const struct fbx_selector *s,
		       size_t **ret_idx, size_t *ret_count)
{
	ext2_ino_t pino = 0;
	size_t *idx, n = 0, k, any = 0;
	char sel[512];

	if ((unsigned)s->type >= FBX_TYPE_COUNT)
		return FBX_ET_BAD_TYPE;
	if (s->path && ext2fs_namei(m->fs, EXT2_ROOT_INO, EXT2_ROOT_INO,
				    s->path, &pino)) {
		snprintf(m->explain, sizeof(m->explain),
			 "no such path %s in %s", s->path, m->image);
		return FBX_ET_NO_PATH;
	}
	idx = malloc((m->n ? m->n : 1) * sizeof(*idx));
	if (!idx)
		return ENOMEM;
	for (k = 0; k < m->n; k++) {
		any += m->obj[k].type == s->type;
		if (matches(&m->obj[k], s, pino))
			idx[n++] = k;
	}
	if (s->index >= 0) {
		if ((uint64_t)s->index < n) {
			idx[0] = idx[s->index];
			n = 1;
		} else {
			n = 0;
		}
	}
	if (n) {
		*ret_idx = idx;
		*ret_count = n;
		return 0;
	}
	free(idx);
	if (!any) {
		snprintf(m->explain, sizeof(m->explain),
			 "%s has no %s object (%s)", m->image,
			 fbx_type_name(s->type), absent_hint(m, s->type));
		return FBX_ET_TYPE_ABSENT;
	}
	describe_selector(s, sel, sizeof(sel));
	snprintf(m->explain, sizeof(m->explain),
		 "%s has %zu %s object%s but none with%s", m->image, any,
		 fbx_type_name(s->type), any > 1 ? "s" : "", sel);
	return FBX_ET_NO_MATCH;
}

static const char *note_of(const struct fbx_object *o)
{
	if (o->flags & FBX_OBJ_CLUSTER_BITMAP)
		return "cluster-bitmap";
	if (o->flags & FBX_OBJ_UNINIT)
		return "uninit";
	if (o->flags & FBX_OBJ_CSUM_SHARED)
		return "inode-csum";
	return NULL;
}

/*
 * A text record is built in a buffer with these, not with fprintf: map of
 * the bench image prints 150,000 records (25 MB), and vfprintf took 65 ms
 * of it, more than mapping. Each returns the end of what it wrote.
 */
#define TEXT_MAX 1024	/* > the longest text record without its path */

static char *put_s(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* Digits are written in place, backwards: no variable-length memcpy. */
static char *put_u(char *p, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	uint64_t t;
	char *e = p, *q;

	for (t = v; t >= 100; t /= 100)
		e += 2;
	e += 1 + (t >= 10);
	q = e;
	while (v >= 100) {
		q -= 2;
		memcpy(q, pairs + (v % 100) * 2, 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, pairs + v * 2, 2);
	} else {
		*--q = '0' + v;
	}
	return e;
}

static char *put_x(char *p, uint64_t v)
{
	char *e = p + 2 + (67 - __builtin_clzll(v | 1)) / 4;
	char *q = e;

	*p = '0';
	p[1] = 'x';
	do {
		*--q = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	return e;
}

/* put_s() of a literal inlines to a few moves: keep KEY a literal. */
#define put_range(p, key, off, lkey, len) \
	put_u(put_s(put_x(put_s(p, key), off), lkey), len)

/* Text record I at P, which has room for TEXT_MAX + PLEN. */
static char *format_text(fbx_map_t m, size_t i, const char *path,
			 size_t plen, char *p)
{
	const struct fbx_object *o = &m->obj[i];
	const char *note = note_of(o);
	unsigned k;

	p = put_u(put_s(put_s(p, fbx_type_name(o->type)), " id="), i);
	if (o->group >= 0)
		p = put_u(put_s(p, " group="), o->group);
	if (o->ino)
		p = put_u(put_s(p, " ino="), o->ino);
	if (path) {
		p = put_s(p, " path=");
		memcpy(p, path, plen);
		p += plen;
	}
	if (o->lblk >= 0)
		p = put_u(put_s(p, " lblk="), o->lblk);
	p = put_u(put_s(p, " pblk="), o->pblk);
	p = put_range(p, " offset=", o->offset, " length=", o->length);
	if (o->ncsum)
		p = put_range(p, " csum_offset=", o->csum[0].off,
			      " csum_len=", o->csum[0].len);
	if (o->ncsum > 1)
		p = put_range(p, " csum_hi_offset=", o->csum[1].off,
			      " csum_hi_len=", o->csum[1].len);
	for (k = 0; k < o->ncovered; k++) {
		p = k ? put_s(p, ",") : put_s(p, " covered=");
		p = put_range(p, "", o->covered[k].off, "+",
			      o->covered[k].len);
	}
	if (note)
		p = put_s(put_s(p, " note="), note);
	if (o->type >= FBX_JOURNAL_DESCRIPTOR && o->type <= FBX_JOURNAL_DATA)
		p = put_u(put_s(p, " seq="), o->jseq);
	*p++ = '\n';
	return p;
}

/* One text record; with VERDICT, " verdict=VERDICT" ends it. */
static errcode_t print_text(fbx_map_t m, size_t i, const char *verdict,
			    FILE *out)
{
	char small[TEXT_MAX + 256];
	const char *path = fbx_ino_path(m, m->obj[i].ino);
	size_t plen = path ? strlen(path) : 0;
	char *buf = plen <= 256 ? small : malloc(TEXT_MAX + plen), *e;

	if (!buf)
		return ENOMEM;
	e = format_text(m, i, path, plen, buf);
	if (verdict) {
		e = put_s(put_s(e - 1, " verdict="), verdict);
		*e++ = '\n';
	}
	fwrite(buf, 1, e - buf, out);
	if (buf != small)
		free(buf);
	return 0;
}

/* Every record as text, in 64 KiB writes (see format_text). */
static errcode_t print_all_text(fbx_map_t m, FILE *out)
{
	enum { CHUNK = 1 << 16 };
	char *buf = malloc(CHUNK), *p = buf;
	errcode_t err = 0;
	const char *path;
	size_t i, plen;

	if (!buf)
		return ENOMEM;
	for (i = 0; i < m->n && !err; i++) {
		path = fbx_ino_path(m, m->obj[i].ino);
		plen = path ? strlen(path) : 0;
		if ((size_t)(p - buf) + TEXT_MAX + plen > CHUNK) {
			fwrite(buf, 1, p - buf, out);
			p = buf;
		}
		if (TEXT_MAX + plen > CHUNK)
			err = print_text(m, i, NULL, out);
		else
			p = format_text(m, i, path, plen, p);
	}
	fwrite(buf, 1, p - buf, out);
	free(buf);
	return err;
}

static errcode_t print_json(fbx_map_t m, size_t i, const char *verdict,
			    const char *why, FILE *out)
{
	const struct fbx_object *o = &m->obj[i];
	const char *note = note_of(o), *path = fbx_ino_path(m, o->ino);
	json_t *j = json_object(), *cov = json_array(), *cs = json_array();
	unsigned k;
	char *s;

	if (!j || !cov || !cs)
		return ENOMEM;
	json_object_set_new(j, "id", json_integer(i));
	json_object_set_new(j, "type", json_string(fbx_type_name(o->type)));
	json_object_set_new(j, "group", o->group >= 0 ?
			    json_integer(o->group) : json_null());
	json_object_set_new(j, "ino", o->ino ? json_integer(o->ino) :
					       json_null());
	json_object_set_new(j, "path", path ? json_string(path) :
						 json_null());
	json_object_set_new(j, "lblk", o->lblk >= 0 ? json_integer(o->lblk) :
						      json_null());
	json_object_set_new(j, "pblk", json_integer(o->pblk));
	json_object_set_new(j, "offset", json_integer(o->offset));
	json_object_set_new(j, "length", json_integer(o->length));
	json_object_set_new(j, "csum_offset", o->ncsum ?
			    json_integer(o->csum[0].off) : json_null());
	json_object_set_new(j, "csum_len", json_integer(o->ncsum ?
							o->csum[0].len : 0));
	for (k = 0; k < o->ncsum; k++)
		json_array_append_new(cs, json_pack("[II]",
				(json_int_t)o->csum[k].off,
				(json_int_t)o->csum[k].len));
	json_object_set_new(j, "csum", cs);
	for (k = 0; k < o->ncovered; k++)
		json_array_append_new(cov, json_pack("[II]",
				(json_int_t)o->covered[k].off,
				(json_int_t)o->covered[k].len));
	json_object_set_new(j, "covered", cov);
	json_object_set_new(j, "note", note ? json_string(note) : json_null());
	if (o->type >= FBX_JOURNAL_DESCRIPTOR && o->type <= FBX_JOURNAL_DATA)
		json_object_set_new(j, "seq", json_integer(o->jseq));
	if (verdict)
		json_object_set_new(j, "verdict", json_string(verdict));
	if (why)
		json_object_set_new(j, "why", json_string(why));
	s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (!s)
		return ENOMEM;
	fprintf(out, "%s\n", s);
	free(s);
	return 0;
}

errcode_t fbx_object_print(fbx_map_t m, size_t i, enum fbx_format fmt,
			   FILE *out)
{
	if (i >= m->n)
		return EINVAL;
	if (fmt == FBX_FMT_JSON)
		return print_json(m, i, NULL, NULL, out);
	return print_text(m, i, NULL, out);
}

errcode_t fbx_verdict_print(fbx_map_t m, size_t i, enum fbx_verdict v,
			    const char *why, enum fbx_format fmt, FILE *out)
{
	if (i >= m->n || !fbx_verdict_name(v))
		return EINVAL;
	if (fmt == FBX_FMT_JSON)
		return print_json(m, i, fbx_verdict_name(v), why, out);
	return print_text(m, i, fbx_verdict_name(v), out);
}

errcode_t fbx_map_print(fbx_map_t m, enum fbx_format fmt, FILE *out)
{
	errcode_t err = 0;
	size_t i;

	if (fmt == FBX_FMT_TEXT)
		return print_all_text(m, out);
	for (i = 0; i < m->n && !err; i++)
		err = print_json(m, i, NULL, NULL, out);
	return err;
}

const char *fbx_error_message(errcode_t code)
{
	static const char *const msgs[] = {
		[FBX_ET_BAD_TYPE - FBX_ET_BASE] = "unknown object type",
		[FBX_ET_NO_PATH - FBX_ET_BASE] = "no such path",
		[FBX_ET_TYPE_ABSENT - FBX_ET_BASE] =
			"no object of that type in the image",
		[FBX_ET_NO_MATCH - FBX_ET_BASE] =
			"no object matches the selector",
		[FBX_ET_EMPTY_REGION - FBX_ET_BASE] =
			"the region has no byte in this object",
		[FBX_ET_BAD_FIELD - FBX_ET_BASE] =
			"no such field in this object type",
		[FBX_ET_BAD_REGION - FBX_ET_BASE] =
			"bad region (covered, csum, any or a field name)",
		[FBX_ET_BAD_ON - FBX_ET_BASE] = "bad --on (rest, read or write)",
		[FBX_ET_RESEAL - FBX_ET_BASE] =
			"cannot reseal: after this change the object does not verify (the changed bytes decide where its checksum is or what it covers); choose another field or seed",
		[FBX_ET_STALE - FBX_ET_BASE] =
			"the image changed since it was mapped",
		[FBX_ET_READ_ONLY - FBX_ET_BASE] =
			"the map was opened read-only",
		[FBX_ET_SHORT_IO - FBX_ET_BASE] =
			"short read or write (offset beyond the image?)",
		[FBX_ET_BAD_BITS - FBX_ET_BASE] =
			"bad bit count (1 to 4096, at most the region's bits)",
		[FBX_ET_UNVERIFIABLE - FBX_ET_BASE] =
			"the checksum cannot be located: a header field puts it outside the block",
		[FBX_ET_TRUNCATED - FBX_ET_BASE] =
			"the image file is shorter than its filesystem",
	};
	static int init;

	if (code > FBX_ET_BASE &&
	    code - FBX_ET_BASE < (long)(sizeof(msgs) / sizeof(msgs[0])) &&
	    msgs[code - FBX_ET_BASE])
		return msgs[code - FBX_ET_BASE];
	if (!init) {
		initialize_ext2_error_table();
		init = 1;
	}
	return error_message(code);
}

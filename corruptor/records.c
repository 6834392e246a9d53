// SPDX-License-Identifier: MIT
/*
 * records.c --- select records, print them (text or JSON), name errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
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
 * Records are built in a buffer with these, not with fprintf: map of the
 * bench image prints 150,000 records (25 MB), and vfprintf took 65 ms of
 * it, more than mapping. Each returns the end of what it wrote.
 */
#define TEXT_MAX 1024	/* > the longest record (text or JSON) without
			   its path */

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

/*
 * Length of the UTF-8 sequence at S (N bytes left), 0 when it is not one:
 * overlong forms, surrogates and code points past U+10FFFF are not.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], len, k;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	len = c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
	if (!len || len > n)
		return 0;
	cp = c & (0x3f >> (len - 1));
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* JSON says a string is Unicode: a name that is not UTF-8 is null. */
static int is_utf8(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t k = 0, n;

	while (k < len) {
		n = utf8_len(u + k, len - k);
		if (!n)
			return 0;
		k += n;
	}
	return 1;
}

/*
 * S (LEN bytes) as a JSON string, escaped as jansson does: '"', '\',
 * \b \f \n \r \t, other control characters as \u00XX. A byte that starts
 * no UTF-8 sequence is written \u00XX too, so the output stays JSON. At
 * most 6 * LEN + 2 bytes.
 */
static char *put_json_str(char *p, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t k, n;

	*p++ = '"';
	for (k = 0; k < len; k++) {
		unsigned char c = s[k];

		if (c >= 0x80 && (n = utf8_len((const unsigned char *)s + k,
					       len - k))) {
			memcpy(p, s + k, n);
			p += n;
			k += n - 1;
			continue;
		}
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*p++ = c;
			continue;
		}
		*p++ = '\\';
		switch (c) {
		case '"': *p++ = '"'; break;
		case '\\': *p++ = '\\'; break;
		case '\b': *p++ = 'b'; break;
		case '\f': *p++ = 'f'; break;
		case '\n': *p++ = 'n'; break;
		case '\r': *p++ = 'r'; break;
		case '\t': *p++ = 't'; break;
		default:
			p = put_s(p, "u00");
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	*p++ = '"';
	return p;
}

static char *put_json_u(char *p, const char *key, int have, uint64_t v)
{
	p = put_s(p, key);
	return have ? put_u(p, v) : put_s(p, "null");
}

static char *put_json_ranges(char *p, const struct fbx_range *r, unsigned n)
{
	unsigned k;

	*p++ = '[';
	for (k = 0; k < n; k++) {
		p = put_s(p, k ? ",[" : "[");
		p = put_u(put_s(put_u(p, r[k].off), ","), r[k].len);
		*p++ = ']';
	}
	*p++ = ']';
	return p;
}

/*
 * JSON record I at P, which has room for TEXT_MAX + 6 * PLEN: the keys and
 * number formats of jansson's compact output (the library that wrote it
 * before), without its allocations: one object, ten values and two
 * arrays per record, then json_dumps() and fprintf(), took 30 times as
 * long as the text record.
 */
static char *format_json(fbx_map_t m, size_t i, const char *path,
			 size_t plen, char *p)
{
	const struct fbx_object *o = &m->obj[i];
	const char *note = note_of(o);

	p = put_u(put_s(p, "{\"id\":"), i);
	p = put_s(put_s(p, ",\"type\":\""), fbx_type_name(o->type));
	*p++ = '"';
	p = put_json_u(p, ",\"group\":", o->group >= 0, o->group);
	p = put_json_u(p, ",\"ino\":", o->ino, o->ino);
	p = put_s(p, ",\"path\":");
	p = path && is_utf8(path, plen) ? put_json_str(p, path, plen) :
					  put_s(p, "null");
	p = put_json_u(p, ",\"lblk\":", o->lblk >= 0, o->lblk);
	p = put_u(put_s(p, ",\"pblk\":"), o->pblk);
	p = put_u(put_s(p, ",\"offset\":"), o->offset);
	p = put_u(put_s(p, ",\"length\":"), o->length);
	p = put_json_u(p, ",\"csum_offset\":", o->ncsum, o->csum[0].off);
	p = put_u(put_s(p, ",\"csum_len\":"), o->ncsum ? o->csum[0].len : 0);
	p = put_json_ranges(put_s(p, ",\"csum\":"), o->csum, o->ncsum);
	p = put_json_ranges(put_s(p, ",\"covered\":"), o->covered,
			    o->ncovered);
	p = put_s(p, ",\"note\":");
	p = note ? put_s(put_s(put_s(p, "\""), note), "\"") : put_s(p, "null");
	if (o->type >= FBX_JOURNAL_DESCRIPTOR && o->type <= FBX_JOURNAL_DATA)
		p = put_u(put_s(p, ",\"seq\":"), o->jseq);
	p = put_s(p, "}\n");
	return p;
}

static char *format_record(fbx_map_t m, size_t i, enum fbx_format fmt,
			   const char *path, size_t plen, char *p)
{
	if (fmt == FBX_FMT_JSON)
		return format_json(m, i, path, plen, p);
	return format_text(m, i, path, plen, p);
}

/* Room a record with a PLEN-byte path needs in either format. */
static size_t record_room(size_t plen)
{
	return TEXT_MAX + 6 * plen;
}

/*
 * One record; with VERDICT, it ends with " verdict=VERDICT" (text) or
 * ,"verdict":VERDICT and ,"why":WHY when WHY is not NULL (JSON).
 */
static errcode_t print_one(fbx_map_t m, size_t i, enum fbx_format fmt,
			   const char *verdict, const char *why, FILE *out)
{
	char small[TEXT_MAX + 1536];
	const char *path = fbx_ino_path(m, m->obj[i].ino);
	size_t plen = path ? strlen(path) : 0, wlen = why ? strlen(why) : 0;
	size_t need = record_room(plen + wlen) + 64;
	char *buf = need <= sizeof(small) ? small : malloc(need), *e;

	if (!buf)
		return ENOMEM;
	e = format_record(m, i, fmt, path, plen, buf);
	if (verdict && fmt == FBX_FMT_TEXT) {
		e = put_s(put_s(e - 1, " verdict="), verdict);
		*e++ = '\n';
	} else if (verdict) {
		e = put_s(put_s(e - 2, ",\"verdict\":\""), verdict);
		*e++ = '"';
		if (why)
			e = put_json_str(put_s(e, ",\"why\":"), why, wlen);
		e = put_s(e, "}\n");
	}
	fwrite(buf, 1, e - buf, out);
	if (buf != small)
		free(buf);
	return 0;
}

/* Every record, formatted into a buffer and written 64 KiB at a time. */
static errcode_t print_all(fbx_map_t m, enum fbx_format fmt, FILE *out)
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
		if ((size_t)(p - buf) + record_room(plen) > CHUNK) {
			fwrite(buf, 1, p - buf, out);
			p = buf;
		}
		if (record_room(plen) > CHUNK)
			err = print_one(m, i, fmt, NULL, NULL, out);
		else
			p = format_record(m, i, fmt, path, plen, p);
	}
	fwrite(buf, 1, p - buf, out);
	free(buf);
	return err;
}

errcode_t fbx_object_print(fbx_map_t m, size_t i, enum fbx_format fmt,
			   FILE *out)
{
	if (i >= m->n)
		return EINVAL;
	return print_one(m, i, fmt, NULL, NULL, out);
}

errcode_t fbx_verdict_print(fbx_map_t m, size_t i, enum fbx_verdict v,
			    const char *why, enum fbx_format fmt, FILE *out)
{
	if (i >= m->n || !fbx_verdict_name(v))
		return EINVAL;
	return print_one(m, i, fmt, fbx_verdict_name(v), why, out);
}

errcode_t fbx_map_print(fbx_map_t m, enum fbx_format fmt, FILE *out)
{
	return print_all(m, fmt, out);
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
			"the checksum cannot be located: a header field "
			"puts it outside the block",
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

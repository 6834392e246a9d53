// SPDX-License-Identifier: MIT
/* flipbed: parse, check and format one fault rule. See rule.h and the
 * RULES section of nbdkit-flipbed-plugin.pod for the syntax.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

/* Rules never reach past this: offsets go to pread/pwrite as off_t. */
#define FB_OFFSET_LIMIT ((uint64_t)INT64_MAX)

static const char *const on_names[] = {
	[FB_ON_REST] = "rest", [FB_ON_READ] = "read", [FB_ON_WRITE] = "write",
};

static const char *const action_names[] = {
	[FB_FLIP] = "flip", [FB_FLIP_RANDOM] = "flip-random",
	[FB_ZERO] = "zero", [FB_ONES] = "ones", [FB_RANDOM] = "random",
	[FB_EIO] = "eio", [FB_DROP] = "drop", [FB_MISDIRECT] = "misdirect",
	[FB_WATCH] = "watch", [FB_TORN] = "torn", [FB_STALL] = "stall",
};

const char *fb_on_name(enum fb_on on)
{
	return on_names[on];
}

const char *fb_action_name(enum fb_action a)
{
	return action_names[a];
}

bool fb_action_changes_data(enum fb_action a)
{
	return a == FB_FLIP || a == FB_FLIP_RANDOM || a == FB_ZERO ||
	       a == FB_ONES || a == FB_RANDOM;
}

uint64_t fb_splitmix64(uint64_t seed, uint64_t k)
{
	uint64_t z = seed + (k + 1) * UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Decimal or 0x hex, the whole string, no sign, no overflow. */
static int parse_u64(const char *s, size_t n, uint64_t *ret)
{
	unsigned base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		unsigned d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*ret = v;
	return 0;
}

static int parse_i64(const char *s, size_t n, int64_t *ret)
{
	bool neg = false;
	uint64_t v;

	if (n > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		s++;
		n--;
	}
	if (parse_u64(s, n, &v) < 0 || v > (uint64_t)INT64_MAX)
		return -1;
	*ret = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* flip=B[,B...]: stores the bits unsorted; check_rule sorts and checks. */
static int parse_bits(struct fb_rule *r, const char *v, size_t n,
		      char *err, size_t errlen)
{
	size_t cap = 1, i, start;

	for (i = 0; i < n; i++)
		cap += v[i] == ',';
	r->bits = malloc(cap * sizeof *r->bits);
	if (!r->bits)
		return fail(err, errlen, "out of memory");
	for (start = 0, i = 0; i <= n; i++) {
		if (i < n && v[i] != ',')
			continue;
		if (parse_u64(v + start, i - start, &r->bits[r->nbits]) < 0)
			return fail(err, errlen,
				    "flip=%.*s: bit '%.*s' is not a number "
				    "(decimal or 0x hex, comma-separated)",
				    (int)n, v, (int)(i - start), v + start);
		r->nbits++;
		start = i + 1;
	}
	return 0;
}

static bool valid_id(const char *v, size_t n)
{
	size_t i;

	if (n == 0 || n > FB_ID_MAX)
		return false;
	for (i = 0; i < n; i++) {
		char c = v[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		      c == '.' || c == ':'))
			return false;
	}
	return true;
}

/* What parse_word has seen, so that repeats and omissions are caught. */
struct seen {
	bool on, at, len, action, count, after, seed, id;
};

static int set_action(struct fb_rule *r, struct seen *s, enum fb_action a,
		      const char *w, size_t wn, char *err, size_t errlen)
{
	if (s->action)
		return fail(err, errlen,
			    "'%.*s': a rule takes exactly one action, it "
			    "already has %s", (int)wn, w, action_names[r->action]);
	s->action = true;
	r->action = a;
	return 0;
}

static int parse_number_word(const char *key, const char *v, size_t vn,
			     uint64_t *ret, bool *seen, char *err, size_t errlen)
{
	if (*seen)
		return fail(err, errlen, "%s= given twice", key);
	*seen = true;
	if (parse_u64(v, vn, ret) < 0)
		return fail(err, errlen,
			    "%s=%.*s: expected an unsigned number (decimal or "
			    "0x hex)", key, (int)vn, v);
	return 0;
}

/* torn=N: N sectors, as many as a request can hold. */
static int parse_torn(struct fb_rule *r, struct seen *s, const char *w,
		      size_t wn, const char *v, size_t vn, char *err,
		      size_t errlen)
{
	if (set_action(r, s, FB_TORN, w, wn, err, errlen) < 0)
		return -1;
	if (!v)
		return fail(err, errlen,
			    "torn needs =N: the 512-byte sectors of a write "
			    "it stores");
	if (parse_u64(v, vn, &r->torn) < 0 || r->torn == 0 ||
	    r->torn > FB_TORN_MAX)
		return fail(err, errlen,
			    "torn=%.*s: expected the 512-byte sectors of a "
			    "write to store, 1 to %d", (int)vn, v, FB_TORN_MAX);
	return 0;
}

/* stall=MS, or a bare stall held until released. */
static int parse_stall(struct fb_rule *r, struct seen *s, const char *w,
		       size_t wn, const char *v, size_t vn, char *err,
		       size_t errlen)
{
	if (set_action(r, s, FB_STALL, w, wn, err, errlen) < 0)
		return -1;
	if (!v)
		return 0;
	if (parse_u64(v, vn, &r->stall_ms) < 0 || r->stall_ms == 0 ||
	    r->stall_ms > FB_STALL_MAX_MS)
		return fail(err, errlen,
			    "stall=%.*s: expected milliseconds, 1 to %d (10 "
			    "minutes), or a bare stall (held until release)",
			    (int)vn, v, FB_STALL_MAX_MS);
	return 0;
}

static int parse_word(struct fb_rule *r, struct seen *s, const char *w,
		      size_t wn, char *err, size_t errlen)
{
	const char *eq = memchr(w, '=', wn);
	size_t kn = eq ? (size_t)(eq - w) : wn;
	const char *v = eq ? eq + 1 : NULL;
	size_t vn = eq ? wn - kn - 1 : 0;
	static const struct {
		const char *name;
		enum fb_action action;
	} bare[] = {
		{ "zero", FB_ZERO }, { "ones", FB_ONES },
		{ "random", FB_RANDOM }, { "eio", FB_EIO }, { "drop", FB_DROP },
		{ "watch", FB_WATCH },
	};
	size_t i;

#define KEY(k) (kn == strlen(k) && memcmp(w, k, kn) == 0)
	if (KEY("stall"))
		return parse_stall(r, s, w, wn, v, vn, err, errlen);
	if (KEY("torn"))
		return parse_torn(r, s, w, wn, v, vn, err, errlen);
	for (i = 0; i < sizeof bare / sizeof bare[0]; i++) {
		if (!KEY(bare[i].name))
			continue;
		if (eq)
			return fail(err, errlen, "'%.*s': %s takes no value",
				    (int)wn, w, bare[i].name);
		return set_action(r, s, bare[i].action, w, wn, err, errlen);
	}
	if (!eq)
		return fail(err, errlen,
			    "'%.*s': expected key=value or one of zero, ones, "
			    "random, eio, drop, watch, stall", (int)wn, w);
	if (KEY("on")) {
		if (s->on)
			return fail(err, errlen, "on= given twice");
		s->on = true;
		for (i = 0; i < 3; i++) {
			if (vn == strlen(on_names[i]) &&
			    memcmp(v, on_names[i], vn) == 0) {
				r->on = i;
				return 0;
			}
		}
		return fail(err, errlen,
			    "on=%.*s: expected rest, read or write", (int)vn, v);
	}
	if (KEY("at"))
		return parse_number_word("at", v, vn, &r->at, &s->at, err, errlen);
	if (KEY("len"))
		return parse_number_word("len", v, vn, &r->len, &s->len, err,
					 errlen);
	if (KEY("count"))
		return parse_number_word("count", v, vn, &r->count, &s->count,
					 err, errlen);
	if (KEY("after"))
		return parse_number_word("after", v, vn, &r->after, &s->after,
					 err, errlen);
	if (KEY("seed")) {
		r->has_seed = true;
		return parse_number_word("seed", v, vn, &r->seed, &s->seed,
					 err, errlen);
	}
	if (KEY("flip-random")) {
		if (set_action(r, s, FB_FLIP_RANDOM, w, wn, err, errlen) < 0)
			return -1;
		if (parse_u64(v, vn, &r->flip_random) < 0)
			return fail(err, errlen,
				    "flip-random=%.*s: expected a number of bits",
				    (int)vn, v);
		return 0;
	}
	if (KEY("flip")) {
		if (set_action(r, s, FB_FLIP, w, wn, err, errlen) < 0)
			return -1;
		return parse_bits(r, v, vn, err, errlen);
	}
	if (KEY("misdirect")) {
		if (set_action(r, s, FB_MISDIRECT, w, wn, err, errlen) < 0)
			return -1;
		if (parse_i64(v, vn, &r->delta) < 0 || r->delta == 0)
			return fail(err, errlen,
				    "misdirect=%.*s: expected a non-zero signed "
				    "byte offset (decimal or 0x hex)", (int)vn, v);
		return 0;
	}
	if (KEY("id")) {
		if (s->id)
			return fail(err, errlen, "id= given twice");
		s->id = true;
		if (!valid_id(v, vn))
			return fail(err, errlen,
				    "id=%.*s: expected 1 to %d of A-Z a-z 0-9 . _ : -",
				    (int)vn, v, FB_ID_MAX);
		memcpy(r->id, v, vn);
		r->id[vn] = '\0';
		return 0;
	}
#undef KEY
	return fail(err, errlen,
		    "unknown key '%.*s' (expected on, at, len, flip, "
		    "flip-random, zero, ones, random, eio, drop, misdirect, "
		    "watch, torn, stall, count, after, seed, id)", (int)kn, w);
}

/* Which actions make sense where: rest changes the file once, so it has
 * no request to fail, drop or redirect, and nothing to count. watch acts
 * on no request: it takes a range and an id only.
 */
static int check_action(const struct fb_rule *r, const struct seen *s,
			char *err, size_t errlen)
{
	const char *a = action_names[r->action];

	if (r->action == FB_WATCH) {
		if (s->on || s->count || s->after || s->seed)
			return fail(err, errlen,
				    "watch takes at=, len= and id= only (it "
				    "watches reads and overwrites alike, and "
				    "changes nothing)");
		return 0;
	}

	if (r->action == FB_TORN && r->on != FB_ON_WRITE)
		return fail(err, errlen, "torn needs on=write (it cuts what "
			    "a write stores)");
	/* A range given must be longer than the tear, or a write of just
	 * that range would be stored whole. Without len= the rule tears
	 * every longer write that touches at=.
	 */
	if (r->action == FB_TORN && s->len && r->torn * FB_SECTOR >= r->len)
		return fail(err, errlen,
			    "torn=%" PRIu64 " keeps %" PRIu64 " bytes, not "
			    "fewer than len=%" PRIu64 ": a write of the rule's "
			    "range would be stored whole (give a longer len=, "
			    "or none to tear every longer write that touches "
			    "at=)", r->torn, r->torn * FB_SECTOR, r->len);
	if (r->on == FB_ON_REST && !fb_action_changes_data(r->action))
		return fail(err, errlen,
			    "%s needs on=read or on=write (on=rest takes flip, "
			    "flip-random, zero, ones or random)", a);
	if (r->on == FB_ON_READ &&
	    (r->action == FB_DROP || r->action == FB_MISDIRECT))
		return fail(err, errlen, "%s needs on=write", a);
	if (r->on == FB_ON_REST && (s->count || s->after))
		return fail(err, errlen,
			    "count= and after= need on=read or on=write (a "
			    "rest rule is applied once)");
	if ((r->action == FB_RANDOM || r->action == FB_FLIP_RANDOM) &&
	    !r->has_seed)
		return fail(err, errlen, "%s needs seed=S", a);
	if (s->count && r->count == 0)
		return fail(err, errlen,
			    "count=0: expected at least 1 (leave count out "
			    "to keep the rule armed)");
	return 0;
}

/* Floyd's algorithm: N distinct bits out of len * 8, from the seed. A small
 * open-addressing set remembers the picks.
 */
static int pick_bits(struct fb_rule *r, char *err, size_t errlen)
{
	uint64_t total = r->len * 8, n = r->flip_random, j, k = 0;
	size_t cap = 1, i;
	uint64_t *set;

	while (cap < 2 * n)
		cap <<= 1;
	set = malloc(cap * sizeof *set);
	r->bits = malloc(n * sizeof *r->bits);
	if (!set || !r->bits) {
		free(set);
		return fail(err, errlen, "out of memory");
	}
	memset(set, 0xff, cap * sizeof *set);	/* UINT64_MAX: empty */
	for (j = total - n; j < total; j++) {
		uint64_t t = fb_splitmix64(r->seed, k++) % (j + 1), pick = t;

		for (i = (t * UINT64_C(0x9e3779b97f4a7c15)) >> 40 & (cap - 1);
		     set[i] != UINT64_MAX; i = (i + 1) & (cap - 1)) {
			if (set[i] == t) {
				pick = j;
				break;
			}
		}
		if (pick == j) {
			i = (j * UINT64_C(0x9e3779b97f4a7c15)) >> 40 & (cap - 1);
			while (set[i] != UINT64_MAX)
				i = (i + 1) & (cap - 1);
		}
		set[i] = pick;
		r->bits[r->nbits++] = pick;
	}
	free(set);
	qsort(r->bits, r->nbits, sizeof *r->bits, cmp_u64);
	return 0;
}

static int check_range(struct fb_rule *r, const struct seen *s,
		       char *err, size_t errlen)
{
	size_t i;

	if (!s->on && !(s->action && r->action == FB_WATCH))
		return fail(err, errlen, "on= is required (rest, read or write)");
	if (!s->at)
		return fail(err, errlen, "at=OFFSET is required");
	if (!s->action)
		return fail(err, errlen,
			    "an action is required (flip=, flip-random=, zero, "
			    "ones, random, eio, drop, misdirect=, watch, torn= "
			    "or stall)");
	if (!s->len)
		r->len = 1;
	if (r->len == 0)
		return fail(err, errlen, "len=0: expected at least 1");
	if (r->at > FB_OFFSET_LIMIT || r->len > FB_OFFSET_LIMIT - r->at)
		return fail(err, errlen,
			    "at=%" PRIu64 " len=%" PRIu64 ": range ends past "
			    "2^63", r->at, r->len);
	if (r->action == FB_FLIP) {
		qsort(r->bits, r->nbits, sizeof *r->bits, cmp_u64);
		for (i = 0; i < r->nbits; i++) {
			if (r->bits[i] / 8 >= r->len)
				return fail(err, errlen,
					    "flip: bit %" PRIu64 " is outside "
					    "len=%" PRIu64 " (bits 0 to %" PRIu64 ")",
					    r->bits[i], r->len, r->len * 8 - 1);
			if (i > 0 && r->bits[i] == r->bits[i - 1])
				return fail(err, errlen,
					    "flip: bit %" PRIu64 " listed twice",
					    r->bits[i]);
		}
	}
	if (r->action == FB_FLIP_RANDOM) {
		if (r->flip_random == 0 || r->flip_random > FB_FLIP_RANDOM_MAX ||
		    r->flip_random / 8 > r->len ||
		    (r->flip_random / 8 == r->len && r->flip_random % 8))
			return fail(err, errlen,
				    "flip-random=%" PRIu64 ": expected 1 to "
				    "%d bits, at most len*8", r->flip_random,
				    FB_FLIP_RANDOM_MAX);
	}
	return 0;
}

int fb_rule_parse(const char *line, struct fb_rule *r, char *err, size_t errlen)
{
	struct seen s = { 0 };
	const char *p = line;

	memset(r, 0, sizeof *r);
	for (;;) {
		const char *w;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '\n' || *p == '\r')
			break;
		for (w = p; *p > ' ' && *p < 0x7f; p++)
			;
		if (p == w || (*p != '\0' && *p != ' ' && *p != '\t' &&
			       *p != '\n' && *p != '\r')) {
			fail(err, errlen,
			     "byte 0x%02x at column %zu: rules are printable "
			     "ASCII words", (unsigned char)*p,
			     (size_t)(p - line) + 1);
			goto error;
		}
		if (parse_word(r, &s, w, p - w, err, errlen) < 0)
			goto error;
	}
	if (*p != '\0' && p[strspn(p, "\r\n")] != '\0') {
		fail(err, errlen, "a rule is one line");
		goto error;
	}
	if (check_range(r, &s, err, errlen) < 0 ||
	    check_action(r, &s, err, errlen) < 0)
		goto error;
	if (r->action == FB_FLIP_RANDOM && pick_bits(r, err, errlen) < 0)
		goto error;
	return 0;

error:
	fb_rule_free(r);
	return -1;
}

void fb_rule_free(struct fb_rule *r)
{
	free(r->bits);
	r->bits = NULL;
	r->nbits = 0;
}

int fb_rule_copy(struct fb_rule *dst, const struct fb_rule *src)
{
	*dst = *src;
	dst->bits = NULL;
	if (src->nbits) {
		dst->bits = malloc(src->nbits * sizeof *dst->bits);
		if (!dst->bits)
			return -1;
		memcpy(dst->bits, src->bits, src->nbits * sizeof *dst->bits);
	}
	return 0;
}

int fb_rule_check_size(const struct fb_rule *r, uint64_t size,
		       char *err, size_t errlen)
{
	uint64_t to;

	if (r->at >= size || r->len > size - r->at)
		return fail(err, errlen,
			    "at=%" PRIu64 " len=%" PRIu64 " is outside the disk "
			    "(%" PRIu64 " bytes)", r->at, r->len, size);
	if (r->action != FB_MISDIRECT)
		return 0;
	/* at and |delta| are below 2^63, so this cannot wrap. */
	to = r->at + (uint64_t)r->delta;
	if ((r->delta < 0 && (uint64_t)-r->delta > r->at) ||
	    to >= size || r->len > size - to)
		return fail(err, errlen,
			    "misdirect=%" PRId64 " sends at=%" PRIu64
			    " len=%" PRIu64 " outside the disk (%" PRIu64
			    " bytes)", r->delta, r->at, r->len, size);
	return 0;
}

/* Appends to buf like snprintf, tracking the length it needed. */
struct out {
	char *buf;
	size_t len;
	size_t used;
};

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->used < o->len ? o->buf + o->used : NULL,
		      o->used < o->len ? o->len - o->used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += n;
}

int fb_rule_format(const struct fb_rule *r, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	size_t i;

	if (len)
		buf[0] = '\0';
	if (r->id[0])
		put(&o, "id=%s ", r->id);
	if (r->action == FB_WATCH) {
		put(&o, "watch at=%" PRIu64 " len=%" PRIu64, r->at, r->len);
		return (int)o.used;
	}
	put(&o, "on=%s at=%" PRIu64 " ", on_names[r->on], r->at);
	/* A torn rule has len=1 only when len= was left out. */
	if (r->action != FB_TORN || r->len != 1)
		put(&o, "len=%" PRIu64 " ", r->len);
	switch (r->action) {
	case FB_FLIP:
		put(&o, "flip=");
		for (i = 0; i < r->nbits; i++)
			put(&o, "%s%" PRIu64, i ? "," : "", r->bits[i]);
		break;
	case FB_FLIP_RANDOM:
		put(&o, "flip-random=%" PRIu64, r->flip_random);
		break;
	case FB_MISDIRECT:
		put(&o, "misdirect=%" PRId64, r->delta);
		break;
	case FB_TORN:
		put(&o, "torn=%" PRIu64, r->torn);
		break;
	case FB_STALL:
		if (r->stall_ms)
			put(&o, "stall=%" PRIu64, r->stall_ms);
		else
			put(&o, "stall");
		break;
	default:
		put(&o, "%s", action_names[r->action]);
		break;
	}
	if (r->count)
		put(&o, " count=%" PRIu64, r->count);
	if (r->after)
		put(&o, " after=%" PRIu64, r->after);
	if (r->has_seed)
		put(&o, " seed=%" PRIu64, r->seed);
	return (int)o.used;
}

bool fb_rule_equal(const struct fb_rule *a, const struct fb_rule *b)
{
	return strcmp(a->id, b->id) == 0 && a->on == b->on &&
	       a->action == b->action && a->at == b->at && a->len == b->len &&
	       a->nbits == b->nbits &&
	       (a->nbits == 0 ||
		memcmp(a->bits, b->bits, a->nbits * sizeof *a->bits) == 0) &&
	       a->flip_random == b->flip_random && a->delta == b->delta &&
	       a->torn == b->torn && a->stall_ms == b->stall_ms &&
	       a->count == b->count && a->after == b->after &&
	       a->has_seed == b->has_seed && a->seed == b->seed;
}

// SPDX-License-Identifier: MIT
/*
 * Campaign cases from a seed (campaign.h): the PRNG, ten image recipes and
 * the scenario file of each case.
 *
 * A case draws, in this order: an object type (from the allowed types that
 * some recipe holds, so rare types such as dx-node or journal-revoke get
 * their share), a recipe holding it, one of that recipe's objects of the
 * type, the number of bits, the region, reseal, the timing, the target seed
 * and a workload. Each draw takes the next splitmix64 value; the files are
 * written with fixed formats only, so the same seed gives the same bytes.
 *
 * Recipes are few on purpose: each one is a golden image built once and
 * cached (build/cache/images), and together they cover 1 KiB and 4 KiB
 * blocks, inode sizes 128/256/1024, inline data, bigalloc, no
 * metadata_csum, htrees with dx nodes, extent trees of depth 1 and 2,
 * xattr blocks and in-inode xattrs, a journal waiting for replay and MMP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "flipbed-ext4.h"
#include "scenario/scenario.h"
#include "util.h"

/*
 * A recipe's smaller fixture for the kasan profile: the same objects of
 * every target type in fewer entries, and the same files list, so a case
 * draws the same steps under either profile.
 */
struct fixture {
	const char *about;
	const char *populate;
};

struct recipe {
	const char *name;
	const char *about;
	const char *mkfs;	/* [mkfs] lines */
	const char *populate;	/* [populate] lines */
	bool csum;		/* metadata_csum: regions covered/csum and reseal apply */
	const char *targets;	/* "TYPE" or "TYPE:PATH", space-separated */
	const char *files;	/* "PATH:BYTES" files holding the agent's pattern */
	const char *sparse;	/* "PATH:EXTENTS" sparse files (data in even 4 KiB blocks) */
	const char *dirs;	/* directories (for ls, walk, new names) */
	const struct fixture *kasan;	/* the kasan profile's fixture; NULL: the same */
};

/*
 * small-blocks under KASAN. The full htree holds 12,000 names of 7 bytes,
 * 63 to a 1 KiB leaf after e2fsck -D: 236 leaves, more than the 123 a
 * dx root indexes, so two dx nodes index them. Names of 250 bytes fit 3
 * to a leaf: 600 of them fill 200 leaves under the same root and two dx
 * nodes, and every walk, ls and next-mount pass visits 602 entries, not
 * 12,000. The workload's two files keep their names. What changes is what
 * a flip lands on in a leaf: about 2 % of a leaf is entry headers instead
 * of half (inode, rec_len, name_len and file_type stay drawn as fields,
 * in 20 % of dir-leaf cases); and group 0 keeps free inodes, so a new
 * file may use group 0's inode bitmap, which __ext4_new_inode skips while
 * the group's descriptor counts none free (full).
 */
static const struct fixture small_blocks_kasan = {
	"1 KiB blocks, 8 groups, a 602-entry htree of 250-byte names with dx nodes "
	"(two levels, as the full profile's 12000 entries)",
	"file = /a 5000\nfiles = /big 600 0 250\nfile = /big/f000000 0\nfile = /big/f011999 0\n"
	"index-dirs = yes\n",
};

static const struct recipe recipes[] = {
	{ "base", "4 KiB blocks, 256-byte inodes, inline data, an htree, extent trees of depth 1 and 2, an xattr block",
	  "features = metadata_csum,inline_data\noptions = -b 4096 -I 256\nsize = 64M\n",
	  "file = /a 5000\ndir = /d\nfile = /d/small 40\nsparse = /frag 8\nsparse = /deep 1500\n"
	  "files = /dir 150 10\nfiles = /htree 600 0\nxattr = /a user.big 3000\nindex-dirs = yes\n",
	  true,
	  "superblock group-desc block-bitmap inode-bitmap inode:/a inode:/dir inode:/d "
	  "inode:/htree inode-extra:/a inline-data:/d inline-data:/d/small extent-leaf:/frag "
	  "extent-leaf:/deep extent-index:/deep dir-leaf:/dir dir-leaf:/htree dx-root:/htree "
	  "xattr-block:/a journal-sb data:/a",
	  "/a:5000 /d/small:40 /dir/f000000:10 /dir/f000149:10 /htree/f000000:0",
	  "/frag:8 /deep:1500", "/ /d /dir /htree", NULL },
	{ "small-blocks", "1 KiB blocks, 8 groups, a 12000-entry htree with dx nodes",
	  "features = metadata_csum\noptions = -b 1024 -I 256\nsize = 64M\n",
	  "file = /a 5000\nfiles = /big 12000 0\nindex-dirs = yes\n",
	  true,
	  "superblock superblock-backup group-desc block-bitmap inode-bitmap inode:/a inode:/big "
	  "inode-extra:/big dir-leaf:/big dx-root:/big dx-node:/big journal-sb data:/a",
	  "/a:5000 /big/f000000:0 /big/f011999:0", "", "/ /big", &small_blocks_kasan },
	{ "inline-full", "inline data reaching into the in-inode system.data xattr",
	  "features = metadata_csum,inline_data\noptions = -b 4096 -I 256\nsize = 64M\n",
	  "file = /f128 128\nfiles = /dfull 8 10\n",
	  true,
	  "superblock group-desc block-bitmap inode-bitmap inode:/f128 inode:/dfull "
	  "inode-extra:/f128 inode-extra:/dfull inline-data:/f128 journal-sb",
	  "/f128:128 /dfull/f000000:10 /dfull/f000007:10", "", "/ /dfull", NULL },
	{ "journal", "a journal holding a write and a revoke transaction that the mount replays",
	  "features = metadata_csum\noptions = -b 4096 -I 256\nsize = 64M\n",
	  "file = /a 5000\njournal = write 12000,12001,12002\njournal = revoke 12001\n",
	  true,
	  "journal-sb journal-descriptor journal-data journal-commit journal-revoke superblock "
	  "inode:/a data:/a",
	  "/a:5000", "", "/", NULL },
	{ "mmp", "multi-mount protection with a 1 s interval",
	  "features = metadata_csum,mmp\noptions = -b 4096 -I 256 -E mmp_update_interval=1\nsize = 64M\n",
	  "file = /a 5000\n",
	  /* only the MMP block: e2fsck -fy sleeps 4 x 11 s on any MMP image */
	  true, "mmp", "/a:5000", "", "/", NULL },
	{ "bigalloc-inline", "bigalloc with 64 KiB clusters and inline data",
	  "features = metadata_csum,bigalloc,extent,inline_data\noptions = -b 4096 -C 65536 -I 256\nsize = 64M\n",
	  "file = /small 40\ndir = /d\nfile = /d/f 100\nsparse = /frag 8\n",
	  true,
	  "superblock group-desc block-bitmap inode-bitmap inode:/small inode:/frag "
	  "inline-data:/small inline-data:/d extent-leaf:/frag journal-sb data:/frag",
	  "/small:40 /d/f:100", "/frag:8", "/ /d", NULL },
	{ "bigalloc-16k", "bigalloc with 16 KiB clusters",
	  "features = metadata_csum,bigalloc,extent\noptions = -b 4096 -C 16384 -I 256\nsize = 64M\n",
	  "file = /a 5000\nsparse = /frag 8\n",
	  true,
	  "superblock group-desc block-bitmap inode-bitmap inode:/a inode:/frag extent-leaf:/frag "
	  "journal-sb data:/a",
	  "/a:5000", "/frag:8", "/", NULL },
	{ "nocsum-1k", "no metadata_csum (group descriptors: crc16), 1 KiB blocks, 128-byte inodes",
	  "features = ^metadata_csum,uninit_bg\noptions = -b 1024 -I 128\nsize = 32M\n",
	  "file = /a 5000\nxattr = /a user.x 200\nsparse = /frag 20\nfiles = /dir 100 10\n",
	  false,
	  "superblock superblock-backup group-desc block-bitmap inode-bitmap inode:/a inode:/frag "
	  "inode:/dir extent-leaf:/frag dir-leaf:/dir xattr-block:/a journal-sb data:/a",
	  "/a:5000 /dir/f000000:10 /dir/f000099:10", "/frag:20", "/ /dir", NULL },
	{ "inode-1024", "1024-byte inodes: inline data up to 896 bytes, in-inode xattrs",
	  "features = metadata_csum,inline_data\noptions = -b 4096 -I 1024\nsize = 64M\n",
	  "file = /f 500\nfile = /big 100000\nxattr = /big user.a 300\nfiles = /dd 20 10\n",
	  true,
	  "superblock group-desc block-bitmap inode-bitmap inode:/f inode:/big inode:/dd "
	  "inode-extra:/big inode-extra:/f inline-data:/f journal-sb data:/big",
	  "/f:500 /big:100000 /dd/f000000:10 /dd/f000019:10", "", "/ /dd", NULL },
	{ "xattr-deep", "no inline data: an xattr block and in-inode xattrs, an index extent block, an htree",
	  "features = metadata_csum\noptions = -b 4096 -I 256\nsize = 64M\n",
	  "file = /x 20000\nxattr = /x user.big 3000\nxattr = /x user.s 40\nfile = /small 40\n"
	  "sparse = /deep 1500\nfiles = /htree 600 0\nindex-dirs = yes\n",
	  true,
	  "superblock group-desc block-bitmap inode-bitmap inode:/x inode-extra:/x xattr-block:/x "
	  "extent-index:/deep extent-leaf:/deep dx-root:/htree dir-leaf:/htree journal-sb "
	  "data:/x data:/small",
	  "/x:20000 /small:40 /htree/f000000:0", "/deep:1500", "/ /htree", NULL },
};

#define NRECIPES (sizeof(recipes) / sizeof(recipes[0]))

/* The report's row order (RESULTS.md), restricted to what recipes hold. */
static const char *const type_order[] = {
	"superblock", "superblock-backup", "group-desc", "block-bitmap", "inode-bitmap",
	"inode", "inode-extra", "inline-data", "extent-index", "extent-leaf", "dir-leaf",
	"dx-root", "dx-node", "xattr-block", "journal-sb", "journal-descriptor",
	"journal-commit", "journal-revoke", "journal-data", "mmp", "data", NULL
};

const char *const *fb_campaign_types(void)
{
	return type_order;
}

static const char *const profile_names[] = { "full", "kasan" };

const char *fb_campaign_profile_name(enum fb_campaign_profile p)
{
	return profile_names[p];
}

int fb_campaign_profile_parse(const char *s)
{
	for (int p = 0; p < 2; p++)
		if (!strcmp(s, profile_names[p]))
			return p;
	return -1;
}

/* ---- the PRNG ---- */

uint64_t fb_rng_next(struct fb_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned fb_rng_below(struct fb_rng *r, unsigned n)
{
	return (unsigned)(((unsigned __int128)fb_rng_next(r) * n) >> 64);
}

void fb_rng_case(struct fb_rng *r, uint64_t seed, int i)
{
	struct fb_rng s = { seed };

	/* one splitmix64 step of the seed, then the case number mixed in */
	r->state = fb_rng_next(&s) ^ ((uint64_t)i * 0xd1b54a32d192ed03ULL);
	fb_rng_next(r);
}

/*
 * Index of V[0..N) drawn with the weights W (all >= 0, one > 0): one PRNG
 * value, as fb_rng_below takes, so a guided draw costs the sequence no more.
 */
static unsigned pick(struct fb_rng *r, const double *w, unsigned n)
{
	double total = 0, at;

	for (unsigned i = 0; i < n; i++)
		total += w[i];
	at = (double)(fb_rng_next(r) >> 11) / 9007199254740992.0 * total;
	for (unsigned i = 0; i < n; i++) {
		if (at < w[i])
			return i;
		at -= w[i];
	}
	return n - 1;
}

/* ---- words of a space-separated list ---- */

static int count_words(const char *s)
{
	int n = 0;

	for (const char *p = s; *p;) {
		p += strspn(p, " ");
		if (!*p)
			break;
		n++;
		p += strcspn(p, " ");
	}
	return n;
}

/* Word K of S into BUF; "" when S has fewer words. */
static void word(const char *s, int k, char *buf, size_t len)
{
	const char *p = s;
	size_t n;

	buf[0] = '\0';
	for (;;) {
		p += strspn(p, " ");
		if (!*p)
			return;
		n = strcspn(p, " ");
		if (k-- == 0) {
			snprintf(buf, len, "%.*s", (int)n, p);
			return;
		}
		p += n;
	}
}

/* "TYPE:PATH" -> TYPE, PATH ("" for none). */
static void split_target(const char *w, char *type, size_t tlen, char *path, size_t plen)
{
	const char *colon = strchr(w, ':');

	snprintf(type, tlen, "%.*s", colon ? (int)(colon - w) : (int)strlen(w), w);
	snprintf(path, plen, "%s", colon ? colon + 1 : "");
}

/* Left out unless --types names them: an MMP image costs 44 s of e2fsck sleeps. */
static const char *const opt_in_types[] = { "mmp", NULL };

static bool in_list(char **list, const char *s)
{
	if (!list) {
		for (int i = 0; opt_in_types[i]; i++)
			if (!strcmp(opt_in_types[i], s))
				return false;
		return true;
	}
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* Does recipe R hold TYPE (among its targets)? */
static bool recipe_has(const struct recipe *r, const char *type)
{
	char w[128], t[64], p[64];

	for (int k = 0; k < count_words(r->targets); k++) {
		word(r->targets, k, w, sizeof(w));
		split_target(w, t, sizeof(t), p, sizeof(p));
		if (!strcmp(t, type))
			return true;
	}
	return false;
}

/* ---- the workload ---- */

#define MAX_FILES 32
#define MAX_DIRS 16
#define MAX_STEPS 16

struct wfile {
	char path[96];
	char as[96];		/* the path it was written as (renames) */
	long long size;
	int extents;		/* sparse files: data in even 4 KiB blocks */
};

struct wstate {
	struct fb_rng *rng;
	struct wfile f[MAX_FILES];
	int nf;
	char dirs[MAX_DIRS][96];
	int nd;
	int serial;		/* names of new files and directories */
	char steps[MAX_STEPS][256];
	int ns;
};

static void step(struct wstate *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void step(struct wstate *w, const char *fmt, ...)
{
	va_list ap;

	if (w->ns == MAX_STEPS)
		return;
	va_start(ap, fmt);
	vsnprintf(w->steps[w->ns++], sizeof(w->steps[0]), fmt, ap);
	va_end(ap);
}

static void add_file(struct wstate *w, const char *path, long long size, int extents)
{
	if (w->nf == MAX_FILES)
		return;
	snprintf(w->f[w->nf].path, sizeof(w->f[0].path), "%s", path);
	snprintf(w->f[w->nf].as, sizeof(w->f[0].as), "%s", path);
	w->f[w->nf].size = size;
	w->f[w->nf].extents = extents;
	w->nf++;
}

/* The fixture recipe R builds under profile P: NULL for its own lines. */
static const struct fixture *fixture_of(const struct recipe *r, enum fb_campaign_profile p)
{
	return p == FB_PROFILE_KASAN ? r->kasan : NULL;
}

static void load_state(struct wstate *w, const struct recipe *r)
{
	char buf[128], *colon;

	for (int k = 0; k < count_words(r->files); k++) {
		word(r->files, k, buf, sizeof(buf));
		colon = strchr(buf, ':');
		*colon = '\0';
		add_file(w, buf, atoll(colon + 1), 0);
	}
	for (int k = 0; k < count_words(r->sparse); k++) {
		word(r->sparse, k, buf, sizeof(buf));
		colon = strchr(buf, ':');
		*colon = '\0';
		add_file(w, buf, -1, atoi(colon + 1));
	}
	for (int k = 0; k < count_words(r->dirs) && w->nd < MAX_DIRS; k++)
		word(r->dirs, k, w->dirs[w->nd++], sizeof(w->dirs[0]));
}

static const char *pick_dir(struct wstate *w)
{
	return w->dirs[fb_rng_below(w->rng, w->nd)];
}

/* A new name in a random directory: "/w3", "/d/w3". */
static void new_name(struct wstate *w, char prefix, char *buf, size_t len)
{
	const char *d = pick_dir(w);

	snprintf(buf, len, "%s/%c%d", strcmp(d, "/") ? d : "", prefix, ++w->serial);
}

static void op_read(struct wstate *w)
{
	struct wfile *f = &w->f[fb_rng_below(w->rng, w->nf)];

	if (f->extents) {
		/* a data block of a sparse file, or a hole */
		unsigned blk = fb_rng_below(w->rng, 2 * f->extents - 1);
		step(w, "%s %s %u 4096", blk % 2 ? "zeros" : "pread", f->path, blk * 4096);
	} else if (strcmp(f->path, f->as)) {
		step(w, "read %s %lld %s", f->path, f->size, f->as);
	} else {
		step(w, "read %s %lld", f->path, f->size);
	}
}

static void op_write(struct wstate *w)
{
	static const long long sizes[] = { 0, 40, 100, 500, 4000, 5000, 70000, 300000 };
	static const char *const modes[] = { "", " sync", "", " append" };
	long long bytes = sizes[fb_rng_below(w->rng, 8)];
	unsigned mode = fb_rng_below(w->rng, 4);
	char name[96];

	if (mode == 3 && w->nf) {
		struct wfile *f = &w->f[fb_rng_below(w->rng, w->nf)];
		/* appending continues the pattern of the name it was written as */
		if (!f->extents && !strcmp(f->path, f->as)) {
			step(w, "write %s %lld append", f->path, bytes);
			f->size += bytes;
			return;
		}
	}
	new_name(w, 'w', name, sizeof(name));
	step(w, "write %s %lld%s", name, bytes, modes[mode == 3 ? 0 : mode]);
	add_file(w, name, bytes, 0);
}

static void op_rename(struct wstate *w)
{
	struct wfile *f = &w->f[fb_rng_below(w->rng, w->nf)];
	char name[96];

	new_name(w, 'r', name, sizeof(name));
	step(w, "rename %s %s", f->path, name);
	snprintf(f->path, sizeof(f->path), "%s", name);
}

static void op_rm(struct wstate *w)
{
	unsigned k = fb_rng_below(w->rng, w->nf);

	step(w, "rm %s", w->f[k].path);
	w->f[k] = w->f[--w->nf];
}

static void op_truncate(struct wstate *w)
{
	struct wfile *f = &w->f[fb_rng_below(w->rng, w->nf)];

	if (f->extents) {
		step(w, "stat %s", f->path);
		return;
	}
	f->size /= 2;
	step(w, "truncate %s %lld", f->path, f->size);
}

static void op_xattr(struct wstate *w)
{
	static const int sizes[] = { 8, 100, 1000, 3000 };
	const char *p = fb_rng_below(w->rng, 3) ? w->f[fb_rng_below(w->rng, w->nf)].path :
						    pick_dir(w);

	step(w, "setxattr %s user.c%d %d", p, ++w->serial, sizes[fb_rng_below(w->rng, 4)]);
}

static void op_mkdir(struct wstate *w)
{
	char name[96];

	new_name(w, 'm', name, sizeof(name));
	step(w, "mkdir %s", name);
	if (w->nd < MAX_DIRS)
		snprintf(w->dirs[w->nd++], sizeof(w->dirs[0]), "%s", name);
}

/* One workload step; the weights are the order of the cases below. */
static void op(struct wstate *w)
{
	unsigned r = fb_rng_below(w->rng, 100);

	if (!w->nf && r >= 15 && r < 55)
		r = 55;		/* no file left: only steps that need none */
	if (r < 15)
		step(w, "walk %s", fb_rng_below(w->rng, 2) ? "/" : pick_dir(w));
	else if (r < 25)
		op_read(w);
	else if (r < 32)
		step(w, "stat %s", w->f[fb_rng_below(w->rng, w->nf)].path);
	else if (r < 38)
		op_rename(w);
	else if (r < 43)
		op_rm(w);
	else if (r < 47)
		op_truncate(w);
	else if (r < 55)
		step(w, "fsync %s", w->f[fb_rng_below(w->rng, w->nf)].path);
	else if (r < 65)
		op_write(w);
	else if (r < 73)
		step(w, "ls %s", pick_dir(w));
	else if (r < 80)
		w->nf ? op_xattr(w) : step(w, "sync");
	else if (r < 85)
		op_mkdir(w);
	else if (r < 90)
		step(w, "sync");
	else if (r < 95)
		step(w, "drop-caches");
	else {
		/* a fresh mount: every block is read from the disk again */
		step(w, "umount");
		step(w, "mount");
	}
}

/*
 * mount, then the target's own path (walk reads a file, or every file of a
 * directory; an xattr block is read by setxattr), then random steps. Without
 * that first touch most read faults on a path's object would never fire.
 */
static void workload(struct wstate *w, const struct recipe *r, const char *type,
		     const char *path, const char *timing)
{
	int n = 2 + fb_rng_below(w->rng, 6);

	load_state(w, r);
	step(w, "mount");
	if (!strcmp(type, "xattr-block"))
		step(w, "setxattr %s user.t 8", path);
	else if (path[0])
		step(w, "walk %s", path);
	for (int i = 0; i < n; i++)
		op(w);
	/* a write fault needs writes: metadata reaches the disk at sync */
	if (!strcmp(timing, "write"))
		step(w, "sync");
}

/* ---- one case ---- */

struct draw {
	const struct recipe *r;
	struct fb_campaign_draw idx;	/* what a guided campaign weighs */
	char type[64], path[96], region[64];
	unsigned bits;
	bool reseal;
	const char *timing;
	unsigned tseed;
};

/* The types allowed by --types that some recipe holds. */
static int allowed_types(const struct fb_campaign_opts *o, const char **v)
{
	int n = 0;

	for (int i = 0; type_order[i]; i++) {
		if (!in_list(o->types, type_order[i]))
			continue;
		for (size_t k = 0; k < NRECIPES; k++)
			if (recipe_has(&recipes[k], type_order[i])) {
				v[n++] = type_order[i];
				break;
			}
	}
	return n;
}

static void draw_target(struct fb_rng *rng, const char *type, const struct fb_guide *g,
			struct draw *d)
{
	const struct recipe *have[NRECIPES];
	char w[128], t[64], p[96], *match[64];
	double wt[NRECIPES];
	int nh = 0, nm = 0, at[NRECIPES];

	for (size_t k = 0; k < NRECIPES; k++)
		if (recipe_has(&recipes[k], type)) {
			wt[nh] = g ? g->w[FB_GUIDE_RECIPE][k] : 1;
			at[nh] = (int)k;
			have[nh++] = &recipes[k];
		}
	int r = g ? (int)pick(rng, wt, nh) : (int)fb_rng_below(rng, nh);

	d->r = have[r];
	d->idx.v[FB_GUIDE_RECIPE] = at[r];
	for (int k = 0; k < count_words(d->r->targets) && nm < 64; k++) {
		word(d->r->targets, k, w, sizeof(w));
		split_target(w, t, sizeof(t), p, sizeof(p));
		if (!strcmp(t, type))
			match[nm++] = xstrdup(p);
	}
	snprintf(d->type, sizeof(d->type), "%s", type);
	snprintf(d->path, sizeof(d->path), "%s", match[fb_rng_below(rng, nm)]);
	for (int k = 0; k < nm; k++)
		free(match[k]);
}

/* A field of TYPE other than its checksum, or "" when it has none. */
static void draw_field(struct fb_rng *rng, const char *type, char *buf, size_t len)
{
	enum fbx_type t;
	const char *const *f;
	const char *v[64];
	int n = 0;

	buf[0] = '\0';
	if (fbx_type_parse(type, &t))
		return;
	for (f = fbx_type_fields(t); f && *f && n < 64; f++)
		if (!strstr(*f, "csum") && !strstr(*f, "checksum") && strcmp(*f, "h_chksum"))
			v[n++] = *f;
	if (n)
		snprintf(buf, len, "%s", v[fb_rng_below(rng, n)]);
}

static const char *const region_kinds[] = { "field", "covered", "csum", "any" };

static void draw_rest(const struct fb_campaign_opts *o, const struct fb_guide *g,
		      struct fb_rng *rng, struct draw *d)
{
	unsigned r;
	int nt = 0;
	/* data has no checksum; jbd2 checksums the journal superblock only in
	   the kernel (mke2fs writes none) */
	bool covered = d->r->csum && strcmp(d->type, "data") && strcmp(d->type, "journal-sb");

	d->bits = 1 + fb_rng_below(rng, o->max_bits);
	if (g) {
		/* the unguided shares (25 / 55 / 10 / 10) times the guide's weights */
		double w[4] = { 25 * g->w[FB_GUIDE_REGION][0],
				covered ? 55 * g->w[FB_GUIDE_REGION][1] : 0,
				covered ? 10 * g->w[FB_GUIDE_REGION][2] : 0,
				(covered ? 10 : 75) * g->w[FB_GUIDE_REGION][3] };
		unsigned k = pick(rng, w, 4);

		r = k == 0 ? 0 : k == 1 ? 25 : k == 2 ? 80 : 90;
	} else {
		r = fb_rng_below(rng, 100);
	}
	if (r < 25)
		draw_field(rng, d->type, d->region, sizeof(d->region));
	else
		d->region[0] = '\0';
	if (!d->region[0])
		snprintf(d->region, sizeof(d->region), "%s",
			 !covered || r >= 90 ? "any" : r >= 80 ? "csum" : "covered");
	for (int k = 0; k < 4; k++)
		if (!strcmp(d->region, region_kinds[k]))
			d->idx.v[FB_GUIDE_REGION] = k;
	if (r < 25 && strcmp(d->region, "any"))
		d->idx.v[FB_GUIDE_REGION] = 0;
	d->reseal = covered && strcmp(d->region, "csum") &&
		    fb_rng_next(rng) < (uint64_t)(o->reseal_ratio * 18446744073709551615.0);
	while (o->timings[nt])
		nt++;
	if (g)
		d->idx.v[FB_GUIDE_TIMING] = (int)pick(rng, g->w[FB_GUIDE_TIMING], nt);
	else
		d->idx.v[FB_GUIDE_TIMING] = (int)fb_rng_below(rng, nt);
	d->timing = o->timings[d->idx.v[FB_GUIDE_TIMING]];
	/* the kernel never reads or writes a backup superblock: only at rest it counts */
	if (!strcmp(d->type, "superblock-backup") && in_list(o->timings, "rest"))
		d->timing = "rest";
	d->tseed = (unsigned)(fb_rng_next(rng) >> 32);
}

int fb_campaign_dim_size(const struct fb_campaign_opts *o, int dim)
{
	int n = 0;

	switch (dim) {
	case FB_GUIDE_TYPE:
		while (type_order[n])
			n++;
		return n;
	case FB_GUIDE_RECIPE:
		return (int)NRECIPES;
	case FB_GUIDE_TIMING:
		while (o->timings[n])
			n++;
		return n;
	default:
		return 4;
	}
}

const char *fb_campaign_dim_value(const struct fb_campaign_opts *o, int dim, int v)
{
	switch (dim) {
	case FB_GUIDE_TYPE:
		return type_order[v];
	case FB_GUIDE_RECIPE:
		return recipes[v].name;
	case FB_GUIDE_TIMING:
		return o->timings[v];
	default:
		return region_kinds[v];
	}
}

void fb_campaign_case_file(const char *dir, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/case-%05d.scn", dir, i);
}

static void write_list(FILE *f, char **list, const char *none)
{
	if (!list) {
		fputs(none, f);
		return;
	}
	for (char **p = list; *p; p++)
		fprintf(f, "%s%s", p == list ? "" : ",", *p);
}

/*
 * A campaign observes, so every cause that explains an undetected case is
 * allowed, by name: the computed expectation (scenario/computed.h) then
 * accepts "none" for an explained case, and a case left unexplained, or a
 * covered flip read and detected as something other than csum, fails.
 */
static void write_causes(FILE *f)
{
	const char *sep = "undetected = ";

	for (int u = 0; u < FB_UNDET__COUNT; u++) {
		/* n/a: a detected case, no cause asked */
		if (u == FB_UNDET_UNEXPLAINED)
			continue;
		fprintf(f, "%s%s", sep, fb_undetected_name(u));
		sep = "|";
	}
	fputs("\n", f);
}

static void write_file(FILE *f, const struct fb_campaign_opts *o, int i,
		       const struct draw *d, const struct wstate *w)
{
	const struct fixture *x = fixture_of(d->r, o->profile);
	bool rest;

	fprintf(f, "# flipbed campaign, seed %llu, case %d (harness/campaign/campaign_gen.c).\n"
		"# Generated by: flipbed campaign --seed %llu --kernel %s --profile %s --types ",
		(unsigned long long)o->seed, i, (unsigned long long)o->seed, o->kernel,
		fb_campaign_profile_name(o->profile));
	write_list(f, o->types, "default");
	fputs(" --timing ", f);
	write_list(f, o->timings, "");
	fprintf(f, " --bits 1..%u --reseal-ratio %.2f\n"
		"# Recipe '%s': %s.\n"
		"# The expectations are all 'any' and every cause of an undetected case:\n"
		"# a campaign observes. Findings are\n"
		"# decided from the outcome (panic, oops, KASAN, hang, a WARNING/BUG/UBSAN\n"
		"# line, data changed while nothing detected), not from a verdict.\n",
		o->max_bits, o->reseal_ratio, d->r->name, x ? x->about : d->r->about);
	fprintf(f, "[scenario]\nshows = Campaign %llu case %d: %u bit%s of %s%s%s (%s%s) at %s, then %d workload steps.\n"
		"groups = campaign\nkernels = %s\ntimeout = 45\n\n",
		(unsigned long long)o->seed, i, d->bits, d->bits > 1 ? "s" : "", d->type,
		d->path[0] ? " " : "", d->path, d->region, d->reseal ? ", resealed" : "",
		d->timing, w->ns - 1, o->kernel);
	fprintf(f, "[mkfs]\n%s\n[populate]\n%s\n", d->r->mkfs, x ? x->populate : d->r->populate);
	fprintf(f, "[target]\ntype = %s\n", d->type);
	if (d->path[0])
		fprintf(f, "path = %s\n", d->path);
	fprintf(f, "region = %s\nbits = %u\nseed = %u\nreseal = %s\n\n", d->region, d->bits,
		d->tseed, d->reseal ? "yes" : "no");
	/*
	 * Transient faults are armed once the guest runs, before its first
	 * step: the first read (or write) of the bytes by the workload gets
	 * them. Armed at boot, a read fault on the disk's first 4 KiB (the
	 * superblock, a 1 KiB-block image's group descriptors) would be
	 * spent on the block layer's partition scan.
	 */
	rest = !strcmp(d->timing, "rest");
	fprintf(f, "[fault]\ntiming = %s\narm = %s\n\n[workload]\n", d->timing,
		rest ? "boot" : "armed");
	/* on by default: a write fault nothing read back is met at the next mount */
	fprintf(f, "next-mount = %s\n", o->no_next_mount ? "no" : "yes");
	if (!rest)
		fputs("step = wait armed\n", f);
	for (int k = 0; k < w->ns; k++)
		fprintf(f, "step = %s\n", w->steps[k]);
	fputs("\n[expect]\ndetect = any\nreaction = any\nfsck = any\ndata = any\nwarning = any\n", f);
	write_causes(f);
}

/* Are the files A and B the same bytes? (false when either cannot be read) */
static bool same_file(const char *a, const char *b)
{
	size_t na, nb;
	char *ta = fb_slurp(a, &na), *tb = fb_slurp(b, &nb);
	bool same = ta && tb && na == nb && !memcmp(ta, tb, na);

	free(ta);
	free(tb);
	return same;
}

int fb_campaign_write_case(const struct fb_campaign_opts *o, int i, const char *dir,
			   const struct fb_guide *g, struct fb_campaign_draw *draw, bool keep)
{
	const char *types[32];
	struct fb_rng rng;
	struct wstate w = { .rng = &rng };
	struct draw d = { 0 };
	char path[4096], tmp[4200];
	int nt = allowed_types(o, types), k_type;
	FILE *f;

	if (!nt) {
		fprintf(stderr, "flipbed campaign: no recipe holds any of the --types given; accepted: ");
		for (int k = 0; type_order[k]; k++)
			fprintf(stderr, "%s%s", k ? "," : "", type_order[k]);
		fputc('\n', stderr);
		return -1;
	}
	fb_rng_case(&rng, o->seed, i);
	if (g) {
		double w[32];

		for (int k = 0; k < nt; k++)
			for (int t = 0; type_order[t]; t++)
				if (!strcmp(type_order[t], types[k]))
					w[k] = g->w[FB_GUIDE_TYPE][t];
		k_type = (int)pick(&rng, w, nt);
	} else {
		k_type = (int)fb_rng_below(&rng, nt);
	}
	for (int t = 0; type_order[t]; t++)
		if (!strcmp(type_order[t], types[k_type]))
			d.idx.v[FB_GUIDE_TYPE] = t;
	draw_target(&rng, types[k_type], g, &d);
	draw_rest(o, g, &rng, &d);
	if (draw)
		*draw = d.idx;
	workload(&w, d.r, d.type, d.path, d.timing);

	fb_campaign_case_file(dir, i, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "flipbed campaign: cannot write %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	write_file(f, o, i, &d, &w);
	if (fclose(f)) {
		fprintf(stderr, "flipbed campaign: cannot write %s: %s\n", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (keep && !access(path, F_OK) && !same_file(tmp, path)) {
		fprintf(stderr, "flipbed campaign: %s was drawn with other options than these "
			"(its first lines name them), and the campaign's records come from it: "
			"give those options again, or another --out\n", path);
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		fprintf(stderr, "flipbed campaign: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * What a crash at flush point K must keep (durable.h).
 *
 * The host cannot see when the guest's data reached the disk; it sees the
 * write log. The command runs the workload once with the log on and a
 * "wait" step before every step and after the last: while the guest waits,
 * the host reads the log's flush count, barrier[i] before step i. Two facts
 * follow from the plugin's order (a record is in the log before its request
 * is acknowledged, a flush is logged once it succeeded):
 *
 *  - a step that made something durable (fsync, sync, an O_SYNC write, a
 *    umount) returned before the guest reached the next barrier, so the
 *    flush that made it durable is among the first barrier[i + 1] flushes:
 *    every point K >= barrier[i + 1] must have it;
 *  - step i started only after the host let the guest past barrier i, so
 *    nothing it wrote lies before flush barrier[i]: at a point
 *    K <= barrier[i] the disk holds nothing of step i.
 *
 * Flushes the kernel issues on its own while the guest waits only make a
 * barrier larger, which moves a requirement later, never earlier: the
 * oracle may demand less than the kernel delivered, never more.
 *
 * For each path the model keeps the contents it had (versions: the golden
 * one, then one per step that wrote, renamed or removed it) and the steps
 * after which a version was durable. At point K the file must hold the
 * version of its last durable step with barrier <= K, unless a later step
 * that changed it may already have written by K (barrier[step] < K): then
 * the old, the new and anything between are all possible and the file is
 * not judged at K.
 *
 * Which steps make what durable is ext4's behaviour in its default
 * data=ordered mode without fast commits: fsync of a file commits the
 * running journal transaction, so the file's name is durable with its data
 * (not only what POSIX promises); fsync of a directory makes its entries
 * durable, with the data of those files already synced; sync and umount
 * make everything durable; an O_SYNC write is an fsync.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/durable.h"
#include "guest/agent.h"
#include "guest/steps.h"
#include "util.h"

static struct fb_durable_path *find(struct fb_durable_model *m, const char *path)
{
	for (int i = 0; i < m->np; i++)
		if (!strcmp(m->p[i].path, path))
			return &m->p[i];
	return NULL;
}

static struct fb_durable_path *get(struct fb_durable_model *m, const char *path)
{
	struct fb_durable_path *p = find(m, path);

	if (p)
		return p;
	m->p = xrealloc(m->p, (m->np + 1) * sizeof(*m->p));
	p = &m->p[m->np++];
	memset(p, 0, sizeof(*p));
	p->path = xstrdup(path);
	return p;
}

static struct fb_durable_version *cur(struct fb_durable_path *p)
{
	return p->nv ? &p->v[p->nv - 1] : NULL;
}

static void add_version(struct fb_durable_path *p, struct fb_durable_version v)
{
	p->v = xrealloc(p->v, (p->nv + 1) * sizeof(*p->v));
	p->v[p->nv++] = v;
}

static void make_durable(struct fb_durable_path *p, int step)
{
	if (!p->nv || p->untracked)
		return;
	p->d = xrealloc(p->d, (p->nd + 1) * sizeof(*p->d));
	p->d[p->nd++] = (struct fb_durable_point){ .ver = p->nv - 1, .step = step };
}

static void untrack(struct fb_durable_path *p, int step, const char *what)
{
	if (p->untracked)
		return;
	p->untracked = true;
	snprintf(p->why, sizeof(p->why), "step %d: %s", step + 1, what);
}

/* The agent's pattern of FROM, SIZE bytes, hashed as the manifest hashes. */
static uint64_t pattern_hash(const char *from, uint64_t size)
{
	unsigned char buf[65536];
	uint64_t h = FNV1A_INIT;

	for (uint64_t off = 0; off < size; off += sizeof(buf)) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);

		pattern_fill(from, off, buf, n);
		h = fnv1a(h, buf, n);
	}
	return h;
}

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

static bool in_dir(const char *path, const char *dir)
{
	char copy[STEP_MAX_LINE];

	snprintf(copy, sizeof(copy), "%s", path);
	return !strcmp(dirname(copy), dir);
}

/* write P BYTES [sync|direct|append] */
static void do_write(struct fb_durable_model *m, const struct step *st, int i)
{
	struct fb_durable_path *p = get(m, st->argv[0]);
	struct fb_durable_version *c = cur(p);
	const char *mode = st->argc > 2 ? st->argv[2] : "";
	uint64_t bytes = strtoull(st->argv[1], NULL, 10), size = bytes;

	if (!strcmp(mode, "append")) {
		/* the pattern continues at the file's size: it must be P's own */
		if (!c || c->absent || c->hash != pattern_hash(p->path, c->size)) {
			untrack(p, i, "append to a file that is not its own pattern");
			return;
		}
		size += c->size;
	}
	add_version(p, (struct fb_durable_version){ .step = i, .size = size,
		    .hash = pattern_hash(p->path, size) });
	if (!strcmp(mode, "sync")) {
		cur(p)->synced = true;
		make_durable(p, i);
	}
}

/* rename A B: B takes A's content (and whether it was synced), A is gone. */
static void do_rename(struct fb_durable_model *m, int i, const char *a, const char *b)
{
	struct fb_durable_path *pa = find(m, a), *pb;
	struct fb_durable_version v;

	for (int k = 0; k < m->np; k++)
		if (below(m->p[k].path, a) || below(m->p[k].path, b))
			untrack(&m->p[k], i, "a directory above it was renamed");
	if (!pa || !cur(pa) || cur(pa)->absent)
		return;
	v = *cur(pa);
	v.step = i;
	pb = get(m, b);
	pa = find(m, a);	/* get() may have moved the paths */
	if (pa->untracked)
		untrack(pb, i, "renamed from an untracked file");
	add_version(pb, v);
	add_version(pa, (struct fb_durable_version){ .step = i, .absent = true });
}

static void do_rm(struct fb_durable_model *m, int i, const char *path)
{
	struct fb_durable_path *p = find(m, path);

	for (int k = 0; k < m->np; k++)
		if (below(m->p[k].path, path))
			add_version(&m->p[k], (struct fb_durable_version){ .step = i, .absent = true });
	if (p && cur(p) && !cur(p)->absent)
		add_version(p, (struct fb_durable_version){ .step = i, .absent = true });
}

static void do_sync_all(struct fb_durable_model *m, int i)
{
	for (int k = 0; k < m->np; k++) {
		if (cur(&m->p[k]))
			cur(&m->p[k])->synced = true;
		make_durable(&m->p[k], i);
	}
}

/*
 * fsync P: a file's content and name; a directory's entries, each with
 * its content when that was synced before (a rename over a synced file),
 * and the names it lost (a rename's source).
 */
static void do_fsync(struct fb_durable_model *m, int i, const char *path)
{
	struct fb_durable_path *p = find(m, path);

	if (p && cur(p) && !cur(p)->absent) {
		cur(p)->synced = true;
		make_durable(p, i);
		return;
	}
	for (int k = 0; k < m->np; k++) {
		struct fb_durable_version *c = cur(&m->p[k]);

		if (c && in_dir(m->p[k].path, path) && (c->absent || c->synced))
			make_durable(&m->p[k], i);
	}
}

/* Steps that may change a path's content or name. */
static bool writes(enum step_id id)
{
	switch (id) {
	case STEP_WRITE:
	case STEP_RENAME:
	case STEP_RM:
	case STEP_TRUNCATE:
	case STEP_PWRITE:
	case STEP_FALLOCATE:
	case STEP_PUNCH:
		return true;
	default:
		return false;
	}
}

static int model_step(struct fb_durable_model *m, int i, const char *text, char *why, size_t len)
{
	struct step st;

	if (step_parse(text, &st, why, len))
		return -1;
	if (st.expect != EXPECT_OK && writes(st.id)) {
		/* its effect depends on whether it failed: follow none of it */
		for (int a = 0; a < st.argc; a++)
			if (st.argv[a][0] == '/')
				untrack(get(m, st.argv[a]), i, text);
		return 0;
	}
	if (st.expect != EXPECT_OK)
		return 0;
	switch (st.id) {
	case STEP_WRITE:
		do_write(m, &st, i);
		break;
	case STEP_RENAME:
		do_rename(m, i, st.argv[0], st.argv[1]);
		break;
	case STEP_RM:
		do_rm(m, i, st.argv[0]);
		break;
	case STEP_FSYNC:
		do_fsync(m, i, st.argv[0]);
		break;
	case STEP_SYNC:
	case STEP_DROP_CACHES:
	case STEP_UMOUNT:
		do_sync_all(m, i);
		break;
	case STEP_TRUNCATE:
	case STEP_PWRITE:
	case STEP_FALLOCATE:
	case STEP_PUNCH:
		untrack(get(m, st.argv[0]), i, text);
		break;
	case STEP_COPY_SOURCE:
	case STEP_ATTR_RACE:
	case STEP_EXPECT_EROFS:
		snprintf(why, len, "step '%s': flipbed crash cannot tell what it writes; accepted: "
			 "mount, umount, mkdir, write, rename, rm, fsync, sync, truncate, pwrite, "
			 "fallocate, punch and the steps that only read", text);
		return -1;
	default:
		break;
	}
	return 0;
}

int fb_durable_build(struct fb_durable_model *m, const struct fb_manifest *golden,
		     char *const *steps, int nsteps, char *why, size_t len)
{
	memset(m, 0, sizeof(*m));
	m->nsteps = nsteps;
	m->barrier = xcalloc(nsteps + 1, sizeof(*m->barrier));
	for (int i = 0; i <= nsteps; i++)
		m->barrier[i] = -1;
	for (int i = 0; i < golden->n; i++) {
		struct fb_durable_path *p = get(m, golden->v[i].path);

		add_version(p, (struct fb_durable_version){ .step = -1, .size = golden->v[i].size,
			    .hash = golden->v[i].hash, .synced = true });
		make_durable(p, -1);
	}
	for (int i = 0; i < nsteps; i++)
		if (model_step(m, i, steps[i], why, len))
			return -1;
	return 0;
}

void fb_durable_free(struct fb_durable_model *m)
{
	for (int i = 0; i < m->np; i++) {
		free(m->p[i].path);
		free(m->p[i].v);
		free(m->p[i].d);
	}
	free(m->p);
	free(m->barrier);
	memset(m, 0, sizeof(*m));
}

/* The flush count from which step S's durability holds; -1: never. */
static long durable_at(const struct fb_durable_model *m, int s)
{
	return s < 0 ? 0 : m->barrier[s + 1];
}

static void version_name(const struct fb_durable_version *v, char *buf, size_t len)
{
	if (v->absent)
		snprintf(buf, len, "absent");
	else if (v->step < 0)
		snprintf(buf, len, "golden (%llu bytes)", (unsigned long long)v->size);
	else
		snprintf(buf, len, "step %d (%llu bytes)", v->step + 1, (unsigned long long)v->size);
}

/* What IMG holds at P: "absent", the version it matches, or neither. */
static const struct fb_durable_version *found(const struct fb_durable_path *p,
					      const struct fb_manifest *img, char *buf, size_t len)
{
	const struct fb_manifest_entry *e = NULL;

	for (int i = 0; i < img->n && !e; i++)
		if (!strcmp(img->v[i].path, p->path))
			e = &img->v[i];
	for (int i = p->nv - 1; i >= 0; i--) {
		const struct fb_durable_version *v = &p->v[i];

		if (v->absent ? !e : e && e->size == v->size && e->hash == v->hash) {
			version_name(v, buf, len);
			return v;
		}
	}
	if (!e)
		snprintf(buf, len, "absent");
	else
		snprintf(buf, len, "%llu bytes, no version's content",
			 (unsigned long long)e->size);
	return NULL;
}

/* The version P must hold at K, or NULL with NOTE saying why none. */
static const struct fb_durable_version *required(const struct fb_durable_model *m,
						 const struct fb_durable_path *p, long k,
						 char *note, size_t len)
{
	int d = -1;

	for (int i = 0; i < p->nd; i++) {
		long at = durable_at(m, p->d[i].step);

		if (at >= 0 && at <= k)
			d = i;
	}
	if (d < 0) {
		snprintf(note, len, "not durable yet");
		return NULL;
	}
	for (int i = p->d[d].ver + 1; i < p->nv; i++) {
		int s = p->v[i].step;

		if (m->barrier[s] >= 0 && k > m->barrier[s]) {
			snprintf(note, len, "step %d changed it before this point", s + 1);
			return NULL;
		}
	}
	return &p->v[p->d[d].ver];
}

int fb_durable_judge(const struct fb_durable_model *m, long k, const struct fb_manifest *img,
		     json_t *files, char *detail, size_t len)
{
	int bad = 0;

	for (int i = 0; i < m->np; i++) {
		const struct fb_durable_path *p = &m->p[i];
		const struct fb_durable_version *want, *got;
		char note[128] = "", want_s[64], got_s[64];
		json_t *o;

		if (p->untracked) {
			json_array_append_new(files, json_pack("{s:s, s:n, s:s}", "path", p->path,
				"required", "note", p->why));
			continue;
		}
		want = required(m, p, k, note, sizeof(note));
		got = found(p, img, got_s, sizeof(got_s));
		o = json_pack("{s:s, s:s}", "path", p->path, "found", got_s);
		if (!want) {
			json_object_set_new(o, "required", json_null());
			json_object_set_new(o, "note", json_string(note));
		} else {
			bool ok = got == want || (got && want->absent == got->absent &&
				   got->size == want->size && got->hash == want->hash);

			version_name(want, want_s, sizeof(want_s));
			json_object_set_new(o, "required", json_string(want_s));
			json_object_set_new(o, "ok", json_boolean(ok));
			if (!ok && !bad++)
				snprintf(detail, len, "%s: must be %s, found %s", p->path,
					 want_s, got_s);
		}
		json_array_append_new(files, o);
	}
	return bad;
}

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
 *
 * A case's run adds what the workload was told (fb_durable_build_run):
 * a version is acknowledged by the first step that succeeded in making
 * it durable (fsync of the file or through its kept descriptor, an O_SYNC
 * write, sync, drop-caches, umount), unless one that would have failed
 * first: after fsync returned an error, Linux may have marked the pages
 * clean, and a later fsync's success promises nothing about them. A
 * version acknowledged stays so whatever fails later. The final image
 * must then hold it, or a content a later step gave the path; a read of
 * it that failed while it was current is its loss, seen by the workload.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/durable.h"
#include "guest/agent.h"
#include "guest/steps.h"
#include "util.h"

/*
 * The paths are found by name through an open-addressing table of their
 * indexes (SLOT, a power of two, at most half full): a model holds every
 * file of the golden image, 12,000 in the largest fixture, and a linear
 * search per path made building it quadratic.
 */
static uint64_t path_hash(const char *path)
{
	return fnv1a(FNV1A_INIT, path, strlen(path));
}

static struct fb_durable_path *find(struct fb_durable_model *m, const char *path)
{
	if (!m->nslot)
		return NULL;
	for (size_t i = path_hash(path) & (m->nslot - 1);; i = (i + 1) & (m->nslot - 1)) {
		int k = m->slot[i];

		if (k < 0)
			return NULL;
		if (!strcmp(m->p[k].path, path))
			return &m->p[k];
	}
}

static void slot_put(struct fb_durable_model *m, int k)
{
	size_t i = path_hash(m->p[k].path) & (m->nslot - 1);

	while (m->slot[i] >= 0)
		i = (i + 1) & (m->nslot - 1);
	m->slot[i] = k;
}

static struct fb_durable_path *get(struct fb_durable_model *m, const char *path)
{
	struct fb_durable_path *p = find(m, path);

	if (p)
		return p;
	if (m->np == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->p = xrealloc(m->p, m->cap * sizeof(*m->p));
		free(m->slot);
		m->nslot = 2 * m->cap;
		m->slot = xcalloc(m->nslot, sizeof(*m->slot));
		for (int i = 0; i < m->nslot; i++)
			m->slot[i] = -1;
		for (int k = 0; k < m->np; k++)
			slot_put(m, k);
	}
	p = &m->p[m->np++];
	memset(p, 0, sizeof(*p));
	p->path = xstrdup(path);
	slot_put(m, m->np - 1);
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

/* Whether step I's success acknowledges: a workload step of a case's run. */
static bool acknowledges(const struct fb_durable_model *m, int i)
{
	return m->results && i >= 0 && i < m->nown;
}

static void make_durable(const struct fb_durable_model *m, struct fb_durable_path *p, int step)
{
	struct fb_durable_version *c;

	if (!p->nv || p->untracked)
		return;
	p->d = xrealloc(p->d, (p->nd + 1) * sizeof(*p->d));
	p->d[p->nd++] = (struct fb_durable_point){ .ver = p->nv - 1, .step = step };
	c = cur(p);
	/* a failed write's content was never the workload's to be told about */
	if (acknowledges(m, step) && c->step >= 0 && !c->partial && !c->ack && !c->nack)
		c->ack = step + 1;
}

/* Step I, which would have made P's content durable, failed with ERR. */
static void fail_durable(const struct fb_durable_model *m, struct fb_durable_path *p, int i,
			 const char *err)
{
	struct fb_durable_version *c = cur(p);

	if (!acknowledges(m, i) || !c || c->step < 0 || c->ack || c->nack)
		return;
	c->nack = i + 1;
	snprintf(c->err, sizeof(c->err), "%s", err);
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
		if (!c || c->absent || c->partial || c->hash != pattern_hash(p->path, c->size)) {
			untrack(p, i, "append to a file that is not its own pattern");
			return;
		}
		size += c->size;
	}
	add_version(p, (struct fb_durable_version){ .step = i, .size = size,
		    .hash = pattern_hash(p->path, size) });
	if (!strcmp(mode, "sync")) {
		cur(p)->synced = true;
		make_durable(m, p, i);
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
	/* the content, not the new name, was durable */
	v.ack = v.nack = v.bad_read = 0;
	v.err[0] = v.read_err[0] = '\0';
	pb = get(m, b);
	pa = find(m, a);	/* get() may have moved the paths */
	if (pa->untracked || v.partial)
		untrack(pb, i, "renamed from an untracked file, or one a failed write-fd left unknown");
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
		make_durable(m, &m->p[k], i);
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
		make_durable(m, p, i);
		return;
	}
	for (int k = 0; k < m->np; k++) {
		struct fb_durable_version *c = cur(&m->p[k]);

		if (c && in_dir(m->p[k].path, path) && (c->absent || c->synced))
			make_durable(m, &m->p[k], i);
	}
}

/*
 * open P: the descriptor holds the file P names now (version HELD - 1);
 * write-fd and fsync-fd reach it under P only while P still names it.
 */
static struct fb_durable_path *held(struct fb_durable_model *m, const char *path)
{
	struct fb_durable_path *p = find(m, path);

	return p && p->held && p->held == p->nv ? p : NULL;
}

/*
 * write-fd P BYTES: P's pattern from offset 0, never truncating. FAILED:
 * it may have written any part of it, which, over a file of P's own
 * pattern, is that pattern of any size from the file's to BYTES.
 */
static void do_write_fd(struct fb_durable_model *m, const struct step *st, int i, bool failed)
{
	struct fb_durable_path *p = held(m, st->argv[0]);
	struct fb_durable_version *c = p ? cur(p) : NULL;
	uint64_t size = strtoull(st->argv[1], NULL, 10);

	if (!c || c->absent || (c->partial && size < c->size) ||
	    c->hash != pattern_hash(p->path, c->size)) {
		untrack(get(m, st->argv[0]), i, "write-fd to a file that is not its own pattern, "
			"or that P no longer names");
		return;
	}
	/* the same bytes again (a success over a failed one's: those bytes for sure) */
	if (c->size > size || (c->size == size && (failed || !c->partial)))
		return;
	add_version(p, (struct fb_durable_version){ .step = i, .size = size,
		    .hash = pattern_hash(p->path, size), .partial = failed,
		    .min_size = c->size });
	p->held = p->nv;
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
	case STEP_WRITE_FD:
		return true;
	default:
		return false;
	}
}

/* Steps that make a path, or every path, durable when they succeed. */
static bool syncs(const struct step *st)
{
	switch (st->id) {
	case STEP_FSYNC:
	case STEP_FSYNC_FD:
	case STEP_SYNC:
	case STEP_DROP_CACHES:
	case STEP_UMOUNT:
		return true;
	case STEP_WRITE:
		return st->argc > 2 && !strcmp(st->argv[2], "sync");
	default:
		return false;
	}
}

/*
 * Step I (ST) failed with ERR: a write's effect is unknown (its paths are
 * not followed from here), a sync made nothing durable (what it covered
 * is never acknowledged), a read did not get the file's content.
 */
static void step_failed(struct fb_durable_model *m, const struct step *st, int i,
			const char *text, const char *err)
{
	struct fb_durable_path *p;
	struct fb_durable_version *c;

	if (syncs(st) && (st->id == STEP_FSYNC || st->id == STEP_FSYNC_FD)) {
		for (int k = 0; k < m->np; k++)
			if (!strcmp(m->p[k].path, st->argv[0]) || in_dir(m->p[k].path, st->argv[0]))
				fail_durable(m, &m->p[k], i, err);
	} else if (syncs(st) && st->id != STEP_WRITE) {
		for (int k = 0; k < m->np; k++)
			fail_durable(m, &m->p[k], i, err);
	}
	if (st->id == STEP_WRITE_FD) {
		do_write_fd(m, st, i, true);
		return;
	}
	if (writes(st->id)) {
		for (int a = 0; a < st->argc; a++)
			if (st->argv[a][0] == '/')
				untrack(get(m, st->argv[a]), i, text);
		return;
	}
	if (st->id == STEP_MOUNT)
		m->mounted = false;
	/*
	 * A read with nothing mounted on /mnt says nothing of the file, nor
	 * does one refused with EROFS: the filesystem refused a write the
	 * open or the read needed (6.1's ext4_file_open samples the mount
	 * point through a journal handle), not the file's bytes.
	 */
	if ((st->id != STEP_READ && st->id != STEP_PREAD) || !m->mounted ||
	    !strcmp(err, "EROFS"))
		return;
	p = find(m, st->argv[0]);
	c = p ? cur(p) : NULL;
	if (c && !c->absent && !c->bad_read) {
		c->bad_read = i + 1;
		snprintf(c->read_err, sizeof(c->read_err), "%s", err);
	}
}

static int model_step(struct fb_durable_model *m, int i, const char *text, char *why, size_t len)
{
	struct fb_durable_path *p;
	struct step st;

	if (step_parse(text, &st, why, len))
		return -1;
	if (writes(st.id) || st.id == STEP_EXPECT_EROFS)
		for (int a = 0; a < st.argc; a++)
			if (st.argv[a][0] == '/')
				get(m, st.argv[a])->named = true;
	if (m->results) {
		const char *r = m->results[i] ? m->results[i] : "no result";

		m->ids[i] = st.id;
		/* it ran: what it did counts, whatever its prefix expected */
		if (strcmp(r, "ok")) {
			step_failed(m, &st, i, text, r);
			return 0;
		}
		st.expect = EXPECT_OK;
		if (st.id == STEP_MOUNT || st.id == STEP_UMOUNT)
			m->mounted = st.id == STEP_MOUNT;
		if (st.id == STEP_EXPECT_EROFS) {
			untrack(get(m, st.argv[0]), i, text);
			return 0;
		}
	}
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
	case STEP_OPEN:
		p = get(m, st.argv[0]);
		p->held = p->nv;
		break;
	case STEP_CLOSE:
		if ((p = find(m, st.argv[0])))
			p->held = 0;
		break;
	case STEP_WRITE_FD:
		do_write_fd(m, &st, i, false);
		break;
	case STEP_FSYNC_FD:
		if (held(m, st.argv[0]))
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
			 "fallocate, punch, open, write-fd, fsync-fd, close and the steps that only read", text);
		return -1;
	default:
		break;
	}
	return 0;
}

static int build(struct fb_durable_model *m, const struct fb_manifest *golden,
		 char *const *steps, const char *const *results, int nsteps, int nown,
		 char *why, size_t len)
{
	int rc = 0;

	memset(m, 0, sizeof(*m));
	m->nsteps = nsteps;
	m->barrier = xcalloc(nsteps + 1, sizeof(*m->barrier));
	for (int i = 0; i <= nsteps; i++)
		m->barrier[i] = -1;
	if (results) {
		m->results = results;
		m->nown = nown;
		m->ids = xcalloc(nsteps + 1, sizeof(*m->ids));
	}
	for (int i = 0; i < golden->n; i++) {
		struct fb_durable_path *p = get(m, golden->v[i].path);

		add_version(p, (struct fb_durable_version){ .step = -1, .size = golden->v[i].size,
			    .hash = golden->v[i].hash, .synced = true });
		make_durable(m, p, -1);
	}
	for (int i = 0; i < nsteps && !rc; i++)
		rc = model_step(m, i, steps[i], why, len);
	m->results = NULL;	/* the caller's: read while building only */
	return rc;
}

int fb_durable_build(struct fb_durable_model *m, const struct fb_manifest *golden,
		     char *const *steps, int nsteps, char *why, size_t len)
{
	return build(m, golden, steps, NULL, nsteps, 0, why, len);
}

int fb_durable_build_run(struct fb_durable_model *m, const struct fb_manifest *golden,
			 char *const *steps, const char *const *results, int nsteps, int nown,
			 char *why, size_t len)
{
	return build(m, golden, steps, results, nsteps, nown, why, len);
}

void fb_durable_free(struct fb_durable_model *m)
{
	for (int i = 0; i < m->np; i++) {
		free(m->p[i].path);
		free(m->p[i].v);
		free(m->p[i].d);
	}
	free(m->p);
	free(m->slot);
	free(m->barrier);
	free(m->ids);
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

bool fb_durable_written(const struct fb_durable_path *p)
{
	/* a directory a step named has no version: not a file */
	return p->nv > 1 || (p->nv == 1 && p->v[0].step >= 0) ||
	       (p->named && (p->nv || p->untracked));
}

/* The last version of P the workload was acknowledged for (the golden one is durable). */
static int acked_version(const struct fb_durable_path *p)
{
	for (int i = p->nv - 1; i >= 0; i--)
		if (p->v[i].ack || p->v[i].step < 0)
			return i;
	return -1;
}

static bool same(const struct fb_durable_path *p, const struct fb_durable_version *v,
		 const struct fb_manifest_found *f)
{
	if (v->absent)
		return f->state == FB_FOUND_ABSENT;
	if (f->state != FB_FOUND_FILE)
		return false;
	if (v->partial)
		return f->size >= v->min_size && f->size <= v->size &&
		       f->hash == pattern_hash(p->path, f->size);
	return f->size == v->size && f->hash == v->hash;
}

/* The first version from FROM on that F matches, or -1. */
static int matching(const struct fb_durable_path *p, int from, const struct fb_manifest_found *f)
{
	for (int i = from; i < p->nv; i++)
		if (same(p, &p->v[i], f))
			return i;
	return -1;
}

/*
 * Path P, acknowledged for version A, against what the image holds (F):
 * intact when it is A or a content a later step gave it; lost when the
 * workload's read of A failed, or the image has no file there, or an
 * older content; changed for bytes of no version (or a removed file
 * still there). A later step that changed P and was never made durable
 * may have left anything between: not judged.
 */
static enum fb_data judge_acked(const struct fb_durable_path *p, int a,
				const struct fb_manifest_found *f, char *note, size_t len)
{
	const struct fb_durable_version *v = &p->v[a];
	bool later = a < p->nv - 1;

	if (v->bad_read) {
		snprintf(note, len, "read step %d got %s", v->bad_read, v->read_err);
		return strcmp(v->read_err, "EBADDATA") ? FB_DATA_LOST : FB_DATA_CHANGED;
	}
	switch (f->state) {
	case FB_FOUND_NOT_CHECKED:
		snprintf(note, len, "the image was not read");
		return FB_DATA_NOT_CHECKED;
	case FB_FOUND_UNREADABLE:
		snprintf(note, len, "unreadable in the image");
		return FB_DATA_LOST;
	case FB_FOUND_ABSENT:
		if (matching(p, a, f) >= 0)
			return FB_DATA_INTACT;
		snprintf(note, len, "absent from the image");
		return FB_DATA_LOST;
	case FB_FOUND_FILE:
		break;
	}
	if (matching(p, a, f) >= 0)
		return FB_DATA_INTACT;
	if (v->absent) {
		snprintf(note, len, "still there (%llu bytes), removed", (unsigned long long)f->size);
		return FB_DATA_CHANGED;
	}
	if (matching(p, 0, f) >= 0) {
		int o = matching(p, 0, f);

		if (p->v[o].step < 0)
			snprintf(note, len, "holds the golden image's content");
		else
			snprintf(note, len, "holds the content of step %d", p->v[o].step + 1);
		return FB_DATA_LOST;
	}
	if (later) {
		snprintf(note, len, "step %d changed it later, never made durable: not judged",
			 p->v[a + 1].step + 1);
		return FB_DATA_NOT_CHECKED;
	}
	snprintf(note, len, "%llu bytes, no version's content", (unsigned long long)f->size);
	return FB_DATA_CHANGED;
}

/* How bad a result is: changed, then lost, then intact. */
static int rank(enum fb_data d)
{
	return d == FB_DATA_CHANGED ? 3 : d == FB_DATA_LOST ? 2 : d == FB_DATA_INTACT ? 1 : 0;
}

/* Why P was never acknowledged. */
static void not_acked(const struct fb_durable_path *p, char *note, size_t len)
{
	const struct fb_durable_version *v = p->nv ? &p->v[p->nv - 1] : NULL;

	if (p->untracked)
		snprintf(note, len, "not followed: %s", p->why);
	else if (v && v->nack)
		snprintf(note, len, "step %d, which would have made it durable, got %s",
			 v->nack, v->err);
	else
		snprintf(note, len, "never made durable");
}

enum fb_data fb_durable_acked(const struct fb_durable_model *m,
			      const struct fb_manifest_found *found, json_t *files,
			      char *detail, size_t len)
{
	enum fb_data worst = FB_DATA_NOT_CHECKED;

	for (int i = 0; i < m->np; i++) {
		const struct fb_durable_path *p = &m->p[i];
		int a = acked_version(p);
		char durable[48] = "none", note[160] = "";
		enum fb_data d = FB_DATA_NOT_CHECKED;
		json_t *o;

		if (!fb_durable_written(p))
			continue;
		if (a >= 0 && p->v[a].step < 0)
			snprintf(durable, sizeof(durable), "golden image");
		else if (a >= 0 && m->ids)
			snprintf(durable, sizeof(durable), "%s step %d",
				 step_name(m->ids[p->v[a].ack - 1]), p->v[a].ack);
		if (a < 0)
			not_acked(p, note, sizeof(note));
		else if (p->untracked)
			snprintf(note, sizeof(note), "not followed: %s", p->why);
		else
			d = judge_acked(p, a, &found[i], note, sizeof(note));
		o = json_pack("{s:s, s:s, s:s}", "path", p->path, "durable", durable,
			      "result", fb_data_name(d));
		if (*note)
			json_object_set_new(o, "note", json_string(note));
		json_array_append_new(files, o);
		if ((d == FB_DATA_LOST || d == FB_DATA_CHANGED) && rank(d) > rank(worst))
			snprintf(detail, len, "%s (durable: %s): %s", p->path, durable, note);
		if (rank(d) > rank(worst))
			worst = d;
	}
	return worst;
}

// SPDX-License-Identifier: MIT
/*
 * `flipbed merge OUT DIR...`: one run directory from the shards of a run
 * (`flipbed run --shard K/N` on several CI jobs, machines or job-engine
 * tasks). The shards must be those of one run (check_shards()), all of
 * them, each complete. Case directories are hard-linked where the
 * filesystem allows it, copied otherwise (never symlinked: a CI artifact
 * must stand on its own), and the reports are rewritten for the whole.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "report/report_int.h"

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	if (!link(from, to))
		return 0;
	in = open(from, O_RDONLY);
	out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL, 0666);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1, ret = -1;
	if (in < 0 || out < 0 || n < 0 || ret) {
		fprintf(stderr, "flipbed: copying %s to %s: %s\n", from, to,
			strerror(errno));
		ret = -1;
	}
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		ret = -1;
	return ret;
}

static int copy_tree(const char *from, const char *to)
{
	DIR *d = opendir(from);
	struct dirent *e;
	int ret = 0;

	if (!d || fb_mkdirs(to)) {
		if (d)
			closedir(d);
		else
			fprintf(stderr, "flipbed: %s: %s\n", from, strerror(errno));
		return -1;
	}
	while (!ret && (e = readdir(d))) {
		char *f = fb_path(from, NULL, e->d_name);
		char *t = fb_path(to, NULL, e->d_name);
		struct stat st;

		if (!f || !t || lstat(f, &st))
			ret = -1;
		else if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			;
		else if (S_ISDIR(st.st_mode))
			ret = copy_tree(f, t);
		else if (S_ISREG(st.st_mode))
			ret = copy_file(f, t);
		free(f);
		free(t);
	}
	closedir(d);
	return ret;
}

struct entry {
	const struct fb_case *c;
	const struct fb_run *run;
};

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	return strcmp(a->c->name, b->c->name);
}

static struct entry *gather(const struct fb_run *runs, int n, size_t *total)
{
	struct entry *e;
	size_t k = 0;

	*total = 0;
	for (int i = 0; i < n; i++)
		*total += runs[i].n;
	e = xcalloc(*total + 1, sizeof(*e));
	for (int i = 0; i < n; i++)
		for (size_t j = 0; j < runs[i].n; j++)
			e[k++] = (struct entry){ &runs[i].cases[j], &runs[i] };
	qsort(e, *total, sizeof(*e), entry_cmp);
	for (size_t i = 1; i < *total; i++) {
		if (strcmp(e[i - 1].c->name, e[i].c->name))
			continue;
		fprintf(stderr, "flipbed: case '%s' is in both %s:%u and %s:%u; "
			"accepted: shards with disjoint cases\n", e[i].c->name,
			e[i - 1].c->file, e[i - 1].c->line, e[i].c->file,
			e[i].c->line);
		free(e);
		return NULL;
	}
	return e;
}

/* run.json's KEY of RUN, or NULL when the run has no run.json or no KEY. */
static json_t *info_get(const struct fb_run *run, const char *key)
{
	return run->info ? json_object_get(run->info, key) : NULL;
}

/* run.json's KEY of RUN as text: "null" for null, "(none)" when absent. */
static const char *info_text(const struct fb_run *run, const char *key)
{
	json_t *v = info_get(run, key);

	return json_is_string(v) ? json_string_value(v) : v ? "null" : "(none)";
}

/*
 * Whether A and B record different values of KEY. A run that does not
 * record KEY (no run.json, an older flipbed), or records null when
 * NULL_UNKNOWN, is not compared.
 */
static bool info_differs(const struct fb_run *a, const struct fb_run *b, const char *key,
			 bool null_unknown)
{
	json_t *x = info_get(a, key), *y = info_get(b, key);

	if (!x || !y || (null_unknown && (json_is_null(x) || json_is_null(y))))
		return false;
	return !json_equal(x, y);
}

/* Whether A and B were made by different builds: by build id, else by git describe. */
static bool other_flipbed(const struct fb_run *a, const struct fb_run *b)
{
	if (json_is_string(info_get(a, "flipbed_build")) && json_is_string(info_get(b, "flipbed_build")))
		return info_differs(a, b, "flipbed_build", true);
	return info_differs(a, b, "flipbed", true);
}

/* The command line RUN recorded, in BUF. */
static const char *argv_text(const struct fb_run *run, char *buf, size_t len)
{
	json_t *av = info_get(run, "argv"), *v;
	size_t i, used = 0;

	buf[0] = '\0';
	json_array_foreach(av, i, v)
		if (json_is_string(v) && used < len)
			used += snprintf(buf + used, len - used, "%s%s", i ? " " : "",
					 json_string_value(v));
	return buf;
}

/* RUN's shard K/N from run.json into *K, *N; 0, or -1 when it records none. */
static int shard_of(const struct fb_run *run, int *k, int *n)
{
	const char *s = json_string_value(info_get(run, "shard"));
	int used = 0;

	if (!s || sscanf(s, "%d/%d%n", k, n, &used) != 2 || s[used] || *k < 1 || *k > *n)
		return -1;
	return 0;
}

/*
 * The runs given must be the shards of one run: made by one build of
 * flipbed, of one matrix and one selection of cases (the same options but
 * --shard), with one N and each shard K once; -1 (bad input) otherwise.
 * Then every shard 1..N must be there and hold all the cases it planned:
 * 1, naming the shards missing or incomplete. Runs that record no shard
 * (run with no --shard, or before run.json had it) are joined as given.
 */
static int check_shards(const struct fb_run *runs, int n)
{
	char a[1024], b[1024];
	int k, nn, k0 = 0, n0 = 0, with = -1, without = -1, ret = 0;

	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++) {
			const struct fb_run *x = &runs[j], *y = &runs[i];

			if (other_flipbed(x, y)) {
				fprintf(stderr, "flipbed: %s and %s were made by different builds of "
					"flipbed (%s build %.12s; %s build %.12s); accepted: the shards "
					"of one run, made by one flipbed\n", x->dir, y->dir,
					info_text(x, "flipbed"), info_text(x, "flipbed_build"),
					info_text(y, "flipbed"), info_text(y, "flipbed_build"));
				return -1;
			}
			if (info_differs(x, y, "matrix", false)) {
				fprintf(stderr, "flipbed: %s and %s are runs of different matrices "
					"(%s, %s); accepted: the shards of one run\n", x->dir, y->dir,
					info_text(x, "matrix"), info_text(y, "matrix"));
				return -1;
			}
			if (info_differs(x, y, "selection", true)) {
				fprintf(stderr, "flipbed: %s and %s select different cases (%s; %s); "
					"accepted: the shards of one command line, differing only in "
					"--shard and --out\n", x->dir, y->dir, argv_text(x, a, sizeof(a)),
					argv_text(y, b, sizeof(b)));
				return -1;
			}
		}
		if (shard_of(&runs[i], &k, &nn)) {
			without = i;
			continue;
		}
		if (with < 0)
			with = i, k0 = k, n0 = nn;
		if (nn != n0) {
			fprintf(stderr, "flipbed: %s is shard %d/%d but %s is shard %d/%d; accepted: "
				"the shards of one run, which share N\n", runs[with].dir, k0, n0,
				runs[i].dir, k, nn);
			return -1;
		}
		for (int j = 0; j < i; j++) {
			int kj, nj;

			if (!shard_of(&runs[j], &kj, &nj) && kj == k) {
				fprintf(stderr, "flipbed: shard %d/%d is given twice: %s and %s; "
					"accepted: each shard once\n", k, nn, runs[j].dir, runs[i].dir);
				return -1;
			}
		}
	}
	if (with < 0)
		return 0;
	if (without >= 0) {
		fprintf(stderr, "flipbed: %s records no shard but %s is shard %d/%d; accepted: "
			"the shards of one run, each run with --shard\n", runs[without].dir,
			runs[with].dir, k0, n0);
		return -1;
	}
	a[0] = '\0';
	for (int want = 1; want <= n0; want++) {
		bool have = false;

		for (int i = 0; i < n && !have; i++)
			have = !shard_of(&runs[i], &k, &nn) && k == want;
		if (!have)
			snprintf(a + strlen(a), sizeof(a) - strlen(a), "%s%d/%d", *a ? ", " : "",
				 want, n0);
	}
	if (*a) {
		fprintf(stderr, "flipbed: missing shard(s) %s (from the shard K/N each run.json "
			"records, %d of %d given); merge every shard of the run\n", a, n, n0);
		ret = 1;
	}
	for (int i = 0; i < n; i++) {
		json_t *planned = info_get(&runs[i], "cases_planned");
		size_t t[FB_VERDICT__COUNT], ran;

		/* a case cut short did not run */
		fb_run_totals(&runs[i], t);
		ran = runs[i].n - t[FB_VERDICT_INTERRUPTED];
		if (!t[FB_VERDICT_INTERRUPTED] &&
		    (!json_is_integer(planned) || ran >= (size_t)json_integer_value(planned)))
			continue;
		shard_of(&runs[i], &k, &nn);
		fprintf(stderr, "flipbed: shard %d/%d in %s holds %zu of its %lld cases (%s); run "
			"that shard again with --out %s: its earlier run is replaced\n", k, nn,
			runs[i].dir, ran, json_is_integer(planned) ?
			(long long)json_integer_value(planned) : (long long)runs[i].n,
			json_is_true(info_get(&runs[i], "interrupted")) ? "it was interrupted" :
			json_is_string(info_get(&runs[i], "finished")) ? "cases are missing" :
			"it never finished", runs[i].dir);
		ret = 1;
	}
	return ret;
}

/* A field all shards agree on, else null. */
static json_t *common(const struct fb_run *runs, int n, const char *key)
{
	json_t *v = json_object_get(runs[0].info, key);

	for (int i = 1; i < n; i++)
		if (!json_equal(v, json_object_get(runs[i].info, key)))
			return json_null();
	return v ? json_incref(v) : json_null();
}

/* ISO 8601 UTC strings sort as times: the earliest start, the latest end. */
static json_t *extreme(const struct fb_run *runs, int n, const char *key,
		       int sign)
{
	const char *best = NULL;

	for (int i = 0; i < n; i++) {
		const char *s = json_string_value(json_object_get(runs[i].info, key));

		if (s && (!best || sign * strcmp(s, best) > 0))
			best = s;
	}
	return best ? json_string(best) : json_null();
}

static json_t *run_info(const char *out, const struct fb_run *runs, int n,
			int argc, char **argv)
{
	json_t *o = json_object(), *av = json_array(), *from = json_array();
	json_t *kernels = json_object();
	char *copy = xstrdup(out);

	for (int i = 0; i < argc; i++)
		json_array_append_new(av, json_string(argv[i]));
	for (int i = 0; i < n; i++) {
		json_t *ks = json_object_get(runs[i].info, "kernels");

		if (json_is_object(ks))
			json_object_update_missing(kernels, ks);
		json_array_append_new(from, json_pack("{s:s, s:O?, s:O?, s:O?}",
			"dir", runs[i].dir,
			"run_id", json_object_get(runs[i].info, "run_id"),
			"shard", json_object_get(runs[i].info, "shard"),
			"host", json_object_get(runs[i].info, "host")));
	}
	json_object_set_new(o, "run_id", json_string(copy ? basename(copy) : out));
	json_object_set_new(o, "started", extreme(runs, n, "started", -1));
	json_object_set_new(o, "finished", extreme(runs, n, "finished", 1));
	json_object_set_new(o, "argv", av);
	json_object_set_new(o, "matrix", common(runs, n, "matrix"));
	json_object_set_new(o, "seed", common(runs, n, "seed"));
	json_object_set_new(o, "shard", json_null());
	json_object_set_new(o, "flipbed", common(runs, n, "flipbed"));
	json_object_set_new(o, "flipbed_build", common(runs, n, "flipbed_build"));
	json_object_set_new(o, "selection", common(runs, n, "selection"));
	json_object_set_new(o, "cases_total", common(runs, n, "cases_total"));
	json_object_set_new(o, "kernels", kernels);
	json_object_set_new(o, "merged_from", from);
	free(copy);
	return o;
}

static int write_cases(const char *out, const struct entry *e, size_t n)
{
	char *path = fb_path(out, NULL, "cases.jsonl");
	FILE *f = path ? fb_out_open(path) : NULL;
	int ret = -1;

	if (f) {
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s\n", e[i].c->text);
		ret = fb_out_close(f, path);
	}
	free(path);
	return ret;
}

static int copy_cases(const char *out, const struct entry *e, size_t n)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < n; i++) {
		char *from = fb_path(e[i].run->dir, NULL, e[i].c->dir);
		char *to = fb_path(out, NULL, e[i].c->dir);
		struct stat st;

		if (!from || !to)
			ret = -1;
		else if (!stat(from, &st) && S_ISDIR(st.st_mode))
			ret = copy_tree(from, to);
		free(from);
		free(to);
	}
	return ret;
}

static int write_merged(const char *out, const struct fb_run *runs, int n,
			int argc, char **argv)
{
	char *cases = fb_path(out, NULL, "cases.jsonl");
	char *info = fb_path(out, NULL, "run.json");
	struct entry *e = NULL;
	json_t *o = NULL;
	size_t total;
	int ret = -1;

	if (!cases || !info)
		goto out;
	if (!(e = gather(runs, n, &total)) || fb_mkdirs(out) ||
	    copy_cases(out, e, total))
		goto out;
	o = run_info(out, runs, n, argc, argv);
	if (json_dump_file(o, info, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ||
	    write_cases(out, e, total)) {
		fprintf(stderr, "flipbed: %s: cannot write the merged run\n", out);
		goto out;
	}
	ret = 0;
out:
	json_decref(o);
	free(e);
	free(cases);
	free(info);
	return ret;
}

/*
 * Returns the merged run's status (fb_run_status), -1 on bad input (exit
 * 2), or 1 without writing OUT when a shard is missing or incomplete.
 */
int fb_merge(const char *out, char **dirs, int ndirs, int argc, char **argv)
{
	char *cases = fb_path(out, NULL, "cases.jsonl");
	struct fb_run *runs = xcalloc(ndirs, sizeof(*runs));
	struct fb_run merged;
	int ret = 0, loaded = 0;

	if (!cases || fb_is_file(cases)) {
		fprintf(stderr, "flipbed: %s exists; accepted: a new or empty "
			"directory as the merge output\n", cases);
		ret = -1;
	}
	free(cases);
	while (!ret && loaded < ndirs)
		ret = fb_run_load(dirs[loaded], &runs[loaded]), loaded++;
	if (!ret)
		ret = check_shards(runs, ndirs);
	if (!ret)
		ret = write_merged(out, runs, ndirs, argc, argv);
	for (int i = 0; i < loaded; i++)
		fb_run_free(&runs[i]);
	free(runs);
	if (ret)
		return ret;
	ret = fb_run_load(out, &merged);
	if (!ret)
		ret = fb_report_write(&merged);
	if (!ret)
		ret = fb_run_status(&merged);
	fb_run_free(&merged);
	return ret;
}

// SPDX-License-Identifier: MIT
/*
 * flipbed bisect CASE --tree DIR --good REV --bad REV: the first commit of
 * a kernel git tree at which a case's outcome changes.
 *
 * The tree is never touched: a detached worktree of it (OUT/tree) is
 * checked out at each revision, built by kernel/build.sh --tree into one
 * object directory (so each step rebuilds only what changed; ccache when
 * installed), and the case runs on it with --kernel-image, from the matrix
 * that holds it (default ci). The outcome is the chosen fields of the
 * case's record (default detect and reaction). GOOD's outcome is the
 * reference; `git bisect run` then calls `flipbed bisect --step OUT` at
 * each revision, which answers good (0) when the fields equal the
 * reference, bad (1) when they differ, skip (125) when the revision does
 * not build. Each revision's build log, run and outcome stay in
 * OUT/steps/SHA, so running the same command again after an interruption
 * resumes where it stopped, without rebuilding a finished step.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "paths.h"
#include "util.h"

#define STEP_SKIP 125		/* git bisect run: this revision cannot be tested */
#define STEP_ABORT 128		/* git bisect run: stop the bisection */

static const char *const fields_known[] = {
	"detect", "reaction", "fsck", "data", "warning", "attrib", "undetected",
	"detect_next", "reaction_next", NULL,
};

struct bisect {
	const char *cas;	/* xattr/block-flip:rest: a case name without @KERNEL */
	const char *tree, *good, *bad, *field, *matrix;
	char out[PATH_MAX];
	char good_sha[64], bad_sha[64];
	char name[64];		/* the kernel's folder: build/kernel/NAME */
	char top[PATH_MAX];	/* where the command ran: the matrices are found from there */
};

/*
 * Run ARGV (in directory DIR unless NULL) with stdout to OUT (NULL: this
 * process's; "-" : nothing) and stderr beside it; its exit status, or -1.
 */
static int run(const char *dir, const char *out, char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (out) {
			int fd = strcmp(out, "-") ? open(out, O_WRONLY | O_CREAT | O_APPEND, 0644) :
				 open("/dev/null", O_WRONLY);
			if (fd < 0)
				_exit(127);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (dir && chdir(dir))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* `git -C TREE rev-parse --verify -q REV^{commit}` into SHA; 0 or -1. */
static int resolve(const char *tree, const char *rev, char *sha, size_t len)
{
	char spec[256], cmd[PATH_MAX + 320];
	FILE *p;

	snprintf(spec, sizeof(spec), "%s^{commit}", rev);
	if (strchr(rev, '\'') || strchr(tree, '\''))
		return -1;
	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse --verify -q '%s' 2>/dev/null", tree, spec);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(sha, len, p))
		sha[0] = '\0';
	sha[strcspn(sha, "\n")] = '\0';
	return pclose(p) == 0 && strlen(sha) == 40 ? 0 : -1;
}

static bool field_ok(const char *list)
{
	char *copy = xstrdup(list), *save = NULL;
	bool ok = *list != '\0';

	for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		bool known = false;
		for (int i = 0; fields_known[i]; i++)
			known |= !strcmp(f, fields_known[i]);
		ok &= known;
	}
	free(copy);
	return ok;
}

/* "detect=csum reaction=remount-ro": FIELDS of the one record in RUN/cases.jsonl. */
static int outcome_of(const char *rundir, const char *fields, char *buf, size_t len)
{
	char path[PATH_MAX + 16], *copy, *save = NULL;
	json_error_t err;
	json_t *rec, *o;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/cases.jsonl", rundir);
	rec = json_load_file(path, JSON_DISABLE_EOF_CHECK, &err);
	o = json_object_get(rec, "outcome");
	if (!json_is_object(o)) {
		json_decref(rec);
		return -1;
	}
	buf[0] = '\0';
	copy = xstrdup(fields);
	for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		json_t *v = json_object_get(o, f);
		const char *s = json_is_string(v) ? json_string_value(v) :
				json_is_true(v) ? "yes" : json_is_false(v) ? "no" : "?";
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s=%s", n ? " " : "", f, s);
	}
	free(copy);
	json_decref(rec);
	return n < len ? 0 : -1;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static char *read_line_of(const char *path)
{
	size_t len;
	char *s = fb_slurp(path, &len);

	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

/*
 * The outcome at revision SHA (OUT/steps/SHA: build.log, run/, outcome):
 * 0 and BUF filled, STEP_SKIP when the revision does not build, STEP_ABORT
 * when the case could not run there.
 */
static int step(const struct bisect *b, const char *sha, char *buf, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], rundir[PATH_MAX + 16], image[PATH_MAX], *cached;
	char treedir[PATH_MAX + 8], build[PATH_MAX], self[PATH_MAX], filter[300];
	int rc;

	snprintf(dir, sizeof(dir), "%s/steps/%s", b->out, sha);
	snprintf(path, sizeof(path), "%s/outcome", dir);
	if ((cached = read_line_of(path))) {
		snprintf(buf, len, "%s", cached);
		free(cached);
		return strcmp(buf, "unbuildable") ? 0 : STEP_SKIP;
	}
	if (fb_mkdirs(dir))
		return STEP_ABORT;
	snprintf(treedir, sizeof(treedir), "%s/tree", b->out);
	fprintf(stderr, "flipbed bisect: %.12s: building\n", sha);
	rc = run(NULL, "-", (char *[]){ "git", "-C", treedir, "checkout", "-q", "--detach",
				       (char *)sha, NULL });
	if (rc) {
		fprintf(stderr, "flipbed bisect: git checkout %s in %s failed\n", sha, treedir);
		return STEP_ABORT;
	}
	snprintf(build, sizeof(build), "%s/../kernel/build.sh", build_dir());
	snprintf(path, sizeof(path), "%s/build.log", dir);
	unlink(path);
	rc = run(NULL, path, (char *[]){ build, "--tree", treedir, "--name", (char *)b->name, NULL });
	if (rc == 3) {
		fprintf(stderr, "flipbed bisect: %.12s does not build (%s): skipped\n", sha, path);
		snprintf(path, sizeof(path), "%s/outcome", dir);
		write_text(path, "unbuildable\n");
		return STEP_SKIP;
	}
	if (rc) {
		fprintf(stderr, "flipbed bisect: kernel/build.sh --tree exited %d (%s)\n", rc, path);
		return STEP_ABORT;
	}
	fprintf(stderr, "flipbed bisect: %.12s: running %s\n", sha, b->cas);
	snprintf(image, sizeof(image), "%s/kernel/%s/vmlinux", build_dir(), b->name);
	snprintf(rundir, sizeof(rundir), "%s/run", dir);
	fb_remove_tree(rundir);
	snprintf(filter, sizeof(filter), "%s@image", b->cas);
	snprintf(self, sizeof(self), "%s/bin/flipbed", build_dir());
	snprintf(path, sizeof(path), "%s/run.log", dir);
	unlink(path);
	rc = run(NULL, path, (char *[]){ self, "matrix", (char *)b->matrix, "--kernel-image", image,
				      "--filter", filter, "--jobs", "1", "--out", rundir, NULL });
	if ((rc != EXIT_MET && rc != EXIT_UNMET) || outcome_of(rundir, b->field, buf, len)) {
		fprintf(stderr, "flipbed bisect: the case did not run at %.12s (exit %d; %s)\n",
			sha, rc, path);
		return STEP_ABORT;
	}
	snprintf(path, sizeof(path), "%s/outcome", dir);
	strcat(buf, "\n");
	write_text(path, buf);
	buf[strcspn(buf, "\n")] = '\0';
	fprintf(stderr, "flipbed bisect: %.12s: %s\n", sha, buf);
	return 0;
}

/* OUT/params: what this bisection is; a second run must ask the same. */
static void params_text(const struct bisect *b, char *buf, size_t len)
{
	snprintf(buf, len, "case %s\nmatrix %s\nfield %s\ngood %s\nbad %s\nname %s\ntop %s\n",
		 b->cas, b->matrix, b->field, b->good_sha, b->bad_sha, b->name, b->top);
}

static int load_params(struct bisect *b, const char *out)
{
	static char text[4096];
	char path[PATH_MAX + 16], *line, *save = NULL;
	size_t len;
	char *s;

	snprintf(path, sizeof(path), "%s/params", out);
	s = fb_slurp(path, &len);
	if (!s || len >= sizeof(text)) {
		free(s);
		return -1;
	}
	memcpy(text, s, len + 1);
	free(s);
	snprintf(b->out, sizeof(b->out), "%s", out);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, ' ');
		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(line, "case")) b->cas = v;
		else if (!strcmp(line, "matrix")) b->matrix = v;
		else if (!strcmp(line, "field")) b->field = v;
		else if (!strcmp(line, "good")) snprintf(b->good_sha, sizeof(b->good_sha), "%s", v);
		else if (!strcmp(line, "bad")) snprintf(b->bad_sha, sizeof(b->bad_sha), "%s", v);
		else if (!strcmp(line, "name")) snprintf(b->name, sizeof(b->name), "%s", v);
		else if (!strcmp(line, "top")) snprintf(b->top, sizeof(b->top), "%s", v);
	}
	return b->cas && b->matrix && b->field && b->name[0] && b->top[0] ? 0 : -1;
}

/* git bisect run's script: compare this revision's outcome with GOOD's. */
static int bisect_step(const char *out)
{
	struct bisect b = { 0 };
	char path[PATH_MAX + 16], treedir[PATH_MAX + 8], sha[64], got[512], *ref;
	int rc;

	if (load_params(&b, out))
		return STEP_ABORT;
	/* git bisect run starts this in the worktree; the matrix is found from the top */
	if (chdir(b.top)) {
		fprintf(stderr, "flipbed bisect: %s: %s\n", b.top, strerror(errno));
		return STEP_ABORT;
	}
	snprintf(treedir, sizeof(treedir), "%s/tree", out);
	if (resolve(treedir, "HEAD", sha, sizeof(sha)))
		return STEP_ABORT;
	rc = step(&b, sha, got, sizeof(got));
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/reference", out);
	ref = read_line_of(path);
	if (!ref)
		return STEP_ABORT;
	rc = strcmp(got, ref) ? 1 : 0;
	free(ref);
	return rc;
}

static void usage(FILE *f)
{
	fputs("usage: flipbed bisect CASE --tree DIR --good REV --bad REV [--field F[,F...]]\n"
	      "                      [--matrix NAME] [--out DIR]\n"
	      "The first commit of the kernel git tree DIR between REV GOOD and REV BAD at\n"
	      "which CASE (a case of the matrix, default ci, without @KERNEL: xattr/block-flip:rest)\n"
	      "has other FIELDS (default detect,reaction; also fsck, data, warning, attrib,\n"
	      "undetected, detect_next, reaction_next) than at GOOD. Each revision is built in a\n"
	      "worktree of DIR (DIR itself is never touched) with kernel/build.sh --tree and the\n"
	      "case runs on it with --kernel-image. OUT (default build/bisect/CASE) keeps every\n"
	      "step: the same command again resumes. Run it from the repository's top.\n"
	      "Exit: 0 found, 1 GOOD and BAD give the same outcome, 2 bad input, 3 a build or\n"
	      "run failed.\n", f);
}

static int parse(struct bisect *b, int argc, char **argv)
{
	b->field = "detect,reaction";
	b->matrix = "ci";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = !strcmp(a, "--tree") ? &b->tree : !strcmp(a, "--good") ? &b->good :
				    !strcmp(a, "--bad") ? &b->bad : !strcmp(a, "--field") ? &b->field :
				    !strcmp(a, "--matrix") ? &b->matrix : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(EXIT_MET);
		}
		if (!strcmp(a, "--out")) {
			if (i + 1 >= argc)
				return fb_bad_input("flipbed bisect", "--out needs a directory");
			snprintf(b->out, sizeof(b->out), "%s", argv[++i]);
			continue;
		}
		if (slot) {
			if (i + 1 >= argc)
				return fb_bad_input("flipbed bisect", "%s needs a value", a);
			*slot = argv[++i];
			continue;
		}
		if (a[0] == '-' || b->cas)
			return fb_bad_input("flipbed bisect", "unexpected argument '%s'; see flipbed bisect --help",
					    a);
		b->cas = a;
	}
	if (!b->cas || !b->tree || !b->good || !b->bad)
		return fb_bad_input("flipbed bisect", "CASE, --tree, --good and --bad are all needed; see flipbed bisect --help");
	if (strchr(b->cas, '@'))
		return fb_bad_input("flipbed bisect", "%s: give the case without @KERNEL (the revisions are the kernel)",
				    b->cas);
	if (!field_ok(b->field))
		return fb_bad_input("flipbed bisect", "--field %s: accepted: a comma-separated list of detect, reaction, fsck, data, warning, attrib, undetected, detect_next, reaction_next",
				    b->field);
	return 0;
}

/* Everything that can be checked before a build: exit 2 when wrong. */
static int check(struct bisect *b)
{
	char self[PATH_MAX], filter[300], list[PATH_MAX + 16], tmp[PATH_MAX], *cases;
	size_t len = 0;
	int rc, n = 0;

	if (run(NULL, "-", (char *[]){ "git", "-C", (char *)b->tree, "rev-parse", "--git-dir", NULL }))
		return fb_bad_input("flipbed bisect", "--tree %s: not a git tree (bisect walks its commits)",
				    b->tree);
	if (resolve(b->tree, b->good, b->good_sha, sizeof(b->good_sha)))
		return fb_bad_input("flipbed bisect", "--good %s: not a commit of %s",
				    b->good, b->tree);
	if (resolve(b->tree, b->bad, b->bad_sha, sizeof(b->bad_sha)))
		return fb_bad_input("flipbed bisect", "--bad %s: not a commit of %s",
				    b->bad, b->tree);
	if (!strcmp(b->good_sha, b->bad_sha))
		return fb_bad_input("flipbed bisect", "--good and --bad are the same commit %s",
				    b->good_sha);
	if (run(NULL, "-", (char *[]){ "git", "-C", (char *)b->tree, "merge-base", "--is-ancestor",
				     b->good_sha, b->bad_sha, NULL }))
		return fb_bad_input("flipbed bisect", "--good %s is not an ancestor of --bad %s: bisect needs GOOD before BAD on one history",
				    b->good, b->bad);
	/* the case, as the matrix expands it on a registry kernel */
	snprintf(self, sizeof(self), "%s/bin/flipbed", build_dir());
	snprintf(filter, sizeof(filter), "%s@stock", b->cas);
	if (!b->out[0]) {
		/* build/bisect/xattr_block-flip_rest */
		size_t at = (size_t)snprintf(b->out, sizeof(b->out), "%s/bisect/", build_dir());
		snprintf(b->out + at, sizeof(b->out) - at, "%s", b->cas);
		for (char *p = b->out + at; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-", *p))
				*p = '_';
	}
	if (fb_private_dir(tmp, sizeof(tmp)))
		return fb_bad_input("flipbed bisect", "cannot make a directory under $TMPDIR: %s",
				    strerror(errno));
	snprintf(list, sizeof(list), "%s/cases.list", tmp);
	rc = run(NULL, list, (char *[]){ self, "matrix", (char *)b->matrix, "--kernel", "stock",
				      "--filter", filter, "--list", NULL });
	cases = fb_slurp(list, &len);
	for (size_t i = 0; cases && i < len; i++)
		n += cases[i] == '\n';
	free(cases);
	fb_remove_tree(tmp);
	if (rc || n != 1)
		return fb_bad_input("flipbed bisect", "%s: not a case of matrix %s (flipbed matrix %s --kernel stock --list names its cases)",
				    b->cas, b->matrix, b->matrix);
	if (fb_mkdirs(b->out))
		return fb_bad_input("flipbed bisect", "--out %s: %s", b->out, strerror(errno));
	/* absolute: git bisect run starts each step in the worktree */
	char *abs = realpath(b->out, NULL);
	if (!abs)
		return fb_bad_input("flipbed bisect", "--out %s: %s", b->out, strerror(errno));
	snprintf(b->out, sizeof(b->out), "%s", abs);
	free(abs);
	snprintf(b->name, sizeof(b->name), "bisect-%.8s", b->bad_sha);
	if (!getcwd(b->top, sizeof(b->top)))
		return fb_bad_input("flipbed bisect", "getcwd: %s", strerror(errno));
	return 0;
}

/* Start or resume the bisection in OUT's worktree; print what it found. */
static int bisect(struct bisect *b)
{
	char path[PATH_MAX + 32], treedir[PATH_MAX + 8], params[4096], ref[512], got[512], *old;
	char self[PATH_MAX], logpath[PATH_MAX + 32], line[512], first[64] = "";
	FILE *f;
	int rc;

	params_text(b, params, sizeof(params));
	snprintf(path, sizeof(path), "%s/params", b->out);
	old = fb_slurp(path, NULL);
	if (old && strcmp(old, params)) {
		free(old);
		return fb_bad_input("flipbed bisect", "--out %s holds another bisection (%s); give another --out",
				    b->out, path);
	}
	free(old);
	write_text(path, params);
	snprintf(treedir, sizeof(treedir), "%s/tree", b->out);
	if (access(treedir, F_OK) &&
	    run(NULL, "-", (char *[]){ "git", "-C", (char *)b->tree, "worktree", "add", "--detach",
				     treedir, b->good_sha, NULL })) {
		fprintf(stderr, "flipbed bisect: git worktree add %s failed\n", treedir);
		return EXIT_INFRA;
	}
	rc = step(b, b->good_sha, ref, sizeof(ref));
	if (rc) {
		fprintf(stderr, "flipbed bisect: GOOD %s cannot be measured\n", b->good);
		return EXIT_INFRA;
	}
	rc = step(b, b->bad_sha, got, sizeof(got));
	if (rc) {
		fprintf(stderr, "flipbed bisect: BAD %s cannot be measured\n", b->bad);
		return EXIT_INFRA;
	}
	if (!strcmp(ref, got)) {
		printf("flipbed bisect: GOOD and BAD give the same outcome (%s): nothing to bisect\n", ref);
		return EXIT_UNMET;
	}
	snprintf(path, sizeof(path), "%s/reference", b->out);
	snprintf(line, sizeof(line), "%s\n", ref);
	write_text(path, line);
	if (run(treedir, "-", (char *[]){ "git", "bisect", "log", NULL }) &&
	    run(treedir, "-", (char *[]){ "git", "bisect", "start", b->bad_sha, b->good_sha, NULL })) {
		fprintf(stderr, "flipbed bisect: git bisect start failed in %s\n", treedir);
		return EXIT_INFRA;
	}
	snprintf(self, sizeof(self), "%s/bin/flipbed", build_dir());
	snprintf(logpath, sizeof(logpath), "%s/bisect-run.log", b->out);
	rc = run(NULL, logpath, (char *[]){ "git", "-C", treedir, "bisect", "run", self, "bisect",
					  "--step", b->out, NULL });
	f = fopen(logpath, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " is the first bad commit"))
			snprintf(first, sizeof(first), "%.40s", line);
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/bisect.log", b->out);
	unlink(path);
	run(treedir, path, (char *[]){ "git", "bisect", "log", NULL });
	if (rc || !first[0]) {
		fprintf(stderr, "flipbed bisect: git bisect run ended without a first commit (exit %d): %s\n",
			rc, logpath);
		return EXIT_INFRA;
	}
	run(treedir, "-", (char *[]){ "git", "bisect", "reset", NULL });
	step(b, first, got, sizeof(got));
	snprintf(path, sizeof(path), "%s/result", b->out);
	f = fopen(path, "w");
	for (int k = 0; k < 2; k++) {
		FILE *o = k ? f : stdout;
		if (!o)
			continue;
		fprintf(o, "first commit whose %s differ from GOOD's: %s\n", b->field, first);
		fprintf(o, "  GOOD %.12s: %s\n  %.12s: %s\n", b->good_sha, ref, first, got);
		fflush(o);
		if (!k)
			run(treedir, NULL, (char *[]){ "git", "--no-pager", "log", "-1", "--format=  %h %s",
						      first, NULL });
	}
	if (f)
		fclose(f);
	printf("steps in %s/steps, git's log in %s/bisect.log\n", b->out, b->out);
	return EXIT_MET;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect b = { 0 };
	int rc;

	if (argc == 3 && !strcmp(argv[1], "--step"))
		return bisect_step(argv[2]);
	rc = parse(&b, argc, argv);
	if (!rc)
		rc = check(&b);
	return rc ? rc : bisect(&b);
}

// SPDX-License-Identifier: MIT
/*
 * `flipbed show`: one case as text, the kernel messages that matter first
 * (what a reader looks for), then outcome against expectation, what was
 * done to the disk and by the guest, fsck, and the command to reproduce.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/report_int.h"
#include "witness/bioread.h"
#include "witness/fserror.h"

static void put_value(FILE *out, json_t *v)
{
	char *s;

	if (json_is_string(v)) {
		fputs(json_string_value(v), out);
		return;
	}
	s = json_dumps(v, FB_JSON_TEXT);
	fputs(s ? s : "?", out);
	free(s);
}

static void show_object(FILE *out, const char *title, json_t *obj)
{
	const char *k;
	json_t *v;

	fprintf(out, "\n%s\n", title);
	if (!json_object_size(obj))
		fputs("  none recorded\n", out);
	json_object_foreach(obj, k, v) {
		fprintf(out, "  %s: ", k);
		put_value(out, v);
		fputc('\n', out);
	}
}

static void show_array(FILE *out, const char *title, json_t *arr)
{
	size_t i;
	json_t *v;

	fprintf(out, "\n%s\n", title);
	if (!json_array_size(arr))
		fputs("  none\n", out);
	json_array_foreach(arr, i, v) {
		fputs("  ", out);
		put_value(out, v);
		fputc('\n', out);
	}
}

/* TEXT with every line indented by two spaces. */
static void indent(FILE *out, const char *text)
{
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");

		fputs("  ", out);
		fb_plain_write(out, p, len);
		fputc('\n', out);
		p += len + (p[len] == '\n');
	}
}

static void show_file(const struct fb_run *run, const struct fb_case *c,
		      const char *title, const char *name, bool excerpt,
		      FILE *out)
{
	char *path = fb_path(run->dir, c->dir, name);
	char *text = path ? fb_slurp(path, NULL) : NULL;
	unsigned kept, total;
	char *ex = text && excerpt ? fb_dmesg_excerpt(text, &kept, &total) : NULL;

	if (!text)
		fprintf(out, "%s%s: no %s/%s\n", excerpt ? "" : "\n", title,
			c->dir, name);
	else if (ex)
		fprintf(out, "%s (%s/%s: %u of %u lines)\n", title, c->dir,
			name, kept, total);
	else
		fprintf(out, "\n%s (%s/%s)\n", title, c->dir, name);
	if (text)
		indent(out, ex ? ex : text);
	free(ex);
	free(text);
	free(path);
}

/* trace.txt, when the run decoded the case's call traces (kernel_trace.h). */
static void show_trace(const struct fb_run *run, const struct fb_case *c, FILE *out)
{
	char *path = fb_path(run->dir, c->dir, "trace.txt");
	char *text = path ? fb_slurp(path, NULL) : NULL;

	if (text) {
		fprintf(out, "\ncall traces, file:line per frame (%s/trace.txt)\n", c->dir);
		indent(out, text);
	}
	free(text);
	free(path);
}

/* Whether the csum-error lines named the object the fault hit (attrib.h). */
static void show_attrib(const struct fb_case *c, FILE *out)
{
	const char *a = fb_case_str(c, "outcome.attrib");
	const char *hit = fb_case_str(c, "target.csum_error");
	const char *other = fb_case_str(c, "outcome.attrib_detail");

	if (!a || !strcmp(a, "n/a"))
		return;
	fprintf(out, "  attrib    %s: the fault hit %s\n", a, hit ? hit : "-");
	if (other && *other)
		fprintf(out, "  other csum-error lines: %s\n", other);
}

static void show_outcome(const struct fb_case *c, FILE *out)
{
	static const char *const fields[] = { "detect", "reaction", "fsck", "data" };
	const char *s;
	char key[32];

	fputs("\noutcome vs expectation\n", out);
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++) {
		const char *want, *got;

		snprintf(key, sizeof(key), "expect.%s", fields[i]);
		want = fb_case_str(c, key);
		snprintf(key, sizeof(key), "outcome.%s", fields[i]);
		got = fb_case_str(c, key);
		/* a case cut short has no outcome to miss its expectation */
		fprintf(out, "  %-9s got %-15s expected %s%s\n", fields[i],
			got ? got : "-", want ? want : "any",
			fb_expect_match(want, got) || c->verdict == FB_VERDICT_INTERRUPTED ?
			"" : "  MISMATCH");
	}
	if ((s = fb_case_str(c, "outcome.detail")) && *s)
		fprintf(out, "  decided by: %s\n", s);
	if ((s = fb_case_str(c, "outcome.infra")) && *s)
		fprintf(out, "  %s: %s\n", c->verdict == FB_VERDICT_INTERRUPTED ? "cut short" :
			"infra", s);
	show_attrib(c, out);
	fb_signals_show(out, c->rec);
	fb_fserror_show(out, c->rec);
	fb_bioread_show(out, c->rec);
	show_array(out, "mismatch", fb_case_get(c, "mismatch"));
}

static void show_steps(const struct fb_case *c, FILE *out)
{
	json_t *steps = fb_case_get(c, "steps"), *s;
	size_t i;

	fputs("\nsteps\n", out);
	if (!json_array_size(steps))
		fputs("  none recorded\n", out);
	json_array_foreach(steps, i, s) {
		const char *text = json_string_value(json_object_get(s, "text"));
		const char *res = json_string_value(json_object_get(s, "result"));
		const char *err = json_string_value(json_object_get(s, "errno"));
		const char *det = json_string_value(json_object_get(s, "detail"));

		fprintf(out, "  %lld %s -> %s%s%s%s%s\n",
			(long long)json_integer_value(json_object_get(s, "n")),
			text ? text : "?", res ? res : "?", err ? " " : "",
			err ? err : "", det && *det ? " " : "",
			det && *det ? det : "");
	}
}

int fb_report_show(const struct fb_run *run, const struct fb_case *c, FILE *out)
{
	const char *shows = fb_case_str(c, "shows");
	const char *repro = fb_case_str(c, "repro");
	char buf[96];

	fprintf(out, "%s: %s (%s)\n", c->name, fb_verdict_name(c->verdict),
		fb_case_short(c, buf, sizeof(buf)));
	if (shows)
		fprintf(out, "  %s\n", shows);
	fputc('\n', out);
	show_file(run, c, "kernel messages", "dmesg.txt", true, out);
	show_trace(run, c, out);
	show_outcome(c, out);
	show_object(out, "target", fb_case_get(c, "target"));
	show_object(out, "params", fb_case_get(c, "params"));
	show_array(out, "rules", fb_case_get(c, "rules"));
	show_array(out, "faults", fb_case_get(c, "faults"));
	show_steps(c, out);
	show_file(run, c, "fsck", "fsck.txt", false, out);
	fprintf(out, "\nrepro\n  %s\n", repro ? repro : "(none recorded)");
	return 0;
}

/*
 * The tool replaces flipbed (exec), so an interactive session owns the
 * terminal and its exit status is the command's.
 */
int fb_report_inspect(const struct fb_run *run, const struct fb_case *c,
		      const char *tool, char **args, int nargs)
{
	char *image = fb_path(run->dir, c->dir, "image.raw");
	char *argv[16 + nargs];
	int n = 0;

	if (!image || access(image, R_OK)) {
		fprintf(stderr, "flipbed: %s kept no image (%s); run it again with --keep "
			"(flipbed run ... --keep, flipbed campaign ... --keep)\n",
			c->name, image ? image : c->dir);
		free(image);
		return 2;
	}
	if (!strcmp(tool, "debugfs")) {
		/* -c: catastrophic mode, read-only, bitmaps not read: opens corrupt images */
		argv[n++] = "debugfs";
		argv[n++] = "-c";
	} else {
		/* TCG here: KVM only runs PVM guests (docs/DESIGN.md) */
		setenv("LIBGUESTFS_BACKEND_SETTINGS", "force_tcg", 0);
		argv[n++] = "guestfish";
		argv[n++] = "--ro";
		argv[n++] = "--format=raw";
		argv[n++] = "-a";
		argv[n++] = image;
		argv[n++] = "-m";
		argv[n++] = "/dev/sda";
	}
	for (int i = 0; i < nargs; i++)
		argv[n++] = args[i];
	if (!strcmp(tool, "debugfs"))
		argv[n++] = image;
	argv[n] = NULL;
	fprintf(stderr, "flipbed: %s:", c->name);
	for (int i = 0; i < n; i++)
		fprintf(stderr, " %s", argv[i]);
	fputc('\n', stderr);
	fflush(NULL);
	execvp(argv[0], argv);
	fprintf(stderr, "flipbed: cannot run %s: %s (Debian: %s)\n", argv[0], strerror(errno),
		!strcmp(tool, "debugfs") ? "e2fsprogs" : "libguestfs-tools");
	free(image);
	return 2;
}

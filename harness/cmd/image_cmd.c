// SPDX-License-Identifier: MIT
/*
 * `flipbed image IMAGE`: bring your own image. Writes a one-off scenario
 * (`[mkfs] image = IMAGE`, target `none`) into the run directory and runs it
 * like any other case, so the image gets the same boot, classification and
 * report. The objects whose checksums already fail in it are listed first;
 * the case watches them (run/badobj.h). The runner works on a copy: IMAGE
 * itself is never written.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "cmd.h"
#include "scenario/scenario.h"
#include "kernels.h"
#include "options.h"
#include "run/badobj.h"
#include "golden/golden.h"
#include "util.h"

#define MAX_EXPECT 8

struct image_args {
	const char *image;
	const char *kernel;	/* --kernel's list, --kernel-image's "image" added */
	char kernels[256];
	const char *workload;
	const char *expect;
	const char *out;
	unsigned timeout;
	bool keep;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: flipbed image IMAGE [options]\n"
"  --kernel K[,K]     kernels (default: stock,patched)\n"
"  --kernel-image PATH  also a vmlinux or bzImage built elsewhere, as kernel 'image'\n"
"  --modules DIR      its modules (lib/modules/RELEASE, with modules.dep)\n"
"  --workload W       walk (default: mount, walk the tree, read every file),\n"
"                     mount-only, or guest steps joined by ';' ('mount;ls /;stat /a')\n"
"  --expect F=V,...   expectation: detect, reaction, fsck, data, warning (default: any)\n"
"  --timeout S        seconds per boot (default 60)\n"
"  --out DIR          run directory (default results/runs/image-<UTC time>)\n"
"  --keep             keep the case image (needed by flipbed show --inspect/--debugfs)\n"
"The objects whose checksums fail (flipbed-corrupt verify, and free inodes) are listed\n"
"before the boot; the case watches the first %d and gives an undetected case a cause\n"
"by them.\n", FB_BADOBJ_MAX);
}

static int parse_args(int argc, char **argv, struct image_args *a)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "kernel-image", required_argument, NULL, 'I' },
		{ "modules", required_argument, NULL, 'M' },
		{ "workload", required_argument, NULL, 'w' },
		{ "expect", required_argument, NULL, 'e' },
		{ "timeout", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "keep", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *end;
	int c;

	a->workload = "walk";
	a->timeout = 60;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
		case 'I': {
			char checked[256] = "";
			const char *name = optarg;
			size_t n = strlen(a->kernels);

			if (c == 'I' && fb_kernel_add_image(optarg, &name))
				return -1;
			if (fb_opt_kernels("image", name, checked, sizeof(checked)))
				return -1;
			/* the comma list fb_campaign_execute() takes */
			snprintf(a->kernels + n, sizeof(a->kernels) - n, "%s%s", n ? "," : "", name);
			a->kernel = a->kernels;
			break;
		}
		case 'M':
			if (fb_kernel_add_modules(optarg))
				return -1;
			break;
		case 'w':
			a->workload = optarg;
			break;
		case 'e':
			a->expect = optarg;
			break;
		case 't':
			a->timeout = strtoul(optarg, &end, 10);
			if (*end || !a->timeout || a->timeout > 3600) {
				fprintf(stderr, "flipbed image: --timeout %s: expected 1 to 3600 seconds\n", optarg);
				return -1;
			}
			break;
		case 'o':
			/* "" is no directory: the paths made from it would start at / */
			if (!*optarg) {
				fprintf(stderr, "flipbed image: --out '': empty; give a directory\n");
				return -1;
			}
			a->out = optarg;
			break;
		case 'K':
			a->keep = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return -1;
	}
	if (fb_kernel_image_finish())
		return -1;
	a->image = argv[optind];
	return 0;
}

/* The [workload] lines for --workload; each step must fit a scenario line. */
static int write_workload(FILE *f, const char *w)
{
	if (!strcmp(w, "walk")) {
		fputs("step = mount\nstep = walk /\n", f);
		return 0;
	}
	if (!strcmp(w, "mount-only")) {
		fputs("step = mount\n", f);
		return 0;
	}
	char *copy = xstrdup(w), *save = NULL;
	int n = 0;
	for (char *s = strtok_r(copy, ";", &save); s; s = strtok_r(NULL, ";", &save)) {
		s += strspn(s, " ");
		if (strlen("step = ") + strlen(s) > FB_SCENARIO_MAX_LINE) {
			fprintf(stderr, "flipbed image: --workload: a step of %zu characters; a step holds at most %zu (it begins '%.40s')\n",
				strlen(s), FB_SCENARIO_MAX_LINE - strlen("step = "), s);
			free(copy);
			return -1;
		}
		if (*s) {
			fprintf(f, "step = %s\n", s);
			n++;
		}
	}
	free(copy);
	if (!n)
		fprintf(stderr, "flipbed image: --workload '%s': no step; accepted: walk, mount-only, or steps joined by ';'\n", w);
	return n ? 0 : -1;
}

/* "detect=csum,reaction=remount-ro|mount-refused" into [expect] lines. */
static int write_expect(FILE *f, const char *spec)
{
	char *copy = xstrdup(spec ? spec : ""), *save = NULL;
	bool set[FB_EXP__COUNT] = { false };
	int rc = 0;

	for (char *s = strtok_r(copy, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(s, '=');
		int k = -1;
		if (eq) {
			*eq = '\0';
			for (int i = 0; i < FB_EXP__COUNT; i++)
				if (!strcmp(s, fb_expect_names[i]))
					k = i;
		}
		if (k < 0) {
			fprintf(stderr, "flipbed image: --expect %s: expected FIELD=VALUE with FIELD one of detect, reaction, fsck, data, warning\n",
				s);
			rc = -1;
			continue;
		}
		fprintf(f, "%s = %s\n", s, eq + 1);
		set[k] = true;
	}
	/* a user's image may be anything: what is not asked for is not judged */
	for (int i = 0; i < FB_EXP__COUNT; i++)
		if (!set[i])
			fprintf(f, "%s = any\n", fb_expect_names[i]);
	free(copy);
	return rc;
}

/*
 * Where the scenario finds the image: its absolute path, or, when that is
 * longer than a scenario line holds, LINK (beside the scenario file), a
 * symbolic link to it. 0 with the path in RET, or -1 after saying why.
 */
static int image_line(const char *abs, const char *link, char *ret, size_t len)
{
	size_t max = FB_SCENARIO_MAX_LINE - strlen("image = ");

	if (strlen(abs) <= max) {
		snprintf(ret, len, "%s", abs);
		return 0;
	}
	if (strlen(link) > max) {
		fprintf(stderr, "flipbed image: the run directory's path is too long for a scenario line (%zu characters, at most %zu with scenarios/image/NAME.img); give a shorter --out\n",
			strlen(link), max);
		return -1;
	}
	if (symlink(abs, link)) {
		fprintf(stderr, "flipbed image: cannot link %s to the image: %s\n", link, strerror(errno));
		return -1;
	}
	snprintf(ret, len, "%s", link);
	return 0;
}

static int write_scenario(const struct image_args *a, const char *name, const char *image,
			  const char *file)
{
	FILE *f = fopen(file, "w");
	int rc = 0;

	if (!f) {
		fprintf(stderr, "flipbed image: cannot write %s: %s\n", file, strerror(errno));
		return -1;
	}
	/* no line longer than a scenario's: the path and the workload may be long */
	fprintf(f, "# Written by flipbed image: the image as it is, no fault.\n"
		"# The runner copies it; the original is never written.\n"
		"[scenario]\nshows = The image %s, as given, under the workload %s.\n"
		"groups = image\ntimeout = %u\n\n[mkfs]\nimage = %s\n\n[target]\ntype = none\n\n"
		"[workload]\n", name,
		!strcmp(a->workload, "walk") || !strcmp(a->workload, "mount-only") ?
		a->workload : "of --workload", a->timeout, image);
	rc |= write_workload(f, a->workload);
	fputs("\n[expect]\n", f);
	rc |= write_expect(f, a->expect);
	if (fclose(f))
		rc = -1;
	return rc;
}

/*
 * The case's name: the image's file name without its extension, '@', ':'
 * and ' ' made '_', at most CASE_NAME_MAX bytes (cut between UTF-8
 * characters): it names the scenario file, the case and its directory.
 */
#define CASE_NAME_MAX 64
static void case_name(const char *abs, char *name, size_t len)
{
	char base[PATH_MAX], *dot;
	size_t n;

	snprintf(base, sizeof(base), "%s", abs);
	snprintf(name, len, "%s", basename(base));
	if ((dot = strrchr(name, '.')) && dot != name)
		*dot = '\0';
	n = strlen(name);
	if (n > CASE_NAME_MAX) {
		n = CASE_NAME_MAX;
		while (n && ((unsigned char)name[n] & 0xc0) == 0x80)
			n--;
		name[n] = '\0';
	}
	for (char *p = name; *p; p++)
		if (*p == '@' || *p == ':' || *p == ' ')
			*p = '_';
}

/* Bad input leaves nothing behind: the files made here, and the directories when empty. */
static void remove_made(const char *out, const char *file, const char *link)
{
	char dir[PATH_MAX + 32];

	unlink(file);
	unlink(link);
	snprintf(dir, sizeof(dir), "%s/scenarios/image", out);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/scenarios", out);
	rmdir(dir);
	rmdir(out);
}

/*
 * The objects whose checksums fail in the image, before it boots: the
 * case (run/target.c) watches them and explains an undetected case by
 * them, from the record's target.verify. Read-only.
 */
static void list_bad_objects(const char *abs)
{
	json_t *verify;
	char why[512];

	if (fb_badobj_find(abs, FB_BADOBJ_MAX, &verify, why, sizeof(why))) {
		fprintf(stderr, "flipbed image: %s; no object is watched\n", why);
		return;
	}
	fb_badobj_print(stderr, verify);
	json_decref(verify);
}

int cmd_image(int argc, char **argv)
{
	struct image_args a = { 0 };
	char abs[PATH_MAX], out[PATH_MAX], sdir[PATH_MAX + 32], file[PATH_MAX * 2];
	char link[PATH_MAX * 2], image[PATH_MAX * 2], name[256], why[256];
	int rc;

	if (parse_args(argc, argv, &a) < 0)
		return EXIT_BADINPUT;
	if (!fb_utf8_valid(a.image) || strpbrk(a.image, "\n\r")) {
		fprintf(stderr, "flipbed image: the image path is not one line of UTF-8 (it goes into a scenario file and JSON records); rename it\n");
		return EXIT_BADINPUT;
	}
	if (!realpath(a.image, abs)) {
		fprintf(stderr, "flipbed image: %s: %s; give an ext4 image file\n", a.image,
			strerror(errno));
		return EXIT_BADINPUT;
	}
	if (fb_image_is_ext4(abs, why, sizeof(why))) {
		fprintf(stderr, "flipbed image: %s: %s; give an ext4 image file\n", a.image, why);
		return EXIT_BADINPUT;
	}
	if (a.out) {
		snprintf(out, sizeof(out), "%s", a.out);
	} else {
		time_t t = time(NULL);
		char stamp[32];
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", gmtime(&t));
		mkdir("results", 0755);
		mkdir("results/runs", 0755);
		snprintf(out, sizeof(out), "results/runs/image-%s", stamp);
	}
	/* scenarios/image/NAME.scn in the run directory: the case is "image/NAME@KERNEL" */
	snprintf(sdir, sizeof(sdir), "%s/scenarios", out);
	if ((mkdir(out, 0755) && errno != EEXIST) || (mkdir(sdir, 0755) && errno != EEXIST) ||
	    (strcat(sdir, "/image"), mkdir(sdir, 0755) && errno != EEXIST)) {
		fprintf(stderr, "flipbed image: cannot create %s: %s\n", sdir, strerror(errno));
		return EXIT_INFRA;
	}
	case_name(abs, name, sizeof(name));
	snprintf(file, sizeof(file), "%s/%s.scn", sdir, name);
	snprintf(link, sizeof(link), "%s/%s.img", sdir, name);
	if (image_line(abs, link, image, sizeof(image)) ||
	    write_scenario(&a, name, image, file)) {
		remove_made(out, file, link);
		return EXIT_BADINPUT;
	}
	fprintf(stderr, "flipbed image: %s\n", file);
	list_bad_objects(abs);
	char *files[] = { file };
	rc = fb_campaign_execute(files, 1, a.kernel, out, fb_default_jobs(), a.keep, false, "image", argc, argv);
	if (rc == EXIT_BADINPUT)
		remove_made(out, file, link);
	return rc;
}

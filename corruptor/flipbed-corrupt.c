// SPDX-License-Identifier: MIT
/*
 * flipbed-corrupt --- the corruptor library for people:
 *   map | locate | pick | flip | verify IMAGE …
 * Exit status: 0 success, 1 verify found bad or unverifiable checksums,
 * 2 any error (one line on stderr naming what is wrong).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/die.h"
#include "flipbed-ext4.h"

#define EXIT_ERROR 2		/* any error: one line on stderr (fb_die) */

static const char usage[] =
"usage: flipbed-corrupt map IMAGE [--json]\n"
"       flipbed-corrupt locate IMAGE --target TYPE [SELECTOR] [--json]\n"
"       flipbed-corrupt pick IMAGE --target TYPE [SELECTOR] [--bits N]\n"
"                 [--region covered|csum|any|FIELD] [--seed S]\n"
"                 [--on rest|read|write] [--reseal]\n"
"       flipbed-corrupt flip IMAGE --target TYPE [SELECTOR] [--bits N]\n"
"                 [--region R] [--seed S] [--reseal]\n"
"       flipbed-corrupt verify IMAGE [--json]\n"
"SELECTOR: [--path P | --ino N | --group G] [--index K]\n";

static uint64_t parse_num(const char *opt, const char *s, uint64_t max)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-' || v > max)
		fb_die(EXIT_ERROR, "%s: bad number '%s' (0 to %" PRIu64 ", "
		       "decimal or 0x hex)", opt, s, max);
	return v;
}

struct args {
	const char *cmd, *image;
	int json, reseal, have_target, have_region;
	struct fbx_selector sel;
	struct fbx_pick_opts pick;
	enum fbx_on on;
	int have_on, have_pick_opt;
};

static void type_list(char *buf, size_t len)
{
	unsigned t;
	int n = 0;

	for (t = 0; t < FBX_TYPE_COUNT && n < (int)len; t++)
		n += snprintf(buf + n, len - n, "%s%s", t ? ", " : "",
			      fbx_type_name(t));
}

static void parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "target", required_argument, NULL, 't' },
		{ "path", required_argument, NULL, 'p' },
		{ "ino", required_argument, NULL, 'i' },
		{ "group", required_argument, NULL, 'g' },
		{ "index", required_argument, NULL, 'k' },
		{ "bits", required_argument, NULL, 'b' },
		{ "region", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "on", required_argument, NULL, 'o' },
		{ "reseal", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char types[1024];
	int c;

	if (argc < 2)
		fb_die(EXIT_ERROR, "missing command (map, locate, pick, flip "
		       "or verify); see --help");
	a->cmd = argv[1];
	if (!strcmp(a->cmd, "--help") || !strcmp(a->cmd, "-h")) {
		fputs(usage, stdout);
		exit(0);
	}
	opterr = 0;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j': a->json = 1; break;
		case 't':
			if (fbx_type_parse(optarg, &a->sel.type)) {
				type_list(types, sizeof(types));
				fb_die(EXIT_ERROR, "unknown type '%s'; "
				       "accepted: %s", optarg, types);
			}
			a->have_target = 1;
			break;
		case 'p': a->sel.path = optarg; break;
		case 'i':
			a->sel.ino = parse_num("--ino", optarg, UINT32_MAX);
			if (!a->sel.ino)
				fb_die(EXIT_ERROR, "--ino: inode numbers start "
				       "at 1");
			break;
		case 'g':
			a->sel.group = parse_num("--group", optarg, INT32_MAX);
			break;
		case 'k':
			a->sel.index = parse_num("--index", optarg, INT32_MAX);
			break;
		case 'b':
			a->pick.bits = parse_num("--bits", optarg, 4096);
			a->have_pick_opt = 1;
			break;
		case 'r':
			if (fbx_region_parse(optarg, &a->pick.region,
					     &a->pick.field))
				fb_die(EXIT_ERROR, "--region: bad value '%s' "
				       "(covered, csum, any or a field name)",
				       optarg);
			a->have_pick_opt = 1;
			break;
		case 's':
			a->pick.seed = parse_num("--seed", optarg, UINT64_MAX);
			a->have_pick_opt = 1;
			break;
		case 'o':
			if (fbx_on_parse(optarg, &a->on))
				fb_die(EXIT_ERROR, "--on: bad value '%s' "
				       "(rest, read or write)", optarg);
			a->have_on = 1;
			break;
		case 'R': a->pick.reseal = 1; a->have_pick_opt = 1; break;
		case 'h': fputs(usage, stdout); exit(0);
		default:
			fb_die(EXIT_ERROR, "%s: unknown or incomplete option "
			       "'%s'", a->cmd, argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		fb_die(EXIT_ERROR, "%s: expected exactly one IMAGE argument",
		       a->cmd);
	a->image = argv[optind];
}

static void check_args(const struct args *a)
{
	int sel = a->have_target || a->sel.path || a->sel.ino ||
		  a->sel.group >= 0 || a->sel.index >= 0;
	int is_pick = !strcmp(a->cmd, "pick"), is_flip = !strcmp(a->cmd, "flip");

	if (!strcmp(a->cmd, "map") || !strcmp(a->cmd, "verify")) {
		if (sel || a->have_pick_opt || a->have_on)
			fb_die(EXIT_ERROR, "%s takes only IMAGE and --json",
			       a->cmd);
		return;
	}
	if (!strcmp(a->cmd, "locate") || is_pick || is_flip) {
		if (!a->have_target)
			fb_die(EXIT_ERROR, "%s: --target TYPE is required",
			       a->cmd);
		if (!!a->sel.path + !!a->sel.ino + (a->sel.group >= 0) > 1)
			fb_die(EXIT_ERROR, "%s: give at most one of --path, "
			       "--ino, --group", a->cmd);
		if (!is_pick && !is_flip && (a->have_pick_opt || a->have_on))
			fb_die(EXIT_ERROR, "locate takes no "
			       "--bits/--region/--seed/--on/--reseal");
		if (is_flip && a->have_on)
			fb_die(EXIT_ERROR, "flip changes the image now: --on "
			       "is for pick");
		if (a->json && !strcmp(a->cmd, "pick"))
			fb_die(EXIT_ERROR, "pick prints plugin rules: --json "
			       "is for map, locate and verify");
		return;
	}
	fb_die(EXIT_ERROR, "unknown command '%s' (map, locate, pick, flip or "
	       "verify)", a->cmd);
}

static fbx_map_t open_map(const char *image, int flags)
{
	fbx_map_t m;
	errcode_t err = fbx_map_open(image, flags, &m);

	if (err)
		fb_die(EXIT_ERROR, "%s: cannot open as ext2/3/4: %s", image,
		       fbx_error_message(err));
	return m;
}

/*
 * A truncated image: map, locate, pick and flip refuse it (its records
 * name bytes that are not there); verify goes on and names what is lost.
 */
static void check_size(fbx_map_t m, const struct args *a)
{
	ext2_filsys fs = fbx_map_fs(m);
	uint64_t isize, fsize;
	size_t past;
	char msg[1024];

	if (!fbx_map_check_size(m, &isize, &fsize, &past))
		return;
	snprintf(msg, sizeof(msg), "%s: the image is %" PRIu64 " bytes but "
		 "its superblock says %llu blocks of %u bytes (%" PRIu64
		 " bytes): truncated; %zu of %zu objects lie past its end",
		 a->image, isize,
		 (unsigned long long)ext2fs_blocks_count(fs->super),
		 fs->blocksize, fsize, past, fbx_map_count(m));
	if (strcmp(a->cmd, "verify"))
		fb_die(EXIT_ERROR, "%s (verify names them)", msg);
	fprintf(stderr, "verify: %s\n", msg);
}

static void print_obj(fbx_map_t m, size_t i, int json, FILE *out)
{
	errcode_t err = fbx_object_print(m, i, json ? FBX_FMT_JSON :
						      FBX_FMT_TEXT, out);

	if (err)
		fb_die(EXIT_ERROR, "printing record %zu: %s", i,
		       fbx_error_message(err));
}

/*
 * map and locate write many records: in 64 KiB writes, not one per
 * 4 KiB (stdout's default off a terminal) — a system call costs
 * microseconds on the project's VM.
 */
static void big_stdout_buffer(void)
{
	static char buf[1 << 16];

	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
}

static int cmd_map(fbx_map_t m, const struct args *a)
{
	errcode_t err;

	/* Records come from fbx_map_print() 64 KiB at a time: straight to
	 * write(), not copied through a stdio buffer. */
	setvbuf(stdout, NULL, _IONBF, 0);
	err = fbx_map_print(m, a->json ? FBX_FMT_JSON : FBX_FMT_TEXT, stdout);
	if (err)
		fb_die(EXIT_ERROR, "printing the map: %s",
		       fbx_error_message(err));
	return 0;
}

static void find(fbx_map_t m, const struct args *a, size_t **idx, size_t *n)
{
	errcode_t err = fbx_map_find(m, &a->sel, idx, n);

	if (err)
		fb_die(EXIT_ERROR, "%s", fbx_map_explain(m));
}

static int cmd_locate(fbx_map_t m, const struct args *a)
{
	size_t *idx, n, k;

	find(m, a, &idx, &n);
	big_stdout_buffer();
	for (k = 0; k < n; k++)
		print_obj(m, idx[k], a->json, stdout);
	free(idx);
	return 0;
}

/* The target of pick/flip: --index, else one match chosen by the seed. */
static size_t target(fbx_map_t m, const struct args *a)
{
	size_t *idx, n, t;
	uint64_t h = a->pick.seed * 0x9E3779B97F4A7C15ULL;

	find(m, a, &idx, &n);
	t = idx[(h ^ (h >> 29)) % n];
	free(idx);
	return t;
}

static struct fbx_patch *do_pick(fbx_map_t m, const struct args *a,
				 size_t t)
{
	struct fbx_patch *p;
	errcode_t err = fbx_object_pick(m, t, &a->pick, &p);

	if (err == FBX_ET_BAD_FIELD) {
		const char *const *f = fbx_type_fields(
				fbx_map_object(m, t)->type);
		char list[2048];
		int n = 0;

		list[0] = 0;
		for (; *f && n < (int)sizeof(list); f++)
			n += snprintf(list + n, sizeof(list) - n, "%s%s",
				      n ? ", " : "", *f);
		fb_die(EXIT_ERROR, "--region: %s has no field '%s' (fields: "
		       "%s)", fbx_type_name(fbx_map_object(m, t)->type),
		       a->pick.field, *list ? list : "none");
	}
	if (err == FBX_ET_UNVERIFIABLE)
		fb_die(EXIT_ERROR, "--reseal: cannot locate the checksum of %s",
		       fbx_map_explain(m));
	if (err == FBX_ET_EMPTY_REGION && a->pick.region == FBX_REGION_FIELD)
		fb_die(EXIT_ERROR, "--region %s: this %s has no such entry",
		       a->pick.field,
		       fbx_type_name(fbx_map_object(m, t)->type));
	if (err == FBX_ET_EMPTY_REGION)
		fb_die(EXIT_ERROR, "--region: this %s has no %s bytes%s",
		       fbx_type_name(fbx_map_object(m, t)->type),
		       a->pick.region == FBX_REGION_CSUM ?
		       "checksum" : "covered", " (no checksum protects it: metadata_csum off?)");
	if (err)
		fb_die(EXIT_ERROR, "pick: %s", fbx_error_message(err));
	return p;
}

static int cmd_pick(fbx_map_t m, const struct args *a)
{
	size_t t = target(m, a);
	struct fbx_patch *p = do_pick(m, a, t);
	char **rules, **r;
	errcode_t err;

	fputs("# ", stderr);
	print_obj(m, t, 0, stderr);
	err = fbx_patch_rules(p, a->have_on ? a->on : FBX_ON_REST, &rules);
	if (err)
		fb_die(EXIT_ERROR, "pick: %s", fbx_error_message(err));
	for (r = rules; *r; r++)
		printf("%s\n", *r);
	fbx_rules_free(rules);
	fbx_patch_free(p);
	return 0;
}

static int cmd_flip(fbx_map_t m, const struct args *a)
{
	size_t t = target(m, a), k;
	struct fbx_patch *p = do_pick(m, a, t);
	errcode_t err;

	err = fbx_patch_apply(m, p);
	if (err)
		fb_die(EXIT_ERROR, "flip: %s: %s", a->image,
		       fbx_error_message(err));
	fputs("target: ", stdout);
	print_obj(m, t, 0, stdout);
	for (k = 0; k < p->n; k++)
		printf("changed 0x%" PRIx64 ": 0x%02x -> 0x%02x%s\n",
		       p->b[k].off, p->b[k].old, p->b[k].new,
		       p->b[k].csum ? " (checksum)" : "");
	fbx_patch_free(p);
	return 0;
}

/*
 * A failed object: "FAIL <record>" for a bad checksum, and with
 * " verdict=unverifiable" (JSON: "verdict", "why") when its checksum
 * cannot be located; then the reason goes to stderr too.
 */
static void print_fail(fbx_map_t m, size_t i, enum fbx_verdict v, int json)
{
	const char *why = NULL;
	errcode_t err;

	if (v == FBX_CSUM_UNVERIFIABLE) {
		fbx_object_verify(m, i, &v);
		why = fbx_map_explain(m);
		fprintf(stderr, "verify: unverifiable: %s\n", why);
	}
	if (!json)
		fputs("FAIL ", stdout);
	if (json || why)
		err = fbx_verdict_print(m, i, v, why, json ? FBX_FMT_JSON :
							     FBX_FMT_TEXT,
					stdout);
	else
		err = fbx_object_print(m, i, FBX_FMT_TEXT, stdout);
	if (err)
		fb_die(EXIT_ERROR, "printing record %zu: %s", i,
		       fbx_error_message(err));
}

static int cmd_verify(fbx_map_t m, const struct args *a)
{
	enum fbx_verdict *v;
	size_t nbad, i, n = fbx_map_count(m), checked = 0, skipped = 0;
	size_t unverifiable = 0;
	errcode_t err = fbx_map_verify(m, &v, &nbad);

	if (err)
		fb_die(EXIT_ERROR, "verify: %s", fbx_error_message(err));
	for (i = 0; i < n; i++) {
		checked += v[i] == FBX_CSUM_OK || v[i] == FBX_CSUM_BAD;
		skipped += v[i] == FBX_CSUM_SKIPPED;
		unverifiable += v[i] == FBX_CSUM_UNVERIFIABLE;
		if (v[i] == FBX_CSUM_BAD || v[i] == FBX_CSUM_UNVERIFIABLE)
			print_fail(m, i, v[i], a->json);
	}
	if (fbx_map_opened_from_backup(m))
		fprintf(stderr, "verify: the primary superblock is unusable; "
			"opened with a backup\n");
	fprintf(stderr, "verify: %zu checksums checked, %zu bad, %zu "
		"unverifiable, %zu objects skipped under a bad parent\n",
		checked, nbad - unverifiable, unverifiable, skipped);
	free(v);
	return nbad ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct args a = { .sel = FBX_SELECTOR_INIT,
			  .pick = FBX_PICK_OPTS_INIT };
	fbx_map_t m;
	int rc;

	fb_program = "flipbed-corrupt";
	parse_args(argc, argv, &a);
	check_args(&a);
	m = open_map(a.image, !strcmp(a.cmd, "flip") ? FBX_OPEN_RW : 0);
	check_size(m, &a);
	if (!strcmp(a.cmd, "map"))
		rc = cmd_map(m, &a);
	else if (!strcmp(a.cmd, "locate"))
		rc = cmd_locate(m, &a);
	else if (!strcmp(a.cmd, "pick"))
		rc = cmd_pick(m, &a);
	else if (!strcmp(a.cmd, "flip"))
		rc = cmd_flip(m, &a);
	else
		rc = cmd_verify(m, &a);
	fbx_map_close(m);
	if (fflush(stdout) || ferror(stdout))
		fb_die(EXIT_ERROR, "writing output: %s", strerror(errno));
	return rc;
}

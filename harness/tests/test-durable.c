// SPDX-License-Identifier: MIT
/*
 * What a workload was acknowledged for (judge/durable.h,
 * fb_durable_build_run and fb_durable_acked): a file is acknowledged by the
 * first step after its write that made it durable and succeeded (fsync,
 * sync, umount, fsync-fd), never after one failed first, and stays so
 * whatever fails later; the final image (FOUND) or a failed read of it
 * says whether it survived.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "guest/agent.h"
#include "judge/durable.h"

/* The image holds PATH's pattern, SIZE bytes. */
static struct fb_manifest_found file(const char *path, uint64_t size)
{
	struct fb_manifest_found f = { .state = FB_FOUND_FILE, .size = size, .hash = FNV1A_INIT };
	unsigned char buf[4096];

	for (uint64_t off = 0; off < size; off += sizeof(buf)) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);

		pattern_fill(path, off, buf, n);
		f.hash = fnv1a(f.hash, buf, n);
	}
	return f;
}

static const struct fb_manifest_found absent = { .state = FB_FOUND_ABSENT };

struct run {
	struct fb_durable_model m;
	json_t *files;
	enum fb_data data;
	char detail[512];
};

/*
 * Build the model of the steps ("TEXT -> RESULT", NULL-terminated; the
 * first NOWN the workload's) on an empty golden image, and judge it with
 * the image holding FOUND for the paths in the order the model made them.
 */
static void judge(struct run *r, int nown, const char *const *steps,
		  const struct fb_manifest_found *found)
{
	static char text[64][256];
	char *texts[64];
	const char *results[64];
	struct fb_manifest golden = { 0 };
	struct fb_manifest_found f[16];
	char why[256];
	int n = 0;

	for (; steps[n]; n++) {
		const char *arrow = strstr(steps[n], " -> ");

		assert_non_null(arrow);
		snprintf(text[n], sizeof(text[n]), "%.*s", (int)(arrow - steps[n]), steps[n]);
		texts[n] = text[n];
		results[n] = arrow + 4;
	}
	if (nown < 0)
		nown = n;
	assert_int_equal(fb_durable_build_run(&r->m, &golden, texts, results, n, nown, why,
					      sizeof(why)), 0);
	assert_true(r->m.np <= 16);
	for (int i = 0; i < r->m.np; i++)
		f[i] = found[i];
	r->files = json_array();
	r->detail[0] = '\0';
	r->data = fb_durable_acked(&r->m, f, r->files, r->detail, sizeof(r->detail));
}

static void done(struct run *r)
{
	json_decref(r->files);
	fb_durable_free(&r->m);
}

/* The record of PATH: "DURABLE RESULT". */
static const char *acked(struct run *r, const char *path)
{
	static char buf[128];
	size_t i;
	json_t *o;

	json_array_foreach(r->files, i, o) {
		if (strcmp(json_string_value(json_object_get(o, "path")), path))
			continue;
		snprintf(buf, sizeof(buf), "%s %s", json_string_value(json_object_get(o, "durable")),
			 json_string_value(json_object_get(o, "result")));
		return buf;
	}
	return "missing";
}

static void test_durable_points(void **state)
{
	const char *steps[] = { "mount -> ok", "write /a 5000 -> ok", "fsync /a -> ok",
				"write /b 3000 -> ok", "sync -> ok", "write /c 100 -> ok",
				"umount -> ok", NULL };
	struct fb_manifest_found intact[] = { file("/a", 5000), file("/b", 3000),
					      file("/c", 100) };
	struct fb_manifest_found gone[] = { file("/a", 5000), absent, file("/c", 100) };
	struct run r;

	(void)state;
	judge(&r, -1, steps, intact);
	assert_string_equal(acked(&r, "/a"), "fsync step 3 intact");
	assert_string_equal(acked(&r, "/b"), "sync step 5 intact");
	assert_string_equal(acked(&r, "/c"), "umount step 7 intact");
	assert_int_equal(r.data, FB_DATA_INTACT);
	done(&r);
	judge(&r, -1, steps, gone);
	assert_string_equal(acked(&r, "/b"), "sync step 5 lost");
	assert_int_equal(r.data, FB_DATA_LOST);
	assert_non_null(strstr(r.detail, "/b (durable: sync step 5): absent"));
	done(&r);
}

/* A step that fails after the durability point takes nothing back. */
static void test_later_failure(void **state)
{
	const char *steps[] = { "mount -> ok", "write /a 6000 -> ok", "sync -> ok",
				"write /b 10 -> EROFS", "sync -> EIO", "umount -> ok",
				"mount -> ok", "read /a 6000 -> EBADMSG", NULL };
	struct fb_manifest_found found[] = { file("/a", 6000), absent };
	struct run r;

	(void)state;
	judge(&r, -1, steps, found);
	/* the image holds it, the workload's read did not get it: lost, detected by the read */
	assert_string_equal(acked(&r, "/a"), "sync step 3 lost");
	assert_non_null(strstr(r.detail, "read step 8 got EBADMSG"));
	/* a write that failed is not followed, and acknowledged for nothing */
	assert_string_equal(acked(&r, "/b"), "none not-checked");
	assert_int_equal(r.data, FB_DATA_LOST);
	done(&r);
}

/* A read with nothing mounted (the remount failed) says nothing of the file. */
static void test_read_unmounted(void **state)
{
	const char *steps[] = { "mount -> ok", "write /new 5000 -> ok", "sync -> ok",
				"umount -> ok", "mount -> EUCLEAN", "read /new 5000 -> ENOENT", NULL };
	struct fb_manifest_found kept[] = { file("/new", 5000) };
	struct fb_manifest_found gone[] = { absent };
	struct run r;

	(void)state;
	judge(&r, -1, steps, kept);
	assert_string_equal(acked(&r, "/new"), "sync step 3 intact");
	done(&r);
	judge(&r, -1, steps, gone);
	assert_string_equal(acked(&r, "/new"), "sync step 3 lost");
	done(&r);
}

/*
 * A read refused with EROFS says nothing of the file's bytes; one that
 * failed with EBADMSG says they could not be read back.
 */
static void test_read_erofs(void **state)
{
	const char *erofs[] = { "mount -> ok", "write /f 100 -> ok", "sync -> ok", "umount -> ok",
				"mount -> ok", "read /f 100 -> EROFS", NULL };
	const char *ebadmsg[] = { "mount -> ok", "write /f 100 -> ok", "sync -> ok", "umount -> ok",
				  "mount -> ok", "read /f 100 -> EBADMSG", NULL };
	struct fb_manifest_found kept[] = { file("/f", 100) };
	struct run r;

	(void)state;
	judge(&r, -1, erofs, kept);
	assert_string_equal(acked(&r, "/f"), "sync step 3 intact");
	done(&r);
	judge(&r, -1, ebadmsg, kept);
	assert_string_equal(acked(&r, "/f"), "sync step 3 lost");
	done(&r);
}

/* A write whose fsync failed is not acknowledged, by that fsync or a later umount. */
static void test_not_durable(void **state)
{
	const char *steps[] = { "mount -> ok", "write /a 5000 -> ok", "fsync /a -> EIO",
				"umount -> ok", NULL };
	const char *harness[] = { "mount -> ok", "write /a 5000 -> ok", "may umount -> ok", NULL };
	struct fb_manifest_found found[] = { absent };
	struct run r;

	(void)state;
	judge(&r, -1, steps, found);
	assert_string_equal(acked(&r, "/a"), "none not-checked");
	assert_int_equal(r.data, FB_DATA_NOT_CHECKED);
	done(&r);
	/* the harness's own steps (past NOWN) acknowledge nothing */
	judge(&r, 2, harness, found);
	assert_string_equal(acked(&r, "/a"), "none not-checked");
	done(&r);
}

/* A descriptor opened before an error: write-fd, fsync-fd. */
static void test_write_fd(void **state)
{
	const char *synced[] = { "mount -> ok", "write /f 4096 -> ok", "fsync /f -> ok",
				 "open /f -> ok", "write-fd /f 12288 -> ok", "fsync-fd /f -> ok",
				 "close /f -> ok", NULL };
	const char *refused[] = { "mount -> ok", "write /f 4096 -> ok", "fsync /f -> ok",
				  "open /f -> ok", "write-fd /f 12288 -> ok",
				  "fsync-fd /f -> EROFS", "close /f -> ok", "umount -> ok", NULL };
	const char *failed[] = { "mount -> ok", "write /f 4096 -> ok", "fsync /f -> ok",
				 "open /f -> ok", "write-fd /f 12288 -> EROFS", "close /f -> ok",
				 "umount -> ok", NULL };
	struct fb_manifest_found old[] = { file("/f", 4096) };
	struct fb_manifest_found new[] = { file("/f", 12288) };
	struct fb_manifest_found part[] = { file("/f", 8192) };
	struct fb_manifest_found other[] = { file("/g", 8192) };
	struct run r;

	(void)state;
	/* fsync-fd succeeded: the 12288 bytes must be there, the 4096 are a loss */
	judge(&r, -1, synced, new);
	assert_string_equal(acked(&r, "/f"), "fsync-fd step 6 intact");
	done(&r);
	judge(&r, -1, synced, old);
	assert_string_equal(acked(&r, "/f"), "fsync-fd step 6 lost");
	assert_non_null(strstr(r.detail, "holds the content of step 2"));
	done(&r);
	/* fsync-fd failed: only the fsync before counts, and the new content may be there */
	judge(&r, -1, refused, old);
	assert_string_equal(acked(&r, "/f"), "fsync step 3 intact");
	done(&r);
	judge(&r, -1, refused, new);
	assert_string_equal(acked(&r, "/f"), "fsync step 3 intact");
	done(&r);
	/* a failed write-fd may have written part of its pattern, and nothing else */
	judge(&r, -1, failed, part);
	assert_string_equal(acked(&r, "/f"), "fsync step 3 intact");
	done(&r);
	judge(&r, -1, failed, other);
	assert_string_equal(acked(&r, "/f"), "fsync step 3 not-checked");
	done(&r);
}

/* A removal made durable: the file must be gone. */
static void test_removed(void **state)
{
	const char *steps[] = { "mount -> ok", "write /a 100 -> ok", "sync -> ok",
				"rm /a -> ok", "sync -> ok", NULL };
	struct fb_manifest_found back[] = { file("/a", 100) };
	struct fb_manifest_found gone[] = { absent };
	struct run r;

	(void)state;
	judge(&r, -1, steps, gone);
	assert_string_equal(acked(&r, "/a"), "sync step 5 intact");
	done(&r);
	judge(&r, -1, steps, back);
	assert_string_equal(acked(&r, "/a"), "sync step 5 changed");
	assert_int_equal(r.data, FB_DATA_CHANGED);
	done(&r);
}

/*
 * A golden image of many files (the largest fixture holds 12,000): each
 * path is in the model once, and a step finds the one it names, golden or
 * made by a step, wherever it was added.
 */
static void test_many_paths(void **state)
{
	enum { N = 20000 };
	char *steps[] = { "mount", "write /d/f12345 100", "rm /d/f00007",
			  "rename /d/f19999 /n", "write /n 10", "sync" };
	struct fb_manifest golden = { .n = N };
	struct fb_durable_model m;
	char why[256];
	int seen[N] = { 0 };

	(void)state;
	golden.v = calloc(N, sizeof(*golden.v));
	assert_non_null(golden.v);
	for (int i = 0; i < N; i++) {
		golden.v[i].path = malloc(16);
		snprintf(golden.v[i].path, 16, "/d/f%05d", i);
		golden.v[i].size = i;
	}
	assert_int_equal(fb_durable_build(&m, &golden, steps, 6, why, sizeof(why)), 0);
	assert_int_equal(m.np, N + 1);
	for (int k = 0; k < m.np; k++) {
		const struct fb_durable_path *p = &m.p[k];
		int i;

		if (!strcmp(p->path, "/n")) {
			assert_int_equal(p->nv, 2);	/* the rename's, then the write's */
			assert_int_equal(p->v[1].size, 10);
			continue;
		}
		assert_int_equal(sscanf(p->path, "/d/f%05d", &i), 1);
		assert_int_equal(seen[i]++, 0);
		assert_int_equal(p->v[0].size, (uint64_t)i);
		if (i == 12345)
			assert_true(p->nv == 2 && p->v[1].size == 100);
		else if (i == 7 || i == 19999)
			assert_true(p->nv == 2 && p->v[1].absent);
		else
			assert_int_equal(p->nv, 1);
	}
	fb_durable_free(&m);
	for (int i = 0; i < N; i++)
		free(golden.v[i].path);
	free(golden.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durable_points),
		cmocka_unit_test(test_later_failure),
		cmocka_unit_test(test_read_unmounted),
		cmocka_unit_test(test_read_erofs),
		cmocka_unit_test(test_not_durable),
		cmocka_unit_test(test_write_fd),
		cmocka_unit_test(test_removed),
		cmocka_unit_test(test_many_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

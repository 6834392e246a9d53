// SPDX-License-Identifier: MIT
/*
 * A coverage kernel's sites and one case's use of them (casecov.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage/casecov.h"
#include "kernels.h"
#include "paths.h"
#include "util.h"

const char *fb_cov_kernel_names(char *buf, size_t len)
{
	size_t o = 0;

	fb_kernels_load();
	buf[0] = '\0';
	for (size_t i = 0; i < fb_nkernels && o + 1 < len; i++)
		if (fb_kernels[i].gcov)
			o += snprintf(buf + o, len - o, "%s%s", o ? ", " : "", fb_kernels[i].name);
	return *buf ? buf : "none";
}

static int bad(const char *who, const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "flipbed %s: ", who);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return 2;
}

int fb_cov_kernel_load(const char *who, const char *kernel, struct fb_cov_kernel *k)
{
	char src[4200], why[512], list[256];
	const struct fb_kernel *reg;
	size_t nf = 0;

	memset(k, 0, sizeof(*k));
	fb_kernels_load();
	reg = fb_kernel_find(kernel);
	if (!reg)
		return bad(who, "no kernel '%s' in kernels.ini%s", kernel, "");
	if (!reg->gcov)
		return bad(who, "kernel %s counts nothing (kernels with coverage = gcov: %s)", kernel,
			   fb_cov_kernel_names(list, sizeof(list)));
	k->name = reg->name;
	snprintf(k->bundle, sizeof(k->bundle), "%s/kernel/%s/gcov", build_dir(), reg->name);
	snprintf(src, sizeof(src), "%s/src", k->bundle);
	if (fb_sites_scan(src, &k->sites, &k->nsites, why, sizeof(why)))
		return bad(who, "%s (build it: make %s)", why, reg->make_target);
	if (!k->nsites)
		return bad(who, "%s: no checksum verification site found%s", src, "");
	if (fb_gcov_bundle_id(k->bundle, k->id, sizeof(k->id), why, sizeof(why))) {
		fb_cov_kernel_free(k);
		return bad(who, "%s%s", why, "");
	}
	k->files = xcalloc(k->nsites + 1, sizeof(*k->files));
	for (size_t i = 0; i < k->nsites; i++) {
		const struct fb_site *s = &k->sites[i];
		char obj[64];
		size_t j;

		k->with_branch += s->how != FB_FAIL_NONE;
		snprintf(obj, sizeof(obj), "%.*s", (int)(strlen(s->file) - 2), s->file);
		for (j = 0; j < nf && strcmp(k->files[j], obj); j++)
			;
		if (j == nf)
			k->files[nf++] = xstrdup(obj);
	}
	return 0;
}

void fb_cov_kernel_free(struct fb_cov_kernel *k)
{
	for (size_t i = 0; k->files && k->files[i]; i++)
		free(k->files[i]);
	free(k->files);
	free(k->sites);
	memset(k, 0, sizeof(*k));
}

void fb_cov_use(const struct fb_site *sites, size_t nsites, const struct fb_cov *c,
		struct fb_site_use *use)
{
	for (size_t i = 0; i < nsites; i++) {
		const struct fb_site *s = &sites[i];
		long long fc = 0;

		use[i] = (struct fb_site_use){ 0 };
		if (fb_cov_line(c, s->file, s->line) <= 0)
			continue;
		use[i].reached = true;
		if (s->how == FB_FAIL_NONE)
			continue;
		if (!fb_cov_first_code(c, s->file, s->fail_line, s->fail_end, &fc)) {
			use[i].unmeasurable = true;
			continue;
		}
		if (fc <= 0)
			continue;
		use[i].failed = true;
		for (int r = 0; r < s->nreport; r++)
			use[i].reported |= fb_cov_line(c, s->file, s->report[r]) > 0;
	}
}

int fb_cov_case(const struct fb_cov_kernel *k, const char *build_id, const char *gcovdir,
		struct fb_site_use *use, struct fb_cov *cov, char *why, size_t len)
{
	struct fb_cov own = { 0 }, *c = cov ? cov : &own;

	if (!build_id || strcmp(build_id, k->id)) {
		snprintf(why, len, "its counters come from kernel build %s, build/kernel/%s is "
			 "build %s: refused (run the case again on this build)",
			 build_id ? build_id : "(none)", k->name, k->id);
		return -1;
	}
	if (fb_gcov_read_case(k->bundle, gcovdir, cov ? NULL : (const char *const *)k->files,
			      c, why, len))
		return -1;
	fb_cov_use(k->sites, k->nsites, c, use);
	fb_cov_free(&own);
	return 0;
}

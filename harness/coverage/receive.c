// SPDX-License-Identifier: MIT
/*
 * The agent's coverage lines into .gcda files (receive.h). A line is
 * taken only in the order guest/gcov.c sends them: "gcov-build", then per
 * file "gcda PATH SIZE", its "gcdata" lines and "gcda-end PATH HASH", then
 * "gcov-end FILES". PATH must end in fs/ext4/NAME.gcda or fs/jbd2/NAME.gcda
 * (NAME of letters, digits, '_' and '-'): what lands on the host is
 * CASE/gcov/fs/DIR/NAME.gcda and nothing else.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coverage/receive.h"
#include "guest/agent.h"
#include "util.h"

void fb_gcov_recv_init(struct fb_gcov_recv *r, const char *case_dir, bool wanted)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s/gcov", case_dir);
	r->wanted = wanted;
	r->hash = FNV1A_INIT;
}

static int refuse(struct fb_gcov_recv *r, const char *fmt, ...)
{
	va_list ap;
	char path[4300];

	if (r->state == GCOV_REFUSED)
		return 1;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	r->state = GCOV_REFUSED;
	if (r->f) {
		fclose(r->f);
		r->f = NULL;
		snprintf(path, sizeof(path), "%s/%s", r->dir, r->rel);
		unlink(path);
	}
	return 1;
}

static const signed char b64val[256] = {
	['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6, ['G'] = 7,
	['H'] = 8, ['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14,
	['O'] = 15, ['P'] = 16, ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21,
	['V'] = 22, ['W'] = 23, ['X'] = 24, ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28,
	['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35,
	['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42,
	['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49,
	['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56,
	['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63,
	['/'] = 64,
};

long fb_base64_decode(const char *in, unsigned char *out, size_t cap)
{
	size_t len = strlen(in), o = 0;

	if (len % 4)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;

		for (int k = 0; k < 4; k++) {
			unsigned char c = in[i + k];

			if (c == '=' && i + 4 == len && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad || !b64val[c])
				return -1;
			v[k] = b64val[c] - 1;
		}
		unsigned w = v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3];

		if (o + 3 - pad > cap)
			return -1;
		out[o++] = w >> 16;
		if (pad < 2)
			out[o++] = w >> 8 & 255;
		if (pad < 1)
			out[o++] = w & 255;
	}
	return o;
}

/* The part of PATH the host keeps: "fs/ext4/NAME.gcda", or NULL. */
static const char *kept_name(const char *path)
{
	const char *p = NULL;

	for (const char *s = path; (s = strstr(s, "fs/")); s++)
		if (s == path || s[-1] == '/')
			p = s;
	if (!p || (strncmp(p, "fs/ext4/", 8) && strncmp(p, "fs/jbd2/", 8)))
		return NULL;
	const char *name = p + 8;
	size_t n = strlen(name);

	if (n < 6 || n > 60 || strcmp(name + n - 5, ".gcda"))
		return NULL;
	for (size_t i = 0; i < n - 5; i++)
		if (!(name[i] == '_' || name[i] == '-' || (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9')))
			return NULL;
	return p;
}

static int start_file(struct fb_gcov_recv *r, const char *arg)
{
	char path[4300], sub[4300];
	const char *sp = strrchr(arg, ' '), *keep;
	unsigned long long size;
	char *name;

	if (!sp || fb_parse_dec(sp + 1, FB_GCOV_MAX_BYTES, &size))
		return refuse(r, "gcda: expected PATH SIZE (at most %u bytes)", FB_GCOV_MAX_BYTES);
	name = xstrndup(arg, sp - arg);
	keep = kept_name(name);
	if (!keep) {
		free(name);
		return refuse(r, "gcda: a path that is not fs/ext4/NAME.gcda or fs/jbd2/NAME.gcda");
	}
	if (r->files >= FB_GCOV_MAX_FILES || r->bytes + size > FB_GCOV_MAX_BYTES) {
		free(name);
		return refuse(r, "more than %d files or %u bytes of counters",
			      FB_GCOV_MAX_FILES, FB_GCOV_MAX_BYTES);
	}
	snprintf(r->rel, sizeof(r->rel), "%s", keep);
	free(name);
	snprintf(sub, sizeof(sub), "%s/%.7s", r->dir, r->rel);
	snprintf(path, sizeof(path), "%s/%s", r->dir, r->rel);
	if (fb_mkdirs(sub))
		return refuse(r, "cannot make %s: %s", sub, strerror(errno));
	if (!access(path, F_OK))
		return refuse(r, "%s sent twice", r->rel);
	r->f = fopen(path, "wbx");
	if (!r->f)
		return refuse(r, "cannot write %s: %s", path, strerror(errno));
	r->size = size;
	r->got = 0;
	r->hash = FNV1A_INIT;
	return 1;
}

static int data(struct fb_gcov_recv *r, const char *arg)
{
	unsigned char buf[6144];
	long n = fb_base64_decode(arg, buf, sizeof(buf));

	if (!r->f)
		return refuse(r, "gcdata outside a file");
	if (n < 0)
		return refuse(r, "%s: a gcdata line that is not base64 (or longer than %zu bytes)",
			      r->rel, sizeof(buf));
	if (r->got + n > r->size)
		return refuse(r, "%s: more bytes than the %llu announced", r->rel, r->size);
	if (fwrite(buf, 1, n, r->f) != (size_t)n)
		return refuse(r, "%s: %s", r->rel, strerror(errno));
	r->hash = fnv1a(r->hash, buf, n);
	r->got += n;
	return 1;
}

static int end_file(struct fb_gcov_recv *r, const char *arg)
{
	char want[40];
	const char *sp = strrchr(arg, ' ');

	if (!r->f)
		return refuse(r, "gcda-end outside a file");
	if (!sp || strlen(sp + 1) != 16)
		return refuse(r, "%s: gcda-end without its hash", r->rel);
	snprintf(want, sizeof(want), "%016llx", r->hash);
	if (r->got != r->size)
		return refuse(r, "%s: %llu bytes of the %llu announced", r->rel, r->got, r->size);
	if (strcmp(want, sp + 1))
		return refuse(r, "%s: the bytes hash to %s, the guest says %s", r->rel, want, sp + 1);
	if (fclose(r->f)) {
		r->f = NULL;
		return refuse(r, "%s: %s", r->rel, strerror(errno));
	}
	r->f = NULL;
	r->files++;
	r->bytes += r->got;
	return 1;
}

int fb_gcov_recv_line(struct fb_gcov_recv *r, const char *line)
{
	unsigned long long n;

	if (strncmp(line, "gc", 2))
		return 0;
	if (!strncmp(line, "gcdata ", 7)) {
		if (!r->wanted || r->state != GCOV_WAITING || !*r->build_id)
			return refuse(r, "counters that were not asked for, or out of order");
		return data(r, line + 7);
	}
	if (!strncmp(line, "gcov-unavailable ", 17)) {
		if (r->state == GCOV_WAITING) {
			if (r->f) {
				char path[4300];

				fclose(r->f);
				r->f = NULL;
				snprintf(path, sizeof(path), "%s/%s", r->dir, r->rel);
				unlink(path);
			}
			r->state = GCOV_UNAVAILABLE;
			snprintf(r->why, sizeof(r->why), "%.200s", line + 17);
			if (!fb_utf8_valid(r->why))
				snprintf(r->why, sizeof(r->why), "(a reason that is not UTF-8)");
		}
		return 1;
	}
	if (strncmp(line, "gcda ", 5) && strncmp(line, "gcda-end ", 9) &&
	    strncmp(line, "gcov-build ", 11) && strncmp(line, "gcov-end ", 9))
		return 0;
	if (!r->wanted)
		return refuse(r, "counters that were not asked for");
	if (r->state != GCOV_WAITING)
		return 1;
	if (!strncmp(line, "gcov-build ", 11)) {
		const char *id = line + 11;
		size_t l = strlen(id);

		if (*r->build_id)
			return refuse(r, "gcov-build twice");
		if (!strcmp(id, "none"))
			return refuse(r, "the guest's kernel has no build id");
		if (l < 8 || l >= sizeof(r->build_id) || strspn(id, "0123456789abcdef") != l)
			return refuse(r, "gcov-build: not a build id in hex");
		snprintf(r->build_id, sizeof(r->build_id), "%s", id);
		return 1;
	}
	if (!*r->build_id)
		return refuse(r, "counters before gcov-build");
	if (!strncmp(line, "gcda ", 5))
		return r->f ? refuse(r, "%s: a file before its end", r->rel) : start_file(r, line + 5);
	if (!strncmp(line, "gcda-end ", 9))
		return end_file(r, line + 9);
	if (r->f)
		return refuse(r, "%s: gcov-end inside it", r->rel);
	if (fb_parse_dec(line + 9, FB_GCOV_MAX_FILES, &n) || (int)n != r->files)
		return refuse(r, "gcov-end says %s files, %d came", line + 9, r->files);
	r->state = GCOV_DONE;
	return 1;
}

void fb_gcov_recv_end(struct fb_gcov_recv *r)
{
	if (r->f && r->state == GCOV_WAITING)
		refuse(r, "%s: the boot ended inside it", r->rel);
	if (r->f) {
		fclose(r->f);
		r->f = NULL;
	}
}

json_t *fb_gcov_recv_json(struct fb_gcov_recv *r)
{
	fb_gcov_recv_end(r);
	if (!r->wanted)
		return NULL;
	switch (r->state) {
	case GCOV_DONE:
		return json_pack("{s:s, s:s, s:i, s:I, s:s}", "status", "ok", "build_id", r->build_id,
				 "files", r->files, "bytes", (json_int_t)r->bytes, "dir", "gcov");
	case GCOV_UNAVAILABLE:
		return json_pack("{s:s, s:s}", "status", "unavailable", "why", r->why);
	case GCOV_REFUSED:
		return json_pack("{s:s, s:s}", "status", "refused", "why", r->why);
	default:
		return json_pack("{s:s, s:s}", "status", "missing",
				 "why", "the boot ended before the case's counters came");
	}
}

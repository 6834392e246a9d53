// SPDX-License-Identifier: MIT
/* Call traces with file:line per frame (kernel_trace.h). */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel_trace.h"
#include "paths.h"
#include "util.h"

#define MAX_FRAMES 64
#define MAX_LINES 4000
/* nm of a distribution's vmlinux prints some 10 MiB */
#define MAX_OUTPUT (64u << 20)

struct frame {
	char line[256];		/* as the kernel printed it, after the time stamp */
	char func[128], mod[64];	/* mod "" for vmlinux */
	unsigned long long off;
	unsigned long long addr;	/* the function's, from nm; 0 not found */
	char *where;		/* addr2line's "FUNC FILE:LINE" lines */
};

/* ARGV's standard output (at most MAX_OUTPUT bytes), NUL-terminated, or NULL. */
static char *capture(char *const argv[])
{
	int p[2], status;
	size_t n = 0, cap = 1 << 16;
	char *buf;
	pid_t pid;

	if (pipe(p))
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(p[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(p[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n + 1 == cap) {
			if (cap >= MAX_OUTPUT)
				break;
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(p[0], buf + n, cap - n - 1);
		if (r <= 0)
			break;
		n += r;
	}
	close(p[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	buf[n] = '\0';
	return buf;
}

/* The module's debug copy, found below dbg/modules by its file name. */
static const char *want_ko;
static char found_ko[PATH_MAX];

static int match_ko(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	const char *b = path + f->base;
	size_t n = strlen(want_ko);

	if (flag != FTW_F || strncmp(b, want_ko, n) || strncmp(b + n, ".ko", 3))
		return 0;
	snprintf(found_ko, sizeof(found_ko), "%s", path);
	return 1;
}

static int module_file(const char *dbg, const char *mod, char *buf, size_t len)
{
	char dir[PATH_MAX], name[64];

	snprintf(dir, sizeof(dir), "%s/modules", dbg);
	/* a module's name spells '-' as '_'; its file may not */
	for (int pass = 0; pass < 2; pass++) {
		snprintf(name, sizeof(name), "%s", mod);
		for (char *p = name; pass && *p; p++)
			if (*p == '_')
				*p = '-';
		want_ko = name;
		found_ko[0] = '\0';
		if (nftw(dir, match_ko, 16, FTW_PHYS) == 1) {
			snprintf(buf, len, "%s", found_ko);
			return 0;
		}
	}
	return -1;
}

/* Parse "func+0xOFF/0xLEN [mod]" at S into F; 0, or -1 when it is not a frame. */
static int parse_frame(const char *s, struct frame *f)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
	char *end;

	if (!n || n >= sizeof(f->func) || strncmp(s + n, "+0x", 3))
		return -1;
	memcpy(f->func, s, n);
	f->func[n] = '\0';
	f->off = strtoull(s + n + 3, &end, 16);
	if (*end != '/')
		return -1;
	f->mod[0] = '\0';
	end += strcspn(end, " \n");
	if (!strncmp(end, " [", 2)) {
		size_t m = strspn(end + 2, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

		if (m && m < sizeof(f->mod) && end[2 + m] == ']') {
			memcpy(f->mod, end + 2, m);
			f->mod[m] = '\0';
		}
	}
	return 0;
}

/* The frames of TEXT: the RIP lines and the call traces' frames ('?' ones are guesses). */
static int frames_of(const char *text, struct frame *v)
{
	int n = 0, lines = 0;

	for (const char *l = text; *l && n < MAX_FRAMES && lines < MAX_LINES; lines++) {
		size_t len = strcspn(l, "\n");
		const char *m = l, *e = l + len;

		if (*m == '[' && memchr(m, ']', len))
			m = (const char *)memchr(m, ']', len) + 1;
		m += strspn(m, " ");
		if (!strncmp(m, "RIP: ", 5) && memchr(m, ':', e - m))
			m = strchr(m + 5, ':') ? strchr(m + 5, ':') + 1 : e;
		if (m < e && strncmp(m, "? ", 2) && !parse_frame(m, &v[n])) {
			snprintf(v[n].line, sizeof(v[n].line), "%.*s", (int)(e - m), m);
			n++;
		}
		l = *e ? e + 1 : e;
	}
	return n;
}

/* Where the source path of LOC (LEN bytes) starts: after the build's own prefix. */
static size_t source_start(const char *loc, size_t len)
{
	static const char *const tops[] = { "arch/", "block/", "crypto/", "drivers/", "fs/",
					    "include/", "init/", "kernel/", "lib/", "mm/", "net/",
					    "security/", "virt/" };

	for (size_t i = 0; i < len; i++) {
		if (i && loc[i - 1] != '/')
			continue;
		for (size_t t = 0; t < sizeof(tops) / sizeof(*tops); t++)
			if (len - i > strlen(tops[t]) && !strncmp(loc + i, tops[t], strlen(tops[t])))
				return i;
	}
	return 0;
}

/* Each frame of V (N) in object FILE (MOD, "" vmlinux): its address, then addr2line's lines. */
static void decode(const char *file, const char *mod, struct frame *v, int n)
{
	char *nm, *a2l, *argv[8 + MAX_FRAMES], addrs[MAX_FRAMES][24];
	int k = 0, m = 0, idx[MAX_FRAMES], cur = -1, g = -1;

	argv[k++] = "nm";
	argv[k++] = (char *)file;
	argv[k] = NULL;
	nm = capture(argv);
	if (!nm)
		return;
	for (char *l = nm; *l;) {
		char *e = l + strcspn(l, "\n"), *name = NULL;
		unsigned long long a = strtoull(l, &name, 16);

		/* "ADDRESS T NAME" */
		if (name && name[0] == ' ' && name[1] && name[2] == ' ') {
			name += 3;
			for (int i = 0; i < n; i++)
				if (!strcmp(v[i].mod, mod) && !v[i].addr &&
				    (size_t)(e - name) == strlen(v[i].func) &&
				    !strncmp(name, v[i].func, e - name))
					v[i].addr = a;
		}
		l = *e ? e + 1 : e;
	}
	free(nm);
	k = 0;
	argv[k++] = "addr2line";
	argv[k++] = "-a";
	argv[k++] = "-f";
	argv[k++] = "-i";
	if (*mod) {
		/* a module's functions sit in its .text at their nm value */
		argv[k++] = "-j";
		argv[k++] = ".text";
	}
	argv[k++] = "-e";
	argv[k++] = (char *)file;
	for (int i = 0; i < n; i++) {
		if (strcmp(v[i].mod, mod) || !v[i].addr)
			continue;
		snprintf(addrs[m], sizeof(addrs[m]), "0x%llx", v[i].addr + v[i].off);
		argv[k++] = addrs[m];
		idx[m++] = i;
	}
	argv[k] = NULL;
	if (!m || !(a2l = capture(argv)))
		return;
	/* per address in order: "0xADDRESS", then FUNC and FILE:LINE lines (inlined callers too) */
	for (char *l = a2l; *l;) {
		char *e = l + strcspn(l, "\n"), *loc = *e ? e + 1 : e;
		char *e2 = loc + strcspn(loc, "\n");
		size_t len, from;
		char *w;

		if (!strncmp(l, "0x", 2)) {
			cur = ++g < m ? idx[g] : -1;
			l = *e ? e + 1 : e;
			continue;
		}
		if (cur >= 0 && e2 > loc) {
			len = v[cur].where ? strlen(v[cur].where) : 0;
			from = source_start(loc, e2 - loc);
			w = xrealloc(v[cur].where, len + (e - l) + (e2 - loc) + 16);
			snprintf(w + len, (e - l) + (e2 - loc) + 16, "    at %.*s %.*s\n", (int)(e - l), l,
				 (int)(e2 - loc - from), loc + from);
			v[cur].where = w;
		}
		l = *e2 ? e2 + 1 : e2;
	}
	free(a2l);
}

int fb_kernel_trace(const char *kernel, const char *text, FILE *out)
{
	struct frame *v;
	char dbg[PATH_MAX], vmlinux[PATH_MAX + 16], ko[PATH_MAX];
	int n, wrote = 0;

	snprintf(dbg, sizeof(dbg), "%s/kernel/%s/dbg", build_dir(), kernel);
	snprintf(vmlinux, sizeof(vmlinux), "%s/vmlinux", dbg);
	if (access(vmlinux, R_OK))
		return 0;
	v = xcalloc(MAX_FRAMES, sizeof(*v));
	n = frames_of(text, v);
	for (int i = 0; i < n; i++) {
		bool first = true;

		for (int j = 0; j < i; j++)
			first &= strcmp(v[j].mod, v[i].mod) != 0;
		if (!first)
			continue;
		if (!*v[i].mod)
			decode(vmlinux, "", v, n);
		else if (!module_file(dbg, v[i].mod, ko, sizeof(ko)))
			decode(ko, v[i].mod, v, n);
	}
	for (int i = 0; i < n; i++) {
		fprintf(out, "%s\n%s", v[i].line, v[i].where ? v[i].where : "    at ? (no debug info)\n");
		wrote = 1;
		free(v[i].where);
	}
	free(v);
	return wrote;
}

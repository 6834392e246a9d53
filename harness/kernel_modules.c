// SPDX-License-Identifier: MIT
/* The modules a kernel's guest loads from its initramfs (kernel_modules.h). */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel_image.h"
#include "kernel_modules.h"
#include "paths.h"
#include "util.h"

/*
 * What the guest needs that flipbed's own kernels build in
 * (kernel/config/flipbed.config), loaded in this order, each after the
 * modules modules.dep says it needs. Left out: what a distribution's
 * kernel builds in anyway (the 8250 console, which kernel_image.c checks,
 * devtmpfs, tmpfs, fanotify, tracing).
 */
static const struct want {
	const char *name;	/* the module's name, '-' spelled '_' */
	const char *option;	/* the line of flipbed.config that builds it in */
	const char *what;	/* what flipbed uses it for */
} wants[] = {
	/*
	 * a kernel with modules boots QEMU's pc machine, its devices on PCI
	 * (boot/vm.c says why); virtio_mmio (CONFIG_VIRTIO_MMIO=y) would
	 * find no device there
	 */
	{ "virtio_pci", "CONFIG_VIRTIO_PCI=y", "the virtio PCI transport" },
	{ "virtio_blk", "CONFIG_VIRTIO_BLK=y", "the virtio block driver (the disks)" },
	{ "virtio_console", "CONFIG_VIRTIO_CONSOLE=y", "virtio-serial (the agent's channel)" },
	/*
	 * ext4 and jbd2 ask the crypto API for crc32c, a soft dependency
	 * that only modprobe follows, and no modprobe runs in the guest
	 */
	{ "crc32c_generic", "CONFIG_CRYPTO_CRC32C=y", "crc32c, metadata_csum's checksum" },
	/* the implementation flipbed's kernels use (SSE4.2, which -cpu max has) */
	{ "crc32c_intel", "CONFIG_CRYPTO_CRC32C_INTEL=y", "crc32c with SSE4.2" },
	{ "jbd2", "CONFIG_JBD2=y", "jbd2, ext4's journal" },
	{ "ext4", "CONFIG_EXT4_FS=y", "ext4" },
};

/* More modules than this (the wants and what they need) is not a kernel of ours. */
#define MAX_LOAD 64
/* The agent's folder in the initramfs (guest/modules.c reads its "order"). */
#define GUEST_DIR "flipbed-modules"

struct mods {
	const char *who;	/* the prefix of messages */
	char dir[PATH_MAX];	/* lib/modules/RELEASE */
	char *dep, *builtin;	/* modules.dep, modules.builtin (may be NULL) */
	const char *release;	/* the kernel's, or NULL when unknown */
	int n;
	char *name[MAX_LOAD], *rel[MAX_LOAD];	/* to load, in order: name, path in dir */
	unsigned char *data[MAX_LOAD];		/* its ELF file, unpacked */
	size_t len[MAX_LOAD];
};

static int fail(struct mods *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct mods *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fb_vbad_input(m->who, fmt, ap);
	va_end(ap);
	return -1;
}

/* The module name of a path of modules.dep: kernel/arch/x86/crypto/crc32c-intel.ko.xz -> crc32c_intel. */
static void name_of(const char *path, size_t n, char *buf, size_t len)
{
	const char *b = memrchr(path, '/', n);
	size_t i = 0;

	b = b ? b + 1 : path;
	n -= b - path;
	for (; i < n && i + 1 < len; i++) {
		if (!strncmp(b + i, ".ko", 3) && (i + 3 == n || b[i + 3] == '.'))
			break;
		buf[i] = b[i] == '-' ? '_' : b[i];
	}
	buf[i] = '\0';
}

/* The line of modules.dep (or modules.builtin) for module NAME, or NULL. */
static const char *find_line(const char *text, const char *name)
{
	char got[256];

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t n = strcspn(l, ":\n");

		name_of(l, n, got, sizeof(got));
		if (!strcmp(got, name))
			return l;
	}
	return NULL;
}

static int loaded(const struct mods *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->name[i], name))
			return 1;
	return 0;
}

/*
 * Add NAME after what modules.dep says it needs (loaded last to first, as
 * modprobe does); DEPTH counts the modules that led here, so that a cycle
 * in a hostile modules.dep ends.
 */
static int add(struct mods *m, const char *name, const struct want *w, int depth)
{
	const char *l = find_line(m->dep, name), *colon, *end, *p;
	char dep[256];

	if (loaded(m, name))
		return 0;
	if (depth > MAX_LOAD)
		return fail(m, "%s/modules.dep: a dependency cycle through %s", m->dir, name);
	if (!l) {
		if (m->builtin && find_line(m->builtin, name))
			return 0;
		if (w)
			return fail(m, "%s/modules.dep has no module %s (%s, which flipbed's kernels build in with %s), and modules.builtin does not list it",
				    m->dir, name, w->what, w->option);
		return fail(m, "%s/modules.dep has no module %s, which another module needs", m->dir, name);
	}
	colon = l + strcspn(l, ":\n");
	end = colon + strcspn(colon, "\n");
	if (*colon != ':')
		return fail(m, "%s/modules.dep: '%.*s' is not a 'PATH: DEPENDENCIES' line", m->dir,
			    (int)(end - l), l);
	/* the dependencies, last first */
	for (p = end; p > colon + 1;) {
		const char *q = p;

		while (q > colon + 1 && q[-1] == ' ')
			q--;
		p = q;
		while (p > colon + 1 && p[-1] != ' ')
			p--;
		if (p == q)
			break;
		name_of(p, q - p, dep, sizeof(dep));
		if (!strcmp(dep, name))
			return fail(m, "%s/modules.dep: %s depends on itself", m->dir, name);
		if (!loaded(m, dep) && add(m, dep, NULL, depth + 1))
			return -1;
	}
	if (m->n == MAX_LOAD)
		return fail(m, "more than %d modules to load for %s", MAX_LOAD, name);
	/* it names a file of the initramfs and a word of the agent's order file */
	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name))
		return fail(m, "%s/modules.dep: '%.*s' is not the path of a module (NAME.ko)", m->dir,
			    (int)(colon - l), l);
	m->name[m->n] = xstrdup(name);
	m->rel[m->n] = xstrndup(l, colon - l);
	m->n++;
	return 0;
}

/* Read module I, unpack it, check it is an ELF module built for the kernel's release. */
static int read_module(struct mods *m, int i)
{
	char path[PATH_MAX * 2], who[PATH_MAX * 2 + 64];
	unsigned char *p;
	const char *tool, *v;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", m->dir, m->rel[i]);
	p = (unsigned char *)fb_slurp(path, &len);
	if (!p)
		return fail(m, "%s (module %s): %s", path, m->name[i], strerror(errno));
	if (len >= FB_SLURP_MAX) {
		free(p);
		return fail(m, "%s: larger than %u MiB: not a module", path, FB_SLURP_MAX >> 20);
	}
	tool = fb_unpacker(p, len);
	if (tool) {
		unsigned char *out;

		snprintf(who, sizeof(who), "%s: %s", m->who, path);
		len = fb_unpack(who, tool, p, len, FB_SLURP_MAX, &out);
		free(p);
		if (!len)
			return -1;
		p = out;
	}
	if (len < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG) || p[EI_CLASS] != ELFCLASS64) {
		free(p);
		return fail(m, "%s (module %s): not a 64-bit ELF module", path, m->name[i]);
	}
	v = memmem(p, len, "vermagic=", 9);
	if (!v) {
		free(p);
		return fail(m, "%s (module %s): no vermagic= in its .modinfo: not a kernel module", path,
			    m->name[i]);
	}
	v += 9;
	if (m->release) {
		size_t n = strlen(m->release), left = len - (v - (const char *)p);

		if (left <= n || strncmp(v, m->release, n) || (v[n] != ' ' && v[n] != '\0')) {
			int k = 0;

			while (k < 64 && (size_t)k < left && v[k] > ' ' && v[k] < 0x7f)
				k++;
			fail(m, "%s: module %s is built for kernel %.*s, and the kernel is %s; give the modules of the kernel's release",
			     path, m->name[i], k, v, m->release);
			free(p);
			return -1;
		}
	}
	m->data[i] = p;
	m->len[i] = len;
	return 0;
}

/* One newc cpio entry. */
static int entry(FILE *f, const char *name, unsigned mode, const void *data, size_t size)
{
	static unsigned ino = 1;
	static const char zeros[4];
	size_t namesize = strlen(name) + 1;

	fprintf(f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X", ino++, mode, 0,
		0, S_ISDIR(mode) ? 2 : 1, 0, size, 0, 0, 0, 0, namesize, 0);
	fwrite(name, 1, namesize, f);
	fwrite(zeros, 1, (4 - (110 + namesize) % 4) % 4, f);
	if (size)
		fwrite(data, 1, size, f);
	fwrite(zeros, 1, (4 - size % 4) % 4, f);
	return ferror(f) ? -1 : 0;
}

/*
 * OUT: an uncompressed cpio of the modules and their order, then the
 * agent's compressed initramfs (the kernel unpacks one archive after the
 * other, as it does an early microcode archive before a distribution's).
 */
static int write_initrd(struct mods *m, const char *out)
{
	char tmp[PATH_MAX + 32], agent[PATH_MAX], name[PATH_MAX], *order = NULL, *img;
	size_t olen = 0, ilen;
	FILE *f;
	int rc = 0;

	fb_path_initrd(agent, sizeof(agent));
	img = fb_slurp(agent, &ilen);
	if (!img)
		return fail(m, "%s: %s; run 'make build/guest/initramfs.cpio.gz'", agent, strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", out, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		free(img);
		return fail(m, "%s: %s", tmp, strerror(errno));
	}
	rc |= entry(f, GUEST_DIR, S_IFDIR | 0755, NULL, 0);
	for (int i = 0; i < m->n; i++) {
		size_t n = strlen(m->name[i]) + 64;

		snprintf(name, sizeof(name), GUEST_DIR "/%02d-%s.ko", i, m->name[i]);
		rc |= entry(f, name, S_IFREG | 0644, m->data[i], m->len[i]);
		order = xrealloc(order, olen + n);
		olen += snprintf(order + olen, n, "%s /%s\n", m->name[i], name);
	}
	rc |= entry(f, GUEST_DIR "/order", S_IFREG | 0644, order, olen);
	rc |= entry(f, "TRAILER!!!", 0, NULL, 0);
	if (fwrite(img, 1, ilen, f) != ilen)
		rc = -1;
	rc |= fclose(f);
	free(img);
	free(order);
	if (rc || rename(tmp, out)) {
		unlink(tmp);
		return fail(m, "cannot write %s: %s", out, strerror(errno));
	}
	return 0;
}

static void mods_free(struct mods *m)
{
	for (int i = 0; i < m->n; i++) {
		free(m->name[i]);
		free(m->rel[i]);
		free(m->data[i]);
	}
	free(m->dep);
	free(m->builtin);
	m->n = 0;
}

/* Resolve DIR's modules for a kernel of RELEASE (NULL: unknown) and write OUT. */
static int make_initrd(const char *who, const char *dir, const char *release, const char *out)
{
	struct mods m = { .who = who, .release = release };
	char path[PATH_MAX + 32];
	size_t len;
	int rc = 0;

	snprintf(m.dir, sizeof(m.dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	m.dep = fb_slurp(path, &len);
	if (!m.dep)
		return fail(&m, "%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/modules.builtin", dir);
	m.builtin = fb_slurp(path, NULL);
	for (size_t i = 0; !rc && i < sizeof(wants) / sizeof(*wants); i++)
		rc = add(&m, wants[i].name, &wants[i], 0);
	for (int i = 0; !rc && i < m.n; i++)
		rc = read_module(&m, i);
	if (!rc)
		rc = write_initrd(&m, out);
	mods_free(&m);
	return rc;
}

/* The kernel release in FILE's first line, or NULL. */
static char *read_release(const char *file)
{
	char *s = fb_slurp(file, NULL);

	if (s)
		s[strcspn(s, "\n")] = '\0';
	if (s && !*s) {
		free(s);
		s = NULL;
	}
	return s;
}

static char image_dir[PATH_MAX];	/* --kernel-image's initramfs folder */
static char image_initrd[PATH_MAX + 32];
static pid_t image_owner;

static void remove_image_dir(void)
{
	if (*image_dir && getpid() == image_owner)
		fb_remove_tree(image_dir);
}

int fb_modules_attach(struct fb_kernel *k, const char *dir)
{
	char who[PATH_MAX + 32], d[PATH_MAX], probe[PATH_MAX + 32];
	struct stat st;

	snprintf(who, sizeof(who), "flipbed: --modules %s", dir);
	if (stat(dir, &st))
		return fb_bad_input(who, "%s", strerror(errno)), -1;
	if (!S_ISDIR(st.st_mode))
		return fb_bad_input(who, "not a folder: give the folder lib/modules/RELEASE of the kernel's modules"), -1;
	snprintf(d, sizeof(d), "%s", dir);
	snprintf(probe, sizeof(probe), "%s/modules.dep", d);
	if (access(probe, R_OK)) {
		/* a root: an unpacked package, lib/modules/RELEASE below it */
		char lm[PATH_MAX + 16], rel[256] = "";
		DIR *ls;
		struct dirent *de;
		int n = 0;

		snprintf(lm, sizeof(lm), "%s/lib/modules", dir);
		ls = opendir(lm);
		if (!ls)
			return fb_bad_input(who, "no modules.dep in it: give the folder lib/modules/RELEASE of the kernel's modules (after depmod), or a root holding one"),
			       -1;
		while ((de = readdir(ls)))
			if (de->d_name[0] != '.' && !n++)
				snprintf(rel, sizeof(rel), "%s", de->d_name);
		closedir(ls);
		if (n != 1)
			return fb_bad_input(who, "%s holds %d folders: give --modules %s/RELEASE", lm, n, lm),
			       -1;
		snprintf(d, sizeof(d), "%s/%s", lm, rel);
		snprintf(probe, sizeof(probe), "%s/modules.dep", d);
		if (access(probe, R_OK))
			return fb_bad_input(who, "%s has no modules.dep; write it with 'depmod -b %s %s' (it writes only below %s)",
					    d, dir, rel, dir),
			       -1;
	}
	if (fb_private_dir(image_dir, sizeof(image_dir)))
		return fb_bad_input(who, "cannot make a private folder: %s", strerror(errno)), -1;
	image_owner = getpid();
	atexit(remove_image_dir);
	snprintf(image_initrd, sizeof(image_initrd), "%s/initramfs.cpio", image_dir);
	if (make_initrd(who, d, k->release && strcmp(k->release, "unknown") ? k->release : NULL,
			image_initrd))
		return -1;
	/* absolute: a case's repro command runs from anywhere */
	k->modules = realpath(d, NULL);
	if (!k->modules)
		return fb_bad_input(who, "%s: %s", d, strerror(errno)), -1;
	return 0;
}

/* Whether OUT is at least as new as each of the files it is made from. */
static int fresh(const char *out, const char *const *from)
{
	struct stat o, s;

	if (stat(out, &o))
		return 0;
	for (; *from; from++)
		if (!stat(*from, &s) && (s.st_mtim.tv_sec > o.st_mtim.tv_sec ||
					 (s.st_mtim.tv_sec == o.st_mtim.tv_sec &&
					  s.st_mtim.tv_nsec > o.st_mtim.tv_nsec)))
			return 0;
	return 1;
}

const char *fb_modules_initrd(const struct fb_kernel *k, char *buf, size_t len)
{
	char agent[PATH_MAX], dep[PATH_MAX + 16], relf[PATH_MAX], who[128], *release;
	const char *from[] = { agent, dep, "/proc/self/exe", NULL };
	int rc;

	if (!k->modules)
		return fb_path_initrd(buf, len);
	if (k->path) {
		/* --kernel-image: made by fb_modules_attach() */
		snprintf(buf, len, "%s", image_initrd);
		return buf;
	}
	snprintf(buf, len, "%s/kernel/%s/initramfs.cpio", build_dir(), k->name);
	fb_path_initrd(agent, sizeof(agent));
	snprintf(dep, sizeof(dep), "%s/modules.dep", k->modules);
	if (fresh(buf, from))
		return buf;
	snprintf(who, sizeof(who), "flipbed: kernel %s", k->name);
	snprintf(relf, sizeof(relf), "%s/kernel/%s/release", build_dir(), k->name);
	release = read_release(relf);
	if (!release) {
		fb_bad_input(who, "%s: %s; fetch it again with 'make %s'", relf, strerror(errno),
			     k->make_target);
		return NULL;
	}
	rc = make_initrd(who, k->modules, release, buf);
	free(release);
	return rc ? NULL : buf;
}

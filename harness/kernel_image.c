// SPDX-License-Identifier: MIT
/* Is a kernel built elsewhere fit to run flipbed's cases? (kernel_image.h) */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel_image.h"
#include "util.h"

/* An unpacked bzImage payload larger than this is refused (a 6.x vmlinux is 10-60 MiB). */
#define MAX_UNPACKED (512u << 20)

/* The Xen ELF note whose presence means a PVH entry point (CONFIG_PVH). */
#define XEN_ELFNOTE_PHYS32_ENTRY 18

struct need {
	const char *needle;	/* a string the option compiles into the kernel */
	const char *what;	/* what flipbed uses it for */
	const char *option;	/* the kernel option that provides it */
	bool modular;		/* --modules may give it (kernel_modules.c loads it) */
};

static const struct need needs[] = {
	{ "virtio-mmio", "the virtio-mmio transport of QEMU's microvm", "CONFIG_VIRTIO_MMIO=y", true },
	{ "virtio_blk", "the virtio block driver (the disk under test)", "CONFIG_VIRTIO_BLK=y", true },
	{ "virtio_console", "virtio-serial (the guest agent's channel)", "CONFIG_VIRTIO_CONSOLE=y", true },
	/* the console prints before /init can load anything */
	{ "serial8250", "the 8250 serial console (the kernel's messages)", "CONFIG_SERIAL_8250_CONSOLE=y", false },
	{ "EXT4-fs", "ext4", "CONFIG_EXT4_FS=y", true },
};

/* "flipbed: --kernel-image PATH: " and the message; -1. */
static int complain(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int complain(const char *path, const char *fmt, ...)
{
	char prefix[strlen(path) + 32];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "flipbed: --kernel-image %s", path);
	va_start(ap, fmt);
	fb_vbad_input(prefix, fmt, ap);
	va_end(ap);
	return -1;
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether the ELF image (LEN bytes at P, already known to be ELF64) has the PVH note. */
static bool has_pvh_note(const unsigned char *p, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;

	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > len ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > len - eh->e_phoff)
		return false;
	for (int i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		uint64_t off, end;

		memcpy(&ph, p + eh->e_phoff + (size_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset > len || ph.p_filesz > len - ph.p_offset)
			continue;
		off = ph.p_offset;
		end = ph.p_offset + ph.p_filesz;
		while (end - off >= sizeof(Elf64_Nhdr)) {
			Elf64_Nhdr nh;
			uint64_t name, desc;

			memcpy(&nh, p + off, sizeof(nh));
			name = off + sizeof(nh);
			desc = name + ((nh.n_namesz + 3ull) & ~3ull);
			off = desc + ((nh.n_descsz + 3ull) & ~3ull);
			if (off > end || desc > end)
				break;
			if (nh.n_namesz == 4 && !memcmp(p + name, "Xen", 4) &&
			    nh.n_type == XEN_ELFNOTE_PHYS32_ENTRY)
				return true;
		}
	}
	return false;
}

/* The tool that unpacks a payload starting with these bytes, or NULL. */
const char *fb_unpacker(const unsigned char *p, size_t len)
{
	static const struct {
		const char *magic;
		size_t n;
		const char *tool;
	} m[] = {
		{ "\x1f\x8b", 2, "gzip" },
		{ "\xfd" "7zXZ\0", 6, "xz" },
		{ "\x28\xb5\x2f\xfd", 4, "zstd" },
		{ "\x02\x21\x4c\x18", 4, "lz4" },
		{ "BZh", 3, "bzip2" },
		{ "\x5d\0\0", 3, "lzma" },
		{ "\x89LZO", 4, "lzop" },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(*m); i++)
		if (len >= m[i].n && !memcmp(p, m[i].magic, m[i].n))
			return m[i].tool;
	return NULL;
}

size_t fb_unpack(const char *who, const char *tool, const unsigned char *p, size_t len,
		 size_t max, unsigned char **ret)
{
	int in[2], out[2], status;
	size_t n = 0, cap = 1 << 20;
	unsigned char *buf = NULL;
	bool too_big = false;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return fb_bad_input(who, "pipe: %s", strerror(errno)), 0;
	pid = fork();
	if (pid < 0)
		return fb_bad_input(who, "fork: %s", strerror(errno)), 0;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(in[0], 0);
		dup2(out[1], 1);
		if (null >= 0)
			dup2(null, 2);
		execlp(tool, tool, "-dc", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	/* the writer is a child of its own, so that a full pipe cannot stall us */
	pid_t writer = fork();
	if (writer == 0) {
		signal(SIGPIPE, SIG_DFL);
		close(out[0]);
		for (size_t off = 0; off < len;) {
			ssize_t w = write(in[1], p + off, len - off);
			if (w <= 0)
				_exit(1);
			off += w;
		}
		_exit(0);
	}
	close(in[1]);
	buf = xrealloc(NULL, cap);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap >= max) {
				too_big = true;
				break;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(out[0], buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(out[0]);
	if (too_big)
		kill(pid, SIGKILL);
	if (writer > 0) {
		kill(writer, SIGKILL);
		waitpid(writer, NULL, 0);
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		free(buf);
		return fb_bad_input(who, "it is %s-compressed and %s is not installed; install it",
				    tool, tool), 0;
	}
	if (too_big) {
		free(buf);
		return fb_bad_input(who, "its %s-compressed contents unpack to more than %zu MiB",
				    tool, max >> 20), 0;
	}
	if (n < SELFMAG || memcmp(buf, ELFMAG, SELFMAG)) {
		free(buf);
		return fb_bad_input(who, "its %s-compressed contents do not unpack to an ELF file",
				    tool), 0;
	}
	*ret = buf;
	return n;
}

/*
 * The searchable kernel of the LEN bytes at P: P itself for a vmlinux, the
 * unpacked payload for a bzImage (*RET_OWNED to free); NULL after a message.
 */
static const unsigned char *kernel_of(const char *path, const unsigned char *p, size_t len,
				      struct fb_kernel_image *ret, unsigned char **ret_owned,
				      size_t *ret_len)
{
	*ret_owned = NULL;
	if (len >= SELFMAG && !memcmp(p, ELFMAG, SELFMAG)) {
		const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;

		if (len < sizeof(*eh) || p[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64)
			return complain(path, "an ELF file, but not a 64-bit x86 kernel"), NULL;
		if (!has_pvh_note(p, len))
			return complain(path, "a vmlinux without the PVH entry note, which QEMU needs to boot an ELF kernel (CONFIG_PVH=y); or give its bzImage"),
			       NULL;
		ret->format = "vmlinux";
		*ret_len = len;
		return p;
	}
	if (len >= 0x250 && !memcmp(p + 0x202, "HdrS", 4)) {
		unsigned setup = p[0x1f1] ? p[0x1f1] : 4;
		uint64_t start = (setup + 1ull) * 512 + le32(p + 0x248), plen = le32(p + 0x24c);
		const char *tool;

		if ((p[0x206] | p[0x207] << 8) < 0x208 || start > len || plen > len - start || !plen)
			return complain(path, "a bzImage without a payload this check can find (boot protocol 2.08 or later)"),
			       NULL;
		tool = fb_unpacker(p + start, plen);
		if (!tool)
			return complain(path, "a bzImage whose payload compression is not one of gzip, xz, zstd, lz4, bzip2, lzma, lzo"),
			       NULL;
		char who[strlen(path) + 64];

		snprintf(who, sizeof(who), "flipbed: --kernel-image %s: its payload", path);
		*ret_len = fb_unpack(who, tool, p + start, plen, MAX_UNPACKED, ret_owned);
		if (!*ret_len)
			return NULL;
		ret->format = "bzImage";
		return *ret_owned;
	}
	return complain(path, "not a kernel image: neither an ELF vmlinux nor a bzImage (no 'HdrS' at byte 0x202)"),
	       NULL;
}

static void find_release(const unsigned char *k, size_t len, char *buf, size_t size)
{
	static const char banner[] = "Linux version ";
	const unsigned char *v = memmem(k, len, banner, sizeof(banner) - 1);
	size_t n = 0;

	snprintf(buf, size, "unknown");
	if (!v)
		return;
	v += sizeof(banner) - 1;
	while (v + n < k + len && n + 1 < size && v[n] > ' ' && v[n] < 0x7f && v[n] != '%')
		n++;
	if (n) {
		memcpy(buf, v, n);
		buf[n] = '\0';
	}
}

int fb_kernel_image_check(const char *path, bool modules, struct fb_kernel_image *ret)
{
	unsigned char *owned = NULL;
	const unsigned char *k;
	size_t klen = 0;
	struct stat st;
	void *map;
	int fd, missing = 0;

	memset(ret, 0, sizeof(*ret));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return complain(path, "%s", strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 512) {
		close(fd);
		return complain(path, "not a kernel image: %s",
				S_ISREG(st.st_mode) ? "shorter than 512 bytes" : "not a regular file");
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return complain(path, "mmap: %s", strerror(errno));
	k = kernel_of(path, map, st.st_size, ret, &owned, &klen);
	if (k) {
		for (size_t i = 0; i < sizeof(needs) / sizeof(*needs); i++) {
			if (memmem(k, klen, needs[i].needle, strlen(needs[i].needle)))
				continue;
			/* --modules DIR: kernel_modules.c finds it there or says so */
			if (modules && needs[i].modular) {
				ret->lacking++;
				continue;
			}
			complain(path, "lacks %s: build it with %s%s", needs[i].what, needs[i].option,
				 needs[i].modular ? ", or give its modules with --modules DIR" : "");
			missing++;
		}
		ret->csum_lines = memmem(k, klen, "csum-error", 10) != NULL;
		find_release(k, klen, ret->release, sizeof(ret->release));
	}
	free(owned);
	munmap(map, st.st_size);
	return k && !missing ? 0 : -1;
}

// SPDX-License-Identifier: MIT
/*
 * buf.c --- growable buffers in 2 MiB pages for the map's big arrays.
 *
 * Why not malloc: the map of a 1 GiB image with 50,000 files touches about
 * 30 MiB (records, per-inode tables, paths), and on the project's VM
 * (nested virtualisation) a page fault costs about 20 us: touching 32 MiB
 * in 4 KiB pages took 135-190 ms there, in transparent huge pages 2-4 ms.
 * So these buffers are 2 MiB-aligned anonymous mappings marked
 * MADV_HUGEPAGE (only advice: with THP off they get 4 KiB pages, as malloc
 * would). Growing moves the page tables with mremap(), never the bytes.
 * New bytes read as zero.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fbx-int.h"

#define HUGE_PAGE ((size_t)2 << 20)

static size_t round_huge(size_t n)
{
	return (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

/* SIZE (a multiple of 2 MiB) bytes at a 2 MiB-aligned address. */
static char *map_huge(size_t size)
{
	char *p = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		abort();
	a = (char *)round_huge((uintptr_t)p);
	if (a > p)
		munmap(p, a - p);
	munmap(a + size, p + HUGE_PAGE - a);
	madvise(a, size, MADV_HUGEPAGE);
	return a;
}

void *fbx_buf_reserve(struct fbx_buf *b, size_t need)
{
	size_t size;
	char *p;

	if (need <= b->size)
		return b->p;
	size = round_huge(need > 2 * b->size ? need : 2 * b->size);
	p = map_huge(size);
	if (b->p && mremap(b->p, b->size, b->size, MREMAP_MAYMOVE |
			   MREMAP_FIXED, p) == MAP_FAILED)
		abort();
	b->p = p;
	b->size = size;
	return p;
}

void fbx_buf_free(struct fbx_buf *b)
{
	if (b->p)
		munmap(b->p, b->size);
	b->p = NULL;
	b->size = 0;
}

// SPDX-License-Identifier: MIT
/*
 * csum_first.h: where ext4 checks structure before the checksum. Each
 * entry names the kernels whose code does it (a kernel's variants, as
 * patched-6.12 of patched, share its entries); a check that reports with
 * EFSCORRUPTED is a sanity failure for the classifier, by its message and
 * by its errno (EUCLEAN).
 */
#include <stdio.h>
#include <string.h>

#include "scenario/csum_first.h"

static const struct fb_csum_first table[] = {
	/*
	 * fs/ext4/extents.c __ext4_ext_check: eh_magic, eh_depth, eh_max,
	 * eh_entries and the entries (ext4_valid_extent_entries) come before
	 * ext4_extent_block_csum_verify(); each fails with EFSCORRUPTED
	 * ("bad header/extent: invalid magic"), only the checksum with
	 * EFSBADCRC ("extent tree corrupted").
	 */
	{ "__ext4_ext_check", "extent-leaf extent-index", "sanity", "stock patched" },
	/*
	 * fs/ext4/xattr.c __ext4_xattr_check_block (6.1; 6.12's calls
	 * check_xattrs, which keeps the order): h_magic and h_blocks come
	 * before ext4_xattr_block_csum_verify() and fail with EFSCORRUPTED.
	 */
	{ "__ext4_xattr_check_block", "xattr-block", "sanity", "stock patched" },
	/*
	 * fs/ext4/namei.c __ext4_read_dirblock, stock 6.1 and 6.12: a block
	 * past the first of an htree is an index block only if its first
	 * entry's rec_len spans the block; that is decided before
	 * ext4_dx_csum_verify(), and an index read that finds a leaf is
	 * "directory leaf block found instead of index block", EFSCORRUPTED.
	 * Block 0 (the dx root) is an index block whatever its rec_len.
	 * The patched series (0005, both ports) computes the checksum of a
	 * block read as an index block where its place in the tree puts it
	 * (ext4_dx_csum_check()) before it judges the rec_len, so no entry
	 * holds there.
	 */
	{ "__ext4_read_dirblock", "dx-node", "sanity", "stock" },
	/*
	 * fs/ext4/super.c ext4_check_descriptors, at mount: each group's
	 * block bitmap, inode bitmap and inode table locations ("Inode bitmap
	 * for group N not in group") come before ext4_group_desc_csum_verify();
	 * the mount then fails with EFSCORRUPTED ("group descriptors
	 * corrupted!", ext4_fill_super).
	 */
	{ "ext4_check_descriptors", "group-desc", "sanity", "stock patched" },
};
#define NTABLE (sizeof(table) / sizeof(table[0]))

const struct fb_csum_first *fb_csum_first_find(const char *function)
{
	for (size_t i = 0; i < NTABLE; i++)
		if (!strcmp(table[i].function, function))
			return &table[i];
	return NULL;
}

/* Does the space-separated list LIST hold WORD? */
static bool listed(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, " ");

		if (len == n && !strncmp(p, word, n))
			return true;
		p += len + (p[len] == ' ');
	}
	return false;
}

bool fb_csum_first_reads(const struct fb_csum_first *f, const char *type)
{
	return listed(f->types, type);
}

bool fb_csum_first_holds(const struct fb_csum_first *f, const char *const *chain)
{
	for (; *chain; chain++)
		if (listed(f->kernels, *chain))
			return true;
	return false;
}

const char *fb_csum_first_list(void)
{
	static char list[256];

	if (!list[0]) {
		size_t n = 0;

		for (size_t i = 0; i < NTABLE && n < sizeof(list); i++)
			n += snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				      table[i].function);
	}
	return list;
}

#!/bin/sh
# SPDX-License-Identifier: MIT
# Every object type: the fixture maps it, one flipped covered bit makes
# `verify` name exactly that object and e2fsck fail, and the same flip with
# --reseal verifies clean. Groups: quick csum inline journal htree.
. "$(dirname "$0")/lib.sh"

A=$W/a.img	# 4 KiB blocks, 256-byte inodes, csum, inline_data, orphan_file
say "fixture A: 4 KiB blocks, 256-byte inodes, metadata_csum, inline_data, orphan_file, journal"
mkfix $A 64M 300 -b 4096 -g 8192 -I 256 -O metadata_csum,inline_data,orphan_file
add_transaction $A
TYPES_A="superblock superblock-backup group-desc block-bitmap inode-bitmap
	inode inode-extra inline-data extent-index extent-leaf dir-leaf dx-root
	xattr-block journal-sb journal-descriptor journal-commit journal-revoke
	journal-data orphan-block data"
expect_types $A $TYPES_A
for t in $TYPES_A; do
	check_type $A $t
done
check_type $A extent-leaf --path /deep --index 3
check_type $A inline-data --path /idir

B=$W/b.img	# 1 KiB blocks, 1024-byte inodes: a 5,000-entry htree with dx-nodes
say "fixture B: 1 KiB blocks, 1024-byte inodes, metadata_csum"
mkfix $B 48M 5000 -b 1024 -I 1024 -O metadata_csum
TYPES_B="superblock superblock-backup group-desc block-bitmap inode-bitmap
	inode inode-extra extent-index extent-leaf dir-leaf dx-root dx-node data"
expect_types $B $TYPES_B
for t in $TYPES_B; do
	check_type $B $t
done

M=$W/m.img	# MMP on its own: every read-write tool waits for it
say "fixture M: mmp"
mkfs.ext4 -q -F -b 4096 -O metadata_csum,mmp -E mmp_update_interval=1 $M 16M ||
	fail "mkfs.ext4 -O mmp failed"
expect_types $M mmp
check_type $M mmp
echo "all types passed"

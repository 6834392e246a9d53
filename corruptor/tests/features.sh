#!/bin/sh
# SPDX-License-Identifier: MIT
# Feature variants: metadata_csum off with 128-byte inodes (objects mapped,
# nothing covered, verify clean), bigalloc with 16 KiB and 64 KiB clusters
# (cluster bitmaps said so in map; flips and reseals as in types.sh).
# Groups: quick csum bigalloc.
. "$(dirname "$0")/lib.sh"

N=$W/n.img
say "metadata_csum off, 128-byte inodes"
mkfix $N 32M 300 -b 4096 -I 128 -O ^metadata_csum
expect_types $N superblock group-desc block-bitmap inode-bitmap inode \
	extent-leaf dir-leaf dx-root xattr-block journal-sb data
$F locate $N --target inode-extra >/dev/null 2>&1 &&
	fail "128-byte inodes have no inode-extra"
$F map $N | grep -v '^data' | grep -q covered= &&
	fail "without metadata_csum a record claims covered bytes"
$F verify $N >/dev/null 2>&1 || fail "verify fails on a clean csum-off image"
cp $N $W/x
$F flip $W/x --target extent-leaf --region ee_start --seed 1 >/dev/null ||
	fail "flip of a field without checksums failed"
$F verify $W/x >/dev/null 2>&1 || fail "verify saw a checksum on a csum-off image"
e2fsck -fn $W/x >/dev/null 2>&1 && fail "e2fsck missed a flipped ee_start"
echo "ok csum off"

for c in 16384 65536; do
	G=$W/g$c.img
	say "bigalloc, $c-byte clusters"
	mkfix $G 128M 300 -b 4096 -C $c -O bigalloc,metadata_csum
	expect_types $G block-bitmap inode dir-leaf data
	$F locate $G --target block-bitmap | grep -q 'note=cluster-bitmap' ||
		fail "bigalloc block bitmaps not marked cluster-bitmap"
	$F locate $G --target block-bitmap --json | grep -q '"note":"cluster-bitmap"' ||
		fail "JSON lacks the cluster-bitmap note"
	for t in block-bitmap inode-bitmap group-desc inode extent-leaf dir-leaf; do
		check_type $G $t
	done
done
echo "all feature variants passed"

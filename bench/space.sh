#!/bin/sh
# SPDX-License-Identifier: MIT
# Space used with inline_data on/off x bigalloc off (4 KiB) / 16 KiB / 64 KiB
# clusters x 256/1024-byte inodes, each image populated by `mke2fs -d` from
# the same tree (bench/trees.sh: the Linux 6.1 source, a /usr subset, a
# generated tree of small files; TREES picks them).
# Output: one line per image on stdout, "TREE CLUSTER ISIZE INLINE USED_KIB",
# then nothing else; bench/ext4-features.sh makes the tables and the plot.
# bench/populate.sh measures the same images populated through the kernel.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-space.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$top/bench/trees.sh"

# measure NAME DIR: all twelve configurations of one tree
measure() {
	geometry "$2"
	for cl in 4096 16384 65536; do
		for is in 256 1024; do
			for inl in off on; do
				mkfs_args $cl $is $inl
				mke2fs -q -F -t ext4 -b 4096 $cargs -O "$feat" -d "$2" "$T/img" "$size" \
					> "$T/mkfs.log" 2>&1 || {
					echo "space: mke2fs failed for $1 $cl $is $inl:" >&2
					tail -3 "$T/mkfs.log" >&2; exit 1; }
				echo "$1 $cl $is $inl $(used_kib "$T/img")"
				rm -f "$T/img"
			done
		done
	done
}

for t in $trees; do
	dir=$(tree_dir $t) || exit 2
	measure $t "$dir"
done

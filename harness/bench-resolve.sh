#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-resolve: the data oracle's path lookups, one ext2fs_namei()
# per path against fb_resolve_paths() (harness/judge/resolve.c), side by
# side on one image (harness/judge/bench-resolve.c): the image holds FILES files
# in one directory (default 4000, as the largest golden fixture does) and
# 200 in a nested one; every file is looked up.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
files=${FILES:-4000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-bench-resolve.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/d" "$tmp/tree/a/b"
i=0
while [ $i -lt "$files" ]; do
	echo $i > "$tmp/tree/d/f$i"
	echo "/d/f$i"
	i=$((i + 1))
done > "$tmp/paths"
i=0
while [ $i -lt 200 ]; do
	echo $i > "$tmp/tree/a/b/g$i"
	echo "/a/b/g$i"
	i=$((i + 1))
done >> "$tmp/paths"
mkfs.ext4 -q -F -O metadata_csum -d "$tmp/tree" "$tmp/img" 64M
"$top/build/tests/bin/bench-resolve" "$tmp/img" "$tmp/paths" "${ROUNDS:-5}"

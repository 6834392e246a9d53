#!/bin/sh
# SPDX-License-Identifier: MIT
# The inline data limit per inode size and feature set, measured through
# the booted kernel: one boot per configuration writes files of 0 to MAX
# bytes (default 1000, every size), then debugfs on the host says which
# inodes kept the inline data flag (0x10000000). Prints one table row per
# configuration: the largest size that stayed inline and the smallest that
# did not (they must be adjacent: a gap means the kernel is not monotonic).
# An empty file is never inline: a new inode gets extents until its first
# write, so size 0 is left out of the limit.
# Usage: bench/inline-limit.sh [KERNEL] (default stock)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
flipbed=$top/build/bin/flipbed
kernel=${1:-stock}
max=${MAX:-1000}
T=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-inline.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

[ -x "$flipbed" ] || { echo "inline-limit: $flipbed not built"; exit 2; }
i=0
while [ $i -le $max ]; do
	printf -- '--step\nwrite /f%d %d\n' $i $i
	printf 'stat /f%d\n' $i >> "$T/debugfs.cmd"
	i=$((i + 1))
done > "$T/args"
printf -- '--step\numount\n' >> "$T/args"

printf '| inode size | features | largest inline | smallest not inline | kernel |\n'
printf '|---|---|---|---|---|\n'
for isize in 128 256 512 1024; do
	for feat in ^metadata_csum,inline_data metadata_csum,inline_data; do
		img=$T/$isize-$feat.img
		mkfs.ext4 -q -F -b 4096 -I $isize -N 2048 -O "$feat" "$img" 32M > "$T/mkfs.err" 2>&1 || {
			echo "| $isize | $feat | mkfs refused: $(tail -1 "$T/mkfs.err") | | |"; continue; }
		tr '\n' '\0' < "$T/args" | xargs -0 "$flipbed" boot --kernel "$kernel" \
			--image "$img" --timeout 300 --step mount > "$T/boot.out" 2>&1 || {
			echo "inline-limit: boot failed ($isize $feat):"; tail -5 "$T/boot.out"; exit 1; }
		e2fsck -fn "$img" > "$T/fsck.out" 2>&1 || {
			echo "inline-limit: e2fsck -fn not clean ($isize $feat):"; tail -5 "$T/fsck.out"; exit 1; }
		debugfs -f "$T/debugfs.cmd" "$img" 2>/dev/null |
			awk -v max=$max -v isize=$isize -v feat=$feat -v k=$kernel '
			/^Inode: / { inl[n++] = ($NF == "0x10000000") }
			END {
				hi = -1; lo = -1
				for (i = 0; i <= max; i++) {
					if (inl[i]) hi = i
					if (!inl[i] && lo < 0 && i > 0) lo = i
				}
				printf "| %d | %s | %d | %s | %s%s |\n", isize, feat, hi,
				       (lo < 0 ? (">" max) : lo), k,
				       ((lo >= 0 && hi > lo) ? " (not monotonic)" : "")
			}'
	done
done

#!/bin/sh
# SPDX-License-Identifier: MIT
# Space used when the booted kernel itself populates the image: the same
# trees, image sizes and twelve configurations as bench/space.sh (inline_data
# on/off x 4 KiB/16 KiB/64 KiB clusters x 256/1024-byte inodes), but each
# image starts empty and the guest copies the tree into it with the
# copy-source step from a second, read-only disk (flipbed boot --source).
# The kernel's allocator decides (delalloc, inline data, preallocation), not
# mke2fs. Every image must then pass e2fsck -fn, or the run stops.
#   KERNEL   the variant that copies (default stock)
#   TIMEOUT  seconds per boot (default 3600)
# Output: "TREE CLUSTER ISIZE INLINE USED_KIB" per image, as space.sh;
# progress and guest times on stderr.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-populate.XXXXXX")
trap 'rm -rf "$T"' EXIT
. "$top/bench/trees.sh"
flipbed=${FLIPBED:-$top/build/bin/flipbed}
kernel=${KERNEL:-stock}
timeout=${TIMEOUT:-3600}
[ -x "$flipbed" ] || { echo "populate: $flipbed not built (make)" >&2; exit 2; }

# The source disk: the tree in a plain ext4 image (no inline data, no
# bigalloc), read by the guest only.
mk_source() {
	geometry "$2"
	mke2fs -q -F -t ext4 -b 4096 -O ^inline_data,^has_journal -N $((files + 1024)) \
		-d "$2" "$T/src.img" $(( (kib + files * 4) * 3 / 2 / 1024 + 64 ))M \
		> "$T/mkfs.log" 2>&1 || { echo "populate: mke2fs -d $2 failed:" >&2
		tail -3 "$T/mkfs.log" >&2; exit 1; }
}

measure() {
	mk_source "$1" "$2"
	for cl in 4096 16384 65536; do
		for is in 256 1024; do
			for inl in off on; do
				mkfs_args $cl $is $inl
				mke2fs -q -F -t ext4 -b 4096 $cargs -O "$feat" "$T/img" "$size" \
					> "$T/mkfs.log" 2>&1 || { echo "populate: mke2fs failed for $1 $cl $is $inl:" >&2
					tail -3 "$T/mkfs.log" >&2; exit 1; }
				start=$(date +%s)
				"$flipbed" boot --kernel "$kernel" --image "$T/img" --source "$T/src.img" \
					--timeout "$timeout" --step mount --step copy-source --step umount \
					> "$T/boot.log" 2>&1 || { echo "populate: the copy failed for $1 $cl $is $inl:" >&2
					grep -v '^kmsg' "$T/boot.log" | tail -20 >&2; exit 1; }
				e2fsck -fn "$T/img" > "$T/fsck.log" 2>&1 || {
					echo "populate: e2fsck -fn is not clean after the copy of $1 $cl $is $inl:" >&2
					tail -20 "$T/fsck.log" >&2; exit 1; }
				echo "populate: $1 $cl $is $inl: $(sed -n 's/.*copy-source -> ok //p' "$T/boot.log"), $(($(date +%s) - start)) s" >&2
				echo "$1 $cl $is $inl $(used_kib "$T/img")"
				rm -f "$T/img"
			done
		done
	done
	rm -f "$T/src.img"
}

for t in $trees; do
	dir=$(tree_dir $t) || exit 2
	measure $t "$dir"
done

#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0002 for the allocation bitmaps: group 0's block or inode bitmap
# checksum (kept in the group descriptor) is cleared with debugfs set_bg and
# the descriptor resealed (checksum calc). Writing a new file reads both
# bitmaps: the filesystem goes read-only on both kernels; patched names the
# bitmap. The proof of read-only is a truncate of an existing file: with
# the only group's inode bitmap marked corrupt, creating a file fails with
# ENOSPC before the aborted journal could say EROFS. Patch 0007: the error
# the superblock records (first_error_*, read back with dumpe2fs) is
# EFSBADCRC at the bitmap's block on patched, EFSCORRUPTED at block 0 on
# stock.
# Groups: quick csum.
. "$(dirname "$0")/lib.sh"
kt_require stock patched

base=$T/base.img
kt_mkfs "$base"
kt_debugfs "$base" "write /dev/null e"
bg() { debugfs -R "stats" "$base" 2>/dev/null | sed -n "s/.*Group  0: .*$1 at \([0-9]*\),.*/\1/p"; }
bb=$(bg "block bitmap"); ib=$(bg "inode bitmap")
[ -n "$bb" ] && [ -n "$ib" ] || fail "no bitmap blocks in debugfs stats"
cp "$base" "$T/bb.img"; kt_debugfs "$T/bb.img" "set_bg 0 block_bitmap_csum 0" "set_bg 0 checksum calc"
cp "$base" "$T/ib.img"; kt_debugfs "$T/ib.img" "set_bg 0 inode_bitmap_csum 0" "set_bg 0 checksum calc"

set -- "bb block-bitmap $bb" "ib inode-bitmap $ib"
for c in "$@"; do
	set -- $c
	for v in stock patched; do
		kt_boot $1-$v $v "$T/$1.img" --step mount \
			--step "may write /new 100000 sync" --step "expect EROFS truncate /e 1" \
			>/dev/null
		kt_has $1-$v "step 3 expect EROFS truncate /e 1 -> err EROFS" &&
			ok "$v: $2: read-only" || check_fail "$v: $2: still writable"
	done
	line=$(kt_csum_line "$2" - "$3" 0)
	kt_has $1-patched "$line" && ok "patched: $line" ||
		{ check_fail "patched: no '$line'"; grep -F "csum-error" "$T/$1-patched.out"; }
	kt_has $1-stock "csum-error" && check_fail "stock: $2: a csum-error line?"
	# the error the superblock recorded (patch 0007): EFSBADCRC at the
	# bitmap's block on patched, EFSCORRUPTED and no block (0, which dumpe2fs
	# does not print) on stock
	for v in stock patched; do
		dumpe2fs -h "$T/$1-$v.img" 2>/dev/null | sed -n 's/^First error \(block #\|err\): *//p' |
			tr '\n' ' ' > "$T/$1-$v.first"
		echo "$v: $2: first error: $(cat "$T/$1-$v.first")"
	done
	[ "$(cat "$T/$1-patched.first")" = "$3 EFSBADCRC " ] &&
		ok "patched: $2: recorded as EFSBADCRC at block $3" ||
		check_fail "patched: $2: recorded as '$(cat "$T/$1-patched.first")', expected '$3 EFSBADCRC'"
	[ "$(cat "$T/$1-stock.first")" = "EFSCORRUPTED " ] &&
		ok "stock: $2: recorded as EFSCORRUPTED, no block (the gap)" ||
		check_fail "stock: $2: recorded as '$(cat "$T/$1-stock.first")'"
done
kt_done

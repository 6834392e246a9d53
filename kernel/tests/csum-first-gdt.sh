#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0005 at mount: ext4_check_descriptors() verifies a group
# descriptor's checksum before the locations it holds. Bit 0 of byte 2 of
# group 0's bg_block_bitmap_lo (the descriptor at the start of block 1)
# moves the block bitmap 65536 blocks up, past the 16384 blocks of the
# image, and breaks the descriptor's checksum:
#   patched, patched-6.12  the csum-error line (type=group-desc) and
#                          "Checksum for group 0 failed" come before any
#                          "not in group" line; the mount is refused with
#                          EUCLEAN, read-write and read-only alike
#   stock, stock-6.12      "Block bitmap for group 0 not in group" and the
#                          refusal (EUCLEAN), no checksum message: stock's
#                          ext4_check_descriptors() returns at the location
#                          before it reaches ext4_group_desc_csum_verify()
# Which mounts are refused is the same on every kernel: the reorder changes
# the first message, not the outcome.
# Groups: quick csum.
. "$(dirname "$0")/lib.sh"
kt_require stock patched stock-6.12 patched-6.12

img=$T/gdt.img
kt_mkfs "$img"
kt_flip "$img" $((4096 + 2))

for k in stock patched stock-6.12 patched-6.12; do
	kt_boot $k-rw $k "$img" --step "may mount" >/dev/null
	kt_boot $k-ro $k "$img" --step "may mount ro" >/dev/null
	for m in rw ro; do
		kt_has $k-$m "step 1 may mount" || fail "$k $m: no mount step in the transcript"
		kt_has $k-$m "-> err EUCLEAN " && ok "$k $m: the mount is refused with EUCLEAN" ||
			check_fail "$k $m: the mount was not refused with EUCLEAN: $(grep -F 'step 1 ' "$T/$k-$m.out")"
		loc=$(grep -n -m 1 'Block bitmap for group 0 not in group' "$T/$k-$m.out" | cut -d: -f1)
		case $k in
		patched*)
			csum=$(grep -n -m 1 -F "$(kt_csum_line group-desc - 1 0)" "$T/$k-$m.out" | cut -d: -f1)
			msg=$(grep -n -m 1 'Checksum for group 0 failed' "$T/$k-$m.out" | cut -d: -f1)
			if [ -z "$csum" ] || [ -z "$msg" ]; then
				check_fail "$k $m: no csum-error line or no 'Checksum for group 0 failed'"
			elif [ -n "$loc" ] && [ "$loc" -lt "$csum" ]; then
				check_fail "$k $m: 'not in group' (line $loc) before the checksum failure (line $csum)"
			else
				ok "$k $m: the checksum failure first (line $csum), then its message (line $msg)${loc:+, 'not in group' at line $loc}"
			fi
			;;
		*)
			[ -n "$loc" ] && ok "$k $m: 'Block bitmap for group 0 not in group'" ||
				check_fail "$k $m: no 'not in group' line"
			kt_has $k-$m "Checksum for group 0 failed" &&
				check_fail "$k $m: stock reached the checksum of a misplaced descriptor"
			;;
		esac
	done
done
kt_done

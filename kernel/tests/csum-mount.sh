#!/bin/sh
# SPDX-License-Identifier: MIT
# Patches 0001 (jbd2) and 0002 (ext4) for the objects read at mount time: a
# bad superblock, group descriptor or journal superblock checksum refuses
# the mount on both
# kernels, with the errno measured on 6.1.192 (EBADMSG, EUCLEAN, EBADMSG);
# patched says which object failed in the structured line (jbd2's with
# "JBD2" for "EXT4-fs") and stock only in free text.
# Groups: quick csum journal.
. "$(dirname "$0")/lib.sh"
kt_require stock patched

base=$T/base.img
kt_mkfs "$base"
jblk=$(kt_bmap "$base" "<8>" 0)
[ -n "$jblk" ] || fail "no journal block"

# superblock: s_wtime (offset 0x30) of the primary superblock at byte 1024
cp "$base" "$T/sb.img"; kt_flip "$T/sb.img" $((1024 + 0x30))
# group 0's descriptor checksum field
cp "$base" "$T/gd.img"; kt_debugfs "$T/gd.img" "set_bg 0 checksum 0"
# journal superblock: s_uuid[0] (offset 0x30) of the journal's first block,
# once the journal has checksums (mke2fs leaves that to the first mount)
cp "$base" "$T/js.img"; kt_debugfs "$T/js.img" "jo -c" "jc"
kt_flip "$T/js.img" $((jblk * 4096 + 0x30))

set -- "sb superblock EXT4-fs - 0 0 EBADMSG" "gd group-desc EXT4-fs - 1 0 EUCLEAN" \
	"js journal-sb JBD2 8 $jblk - EBADMSG"
for obj in "$@"; do
	set -- $obj
	for v in stock patched; do
		kt_boot $1-$v $v "$T/$1.img" --step "may mount" >/dev/null
		kt_has $1-$v "step 1 may mount -> err $7 " ||
			check_fail "$v: $2: the mount was not refused with $7"
	done
	line="$3 csum-error (device vda): type=$2 ino=$4 block=$5 group=$6"
	kt_has $1-patched "$line" && ok "patched: $line" ||
		{ check_fail "patched: no '$line'"; grep -F "csum-error" "$T/$1-patched.out"; }
	kt_has $1-stock "csum-error" && check_fail "stock: $2: a csum-error line?"
	echo "stock: $2: $(grep -F 'step 1 ' "$T/$1-stock.out")"
	echo "patched: $2: $(grep -F 'step 1 ' "$T/$1-patched.out")"
done
kt_done

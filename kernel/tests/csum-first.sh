#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0005: metadata checksums are verified before the contents they
# cover. One bit of the magic of an extent leaf block and of an xattr
# block is flipped at rest: stock reports sanity errors ("invalid magic",
# "corrupted xattr block") without a checksum failure; patched reports both
# as csum-error lines. Then, on a second image, the high bit of an extent
# leaf's eh_max (the tail would lie past the block) and a bit of an inode's
# i_extra_isize: stock says "too large eh_max" and "bad extra_isize",
# patched names the checksum failure of each.
# Groups: quick csum.
. "$(dirname "$0")/lib.sh"
kt_require stock patched

img=$T/base.img
kt_mkfs "$img"
head -c 5000 /dev/zero > "$T/a"
head -c 1000 /dev/zero | tr '\0' v > "$T/val"
kt_sparse "$T/sparse"
kt_debugfs "$img" "write $T/sparse ext" "write $T/a x" "ea_set -f $T/val /x user.big"
ino_ext=$(kt_ino "$img" /ext)
blk_ext=$(debugfs -R "stat /ext" "$img" 2>/dev/null | sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p')
ino_x=$(kt_ino "$img" /x)
blk_x=$(debugfs -R "stat /x" "$img" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
[ -n "$blk_ext" ] && [ -n "$blk_x" ] || fail "image setup"
python3 -c "
import sys
f = open(sys.argv[1], 'r+b')
for off in map(int, sys.argv[2:]):
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 1]))
" "$img" $((blk_ext * 4096)) $((blk_x * 4096))

# `read /x` takes the EROFS of the first open() after the error (see
# csum-report.sh)
steps="--step mount --step 'may setxattr /x other 8' --step 'may read /x'
	--step 'may read /ext'"
eval kt_boot stock stock "$img" $steps
eval kt_boot patched patched "$img" $steps

for l in "$(kt_csum_line extent-leaf "$ino_ext" "$blk_ext" 0)" \
	"$(kt_csum_line xattr-block "$ino_x" "$blk_x" 0)"; do
	kt_has patched "$l" && ok "patched: $l" || check_fail "patched: no '$l'"
done
kt_has patched "bad header/extent: extent tree corrupted" &&
	ok "patched: extent error names the checksum" || check_fail "patched: extent error text"
kt_has stock "bad header/extent: invalid magic" &&
	ok "stock: the same flip is 'invalid magic' (sanity)" || check_fail "stock: no 'invalid magic'"
kt_has stock "corrupted xattr block $blk_x" &&
	ok "stock: xattr magic flip is 'corrupted xattr block' only" ||
	check_fail "stock: no 'corrupted xattr block'"

img=$T/second.img
kt_mkfs "$img"
kt_debugfs "$img" "write $T/sparse ext2" "write $T/a y"
ino_ext=$(kt_ino "$img" /ext2)
blk_ext=$(debugfs -R "stat /ext2" "$img" 2>/dev/null | sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p')
ino_y=$(kt_ino "$img" /y)
blk_y=$(kt_itable_block "$img" /y)
off_y=$(debugfs -R "imap /y" "$img" 2>/dev/null | sed -n 's/.*offset \(0x[0-9a-f]*\).*/\1/p')
[ -n "$blk_ext" ] && [ -n "$blk_y" ] && [ -n "$off_y" ] || fail "second image setup"
# eh_max is bytes 4-5 of the header (bit 7 of byte 5: +32768); i_extra_isize
# is at 0x80 of the inode (bit 1: 32 -> 34, not a multiple of 4)
python3 -c "
import sys
f = open(sys.argv[1], 'r+b')
for arg in sys.argv[2:]:
    off, bit = map(int, arg.split(':'))
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ (1 << bit)]))
" "$img" "$((blk_ext * 4096 + 5)):7" "$((blk_y * 4096 + off_y + 128)):1"
# the inode first: the extent errors that follow are many (ratelimit); on
# stock the first open() after the error fails with EROFS (csum-report.sh)
steps="--step mount --step 'may stat /y' --step 'may read /ext2' --step 'may read /ext2'"
eval kt_boot stock2 stock "$img" $steps
eval kt_boot patched2 patched "$img" $steps
for l in "$(kt_csum_line extent-leaf "$ino_ext" "$blk_ext" 0)" \
	"$(kt_csum_line inode "$ino_y" "$blk_y" 0)"; do
	kt_has patched2 "$l" && ok "patched: $l" || check_fail "patched: no '$l'"
done
kt_has stock2 "too large eh_max" && ok "stock: the eh_max flip is 'too large eh_max' (sanity)" ||
	check_fail "stock: no 'too large eh_max'"
kt_has stock2 "bad extra_isize" && ok "stock: the i_extra_isize flip is 'bad extra_isize' (sanity)" ||
	check_fail "stock: no 'bad extra_isize'"
kt_has patched2 "bad extra_isize" && check_fail "patched: 'bad extra_isize' before the checksum"
kt_done

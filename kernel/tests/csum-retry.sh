#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0006: csum_retry survives a transient checksum failure. The flipbed
# plugin flips one bit of inode /d/small's bytes in the first read of its
# inode table block only (on=read count=1): with csum_retry the re-read
# verifies, the kernel logs a "recovered" csum-error line, counts it in
# csum_recovered and stays writable. Without csum_retry (and on stock) the
# same fault makes the filesystem read-only; a sticky fault (no count) does
# so even with csum_retry. Directory leaf, extent leaf and xattr blocks are
# recovered the same way, from a flip in their entries and, for the last
# two, in their magic (checked after the checksum since 0005).
# Groups: quick csum.
. "$(dirname "$0")/lib.sh"
kt_require stock patched
[ -f "$top/build/lib/nbdkit-flipbed-plugin.so" ] ||
	skip "flipbed nbdkit plugin not built (make build/lib/nbdkit-flipbed-plugin.so)"

img=$T/base.img
kt_mkfs "$img"
head -c 3 /dev/zero > "$T/small"
kt_debugfs "$img" "mkdir d" "write $T/small d/small"
ino=$(kt_ino "$img" /d/small)
blk=$(kt_itable_block "$img" /d/small)
off=$(debugfs -R "imap /d/small" "$img" 2>/dev/null | sed -n 's/.*offset \(0x[0-9a-f]*\).*/\1/p')
[ -n "$ino" ] && [ -n "$blk" ] && [ -n "$off" ] || fail "imap of /d/small"
# bit 0 of i_atime's low byte (inode offset 8): covered by the checksum only
at=$((blk * 4096 + off + 8))
transient="on=read at=$at len=1 flip=0 count=1"
sticky="on=read at=$at len=1 flip=0"

steps() {	# $1: mount options
	echo "--step 'mount $1' --step 'may stat /d/small' --step 'may write /new 100 sync'
	--step 'may cat /sys/fs/ext4/vda/csum_errors'
	--step 'may cat /sys/fs/ext4/vda/csum_recovered' --step 'cat /proc/mounts'"
}
eval kt_boot retry patched "$img" --rule "'$transient'" \
	--faultlog "$T/retry.faults" $(steps csum_retry)
eval kt_boot noretry patched "$img" --rule "'$transient'" $(steps errors=remount-ro)
eval kt_boot stock stock "$img" --rule "'$transient'" $(steps errors=remount-ro)
eval kt_boot sticky patched "$img" --rule "'$sticky'" \
	--faultlog "$T/sticky.faults" $(steps csum_retry)

line=$(kt_csum_line inode "$ino" "$blk" 0)
# transient + csum_retry: recovered, writable, counted
kt_has retry "$line recovered" && ok "retry: '$line recovered'" ||
	check_fail "retry: no '$line recovered'"
kt_has retry "step 2 may stat /d/small -> ok" && ok "retry: stat ok" || check_fail "retry: stat failed"
kt_has retry "step 3 may write /new 100 sync -> ok" && ok "retry: still writable" ||
	check_fail "retry: write failed"
[ "$(kt_sysfs retry 5 inode)" = 1 ] && ok "retry: csum_recovered inode 1" ||
	check_fail "retry: csum_recovered inode '$(kt_sysfs retry 5 inode)'"
[ "$(kt_sysfs retry 4 inode)" = 0 ] && ok "retry: csum_errors inode 0" ||
	check_fail "retry: csum_errors inode '$(kt_sysfs retry 4 inode)'"
kt_has retry "Remounting filesystem read-only" && check_fail "retry: remounted read-only"
grep -q "^out 6 /dev/vda /mnt ext4 .*csum_retry" "$T/retry.out" &&
	ok "retry: csum_retry shown in /proc/mounts" || check_fail "retry: csum_retry not in /proc/mounts"
# the same transient fault without csum_retry: read-only, as on stock
for name in noretry stock; do
	kt_has $name "step 2 may stat /d/small -> err EBADMSG" &&
		kt_has $name "step 3 may write /new 100 sync -> err EROFS" &&
		ok "$name: transient fault -> EBADMSG, then EROFS" ||
		check_fail "$name: transient fault did not end read-only"
done
kt_has noretry "$line" && ! kt_has noretry "$line recovered" &&
	ok "noretry: '$line'" || check_fail "noretry: no '$line'"
# sticky fault with csum_retry: the re-read fails too, read-only as before
kt_has sticky "$line" && ! kt_has sticky "$line recovered" && ok "sticky: '$line', not recovered" ||
	check_fail "sticky: wrong csum-error line"
kt_has sticky "step 3 may write /new 100 sync -> err EROFS" && ok "sticky: read-only" ||
	check_fail "sticky: still writable"
[ "$(kt_sysfs sticky 4 inode)" = 1 ] && ok "sticky: csum_errors inode 1" ||
	check_fail "sticky: csum_errors inode '$(kt_sysfs sticky 4 inode)'"
# other objects: a transient flip in a directory leaf, an extent leaf and an
# xattr block, and in the magic of the last two, each recovered with
# csum_retry
img2=$T/more.img
kt_mkfs "$img2"
kt_sparse "$T/sparse"
head -c 1000 /dev/zero | tr '\0' v > "$T/val"
{
	echo "mkdir dir"; echo "write $T/sparse ext"; echo "write $T/small x"
	echo "ea_set -f $T/val /x user.big"
	for i in $(seq 1 40); do echo "write /dev/null dir/a-long-file-name-to-fill-the-block-$i"; done
} | debugfs -w -f - "$img2" >/dev/null 2>&1
blk_dir=$(kt_bmap "$img2" /dir 0)
blk_ext=$(debugfs -R "stat /ext" "$img2" 2>/dev/null | sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p')
blk_x=$(debugfs -R "stat /x" "$img2" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
# NAME TYPE PATH BLOCK STEP OFFSET: bit 0 of byte 100 is inside the
# entries; byte 0 is the extent header's and the xattr block's magic, which
# 0005 checks after the checksum, so that its flip is retried too
set -- "dir-leaf dir-leaf /dir $blk_dir ls 100" "extent-leaf extent-leaf /ext $blk_ext hash 100" \
	"xattr-block xattr-block /x $blk_x setxattr 100" \
	"extent-magic extent-leaf /ext $blk_ext hash 0" "xattr-magic xattr-block /x $blk_x setxattr 0"
for c in "$@"; do
	set -- $c
	step="$5 $3"; [ "$5" = setxattr ] && step="setxattr $3 other 8"
	kt_boot $1 patched "$img2" --rule "on=read at=$(($4 * 4096 + $6)) len=1 flip=0 count=1" \
		--step "mount csum_retry" --step "$step" --step "write /new 100 sync" >/dev/null
	l="$(kt_csum_line $2 "$(kt_ino "$img2" $3)" $4 0) recovered"
	kt_has $1 "$l" && [ "$(cat "$T/$1.rc")" = 0 ] && ok "retry: $1 (byte $6): $l, steps ok" ||
		check_fail "retry: $1: byte $6 of block $4 not recovered (exit $(cat "$T/$1.rc"))"
done

# the plugin's fault log (its flips: witness records aside): one bad read
# recovered; the sticky fault hit the first read and the one re-read, which
# goes to a private buffer (the cached block is never re-read)
n=$(grep -c '"action":"flip"' "$T/retry.faults")
[ "$n" = 1 ] && ok "retry: 1 fault in the fault log" || check_fail "retry: $n faults logged"
n=$(grep -c '"action":"flip"' "$T/sticky.faults")
[ "$n" = 2 ] && ok "sticky: 2 faulty reads (first read + re-read)" ||
	check_fail "sticky: $n faulty reads, expected the first read and one re-read"
kt_done

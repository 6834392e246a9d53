#!/bin/sh
# SPDX-License-Identifier: MIT
# csum_retry (patch 0006) on the paths csum-retry.sh does not take:
#   once    a sticky bad inode looked up three times: one csum-error line,
#           csum_errors inode 1, and the plugin saw two faulty reads (the
#           first read and one re-read), not one per lookup
#   eio     the re-read itself fails with EIO: not recovered, EBADMSG, the
#           failure reported once
#   skip    no journal; the bad inode's table block was dirtied by another
#           inode's update: no re-read (the buffer holds newer bytes than
#           the disk), not recovered
#   sanity  an extent leaf resealed at rest with a bad eh_entries, and a
#           transient flip in its entries: the re-read verifies (counted in
#           csum_recovered) and the sanity check fails after it
#   dx-root a transient flip of the htree root's info_length: no error
#           before the retry, recovered, still writable
#   dx-node a transient flip of an index node's fake rec_len (the block no
#           longer looks like an index node): recovered, still writable
# Only the patched kernel has csum_retry.
# Groups: csum.
. "$(dirname "$0")/lib.sh"
kt_require patched
[ -f "$top/build/lib/nbdkit-flipbed-plugin.so" ] ||
	skip "flipbed nbdkit plugin not built (make build/lib/nbdkit-flipbed-plugin.so)"
corrupt=$B/bin/flipbed-corrupt
require_built "$corrupt" build/bin/flipbed-corrupt

# flips: the number of faults the plugin applied (witness records aside)
flips() { grep '"action":"' "$T/$1.faults" | grep -c "\"action\":\"$2\""; }

# --- an inode with a bad checksum, as csum-retry.sh ------------------------
img=$T/base.img
kt_mkfs "$img"
head -c 3 /dev/zero > "$T/small"
kt_debugfs "$img" "mkdir d" "write $T/small d/small" "write $T/small d/other"
ino=$(kt_ino "$img" /d/small)
blk=$(kt_itable_block "$img" /d/small)
off=$(debugfs -R "imap /d/small" "$img" 2>/dev/null | sed -n 's/.*offset \(0x[0-9a-f]*\).*/\1/p')
[ -n "$ino" ] && [ -n "$blk" ] && [ -n "$off" ] || fail "imap of /d/small"
[ "$(kt_itable_block "$img" /d/other)" = "$blk" ] || fail "/d/other is not in /d/small's table block"
at=$((blk * 4096 + off + 8))	# i_atime: covered by the checksum only
line=$(kt_csum_line inode "$ino" "$blk" 0)

kt_boot once patched "$img" --rule "on=read at=$at len=1 flip=0" --faultlog "$T/once.faults" \
	--step "mount csum_retry" --step "may stat /d/small" --step "may stat /d/small" \
	--step "may stat /d/small" --step "cat /sys/fs/ext4/vda/csum_errors" >/dev/null
n=$(kt_count once "$line")
[ "$n" = 1 ] && ok "once: one csum-error line for three lookups" ||
	check_fail "once: $n csum-error lines for three lookups (one per failing block expected)"
[ "$(kt_sysfs once 5 inode)" = 1 ] && ok "once: csum_errors inode 1" ||
	check_fail "once: csum_errors inode '$(kt_sysfs once 5 inode)' (counts accesses, not blocks)"
n=$(flips once flip)
[ "$n" = 2 ] && ok "once: 2 faulty reads (first read + one re-read)" ||
	check_fail "once: $n faulty reads: the re-read is not bounded to one per block"
kt_count once "step 4 may stat /d/small -> err EBADMSG" | grep -qx 1 &&
	ok "once: the third lookup still fails with EBADMSG" || check_fail "once: third lookup"

kt_boot eio patched "$img" --faultlog "$T/eio.faults" \
	--rule "on=read at=$at len=1 flip=0 count=1" --rule "on=read at=$at len=1 eio after=1 count=1" \
	--step "mount csum_retry" --step "may stat /d/small" \
	--step "cat /sys/fs/ext4/vda/csum_errors" --step "cat /sys/fs/ext4/vda/csum_recovered" >/dev/null
kt_has eio "step 2 may stat /d/small -> err EBADMSG" && ok "eio: EIO on the re-read: EBADMSG" ||
	check_fail "eio: the lookup did not fail with EBADMSG"
[ "$(flips eio eio)" = 1 ] && ok "eio: the re-read got EIO" || check_fail "eio: no EIO on the re-read"
kt_has eio "$line recovered" && check_fail "eio: recovered from a failed re-read"
[ "$(kt_sysfs eio 3 inode)" = 1 ] && [ "$(kt_sysfs eio 4 inode)" = 0 ] &&
	ok "eio: csum_errors inode 1, csum_recovered inode 0" || check_fail "eio: counters"
grep -q "Oops\|BUG\|WARNING" "$T/eio.out" && check_fail "eio: kernel report"

# --- no journal: the table block is dirty when the bad inode is read -------
nj=$T/nojournal.img
cp "$img" "$nj"
tune2fs -O ^has_journal "$nj" >/dev/null 2>&1 || fail "tune2fs -O ^has_journal"
kt_boot skip patched "$nj" --faultlog "$T/skip.faults" \
	--rule "on=read at=$at len=1 flip=0 count=1" \
	--step "mount csum_retry" --step "write /d/other 10" --step "may stat /d/small" \
	--step "cat /sys/fs/ext4/vda/csum_errors" --step "cat /sys/fs/ext4/vda/csum_recovered" >/dev/null
kt_has skip "step 3 may stat /d/small -> err EBADMSG" && ok "skip: dirty table block not re-read: EBADMSG" ||
	check_fail "skip: the bad inode was recovered from under a dirty buffer"
[ "$(kt_sysfs skip 4 inode)" = 1 ] && [ "$(kt_sysfs skip 5 inode)" = 0 ] &&
	ok "skip: csum_errors inode 1, csum_recovered inode 0" || check_fail "skip: counters"

# --- an extent leaf that verifies on the re-read and then fails sanity -----
ext=$T/ext.img
kt_mkfs "$ext"
kt_sparse "$T/sparse"
kt_debugfs "$ext" "write $T/sparse ext"
eblk=$(debugfs -R "stat /ext" "$ext" 2>/dev/null | sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p')
[ -n "$eblk" ] || fail "no extent leaf block for /ext"
"$corrupt" flip "$ext" --target extent-leaf --path /ext --region eh_entries --bits 1 \
	--seed 1 --reseal >/dev/null || fail "flipbed-corrupt flip eh_entries --reseal"
kt_boot sanity patched "$ext" --rule "on=read at=$((eblk * 4096 + 100)) len=1 flip=0 count=1" \
	--step "mount csum_retry" --step "may hash /ext" \
	--step "cat /sys/fs/ext4/vda/csum_recovered" >/dev/null
l="$(kt_csum_line extent-leaf "$(kt_ino "$ext" /ext)" "$eblk" 0) recovered"
kt_has sanity "$l" && ok "sanity: '$l'" || check_fail "sanity: no '$l'"
[ "$(kt_sysfs sanity 3 extent_leaf)" = 1 ] && ok "sanity: csum_recovered/extent_leaf 1" ||
	check_fail "sanity: csum_recovered/extent_leaf '$(kt_sysfs sanity 3 extent_leaf)': a recovery followed by a sanity failure went uncounted"
kt_has sanity "pblk $eblk bad header/extent" && ok "sanity: the sanity check ran on the fresh copy" ||
	check_fail "sanity: no 'pblk $eblk bad header/extent'"

# --- htree blocks: 1 KiB blocks, 1800 names, a two-level index ------------
dx=$T/dx.img
mkfs.ext4 -q -F -b 1024 -O metadata_csum,dir_index "$dx" 32M
{
	echo "mkdir big"
	for i in $(seq 1 1800); do echo "write /dev/null big/a-rather-long-file-name-to-fill-blocks-quickly-$i"; done
} | debugfs -w -f - "$dx" >/dev/null 2>&1
e2fsck -fyD "$dx" >/dev/null 2>&1
[ $? -le 1 ] || fail "e2fsck -fyD on the htree image"
dino=$(kt_ino "$dx" /big)
locate() { "$corrupt" locate "$dx" --target "$1" --path /big | sed -n "1s/.* pblk=\([0-9]*\) .*/\1/p"; }
root=$(locate dx-root) node=$(locate dx-node)
[ -n "$root" ] && [ -n "$node" ] || fail "no two-level htree in /big"
# dx_root_info.info_length is byte 29 of the root; rec_len of a node's fake
# dirent is at byte 4 (1024 -> 1025: the block no longer looks like a node)
for c in "dx-root $root 29" "dx-node $node 4"; do
	set -- $c
	kt_boot $1 patched "$dx" --rule "on=read at=$(($2 * 1024 + $3)) len=1 flip=0 count=1" \
		--step "mount csum_retry" --step "ls /big" --step "write /big/zz-new 10 sync" \
		--step "cat /sys/fs/ext4/vda/csum_recovered" >/dev/null
	l="EXT4-fs csum-error (device vda): type=$1 ino=$dino block=$2 group=0 recovered"
	kt_has $1 "$l" && ok "$1: '$l'" || check_fail "$1: no '$l'"
	kt_has $1 "step 3 write /big/zz-new 10 sync -> ok" && ok "$1: still writable" ||
		check_fail "$1: not writable after the recovery"
	kt_has $1 "EXT4-fs error" && check_fail "$1: an ext4 error before or despite the recovery"
	f=$(echo "$1" | tr - _)
	[ "$(kt_sysfs $1 4 $f)" = 1 ] && ok "$1: csum_recovered/$f 1" ||
		check_fail "$1: csum_recovered/$f '$(kt_sysfs $1 4 $f)'"
done
kt_done

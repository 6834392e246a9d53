#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0004: after errors=remount-ro fires, /proc/mounts shows emergency_ro
# (6.1 keeps saying plain "rw") and "Remounting filesystem read-only" is
# printed once, however many errors follow (6.1 prints it after each one).
# Groups: quick.
. "$(dirname "$0")/lib.sh"
kt_require stock patched

img=$T/base.img
kt_mkfs "$img"
head -c 3 /dev/zero > "$T/small"
kt_debugfs "$img" "mkdir d" "write $T/small d/small"
kt_debugfs "$img" "set_inode_field /d/small checksum 0"

# Two failed igets, then a create: stock takes the create to its aborted
# journal (two more errors), patched refuses it with EROFS before that
steps="--step mount --step 'expect EBADMSG stat /d/small'
	--step 'expect EBADMSG stat /d/small' --step 'expect-erofs /y'
	--step 'cat /proc/mounts'"
eval kt_boot stock stock "$img" $steps
eval kt_boot patched patched "$img" $steps

for name in stock patched; do
	[ "$(cat "$T/$name.rc")" = 0 ] || check_fail "$name: a step was not met (EBADMSG, EROFS)"
done
msg="Remounting filesystem read-only"
n=$(kt_count patched "$msg")
if [ "$n" = 1 ]; then ok "patched: '$msg' once"; else check_fail "patched: '$msg' $n times"; fi
if grep -q '^out 5 /dev/vda /mnt ext4 rw,.*emergency_ro' "$T/patched.out"; then
	ok "patched: /proc/mounts shows emergency_ro"
else
	check_fail "patched: no emergency_ro in /proc/mounts"
fi
grep -q '^out 5 /dev/vda /mnt ext4 .*emergency_ro' "$T/stock.out" &&
	check_fail "stock shows emergency_ro?"
echo "stock: '$msg' $(kt_count stock "$msg") times, /proc/mounts:" \
	"$(sed -n 's|^out 5 /dev/vda /mnt ext4 \([^ ]*\) .*|\1|p' "$T/stock.out")"
echo "patched: '$msg' $n times, /proc/mounts:" \
	"$(sed -n 's|^out 5 /dev/vda /mnt ext4 \([^ ]*\) .*|\1|p' "$T/patched.out")"
kt_done

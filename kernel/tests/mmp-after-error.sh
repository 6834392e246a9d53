#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0004: the MMP block keeps saying "in use" while a filesystem that
# an error made read-only stays mounted. kmmpd (fs/ext4/mmp.c) writes a
# new sequence number every s_mmp_update_interval seconds while its loop
# runs, and EXT4_MMP_SEQ_CLEAN ("not in use", another node may mount) once
# it leaves it. After the error the filesystem is mounted with its journal
# aborted and still needing recovery, and the series still writes the
# superblock's error record at each later error: a node that mounted it
# then would replay that journal under this one. So kmmpd keeps its
# heartbeat until the unmount stops it (ext4_put_super ->
# ext4_stop_mmpd), as stock 6.1.192 does (its loop tests sb_rdonly(),
# which ext4_handle_error no longer sets). stock-6.12 leaves the loop at
# the error (it tests ext4_forced_shutdown(), which the error sets) and
# writes "clean" while still mounted: asserted as the gap it is.
# An image with mmp (update interval 1 s) and /d/small's inode checksum
# zeroed; two boots per kernel:
#   crash   mount, stat /d/small (EBADMSG: errors=remount-ro acts), sleep
#           8 s, a power cut: the MMP block holds kmmpd's last write. Held:
#           a sequence number, written at least 5 s after the first error
#           (dumpe2fs -h's "First error time", the same guest clock).
#   umount  the same, then umount after 3 s: "clean" on every kernel.
# Groups: mmp.
. "$(dirname "$0")/lib.sh"
kernels="stock patched stock-6.12 patched-6.12"
kt_require $kernels
require_tools dumpe2fs

img=$T/base.img
mkfs.ext4 -q -F -b 4096 -O metadata_csum,mmp -E mmp_update_interval=1 "$img" 64M ||
	fail "mkfs.ext4 -O mmp"
head -c 3 /dev/zero > "$T/small"
kt_debugfs "$img" "mkdir d" "write $T/small d/small" "set_inode_field /d/small checksum 0"

for k in $kernels; do
	kt_boot $k-crash $k "$img" --step mount --step 'expect EBADMSG stat /d/small' \
		--step 'sleep 8' --step crash
	kt_boot $k-umount $k "$img" --step mount --step 'expect EBADMSG stat /d/small' \
		--step 'sleep 3' --step umount
done

# mmp NAME: "SEQUENCE TIME" of the MMP block on NAME's image
mmp() {
	debugfs -R dump_mmp "$T/$1.img" 2>/dev/null |
		awk '/^sequence:/ { s = $2 } /^time:/ { t = $2 } END { print s, t }'
}
# error_time NAME: the first error's time on NAME's image, in seconds
error_time() {
	t=$(dumpe2fs -h "$T/$1.img" 2>/dev/null | sed -n 's/^First error time: *//p')
	[ -n "$t" ] && TZ=UTC date -d "$t" +%s
}

clean=ff4d4d50	# EXT4_MMP_SEQ_CLEAN
for k in $kernels; do
	for c in crash umount; do
		kt_has $k-$c "step 2 expect EBADMSG stat /d/small -> err EBADMSG" ||
			check_fail "$k-$c: stat /d/small did not fail with EBADMSG"
	done
	set -- $(mmp $k-crash)
	seq=$1 at=$2 err=$(error_time $k-crash)
	[ -n "$seq" ] && [ -n "$at" ] && [ -n "$err" ] ||
		fail "$k-crash: no MMP block or no first error time on the image"
	echo "$k: after the power cut: MMP sequence $seq written $((at - err)) s after the first error"
	# held: a heartbeat at most 3 s before the cut (8 s after the error);
	# released: "clean" written when kmmpd next woke after the error (1 s,
	# whole seconds, and a busy host's delay: at most 3 s)
	if [ "$seq" != $clean ] && [ $((at - err)) -ge 5 ]; then
		held=yes
	elif [ "$seq" = $clean ] && [ $((at - err)) -le 3 ]; then
		held=no
	else
		held="neither (sequence $seq, $((at - err)) s)"
	fi
	case $k in
	stock-6.12) want=no ;;
	*) want=yes ;;
	esac
	if [ "$held" = "$want" ]; then
		ok "$k: MMP held after the error: $held"
	else
		check_fail "$k: MMP held after the error: $held (want $want)"
	fi
	set -- $(mmp $k-umount)
	if [ "$1" = $clean ]; then
		ok "$k: the unmount after the error leaves the MMP block clean"
	else
		check_fail "$k: MMP sequence $1 after the unmount (want $clean, clean)"
	fi
done
kt_done

#!/bin/sh
# SPDX-License-Identifier: MIT
# Groups: csum.
# Patches 0002, 0003, 0006: the "one report per failing block" of the
# series is one report per failing object. An inode table block holds 16
# inodes (256 bytes each, 4 KiB blocks); /d/x and /d/y are two of the same
# block, each failing its checksum:
#
#   rest: both checksums zapped on the disk; stat /d/x, /d/y, /d/x again.
#   Two csum-error lines (one per inode, however often it is looked up:
#   __ext4_iget() verifies anew at every lookup of a bad inode) and
#   csum_errors/inode 2.
#
#   retry: /d/x zapped on the disk, /d/y flipped only in the block's first
#   read (a transfer error); with csum_retry. /d/x's failure is reported
#   as it is, and /d/y's still gets its own re-read: it is recovered
#   (csum_errors/inode 1, csum_recovered/inode 1).
#
# Runs on patched and patched-6.12 (when built).
. "$(dirname "$0")/lib.sh"
kt_require patched
[ -f "$top/build/lib/nbdkit-flipbed-plugin.so" ] ||
	skip "flipbed nbdkit plugin not built (make build/lib/nbdkit-flipbed-plugin.so)"
variants=patched
[ -f "$B/kernel/patched-6.12/vmlinux" ] && variants="$variants patched-6.12"

base=$T/base.img
kt_mkfs "$base"
# inodes 12..16 fill the first table block (/d and four pads), so that
# /d/x and /d/y (17, 18) share the second one, which the mount does not read
# (kt_debugfs sets $img: the image is $base)
kt_debugfs "$base" "mkdir d" "write /dev/null p1" "write /dev/null p2" \
	"write /dev/null p3" "write /dev/null p4" \
	"write /dev/null d/x" "write /dev/null d/y"
xino=$(kt_ino "$base" /d/x) yino=$(kt_ino "$base" /d/y)
blk=$(kt_itable_block "$base" /d/x)
[ -n "$blk" ] && [ "$(kt_itable_block "$base" /d/y)" = "$blk" ] ||
	fail "/d/x and /d/y are not in one inode table block"
yoff=$(debugfs -R "imap /d/y" "$base" 2>/dev/null | sed -n 's/.*offset \(0x[0-9a-f]*\).*/\1/p')

cp "$base" "$T/rest.img"
kt_debugfs "$T/rest.img" "set_inode_field /d/x checksum 0" "set_inode_field /d/y checksum 0"
cp "$base" "$T/retry.img"
kt_debugfs "$T/retry.img" "set_inode_field /d/x checksum 0"
# bit 0 of /d/y's i_atime (covered by its checksum only), first read only
flip="on=read at=$((blk * 4096 + yoff + 8)) len=1 flip=0 count=1"

for v in $variants; do
	eval kt_boot rest-$v $v "$T/rest.img" --step "'mount errors=continue'" \
		--step "'may stat /d/x'" --step "'may stat /d/y'" --step "'may stat /d/x'" \
		--step "'cat /sys/fs/ext4/vda/csum_errors'" >/dev/null
	for ino in $xino $yino; do
		n=$(kt_count rest-$v "$(kt_csum_line inode $ino $blk 0)")
		[ "$n" = 1 ] && ok "rest-$v: inode $ino: one csum-error line" ||
			check_fail "rest-$v: inode $ino: $n csum-error lines, not 1 (two bad inodes of block $blk)"
	done
	c=$(kt_sysfs rest-$v 5 inode)
	[ "$c" = 2 ] && ok "rest-$v: csum_errors/inode 2" ||
		check_fail "rest-$v: csum_errors/inode '$c', not 2 (two bad inodes)"

	eval kt_boot retry-$v $v "$T/retry.img" --rule "'$flip'" \
		--step "'mount errors=continue,csum_retry'" \
		--step "'may stat /d/x'" --step "'may stat /d/y'" \
		--step "'cat /sys/fs/ext4/vda/csum_errors'" \
		--step "'cat /sys/fs/ext4/vda/csum_recovered'" >/dev/null
	# lines NAME INO: that inode's csum-error lines, as "FAILED RECOVERED"
	lines() {
		echo "$(grep -c "type=inode ino=$2 block=$blk group=0\$" "$T/$1.out")" \
			"$(grep -c "type=inode ino=$2 block=$blk group=0 recovered\$" "$T/$1.out")"
	}
	[ "$(lines retry-$v $xino)" = "1 0" ] &&
		ok "retry-$v: /d/x (bad on the disk) reported once, not recovered" ||
		check_fail "retry-$v: /d/x: $(lines retry-$v $xino) lines failed, recovered (1 0)"
	[ "$(lines retry-$v $yino)" = "0 1" ] &&
		ok "retry-$v: /d/y (bad in transfer) retried and recovered" ||
		check_fail "retry-$v: /d/y: $(lines retry-$v $yino) lines failed, recovered (0 1): not retried"
	e=$(kt_sysfs retry-$v 4 inode) r=$(kt_sysfs retry-$v 5 inode)
	[ "$e" = 1 ] && [ "$r" = 1 ] && ok "retry-$v: csum_errors/inode 1, csum_recovered/inode 1" ||
		check_fail "retry-$v: csum_errors/inode '$e', csum_recovered/inode '$r' (1 and 1)"
	for n in rest-$v retry-$v; do
		kt_no_reports $n
	done
done
kt_done

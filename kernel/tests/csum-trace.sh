#!/bin/sh
# SPDX-License-Identifier: MIT
# Patches 0002 and 0003 under a burst: 100 inodes with a bad checksum, each
# in its own inode table block, all looked up by one walk. The csum-error
# lines stop at the ratelimit burst (10 per 5 s), while
# /sys/fs/ext4/vda/csum_errors/inode says 100 and the tracepoint
# ext4:ext4_csum_error, read from tracefs in the guest, shows all 100 with
# the type by name ("type inode", not a number). The events' format files
# decode the type with __print_symbolic, so that perf and trace-cmd can
# name it too (a kernel function in TP_printk they cannot run).
# Groups: csum.
. "$(dirname "$0")/lib.sh"
kt_require patched

img=$T/base.img
mkfs.ext4 -q -F -b 4096 -I 256 -N 2048 -O metadata_csum,^has_journal "$img" 64M
{
	echo "mkdir d"
	for i in $(seq 1 1700); do echo "write /dev/null d/f$i"; done
} | debugfs -w -f - "$img" >/dev/null 2>&1
itable=$(debugfs -R "stats" "$img" 2>/dev/null | sed -n "s/.*Group  0: .*inode table at \([0-9]*\).*/\1/p")
[ -n "$itable" ] || fail "no inode table in debugfs stats"
last=$(kt_ino "$img" /d/f1700)
[ "${last:-0}" -ge 1616 ] || fail "/d/f1700 is inode '$last': the files do not reach table block 100"
# the last inode of table blocks 1..100 (16 inodes of 256 bytes per block):
# one bit of its i_checksum_lo (offset 0x7c)
python3 -c "
import sys
f = open(sys.argv[1], 'r+b')
itable = int(sys.argv[2])
for k in range(1, 101):
    ino = 16 * k + 16
    off = itable * 4096 + (ino - 1) * 256 + 0x7c
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 1]))
" "$img" "$itable"

kt_boot burst patched "$img" --step mount \
	--step "set /sys/kernel/tracing/events/ext4/ext4_csum_error/enable 1" \
	--step "may walk /d" --step "cat /sys/fs/ext4/vda/csum_errors" \
	--step "cat /sys/kernel/tracing/trace" \
	--step "cat /sys/kernel/tracing/events/ext4/ext4_csum_error/format" \
	--step "cat /sys/kernel/tracing/events/jbd2/jbd2_csum_error/format" >/dev/null
lines=$(grep -c "EXT4-fs csum-error (device vda): type=inode" "$T/burst.out")
[ "$lines" -ge 1 ] && [ "$lines" -le 10 ] && ok "burst: $lines csum-error lines (ratelimit burst 10)" ||
	check_fail "burst: $lines csum-error lines, expected 1 to 10"
c=$(kt_sysfs burst 4 inode)
[ "$c" = 100 ] && ok "burst: csum_errors/inode says 100" || check_fail "burst: csum_errors/inode says '$c'"
n=$(grep -c "^out 5 .*ext4_csum_error: dev [0-9]*,[0-9]* type inode " "$T/burst.out")
[ "$n" = 100 ] && ok "burst: 100 ext4_csum_error trace events, type by name" ||
	check_fail "burst: $n trace events with 'type inode' (100 expected)"
grep -q "^out 5 .*ext4_csum_error: .* type [0-9]" "$T/burst.out" &&
	check_fail "burst: a trace event shows the type as a number"
for e in "6 ext4 inode" "7 jbd2 journal-commit"; do
	set -- $e
	grep -q "^out $1 print fmt: .*__print_symbolic(REC->type, .*\"$3\"" "$T/burst.out" &&
		ok "$2_csum_error: the format decodes the type (__print_symbolic)" ||
		check_fail "$2_csum_error: the format does not decode the type: $(grep "^out $1 print fmt" "$T/burst.out")"
done
kt_done

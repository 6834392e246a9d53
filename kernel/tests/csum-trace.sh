#!/bin/sh
# SPDX-License-Identifier: MIT
# Patches 0002 and 0003 under a burst, on patched and patched-6.12: 100
# inodes with a bad checksum, each in its own inode table block, all looked
# up by one walk. The csum-error lines stop at the ratelimit burst (10 per
# 5 s), while /sys/fs/ext4/vda/csum_errors/inode says 100 and the
# tracepoint ext4:ext4_csum_error, read from tracefs in the guest, shows
# all 100 with the type by name ("type inode", not a number). The events'
# format files decode the type with __print_symbolic, so that perf and
# trace-cmd can name it too (a kernel function in TP_printk they cannot
# run), and ext4_csum_error carries type, ino, block and recovered.
# After the ratelimit's interval a 101st bad inode is looked up: its line
# comes after a summary of the lines left out, and no line that starts as
# a csum-error line is that summary (the ratelimit's own "EXT4-fs
# csum-error: N callbacks suppressed" would be): the summary is "EXT4-fs
# (vda): N checksum error reports suppressed", and lines + N = 101.
# Groups: csum.
. "$(dirname "$0")/lib.sh"
kt_require patched patched-6.12

img=$T/base.img
mkfs.ext4 -q -F -b 4096 -I 256 -N 2048 -O metadata_csum,^has_journal "$img" 64M
{
	echo "mkdir d"
	for i in $(seq 1 1700); do echo "write /dev/null d/f$i"; done
	echo "mkdir e"
	echo "write /dev/null e/x"
} | debugfs -w -f - "$img" >/dev/null 2>&1
itable=$(debugfs -R "stats" "$img" 2>/dev/null | sed -n "s/.*Group  0: .*inode table at \([0-9]*\).*/\1/p")
[ -n "$itable" ] || fail "no inode table in debugfs stats"
last=$(kt_ino "$img" /d/f1700)
[ "${last:-0}" -ge 1616 ] || fail "/d/f1700 is inode '$last': the files do not reach table block 100"
x=$(kt_ino "$img" /e/x)
[ "${x:-0}" -gt 1616 ] || fail "/e/x is inode '$x', not past table block 100"
# the last inode of table blocks 1..100 (16 inodes of 256 bytes per block),
# and /e/x: one bit of its i_checksum_lo (offset 0x7c)
python3 -c "
import sys
f = open(sys.argv[1], 'r+b')
itable = int(sys.argv[2])
for ino in [16 * k + 16 for k in range(1, 101)] + [int(sys.argv[3])]:
    off = itable * 4096 + (ino - 1) * 256 + 0x7c
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 1]))
" "$img" "$itable" "$x"

for v in patched patched-6.12; do
	n=burst-$v
	kt_boot $n $v "$img" --step mount \
		--step "set /sys/kernel/tracing/events/ext4/ext4_csum_error/enable 1" \
		--step "may walk /d" --step "cat /sys/fs/ext4/vda/csum_errors" \
		--step "cat /sys/kernel/tracing/trace" \
		--step "cat /sys/kernel/tracing/events/ext4/ext4_csum_error/format" \
		--step "cat /sys/kernel/tracing/events/jbd2/jbd2_csum_error/format" \
		--step "sleep 6" --step "may stat /e/x" --step umount >/dev/null
	# the burst: the lines of the walk, before the sleep
	lines=$(sed -n '/^step 8 /q;p' "$T/$n.out" | grep -c "EXT4-fs csum-error (device vda): type=inode")
	[ "$lines" -ge 1 ] && [ "$lines" -le 10 ] && ok "$v: $lines csum-error lines (ratelimit burst 10)" ||
		check_fail "$v: $lines csum-error lines, expected 1 to 10"
	c=$(kt_sysfs $n 4 inode)
	[ "$c" = 100 ] && ok "$v: csum_errors/inode says 100" || check_fail "$v: csum_errors/inode says '$c'"
	t=$(grep -c "^out 5 .*ext4_csum_error: dev [0-9]*,[0-9]* type inode " "$T/$n.out")
	[ "$t" = 100 ] && ok "$v: 100 ext4_csum_error trace events, type by name" ||
		check_fail "$v: $t trace events with 'type inode' (100 expected)"
	grep -q "^out 5 .*ext4_csum_error: .* type [0-9]" "$T/$n.out" &&
		check_fail "$v: a trace event shows the type as a number"
	for e in "6 ext4 inode" "7 jbd2 journal-commit"; do
		set -- $e
		grep -q "^out $1 print fmt: .*__print_symbolic(REC->type, .*\"$3\"" "$T/$n.out" &&
			ok "$v: $2_csum_error: the format decodes the type (__print_symbolic)" ||
			check_fail "$v: $2_csum_error: the format does not decode the type: $(grep "^out $1 print fmt" "$T/$n.out")"
	done
	for f in "int type" "u64 ino" "u64 block" "bool recovered"; do
		grep -q "^out 6 .*field:$f;" "$T/$n.out" || check_fail "$v: ext4_csum_error has no field '$f'"
	done
	# every kernel line that starts as a csum-error line is one
	bad=$(grep -o 'EXT4-fs csum-error.*' "$T/$n.out" | grep -v '^EXT4-fs csum-error (device vda): type=' | head -n 1)
	[ -z "$bad" ] && ok "$v: every 'EXT4-fs csum-error' line is a report" ||
		check_fail "$v: a line with the csum-error prefix is no report: '$bad'"
	kt_has $n "EXT4-fs csum-error (device vda): type=inode ino=$x " &&
		ok "$v: the 101st bad inode, after the interval, has its line" ||
		check_fail "$v: no line for inode $x after the interval"
	s=$(sed -n 's/.*EXT4-fs (vda): \([0-9]*\) checksum error reports suppressed.*/\1/p' "$T/$n.out" | head -n 1)
	all=$(grep -c "EXT4-fs csum-error (device vda): type=inode" "$T/$n.out")
	[ -n "$s" ] && [ $((s + all)) = 101 ] &&
		ok "$v: 'EXT4-fs (vda): $s checksum error reports suppressed', $all lines: 101 reports" ||
		check_fail "$v: suppressed '$s' and $all lines, not 101 reports in all"
done
kt_done

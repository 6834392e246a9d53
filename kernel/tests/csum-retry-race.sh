#!/bin/sh
# SPDX-License-Identifier: MIT
# csum_retry (patch 0006) racing with inode updates on a filesystem without
# a journal, where ext4 writes an inode into its table block under the
# inode's own i_raw_lock, not the buffer's lock. 32 inode table blocks
# each hold 15 files that 8 threads chmod and utime round after round
# (guest step attr-race) and one file whose inode checksum the plugin
# breaks on every read of its block. Another thread syncs every 1 ms and
# looks one of those up right after, when the block is clean: its checksum
# fails and csum_retry reads the block again while the updates go on. A
# re-read into the shared buffer would overwrite the updates (and
# mark_buffer_dirty() warns on a buffer that is not uptodate). Passes only
# if every updated file holds its last values, right after the race and on
# the disk (read back with debugfs), the re-reads happened, and the kernel
# printed no WARNING, BUG, lockdep or KASAN report. The guest has two
# vCPUs (RACE_CPUS) and the plugin holds every read of those blocks 50 ms
# (RACE_STALL_MS), so a re-read stays in flight while updates run.
# Runs on every kernel variant built with csum_retry: patched, kasan
# (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, preemption: kernel/config/kasan.config)
# and patched-smp (two CPUs, preemption: kernel/config/smp.config) when
# built; CI requires kasan. RACE_VARIANTS="NAME..." runs it on those
# kernels instead. What it cannot show: kernel/README.md.
# Groups: csum.
. "$(dirname "$0")/lib.sh"
kt_require patched
[ -f "$top/build/lib/nbdkit-flipbed-plugin.so" ] ||
	skip "flipbed nbdkit plugin not built (make build/lib/nbdkit-flipbed-plugin.so)"
# RACE_VARIANTS: other kernels, e.g. an earlier series built from a
# kernels.ini of its own (FLIPBED_KERNELS_INI, kernel/README.md)
kt_csum_variants "${RACE_VARIANTS:-}" "the race"
[ -z "${RACE_VARIANTS:-}" ] && [ -f "$B/kernel/patched-smp/bzImage" ] && variants="$variants patched-smp"
threads=8 rounds=${RACE_ROUNDS:-100} blocks=${RACE_BLOCKS:-32}
cpus=${RACE_CPUS:-2} stall=${RACE_STALL_MS:-50}

img=$T/race.img
mkfs.ext4 -q -F -b 4096 -I 256 -O metadata_csum,^has_journal "$img" 64M
# inodes 12..16 fill the first table block (/r and four pads): then each
# block holds f(15b)..f(15b+14) and vb
{
	echo "mkdir r"; for i in 1 2 3 4; do echo "write /dev/null p$i"; done
	for b in $(seq 0 $((blocks - 1))); do
		for i in $(seq 0 14); do echo "write /dev/null r/f$((15 * b + i))"; done
		echo "write /dev/null r/v$b"
	done
} | debugfs -w -f - "$img" >/dev/null 2>&1
rules=
for b in $(seq 0 $((blocks - 1))); do
	blk=$(kt_itable_block "$img" /r/v$b)
	[ -n "$blk" ] && [ "$(kt_itable_block "$img" /r/f$((15 * b)))" = "$blk" ] &&
		[ "$(kt_itable_block "$img" /r/f$((15 * b + 14)))" = "$blk" ] ||
		fail "/r/f$((15 * b))..f$((15 * b + 14)) and /r/v$b are not in one inode table block"
	off=$(debugfs -R "imap /r/v$b" "$img" 2>/dev/null | sed -n 's/.*offset \(0x[0-9a-f]*\).*/\1/p')
	# bit 0 of the victim's i_atime: covered by its checksum only
	rules="$rules --rule 'on=read at=$((blk * 4096 + off + 8)) len=1 flip=0'"
	# every read of the block takes STALL ms: a re-read into the shared
	# buffer stays in flight while the other vCPU's updates land in it
	[ "$stall" -gt 0 ] && rules="$rules --rule 'on=read at=$((blk * 4096)) len=4096 stall=$stall'"
done

for v in $variants; do
	eval kt_boot $v $v "$img" $rules --timeout 600 --faultlog "$T/$v.faults" --cpus $cpus \
		--step "'mount errors=continue,csum_retry'" \
		--step "'attr-race /r $threads $rounds'" --step umount >/dev/null
	kt_has $v "step 2 attr-race /r $threads $rounds -> ok" &&
		ok "$v: no update lost during the race ($(sed -n 's/.*step 2 attr-race .* -> ok //p' "$T/$v.out"))" ||
		check_fail "$v: $(grep -F "step 2 attr-race" "$T/$v.out" | tail -n 1); $(grep -c '^out 2 lost' "$T/$v.out") lost"
	# on the disk: the mode and times of round $rounds (the guest's formula)
	lost=$(for i in $(seq 0 $((15 * blocks - 1))); do echo "stat /r/f$i"; done |
		debugfs -f - "$T/$v.img" 2>/dev/null | python3 -c "
import re, sys
rounds, files = int(sys.argv[1]), int(sys.argv[2])
seen = lost = 0
for block in re.split(r'^debugfs: +stat /r/f', sys.stdin.read(), flags=re.M)[1:]:
    n = int(block.split(None, 1)[0])
    mode = int(re.search(r'Mode: +([0-7]+)', block).group(1), 8)
    mtime = int(re.search(r'mtime: (0x[0-9a-f]+)', block).group(1), 16)
    seen += 1
    if mode & 0o7777 != 0o400 | ((rounds * 7 + n) & 0o377) or mtime != 1000000 + rounds * 100 + n:
        lost += 1
print(lost + files - seen)
" $rounds $((15 * blocks)))
	[ "$lost" = 0 ] && ok "$v: no update lost on disk (debugfs)" ||
		check_fail "$v: ${lost:-?} of $((15 * blocks)) files on disk without their last values"
	# every read of a block from disk flips its victim: the first read of
	# each block, then one re-read per retry (a block is retried once)
	rereads=$(( $(grep -c '"action":"flip"' "$T/$v.faults") - blocks ))
	n=$(grep -c "csum-error (device vda): type=inode" "$T/$v.out")
	rec=$(grep -c "csum-error (device vda): type=inode .* recovered" "$T/$v.out")
	[ "$rereads" -ge 1 ] &&
		ok "$v: $rereads re-reads during the updates; $n csum-error lines, $rec recovered" ||
		check_fail "$v: no re-read ($n csum-error lines): the race did not take place"
	kt_no_reports $v
	[ "$(cat "$T/$v.rc")" = 0 ] || check_fail "$v: flipbed boot exited $(cat "$T/$v.rc")"
done
kt_done

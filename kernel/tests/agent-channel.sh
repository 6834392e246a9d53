#!/bin/sh
# SPDX-License-Identifier: MIT
# The agent's channel to the host loses no line when the guest kernel
# cannot allocate without sleeping. A virtio console (hvc) copies each
# write with GFP_ATOMIC in put_chars() (drivers/char/virtio_console.c),
# and hvc_push() throws the buffer away when that fails: a step result, a
# kmsg line or a counter transfer would vanish under memory pressure, as
# campaigns saw (whole lines missing from .gcda transfers). The channel
# must make no allocation that can fail that way.
#
# On kasan (kernel/config/kasan.config has failslab), the agent's step
# thread asks for every atomic slab allocation it makes to fail
# (/proc/thread-self/make-it-fail, failslab's task filter, probability
# 100, ignore-gfp-wait: allocations that may sleep are left alone), then
# sends about 2,000 lines (a cat of /proc/kallsyms, 64 KiB). Every line
# must arrive: the out lines add up to the bytes the step read and every
# step has its result. failslab's countdown shows the faults were real:
# the thread's other atomic allocations (not the channel's) were failed.
# Groups: boot.
. "$(dirname "$0")/lib.sh"
kt_require kasan

fs=/sys/kernel/debug/failslab
img=$T/base.img
kt_mkfs "$img"
kt_boot chan kasan "$img" \
	--step "set $fs/verbose 0" --step "set $fs/task-filter Y" \
	--step "set $fs/ignore-gfp-wait Y" --step "set $fs/interval 1" \
	--step "set $fs/times 20" --step "set $fs/probability 100" \
	--step "set /proc/thread-self/make-it-fail 1" \
	--step "cat /proc/thread-self/make-it-fail" \
	--step "cat /proc/kallsyms" \
	--step "set /proc/thread-self/make-it-fail 0" \
	--step "cat $fs/times" >/dev/null

[ "$(cat "$T/chan.rc")" = 0 ] && ok "flipbed boot: exit 0" ||
	check_fail "flipbed boot exit $(cat "$T/chan.rc") (a lost 'done' ends in a timeout)"
for n in 1 2 3 4 5 6 7 8 9 10 11; do
	grep -q "^step $n .* -> " "$T/chan.out" ||
		check_fail "step $n: its result line never arrived"
done
kt_has chan "out 8 1" && ok "the step thread asked to fail its atomic allocations" ||
	check_fail "make-it-fail did not read back 1: the fault was never armed"
bytes=$(sed -n 's/^step 9 cat \/proc\/kallsyms -> ok bytes=\([0-9]*\).*/\1/p' "$T/chan.out")
lines=$(grep -c '^out 9 ' "$T/chan.out")
sum=$(sed -n 's/^out 9 //p' "$T/chan.out" | awk '{ n += length($0) + 1 } END { print n + 0 }')
# the 64 KiB read may end inside a line: that last line has no newline
if [ -n "$bytes" ] && [ "$lines" -gt 1000 ] && [ "$sum" -ge "$bytes" ] &&
   [ "$sum" -le $((bytes + 1)) ]; then
	ok "cat /proc/kallsyms: $lines lines, $sum bytes with their newlines, the step read $bytes"
else
	check_fail "cat /proc/kallsyms: the step read '${bytes:-?}' bytes, $lines out lines hold $sum: lines were lost"
fi
left=$(sed -n 's/^out 11 \([0-9]*\)$/\1/p' "$T/chan.out")
[ -n "$left" ] && [ "$left" -lt 20 ] &&
	ok "failslab failed $((20 - left)) atomic allocations of the step thread meanwhile" ||
	check_fail "failslab's countdown is '${left:-?}' of 20: no fault was injected, the test proved nothing"
kt_done

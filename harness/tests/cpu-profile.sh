#!/bin/sh
# SPDX-License-Identifier: MIT
# Each record says where its CPU went ("cpu", harness/RESULTS.md) and when
# it was written ("finished"), one case per boot and batched:
#   - one case per boot: QEMU's boot and its case share, nbdkit, the image
#     copy, the three e2fsck runs and the data oracle, each present and
#     not negative; the boot's share more than nothing;
#   - batched (3 cases in one boot): only the first case carries the
#     boot's share, every case its own QEMU share;
#   - over the run, QEMU's case share, nbdkit, e2fsck and the data oracle
#     each add up to more than nothing (a phase whose plumbing is cut
#     would read 0 everywhere; a 3 ms e2fsck run alone may read 0 under
#     tick-based CPU accounting, so single runs are not held to it);
#   - "finished" is a UTC stamp inside the run's own start and end;
#   - harness/bench-profile.sh prints every phase of the run, and refuses
#     a run whose records carry no "cpu" (exit 2).
# Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock
require_tools jq
cd "$top" || exit 1

before=$(date -u +%Y-%m-%dT%H:%M:%S)
"$FLIPBED" run scenarios/inode/base-flip.scn --kernel stock --set fault.timing=rest \
	--batch 1 --jobs 1 --out "$T/one" > "$T/one.log" 2>&1 ||
	{ tail -n 5 "$T/one.log"; fail "the single case did not pass"; }
"$FLIPBED" run scenarios/inode/base-flip.scn scenarios/extent/leaf-flip.scn \
	scenarios/dir/leaf-flip.scn --kernel stock --set fault.timing=rest \
	--batch 3 --jobs 1 --out "$T/batch" > "$T/batch.log" 2>&1 ||
	{ tail -n 5 "$T/batch.log"; fail "the batched cases did not pass"; }
after=$(date -u +%Y-%m-%dT%H:%M:%S)

rec=$(head -n1 "$T/one/cases.jsonl")
for k in qemu_boot qemu nbdkit image data fsck.fn fsck.fy fsck.fn2; do
	v=$(echo "$rec" | jq ".cpu.$k")
	echo "$v" | grep -Eq '^[0-9.e+-]+$' || fail "one case per boot: cpu.$k is $v"
	[ "$(echo "$v >= 0" | bc -l)" = 1 ] || fail "one case per boot: cpu.$k is negative ($v)"
done
[ "$(echo "$(echo "$rec" | jq .cpu.qemu_boot) > 0" | bc -l)" = 1 ] ||
	fail "one case per boot: QEMU's boot used no CPU"
ok "one case per boot: every phase recorded ($(echo "$rec" | jq -c .cpu))"

n=$(wc -l < "$T/batch/cases.jsonl")
[ "$n" = 3 ] || fail "the batch recorded $n cases, not 3"
boots=$(jq -s '[.[] | .vm.boot] | unique | length' "$T/batch/cases.jsonl")
[ "$boots" = 1 ] || fail "the 3 cases ran in $boots boots, not 1"
first=$(jq -s '[.[] | select(.vm.place == 1 and .cpu.qemu_boot > 0)] | length' "$T/batch/cases.jsonl")
others=$(jq -s '[.[] | select(.vm.place != 1 and .cpu.qemu_boot != null)] | length' "$T/batch/cases.jsonl")
[ "$first" = 1 ] && [ "$others" = 0 ] ||
	fail "batched: the boot's share is on $first first and $others other cases (want 1 and 0)"
shares=$(jq -s '[.[] | select(.cpu.qemu >= 0 and .cpu.nbdkit >= 0 and .cpu.fsck.fn >= 0)] | length' \
	"$T/batch/cases.jsonl")
[ "$shares" = 3 ] || fail "batched: $shares of 3 cases carry their QEMU, nbdkit and e2fsck shares"
ok "batched: the boot's CPU on the first case only, each case its own share"

for phase in .cpu.qemu .cpu.nbdkit '.cpu.fsck.fn + .cpu.fsck.fy + .cpu.fsck.fn2' .cpu.data; do
	sum=$(cat "$T/one/cases.jsonl" "$T/batch/cases.jsonl" | jq -s "[.[] | $phase] | add")
	[ "$(echo "$sum > 0" | bc -l)" = 1 ] || fail "$phase adds up to $sum over the 4 cases"
done
ok "QEMU's cases, nbdkit, e2fsck and the data oracle each used CPU"

for f in $(cat "$T/one/cases.jsonl" "$T/batch/cases.jsonl" | jq -r .finished); do
	echo "$f" | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$' ||
		fail "finished is '$f', not a UTC stamp with milliseconds"
	s=${f%.*}
	[ "$s" \> "$before" ] || [ "$s" = "$before" ] || fail "finished $f is before the run ($before)"
	[ "$s" \< "$after" ] || [ "$s" = "$after" ] || fail "finished $f is after the run ($after)"
done
ok "finished: a UTC stamp inside the run"

harness/bench-profile.sh "$T/batch" 12.5 10 > "$T/profile" || fail "bench-profile failed"
for row in "QEMU booting" "QEMU running the cases" "nbdkit and the plugin" "image copy" \
	   "e2fsck -fn" "e2fsck -fy" "e2fsck -fn after -fy" "data oracle" "flipbed itself" \
	   "CPU per second of wall time" "median wall time"; do
	grep -q "$row" "$T/profile" || fail "bench-profile prints no '$row': $(cat "$T/profile")"
done
ok "bench-profile prints every phase"
mkdir "$T/old"
jq -c 'del(.cpu)' "$T/batch/cases.jsonl" > "$T/old/cases.jsonl"
rc=0
harness/bench-profile.sh "$T/old" > "$T/out" 2>&1 || rc=$?
[ $rc = 2 ] || fail "bench-profile on records without cpu: exit $rc, not 2"
ok "bench-profile refuses records without cpu ($(cat "$T/out"))"
finish

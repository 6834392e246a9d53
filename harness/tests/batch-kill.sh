#!/bin/sh
# SPDX-License-Identifier: MIT
# A batch whose QEMU is killed in the middle loses no finished case and
# runs the rest in a fresh boot: three cases share a boot (--batch 3), each
# sleeps 2 s in the guest (all three alike: a run puts the cases that sleep
# longer first and never batches them with others), and the QEMU gets
# SIGKILL 0.5 s after the first case is done, in the second's sleep. The first case keeps its pass from the first boot, the
# second is infra (QEMU killed), the third passes in a second boot, from
# a fresh copy of its image; nothing is left running. Groups: quick.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_flipbed
require_kernel stock
mkdir -p "$T/copy" && cp -r "$top/scenarios" "$T/copy/" || fail "cannot copy scenarios/ into $T/copy"
cd "$T/copy" || fail "cannot cd to $T/copy"
set -- scenarios/inode/base-flip.scn scenarios/group-desc/flip.scn scenarios/inline/file-flip.scn
for f; do
	sed -i 's/^\[workload\]$/&\nstep = sleep 2/' "$f" || fail "cannot edit the copy of $f"
done
"$FLIPBED" run "$@" --kernel stock --jobs 1 --batch 3 --verbose --out "$T/run" > "$T/out" 2> "$T/err" &
pid=$!
i=0
until grep -q '^inode/base-flip@stock: A done ' "$T/err" 2>/dev/null; do
	[ $i -lt 600 ] || { kill $pid; tail -n 20 "$T/err"; fail "the first case never said done"; }
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
qemu=$(pgrep -f -- "qemu-system-x86_64.*$T/flipbed-") || fail "no QEMU of this run to kill"
kill -KILL $qemu
wait $pid
echo "flipbed run: exit $?; QEMU $qemu killed during the second case"
rec() { grep "\"case\":\"$1@stock\"" "$T/run/cases.jsonl"; }
field() { sed -n "s/.*\"$2\":\"\\([^\"]*\\)\".*/\\1/p" | head -n 1; }
[ "$(wc -l < "$T/run/cases.jsonl")" -eq 3 ] || fail "$(wc -l < "$T/run/cases.jsonl") records, expected 3"
v=$(rec inode/base-flip | field x verdict)
[ "$v" = pass ] && rec inode/base-flip | grep -q '"vm":{"boot":1,"cases":3,"place":1}' &&
	echo "ok: the case done before the kill keeps its pass from the first boot" ||
	check_fail "inode/base-flip: verdict $v, batch $(rec inode/base-flip | grep -o '"vm":{[^}]*}')"
v=$(rec group-desc/flip | field x verdict)
rec group-desc/flip | grep -q '"infra":"[^"]*qemu[^"]*killed by signal 9' && [ "$v" = infra ] &&
	echo "ok: the case running at the kill is infra, QEMU killed" ||
	check_fail "group-desc/flip: verdict $v, infra '$(rec group-desc/flip | field x infra)'"
v=$(rec inline/file-flip | field x verdict)
[ "$v" = pass ] && rec inline/file-flip | grep -q '"vm":{"boot":2,"cases":1,"place":1}' &&
	echo "ok: the case not started ran in a second boot and passed" ||
	check_fail "inline/file-flip: verdict $v, batch $(rec inline/file-flip | grep -o '"vm":{[^}]*}')"
no_leftovers
finish

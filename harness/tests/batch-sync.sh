#!/bin/sh
# SPDX-License-Identifier: MIT
# A case of a batch leaves its disk as a case alone does: what its
# workload wrote is written back before the host freezes the disk, as the
# sync before a reboot writes it back when a case has the boot to itself.
# Two cases that each write /b (100 bytes) and end without a sync step
# share a boot (--batch 2); on each kept image, once its journal is
# replayed, /b holds 100 bytes, the first case's as well as the last's.
# Groups: quick.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_flipbed
require_kernel stock
require_tools e2fsck debugfs
mkdir -p "$T/copy" && cp -r "$top/scenarios" "$T/copy/" || fail "cannot copy scenarios/ into $T/copy"
cd "$T/copy" || fail "cannot cd to $T/copy"
scn=scenarios/superblock/backup-flip.scn
grep -q '^step = write /b 100$' $scn && ! grep -q '^step = .*sync' $scn ||
	fail "$scn no longer writes /b without a sync: pick another scenario"
cp $scn scenarios/superblock/backup-flip-again.scn || fail "cannot copy $scn"
"$FLIPBED" run $scn scenarios/superblock/backup-flip-again.scn --kernel stock --jobs 1 \
	--batch 2 --keep --out "$T/run" > "$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] || { tail -n 20 "$T/out"; fail "flipbed run: exit $rc"; }
grep -q '"vm":{"boot":1,"cases":2,"place":2}' "$T/run/cases.jsonl" ||
	fail "the two cases did not share a boot: $(grep -o '"vm":{[^}]*}' "$T/run/cases.jsonl")"
for c in backup-flip backup-flip-again; do
	img=$T/run/cases/superblock_$c@stock/image.raw
	[ -f "$img" ] || { check_fail "$c: no kept image $img"; continue; }
	cp --sparse=always "$img" "$T/replayed.img" || fail "cannot copy $img"
	e2fsck -fy -E journal_only "$T/replayed.img" > "$T/fsck.out" 2>&1
	rc=$?
	[ $rc -le 1 ] || { cat "$T/fsck.out"; check_fail "$c: replaying the journal: e2fsck exit $rc"; continue; }
	size=$(debugfs -R "stat /b" "$T/replayed.img" 2>/dev/null | sed -n 's/.*Size: \([0-9]*\).*/\1/p' | head -n 1)
	place=$(grep "\"case\":\"superblock/$c@stock\"" "$T/run/cases.jsonl" | grep -o '"place":[0-9]*')
	[ "$size" = 100 ] && ok "$c ($place): /b holds 100 bytes on its disk" ||
		check_fail "$c ($place): /b on its disk: size '${size:-no such file}', expected 100"
done
no_leftovers
finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# Every case that has a case directory gets a case.json saying why it
# failed, whichever step failed; the sockets of a case live in a private
# directory made by mkdtemp under $TMPDIR and removed without a shell.
#   1. transcript.log cannot be written (a directory is in its place): the
#      record is infra and names transcript.log (not "the worker exited
#      without a record"). flipbed removes what an earlier run left in a
#      case's directory before the case starts, so the directory holds an
#      immutable file (chattr +i, as root on a file system that has the
#      attribute) that the removal cannot take away.
#   2. TMPDIR does not exist: the record is infra and names the private
#      directory (flipbed does not fall back to another place).
#   3. a normal case leaves no flipbed-* directory in $TMPDIR.
# Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock
scn=$top/scenarios/inode/base-flip.scn
args="--kernel stock --set fault.timing=rest --jobs 1"
dir=cases/inode_base-flip@stock

echo "=== transcript.log cannot be written"
# flipbed image adds to its --out directory (run and matrix refuse a
# non-empty one), so a directory can stand where the transcript goes
out=$T/run1
mkimage "$T/disk.img"
mkdir -p "$out/cases/image_disk@stock/transcript.log"
stuck=$out/cases/image_disk@stock/transcript.log/stuck
: > "$stuck"
require_tools chattr
chattr +i "$stuck" || skip "chattr +i failed: this file system has no immutable attribute"
"$FLIPBED" image "$T/disk.img" --kernel stock --out "$out" > "$T/log" 2>&1
rc=$?
chattr -i "$stuck"
cat "$T/log"
[ $rc -eq 3 ] || fail "unwritable transcript: exit $rc, expected 3 (infra)"
rec=$out/cases/image_disk@stock/case.json
[ -f "$rec" ] || fail "unwritable transcript: no case.json written"
grep -q '"verdict": "infra"' "$rec" || fail "unwritable transcript: verdict is not infra"
grep -q '"infra": "cannot write .*transcript.log: Is a directory' "$rec" ||
	fail "unwritable transcript: the record does not name transcript.log: $(grep '"infra"' "$rec")"

echo "=== TMPDIR does not exist"
out=$T/run2
TMPDIR=$T/missing "$FLIPBED" run "$scn" $args --out "$out" > "$T/log" 2>&1
rc=$?
cat "$T/log"
[ $rc -eq 3 ] || fail "missing TMPDIR: exit $rc, expected 3 (infra)"
grep -q '"infra": "no private directory' "$out/$dir/case.json" ||
	fail "missing TMPDIR: the record does not name the private directory"
grep -q "cannot make a private directory under $T/missing" "$T/log" ||
	fail "missing TMPDIR: no message naming $T/missing"

echo "=== a normal case leaves no private directory"
out=$T/run3
"$FLIPBED" run "$scn" $args --out "$out" > "$T/log" 2>&1
rc=$?
tail -3 "$T/log"
[ $rc -eq 0 ] || fail "normal case: exit $rc, expected 0"
left=$(ls -d "$T"/flipbed-* 2>/dev/null)
[ -z "$left" ] || fail "normal case: left behind: $left"
no_leftovers
echo "ok"

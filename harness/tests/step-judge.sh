#!/bin/sh
# SPDX-License-Identifier: MIT
# A step's own expectation is judged: without a fault, a bare step must
# succeed and `expect ERRNAME STEP` must fail with ERRNAME, else the case
# fails with "step N TEXT: expected X, got Y"; `may` steps are never judged;
# in a fault case a bare step's failure is the fault's effect (detect and
# reaction record it) and `expect` steps are still judged. Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock

# scn NAME TARGET-TYPE EXPECT-DETECT STEP...: a scenario file in $T
scn() {
	f=$T/$1.scn target=$2 detect=$3; shift 3
	{
		printf '[scenario]\nshows = step judging: %s\ngroups = quick\nkernels = stock\n' "$f"
		printf '[mkfs]\nfeatures = metadata_csum\noptions = -b 4096 -I 256\nsize = 64M\n'
		printf '[populate]\nfile = /a 5000\n'
		printf '[target]\ntype = %s\n' "$target"
		[ "$target" = inode ] && printf 'path = /a\nseed = 1\n[fault]\ntiming = rest\n'
		printf '[workload]\n'
		for s in "$@"; do printf 'step = %s\n' "$s"; done
		printf '[expect]\ndetect = %s\nreaction = any\nfsck = any\ndata = any\n' "$detect"
	} > "$f"
}

# run NAME: run $T/NAME.scn, leave its case.json in $T/NAME.json
run() {
	"$FLIPBED" run "$T/$1.scn" --jobs 1 --out "$T/run-$1" > "$T/$1.log" 2>&1
	echo $? > "$T/$1.rc"
	cat "$T/run-$1"/cases/*/case.json > "$T/$1.json" 2>/dev/null
}

scn met none none mount 'read /a 5000' 'expect ENOENT read /nothing'
scn bare none none mount 'read /nothing'
scn wrong none none mount 'expect ENOENT read /a 5000'
scn may none none mount 'may read /nothing'
scn fault inode csum mount 'read /a 5000' 'expect ENOENT stat /nothing'
scn faultwrong inode csum mount 'read /a 5000' 'expect ENOENT stat /a'
for n in met bare wrong may fault faultwrong; do run $n; done

[ "$(cat "$T/met.rc")" = 0 ] || { cat "$T/met.log"; fail "met steps: exit $(cat "$T/met.rc")"; }
ok "met steps pass"
[ "$(cat "$T/bare.rc")" = 1 ] || fail "a failing bare step without a fault: exit $(cat "$T/bare.rc"), expected 1"
grep -q '"step 2 read /nothing: expected ok, got ENOENT"' "$T/bare.json" ||
	fail "no mismatch line for the failing bare step: $(grep -A3 mismatch "$T/bare.json")"
ok "a failing bare step fails the case"
[ "$(cat "$T/wrong.rc")" = 1 ] || fail "an unmet expect step: exit $(cat "$T/wrong.rc"), expected 1"
grep -q '"step 2 expect ENOENT read /a 5000: expected ENOENT, got ok"' "$T/wrong.json" ||
	fail "no mismatch line for the unmet expect step: $(grep -A3 mismatch "$T/wrong.json")"
ok "an unmet expect step fails the case"
[ "$(cat "$T/may.rc")" = 0 ] || fail "a failing may step: exit $(cat "$T/may.rc"), expected 0"
ok "a may step is not judged"
[ "$(cat "$T/fault.rc")" = 0 ] || { cat "$T/fault.log"; fail "fault case with a failing bare read: exit $(cat "$T/fault.rc"), expected 0"; }
grep -q '"errno": "EBADMSG"' "$T/fault.json" || fail "the fault case's read did not fail with EBADMSG"
ok "in a fault case the bare step's EBADMSG is the fault's effect"
[ "$(cat "$T/faultwrong.rc")" = 1 ] || fail "fault case with an unmet expect step: exit $(cat "$T/faultwrong.rc"), expected 1"
grep -q '"step 3 expect ENOENT stat /a: expected ENOENT, got' "$T/faultwrong.json" ||
	fail "no mismatch for the fault case's unmet expect step: $(grep -A3 mismatch "$T/faultwrong.json")"
ok "in a fault case an expect step is still judged"
no_leftovers
echo "ok"

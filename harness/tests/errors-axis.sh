#!/bin/sh
# SPDX-License-Identifier: MIT
# ext4's errors= mount option as a matrix axis (scenarios/matrix/errors.mat):
# checksum errors of five object types (inode, block bitmap, extent leaf,
# xattr block, directory leaf) on the patched 6.1 kernel under
# errors=remount-ro, continue and panic: every case must meet the
# expectation the option implies (the whole matrix exits 0); the inode
# case is looked at closely: each mount step gets the option, and the
# reactions are remount-ro, error-continue, and a panic that is a kernel
# outcome, not infra. A bad value is bad input.
# Groups: quick, csum.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel patched
cd "$top" || fail "cd $top"

"$FLIPBED" matrix scenarios/matrix/errors.mat --jobs 2 --out "$T/run" > "$T/log" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$T/log"; fail "matrix errors.mat exited $rc, expected 0"; }
# case VALUE REACTION: its record passed with REACTION and mounted with errors=VALUE
case_ok() {
	line=$(grep "\"case\":\"inode/base-flip:rest:$1@patched\"" "$T/run/cases.jsonl") ||
		fail "no case for errors=$1"
	echo "$line" | grep -q '"verdict":"pass"' || fail "errors=$1: not pass: $line"
	echo "$line" | grep -q "\"reaction\":\"$2\"" || fail "errors=$1: reaction is not $2"
	echo "$line" | grep -q "\"text\":\"mount errors=$1\"" || fail "errors=$1: the mount step lacks errors=$1"
	ok "errors=$1: reaction $2, pass"
}
case_ok remount-ro remount-ro
case_ok continue error-continue
case_ok panic panic

"$FLIPBED" run scenarios/inode/base-flip.scn --kernel patched \
	--set workload.errors=sometimes > "$T/bad" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "errors=sometimes: exit $rc, expected 2"
grep -q 'errors = sometimes: accepted: remount-ro, continue, panic' "$T/bad" ||
	fail "bad errors= value: $(cat "$T/bad")"
ok "errors=sometimes refused"
no_leftovers
finish

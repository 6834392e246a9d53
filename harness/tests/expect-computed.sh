#!/bin/sh
# SPDX-License-Identifier: MIT
# The expectation computed from the fault is judged whatever the scenario
# writes, and undetected's default is "explained". journal/commit-flip at
# rest on stock-6.12: the flipped commit block fails its checksum in
# recovery (do_one_pass), and 6.12 replays it as a torn commit
# (jbd2_commit_block_csum_verify_partial). The scenario writes no detect
# for 6.12, so the computed csum decides: a case that detects nothing is
# undetected, unexplained, and must fail on both counts; one whose
# classifier counts the notice as csum passes. Either way the record says
# what was computed. Groups: csum.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock-6.12

"$FLIPBED" run scenarios/journal/commit-flip.scn --kernel stock-6.12 \
	--set fault.timing=rest --jobs 1 --out "$T/run" > "$T/log" 2>&1
rc=$?
rec=$(ls "$T"/run/cases/*/case.json 2>/dev/null | head -1)
[ -n "$rec" ] || { cat "$T/log"; fail "no case.json (exit $rc)"; }
field() { jq -r "$1" "$rec"; }

[ "$(field .expect_computed.detect)" = csum ] ||
	fail "expect_computed: $(field .expect_computed), expected detect csum"
ok "expect_computed: $(field .expect_computed.why)"
[ "$(field .expect.undetected)" = explained ] ||
	fail "expect.undetected: $(field .expect.undetected), expected the default explained"
case $(field .outcome.detect) in
none)
	[ "$(field .verdict)" = fail ] && [ $rc = 1 ] ||
		fail "detect none, undetected $(field .outcome.undetected): verdict $(field .verdict), exit $rc; expected fail, 1"
	field '.mismatch[]' | grep -q '^detect: computed csum (target checksum-covered' ||
		fail "no computed-detect mismatch: $(field '.mismatch')"
	field '.mismatch[]' | grep -qx 'undetected: expected explained, got unexplained' ||
		fail "no undetected mismatch: $(field '.mismatch')"
	ok "undetected, unexplained: fails on the computed detect and the default undetected"
	;;
csum)
	[ "$(field .verdict)" = pass ] || fail "detect csum: verdict $(field .verdict): $(field .mismatch)"
	ok "detect csum: passes"
	;;
*)
	fail "detect $(field .outcome.detect): expected none or csum"
	;;
esac

#!/bin/sh
# SPDX-License-Identifier: MIT
# Timeout and cleanup: a step that does not end in time (sleep
# 100000) is killed at --timeout, flipbed exits 4, and no QEMU or nbdkit
# process of the test remains. What is asserted is what flipbed reports
# (the timeout end, and its own clock: not before the 15 s; the boot
# itself counts, and takes several seconds on a loaded machine), not the wall
# time of a shared machine; an outer timeout only guards against a hang.
# Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock
require_tools timeout
img=$T/img
mkimage "$img"
timeout 120 "$FLIPBED" boot --kernel stock --image "$img" --timeout 15 --step mount \
	--step 'sleep 100000' > "$T/log"
rc=$?
cat "$T/log"
[ $rc -ne 124 ] || fail "flipbed boot still ran after 120 s: the timeout was not enforced"
[ $rc -eq 4 ] || fail "flipbed boot exited $rc, expected 4 (timeout)"
grep -q '^flipbed: guest end: timeout' "$T/log" || fail "no 'guest end: timeout' line"
grep -q '^step 1 mount -> ok' "$T/log" || fail "the guest did not get to its steps"
took=$(sed -n 's/^flipbed: times .* total \([0-9.]*\) s.*/\1/p' "$T/log")
[ -n "$took" ] || fail "no 'flipbed: times ... total' line"
echo "$took" | awk '{ exit !($1 >= 15) }' || fail "ended after ${took} s, before the 15 s timeout"
no_leftovers
echo "ok: exit 4 after ${took} s by flipbed's clock, nothing left"

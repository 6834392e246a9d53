#!/bin/sh
# SPDX-License-Identifier: MIT
# Timeout and cleanup: a step that does not end in time (sleep
# 100000) is killed at --timeout, flipbed exits 4, and no QEMU or nbdkit
# process of the test remains. Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock
img=$T/img
mkimage "$img"
start=$(date +%s)
"$FLIPBED" boot --kernel stock --image "$img" --timeout 6 --step mount \
	--step 'sleep 100000' > "$T/log"
rc=$?
took=$(($(date +%s) - start))
cat "$T/log"
[ $rc -eq 4 ] || fail "flipbed boot exited $rc, expected 4 (timeout)"
grep -q '^flipbed: guest end: timeout' "$T/log" || fail "no 'guest end: timeout' line"
grep -q '^step 1 mount -> ok' "$T/log" || fail "the guest did not get to its steps"
[ $took -le 12 ] || fail "took ${took}s for a 6 s timeout"
no_leftovers
echo "ok: exit 4 after ${took}s, nothing left"

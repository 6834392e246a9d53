#!/bin/sh
# SPDX-License-Identifier: MIT
# A kernel panic is a kernel outcome, not a hang or an infra failure: with
# errors=panic and /d/small's inode checksum zeroed, reading it panics the
# guest; QEMU exits (panic=-1, -no-reboot) without the agent's "done",
# flipbed says "guest end: reboot", prints the console's last lines with the
# panic, exits 1 and leaves nothing behind. Groups: quick, csum.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock
img=$T/img
mkimage "$img"
populate "$img" stock
debugfs -w -R 'set_inode_field /d/small checksum 0' "$img" || fail "debugfs -w"
"$FLIPBED" boot --kernel stock --image "$img" --timeout 60 --step 'mount errors=panic' \
	--step 'read /d/small' > "$T/log"
rc=$?
cat "$T/log"
[ $rc -eq 1 ] || fail "flipbed boot exited $rc, expected 1"
grep -q '^flipbed: guest end: reboot' "$T/log" || fail "no 'guest end: reboot' line"
grep -q '^console .*Kernel panic' "$T/log" || fail "the console tail does not show the panic"
grep -q '^done ' "$T/log" && fail "the agent said done after a panic"
no_leftovers
echo "ok: panic seen, exit 1"

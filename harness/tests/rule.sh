#!/bin/sh
# SPDX-License-Identifier: MIT
# --rule and --rule-at through the flipbed nbdkit plugin: a one-bit flip in
# /d/small's on-disk inode, returned by reads only, makes reading the file
# fail with EBADMSG, whether armed before boot or at a wait point after
# the workload started; the image itself stays clean; a rule the plugin
# refuses is bad input (exit 2). Groups: quick, csum.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock
[ -r "$B/lib/nbdkit-flipbed-plugin.so" ] ||
	skip "$B/lib/nbdkit-flipbed-plugin.so not built (make build/lib/nbdkit-flipbed-plugin.so)"
img=$T/img
mkimage "$img"
populate "$img" stock
off=$(inode_offset "$img" /d/small)
[ -n "$off" ] || fail "debugfs imap /d/small gave no offset"
# bit 0 of l_i_checksum_lo (inode byte 0x7c)
rule="on=read at=$((off + 124)) len=1 flip=0"
echo "=== --rule '$rule'"
"$FLIPBED" boot --kernel stock --image "$img" --faultlog "$T/faults.jsonl" --rule "$rule" \
	--step mount --step 'read /a 5000' --step 'expect EBADMSG read /d/small' > "$T/log"
rc=$?
cat "$T/log"
[ $rc -eq 0 ] || fail "--rule: flipbed boot exited $rc, expected 0"
grep -q '^kmsg .*checksum invalid' "$T/log" || fail "--rule: no 'checksum invalid' kernel message"
[ -s "$T/faults.jsonl" ] || fail "--rule: the fault log $T/faults.jsonl is empty"
e2fsck -fn "$img" > /dev/null || fail "--rule: a read fault changed the image"

# /a's inode lies in another inode table block than /d's and /d/small's;
# without inode table readahead, reading /a before the wait point leaves
# /d/small's block unread
echo "=== --rule-at warm '$rule'"
"$FLIPBED" boot --kernel stock --image "$img" --rule-at warm "$rule" \
	--step 'mount inode_readahead_blks=0' \
	--step 'read /a 5000' --step 'wait warm' --step 'expect EBADMSG read /d/small' > "$T/log"
rc=$?
cat "$T/log"
[ $rc -eq 0 ] || fail "--rule-at: flipbed boot exited $rc, expected 0"
grep -q '^flipbed: at wait warm: add .* -> ok' "$T/log" || fail "--rule-at: the rule was not armed at 'wait warm'"

echo "=== refused rule"
"$FLIPBED" boot --kernel stock --image "$img" --rule 'on=sideways at=0 len=1 flip=0' \
	--step mount > "$T/log" 2> "$T/err"
rc=$?
cat "$T/log" "$T/err"
[ $rc -eq 2 ] || fail "refused rule: flipbed boot exited $rc, expected 2"
no_leftovers
echo "ok"

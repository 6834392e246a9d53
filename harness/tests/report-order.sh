#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed report --order on the committed verdict campaign records
# (results/baseline/verdict/, made before records carried order_violation):
# the violations a record still tells are found. On patched, a dx root
# whose dx_root_info.reserved_zero was flipped gave EUCLEAN first (the
# old ext4_dx_csum_verify found no count/limit: the conflict names it),
# and a group descriptor's bitmap location was judged by
# ext4_check_descriptors with no csum-error line at all; stock prints no
# csum-error lines, so none of its cases is judged. Then the same on a
# record that carries order_violation, and on one whose order_violation
# is null. Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_tools xz jq

for k in patched stock; do
	mkdir -p "$T/$k"
	xz -dc "$top/results/baseline/verdict/$k/cases.jsonl.xz" > "$T/$k/cases.jsonl" ||
		fail "xz -dc results/baseline/verdict/$k/cases.jsonl.xz"
done
"$FLIPBED" report --order "$T/patched" "$T/stock" > "$T/out" 2>&1
rc=$?
sed 's/^/    /' "$T/out" | grep '^    #'
[ $rc = 1 ] && ok "exit 1: violations found" || check_fail "exit $rc, expected 1"
line=$(grep '^case-00042@patched	' "$T/out")
case $line in
*"	dx-root	the first FAN_FS_ERROR event is EUCLEAN, not EBADMSG") ok "case 42: $line" ;;
*) check_fail "case 42: '$line'" ;;
esac
grep -q '^# patched	ext4_dx_csum_verify	' "$T/out" &&
	ok "the dx-root cases are counted under ext4_dx_csum_verify" ||
	check_fail "no count for ext4_dx_csum_verify"
line=$(grep '^case-00144@patched	' "$T/out")
case $line in
*"	group-desc	ext4_check_descriptors logged 'EXT4-fs "*"ext4_check_descriptors: "*) ok "case 144: group-desc" ;;
*) check_fail "case 144: '$line'" ;;
esac
grep -q '@stock	' "$T/out" && check_fail "a stock case judged: $(grep -m 1 '@stock	' "$T/out")"

# a record with the field: it decides, whatever else the record says
mkdir -p "$T/new"
jq -c 'select(.case == "case-00042@patched") | .order_violation =
	{"first_line": "EXT4-fs error (device vda): f:1: x", "function": "f", "fanotify": null}' \
	"$T/patched/cases.jsonl" > "$T/new/cases.jsonl"
"$FLIPBED" report --order "$T/new" > "$T/out2" 2>&1
grep -q "^case-00042@patched	patched	dx-root	f logged 'EXT4-fs error (device vda): f:1: x' before the first csum-error line\$" "$T/out2" &&
	ok "order_violation decides" || check_fail "order_violation: $(cat "$T/out2")"
mkdir -p "$T/null"
jq -c 'select(.case == "case-00042@patched") | .order_violation = null' \
	"$T/patched/cases.jsonl" > "$T/null/cases.jsonl"
"$FLIPBED" report --order "$T/null" > "$T/out3" 2>&1
[ $? = 0 ] && grep -q '^# 0 violations' "$T/out3" && ok "order_violation null: no violation" ||
	check_fail "order_violation null: $(cat "$T/out3")"
finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed report --order on the committed verdict campaign records
# (results/baseline/verdict/): on patched and patched-6.12 a group
# descriptor's bitmap location was judged by ext4_check_descriptors before
# its checksum (32 cases on each), and on patched-6.12 a journal superblock
# with an unknown feature bit was refused by journal_check_superblock
# before its checksum, ext4_get_journal_inode logging first (2 cases);
# the dx roots whose header the earlier series judged first (case 42,
# among others) report their checksum first; stock prints no csum-error
# lines, so none of its cases is judged. Then records without
# order_violation (written before it existed): the fallback on the
# signals still finds case 144 and not case 42; a record that carries
# order_violation is decided by it, and one whose order_violation is null
# has no violation. Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_tools xz jq

for k in patched patched-6.12 stock; do
	mkdir -p "$T/$k"
	xz -dc "$top/results/baseline/verdict/$k/cases.jsonl.xz" > "$T/$k/cases.jsonl" ||
		fail "xz -dc results/baseline/verdict/$k/cases.jsonl.xz"
done
"$FLIPBED" report --order "$T/patched" "$T/patched-6.12" "$T/stock" > "$T/out" 2>&1
rc=$?
sed 's/^/    /' "$T/out" | grep '^    #'
[ $rc = 1 ] && ok "exit 1: violations found" || check_fail "exit $rc, expected 1"
for want in "patched	ext4_check_descriptors	32" "patched-6.12	ext4_check_descriptors	32" \
	    "patched-6.12	ext4_get_journal_inode	2"; do
	grep -q "^# $want " "$T/out" && ok "counted: $want" || check_fail "no count '$want'"
done
n=$(grep -c '^# [a-z0-9.-]*	' "$T/out")
[ "$n" = 3 ] && ok "no other function" || check_fail "$n counts, expected 3"
line=$(grep '^case-00144@patched	' "$T/out")
case $line in
*"	group-desc	ext4_check_descriptors logged 'EXT4-fs "*"ext4_check_descriptors: "*) ok "case 144: group-desc" ;;
*) check_fail "case 144: '$line'" ;;
esac
line=$(grep '^case-00662@patched-6.12	' "$T/out")
case $line in
*"	journal-sb	ext4_get_journal_inode logged "*) ok "case 662: journal-sb" ;;
*) check_fail "case 662: '$line'" ;;
esac
grep -q '^case-00042@' "$T/out" && check_fail "case 42 (a dx root) still a violation: $(grep '^case-00042@' "$T/out")"
grep -q '@stock	' "$T/out" && check_fail "a stock case judged: $(grep -m 1 '@stock	' "$T/out")"

# records without the field: the signals decide
mkdir -p "$T/old"
jq -c 'del(.order_violation)' "$T/patched/cases.jsonl" > "$T/old/cases.jsonl"
"$FLIPBED" report --order "$T/old" > "$T/out1" 2>&1
grep -q '^case-00144@patched	' "$T/out1" && ok "without the field: case 144 found" ||
	check_fail "without the field: case 144 not found"
grep -q '^case-00042@patched	' "$T/out1" &&
	check_fail "without the field: case 42 judged a violation: $(grep '^case-00042@' "$T/out1")"

# a record with the field: it decides, whatever else the record says
mkdir -p "$T/new"
jq -c 'select(.case == "case-00042@patched") | .order_violation =
	{"first_line": "EXT4-fs error (device vda): f:1: x", "function": "f", "fanotify": null}' \
	"$T/patched/cases.jsonl" > "$T/new/cases.jsonl"
"$FLIPBED" report --order "$T/new" > "$T/out2" 2>&1
grep -q "^case-00042@patched	patched	dx-root	f logged 'EXT4-fs error (device vda): f:1: x' before the first csum-error line\$" "$T/out2" &&
	ok "order_violation decides" || check_fail "order_violation: $(cat "$T/out2")"
mkdir -p "$T/null"
jq -c 'select(.case == "case-00144@patched") | .order_violation = null' \
	"$T/patched/cases.jsonl" > "$T/null/cases.jsonl"
"$FLIPBED" report --order "$T/null" > "$T/out3" 2>&1
[ $? = 0 ] && grep -q '^# 0 violations' "$T/out3" && ok "order_violation null: no violation" ||
	check_fail "order_violation null: $(cat "$T/out3")"
finish

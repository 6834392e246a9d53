#!/bin/sh
# SPDX-License-Identifier: MIT
# The coverage kernels, booted. An inode-bitmap flip, a block-bitmap flip
# (both read at once) and the clean inline workloads run on stock-gcov and
# patched-gcov, batched, then one case per boot; `flipbed coverage` reads
# both runs. Each case must bring its counters back, and its counts must be
# its own: in a batch every case after the first runs after another case
# in the same kernel, so a counter not reset would give it the earlier
# case's failure branch. So each case's failed sites must be exactly the
# verification of its own object (ext4_validate_inode_bitmap,
# ext4_validate_block_bitmap, none for a clean workload), on both kernels,
# and the same in both runs. The bitmap sites' failure branches must have
# run their report call. coverage.md names the repro commands.
# Bad input, each exit 2 with one line that says why: --sites of a kernel
# without coverage, a run made on stock, a record whose build id is not
# the kernel's (both ids named), a .gcda whose stamp is not the kernel's
# notes' (both stamps named).
# Groups: coverage.
. "$(dirname "$0")/../../../tests/lib.sh"
require_tools jq gcov genhtml qemu-system-x86_64 nbdkit
require_built "$B/bin/flipbed" build/bin/flipbed
require_built "$B/guest/initramfs.cpio.gz" build/guest/initramfs.cpio.gz
require_kernel stock-gcov patched-gcov
F=$B/bin/flipbed
cd "$top" || fail "cannot cd to $top"

scns="scenarios/bitmap/inode-flip.scn scenarios/bitmap/block-flip.scn scenarios/inline/sizes.scn"
run() {
	_out=$1
	shift
	# shellcheck disable=SC2086
	"$F" run $scns --kernel stock-gcov,patched-gcov --set fault.timing=read --jobs 2 \
		--out "$T/$_out" "$@" > "$T/$_out.log" 2>&1 || {
		tail -n 20 "$T/$_out.log"
		fail "flipbed run ($_out) exit $?"
	}
	"$F" coverage "$T/$_out" > "$T/$_out.cov" 2>&1 || {
		cat "$T/$_out.cov"
		fail "flipbed coverage $_out: exit $?"
	}
}
run batched
run solo --batch 1

n=$(jq -s 'length' "$T/batched/cases.jsonl")
[ "$n" -ge 6 ] || fail "batched: $n cases, expected 6 or more"
bad=$(jq -r 'select(.coverage.status != "ok" or .coverage.files < 30) |
	"\(.case): \(.coverage)"' "$T/batched/cases.jsonl" "$T/solo/cases.jsonl")
[ -z "$bad" ] && ok "every case brought back its counters (30 files or more)" ||
	check_fail "cases without their counters: $bad"
# cases that ran after a case of another scenario in the same boot: what
# makes the check below able to see counts carried over
after_other=$(jq -s '[group_by("\(.kernel) \(.vm.boot)")[] | sort_by(.vm.place) | . as $b |
	range(1; length) as $i | select([$b[:$i][] | .scenario] | index($b[$i].scenario) | not)] |
	length' "$T/batched/cases.jsonl")
[ "$after_other" -ge 2 ] ||
	fail "batched: only $after_other cases ran after another scenario's case in their boot"
ok "batched: $after_other cases ran after another scenario's case in their boot"

# case -> the functions of its failed sites, sorted, "-" for none
failed_sites() {
	jq -r '.[] | .kernel as $k | .sites_table[] | .function as $f |
		.cases[] | select(.failed) | "\(.case) \($f)"' "$T/$1/coverage.json" |
		sort -u > "$T/$1.failed"
	jq -r '.case' "$T/$1/cases.jsonl" | sort | while read -r c; do
		f=$(awk -v c="$c" '$1 == c { print $2 }' "$T/$1.failed" | paste -s -d ,)
		echo "$c ${f:--}"
	done
}
failed_sites batched > "$T/batched.sets"
failed_sites solo > "$T/solo.sets"
while read -r c f; do
	case $c in
	bitmap/inode-flip*) want=ext4_validate_inode_bitmap ;;
	bitmap/block-flip*) want=ext4_validate_block_bitmap ;;
	*) want=- ;;
	esac
	[ "$f" = "$want" ] && ok "$c: failure branches: $f" ||
		check_fail "$c: failure branches '$f', expected '$want' (another case's counts?)"
done < "$T/batched.sets"
# the run named by a relative path reads the same counters
(cd "$T" && "$F" coverage solo --no-html > solo-rel.cov 2>&1) || fail "flipbed coverage solo (relative): exit $?"
failed_sites solo > "$T/solo-rel.sets"
cmp -s "$T/solo.sets" "$T/solo-rel.sets" && ok "a relative run path: the same failure branches" ||
	check_fail "a relative run path gives other failure branches: $(diff "$T/solo.sets" "$T/solo-rel.sets")"
diff "$T/batched.sets" "$T/solo.sets" > "$T/sets.diff" &&
	ok "the same failure branches one case per boot" ||
	check_fail "batched and solo differ: $(cat "$T/sets.diff")"
rep=$(jq -r '.[] | .sites_table[] | select(.function | test("ext4_validate_(inode|block)_bitmap")) |
	"\(.function) \(.failed) \(.reported)"' "$T/batched/coverage.json" | sort -u)
echo "$rep" | awk '$2 < 1 || $2 != $3 { bad = 1 } END { exit bad }' && [ -n "$rep" ] &&
	ok "the bitmap failure branches ran their report call: $(echo $rep)" ||
	check_fail "bitmap sites failed/reported: $rep"
grep -q '`build/bin/flipbed run scenarios/bitmap/inode-flip.scn --kernel stock-gcov' \
	"$T/batched/coverage.md" && grep -q 'Failure branches reached: [0-9]* of [0-9]*' \
	"$T/batched/coverage.md" && ok "coverage.md: the count and the repro commands" ||
	check_fail "coverage.md lacks the count or the repro commands"
[ -f "$T/batched/coverage/stock-gcov/index.html" ] && ok "genhtml's pages" ||
	check_fail "no genhtml pages in coverage/stock-gcov"
grep -q 'coverage.md' "$T/batched/summary.md" && ok "summary.md carries the table" ||
	check_fail "summary.md does not carry the coverage table"

# ---- bad input ----
expect2() {
	_what=$1 _pat=$2
	shift 2
	"$F" coverage "$@" > "$T/out" 2> "$T/err"
	_rc=$?
	[ "$_rc" = 2 ] && grep -q -- "$_pat" "$T/err" && [ "$(wc -l < "$T/err")" = 1 ] &&
		ok "$_what: exit 2, $(cat "$T/err")" ||
		check_fail "$_what: exit $_rc, stderr '$(cat "$T/err")', expected /$_pat/"
}
expect2 "--sites stock" "kernel stock counts nothing" --sites stock
"$F" run scenarios/bitmap/inode-flip.scn --kernel stock --out "$T/plain" > "$T/plain.log" 2>&1 ||
	fail "flipbed run on stock: exit $?"
expect2 "a run on stock" "no case ran on a coverage kernel" "$T/plain"

cp -r "$T/solo" "$T/otherid"
c=$(jq -r 'select(.kernel == "stock-gcov") | .case' "$T/otherid/cases.jsonl" | head -n 1)
id=$(cat "$B/kernel/stock-gcov/gcov/build-id")
jq -c --arg c "$c" 'if .case == $c then .coverage.build_id = "00112233445566778899aabbccddeeff00112233" else . end' \
	"$T/solo/cases.jsonl" > "$T/otherid/cases.jsonl"
expect2 "another build id" "00112233445566778899aabbccddeeff00112233.*$id" "$T/otherid"

cp -r "$T/solo" "$T/otherstamp"
d=$(jq -r --arg c "$c" 'select(.case == $c) | .dir' "$T/otherstamp/cases.jsonl")
g=$T/otherstamp/$d/gcov/fs/ext4/inode.gcda
[ -f "$g" ] || fail "no $g"
printf '\001\002\003\004' | dd of="$g" bs=1 seek=8 conv=notrunc 2>/dev/null
expect2 "another stamp" "stamp 04030201, the kernel's notes" "$T/otherstamp"
finish

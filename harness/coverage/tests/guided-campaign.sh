#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed campaign --guided on patched-gcov: 30 cases in rounds of 10.
# Round 1 is the seed's uniform draws (its files are byte-identical to the
# unguided campaign's: guided and unguided start from the same cases);
# every case's draw is in guide.jsonl with its round; guide.md says what
# was learned from all 30, and campaign.html charts the failure branches
# reached over the cases (guide-curve.tsv); `flipbed coverage` of the run gives one point
# of the curve per case, never decreasing, and ends where guide.md does.
# Run again, it resumes: no case runs twice and no draw is redone.
# Bad input, exit 2 with one line: --guided on a kernel without coverage
# (and nothing written), --guided with --generate.
# Groups: coverage campaign.
. "$(dirname "$0")/../../../tests/lib.sh"
require_tools jq gcov qemu-system-x86_64 nbdkit
require_built "$B/bin/flipbed" build/bin/flipbed
require_built "$B/guest/initramfs.cpio.gz" build/guest/initramfs.cpio.gz
require_kernel patched-gcov
F=$B/bin/flipbed
cd "$top" || fail "cannot cd to $top"

guided() {
	"$F" campaign --seed 3 --count 30 --round 10 --kernel patched-gcov --guided --jobs 2 \
		--out "$T/g" > "$T/g$1.out" 2> "$T/g$1.err"
	_rc=$?
	[ "$_rc" = 0 ] || [ "$_rc" = 3 ] || {
		tail -n 5 "$T/g$1.err"
		fail "guided campaign ($1): exit $_rc"
	}
}
guided 1
[ "$(wc -l < "$T/g/guide.jsonl")" = 30 ] || fail "guide.jsonl: $(wc -l < "$T/g/guide.jsonl") lines, expected 30"
rounds=$(jq -r '.round' "$T/g/guide.jsonl" | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
[ "$rounds" = "1:10 2:10 3:10 " ] && ok "guide.jsonl: 10 draws in each of rounds 1-3" ||
	check_fail "guide.jsonl rounds: $rounds"
"$F" campaign --seed 3 --count 30 --kernel patched-gcov --generate --out "$T/u" 2> /dev/null ||
	fail "unguided --generate: exit $?"
same=0
for i in 01 02 03 04 05 06 07 08 09 10; do
	cmp -s "$T/g/scenarios/case-000$i.scn" "$T/u/scenarios/case-000$i.scn" && same=$((same + 1))
done
[ $same = 10 ] && ok "round 1 is the unguided campaign's first 10 cases, byte for byte" ||
	check_fail "round 1: $same of 10 files as the unguided campaign's"
grep -q '^30 cases learned from (kernel patched-gcov); [0-9]* of [0-9]* failure branches reached' \
	"$T/g/guide.md" && ok "guide.md: $(sed -n 3p "$T/g/guide.md" | cut -c 1-80)" ||
	check_fail "guide.md lacks its count line"
n=$(grep -vc '^#' "$T/g/guide-curve.tsv")
last=$(tail -n 1 "$T/g/guide-curve.tsv" | cut -f 2)
[ "$n" = 30 ] && grep -q "; $last of " "$T/g/guide.md" &&
	grep -q '<title>failure branches reached over cases</title>' "$T/g/campaign.html" &&
	ok "campaign.html: coverage over the cases ($n points, $last at the end)" ||
	check_fail "guide-curve.tsv ($n points, last $last) or its chart in campaign.html"
"$F" coverage "$T/g/run" --no-html > "$T/cov.out" 2>&1 || fail "flipbed coverage: exit $?"
jq -e '.[0].curve | length == 30 and ([.[][1]] as $v | [range(1; 30)] | all($v[.] >= $v[. - 1]))' \
	"$T/g/run/coverage.json" > /dev/null && ok "the curve: 30 points, never decreasing" ||
	check_fail "the curve: $(jq -c '.[0].curve' "$T/g/run/coverage.json")"
last=$(jq '.[0].curve[-1][1]' "$T/g/run/coverage.json")
grep -q "; $last of " "$T/g/guide.md" && ok "coverage and guide.md agree: $last failure branches" ||
	check_fail "coverage says $last, guide.md: $(sed -n 3p "$T/g/guide.md")"

guided 2
[ "$(wc -l < "$T/g/guide.jsonl")" = 30 ] && [ "$(jq -s length "$T/g/run/cases.jsonl")" = 30 ] &&
	ok "resumed: no draw redone, no case run twice" ||
	check_fail "resumed: $(wc -l < "$T/g/guide.jsonl") draws, $(jq -s length "$T/g/run/cases.jsonl") records"

"$F" campaign --seed 3 --count 5 --kernel patched --guided --out "$T/bad" > /dev/null 2> "$T/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && [ ! -e "$T/bad" ] &&
	ok "--guided on patched: exit 2, nothing written: $(cat "$T/err")" ||
	check_fail "--guided on patched: exit $rc, $(cat "$T/err")"
"$F" campaign --seed 3 --count 5 --kernel patched-gcov --guided --generate --out "$T/bad2" \
	> /dev/null 2> "$T/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && ok "--guided --generate: exit 2: $(cat "$T/err")" ||
	check_fail "--guided --generate: exit $rc, $(cat "$T/err")"
finish

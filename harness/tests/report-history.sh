#!/bin/sh
# SPDX-License-Identifier: MIT
# `flipbed report --history DIR... --out OUT` on three runs made from the
# committed fixture run (harness/tests/report/fixture-run), oldest first:
# run 2 fixes one case's outcome and lacks another case, run 3 is another
# flipbed commit whose cases.jsonl ends in a record cut short. The page
# must show each case's outcome per run with the change highlighted, each
# run's flipbed commit and kernel versions, and say which run was cut
# short; it must be well-formed with every link resolving (html-lib).
# Bad input: runs of two matrices, a directory that is not a run, a
# broken line that is not the last: exit 2, one line naming the directory
# or file.
# Groups: quick.
set -u
. "$(dirname "$0")/../../tests/lib.sh"
. "$(dirname "$0")/report/html-lib"
cd "$top" || exit 1
cli=${FLIPBED_REPORT_CLI:-build/tests/bin/report-cli}
require_tools xmllint
require_built "$cli" "$cli"
case $cli in /*) ;; *) cli=$PWD/$cli ;; esac
fixture=harness/tests/report/fixture-run

# expect_rc WANT CMD...: run CMD, check its exit status.
expect_rc() {
	want=$1
	shift
	"$@"
	rc=$?
	[ "$rc" = "$want" ] || check_fail "exit $rc, expected $want: $*"
}

cp -r $fixture "$T/r1"
mkdir "$T/r2"
cp -r $fixture/cases $fixture/run.json "$T/r2/"
sed '/"case": "mmp\/flip@stock\/rest"/d
/"case": "inode\/base-flip@stock\/read"/{
s/"detect": "none", "reaction": "none"/"detect": "csum", "reaction": "remount-ro"/
s/"verdict": "fail"/"verdict": "pass"/
}' $fixture/cases.jsonl > "$T/r2/cases.jsonl"
mkdir "$T/r3"
cp -r $fixture/cases "$T/r3/"
sed 's/v0.1-12-g1234abc/v0.1-13-gabcdef0/' $fixture/run.json > "$T/r3/run.json"
cp "$T/r2/cases.jsonl" "$T/r3/cases.jsonl"
printf '{"case": "mmp/flip@stock/rest", "verdict": "pa' >> "$T/r3/cases.jsonl"
n3=$(($(wc -l < "$T/r3/cases.jsonl") + 1))
"$cli" report "$T/r1" > /dev/null
"$cli" report "$T/r2" > /dev/null

expect_rc 0 "$cli" report --history "$T/r1" "$T/r2" "$T/r3" --out "$T/hist" > "$T/hist.out"
page=$T/hist/history.html
[ -f "$page" ] || fail "no $page"
grep -q "history.html: 3 runs, 15 cases, 1 changed" "$T/hist.out" ||
	check_fail "report --history printed: $(cat "$T/hist.out")"
html_check "$page" > "$T/check.out"
[ -s "$T/check.out" ] && check_fail "$(cat "$T/check.out")"

# each run's flipbed commit and kernel versions
grep -q '<tr><th>flipbed</th><td>v0.1-12-g1234abc</td><td>v0.1-12-g1234abc</td><td>v0.1-13-gabcdef0</td></tr>' "$page" ||
	check_fail "the flipbed commits of the runs are not shown"
grep '<tr><th>kernels</th>' "$page" | grep -q 'patched 6.1.192-3 + 2 patches' ||
	check_fail "the kernel versions of the runs are not shown"
# the run cut short, and only that one
grep '<tr><th>state</th>' "$page" > "$T/state"
grep -q "<td>complete</td><td>complete</td><td><strong class=\"cut\">cut short: its last record (line $n3 of cases.jsonl) is truncated" "$T/state" ||
	check_fail "the page does not say that run 3 was cut short at line $n3: $(cat "$T/state")"

# the changed section: inode/base-flip@stock/read, none in run 1, csum→ro
# since run 2, highlighted in run 2 only, each cell a link to the case page
sed -n '/<h2 id="changed">/,/<h2 id="all">/p' "$page" > "$T/changed"
row=$(grep '^<tr><th>inode/base-flip@stock/read</th>' "$T/changed")
[ -n "$row" ] || check_fail "inode/base-flip@stock/read is not in the changed section"
echo "$row" | grep -q '^<tr><th>[^<]*</th><td><a [^>]*href="../r1/cases/inode_base-flip@stock_read/index.html"[^>]*>none ✗</a></td><td class="chg"><a [^>]*href="../r2/cases/inode_base-flip@stock_read/index.html"[^>]*>csum→ro</a></td><td><span class="k safe">csum→ro</span></td></tr>$' ||
	check_fail "the row of inode/base-flip@stock/read is not none ✗, csum→ro (changed), csum→ro: $row"
# mmp/flip@stock/rest is missing in run 2 and cut short in run 3: no change
grep -q '^<tr><th>mmp/flip@stock/rest</th>' "$T/changed" &&
	check_fail "a case missing from later runs is listed as changed"
grep '^<tr><th>mmp/flip@stock/rest</th>' "$page" | grep -q '<td>—</td><td>—</td></tr>$' ||
	check_fail "mmp/flip@stock/rest is not shown as missing from runs 2 and 3"
n=$(grep -o '<td class="chg">' "$page" | wc -l)
# the changed cell, once in the changed section and once in the whole table
[ "$n" = 2 ] || check_fail "$n cells highlighted, expected 2"

# a run that a signal cut short (run.json says so) is said to be
expect_rc 0 "$cli" report --history "$T/r1" harness/tests/report/interrupted-run --out "$T/hi" > /dev/null
grep '<tr><th>state</th>' "$T/hi/history.html" | grep -q '<td>complete</td><td><strong class="cut">interrupted: 2 of 6 planned cases ran; 1 cut short, 3 never started</strong></td>' ||
	check_fail "the history page does not say that the interrupted run was cut short"

# runs without run.json: the kernel versions come from the records
mkdir "$T/n1" "$T/n2"
cp $fixture/cases.jsonl "$T/n1/"
cp "$T/r2/cases.jsonl" "$T/n2/"
expect_rc 0 "$cli" report --history "$T/n1" "$T/n2" --out "$T/hn" > /dev/null
grep -q '<tr><th>kernels</th><td>[a-z]* 6.1.192-3<br>[a-z]* 6.1.192-3</td>' "$T/hn/history.html" ||
	check_fail "without run.json, the records' kernel versions are not shown"
grep -q '<tr><th>flipbed</th><td>not recorded</td><td>not recorded</td></tr>' "$T/hn/history.html" ||
	check_fail "without run.json, the flipbed commit is not said to be unrecorded"

# --- bad input: exit 2, one line naming the directory ---------------------
mkdir "$T/other"
cp $fixture/cases.jsonl "$T/other/"
sed 's/"matrix": "ci"/"matrix": "quick"/' $fixture/run.json > "$T/other/run.json"
expect_rc 2 "$cli" report --history "$T/r1" "$T/other" --out "$T/h2" 2> "$T/err"
grep -q "^flipbed: $T/other: a run of matrix 'quick', but $T/r1 is of matrix 'ci'" "$T/err" ||
	check_fail "runs of two matrices: $(cat "$T/err")"
mkdir "$T/notrun"
expect_rc 2 "$cli" report --history "$T/r1" "$T/notrun" --out "$T/h2" 2> "$T/err"
grep -q "^flipbed: $T/notrun: not a run directory (no cases.jsonl)" "$T/err" ||
	check_fail "a directory that is not a run: $(cat "$T/err")"
expect_rc 2 "$cli" report --history "$T/r1" "$T/nowhere" --out "$T/h2" 2> "$T/err"
grep -q "^flipbed: $T/nowhere: not a run directory" "$T/err" ||
	check_fail "a directory that does not exist: $(cat "$T/err")"
mkdir "$T/mid"
cp $fixture/run.json "$T/mid/"
{ head -n 3 $fixture/cases.jsonl; echo '{"case": "x", "verdict": "pa'; tail -n +4 $fixture/cases.jsonl; } > "$T/mid/cases.jsonl"
expect_rc 2 "$cli" report --history "$T/r1" "$T/mid" --out "$T/h2" 2> "$T/err"
grep -q "^flipbed: $T/mid/cases.jsonl:4: not a JSON object" "$T/err" ||
	check_fail "a broken line before the last: $(cat "$T/err")"
[ -e "$T/h2" ] && check_fail "a refused history wrote $T/h2"
expect_rc 2 "$cli" report --history "$T/r1" 2> "$T/err"
grep -q 'usage: flipbed report --history DIR... --out OUT' "$T/err" ||
	check_fail "--history without --out: $(cat "$T/err")"
finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# The results side of the harness on committed fixture runs (fixture-run/:
# 15 cases, every verdict but interrupted, both kernels, several types and
# timings; interrupted-run/: a run cut short): summary.md, junit.xml, KTAP
# and `flipbed show` against golden files (expected/*.ok), the HTML
# well-formed with every link resolving (html-lib),
# diff and merge, report --loose on two small runs (loose/), and one clear
# line with exit 2 for each kind of bad input.
#
# FLIPBED_REGOLD=1 rewrites the golden files from this run (review the diff).
# Outputs that differ are kept as build/tests/report/NAME.failed.
# Groups: quick.
set -u
. "$(dirname "$0")/../../../tests/lib.sh"
. "$(dirname "$0")/html-lib"
cd "$top" || exit 1
here=harness/tests/report
cli=${FLIPBED_REPORT_CLI:-build/tests/bin/report-cli}
failed_dir=build/tests/report
require_tools xmllint diff
require_built "$cli" "$cli"
case $cli in /*) ;; *) cli=$PWD/$cli ;; esac
mkdir -p "$failed_dir"

# golden NAME FILE: FILE (with $T replaced by TMP) must equal expected/NAME.ok.
golden() {
	sed "s|$T|TMP|g" "$2" > "$T/golden.out"
	if [ "${FLIPBED_REGOLD:-0}" = 1 ]; then
		cp "$T/golden.out" "$here/expected/$1.ok"
	fi
	if diff -u "$here/expected/$1.ok" "$T/golden.out" > "$T/golden.diff"; then
		rm -f "$failed_dir/$1.failed"
		echo "ok: $1"
	else
		cp "$T/golden.out" "$failed_dir/$1.failed"
		cat "$T/golden.diff"
		check_fail "$1 differs from $here/expected/$1.ok"
	fi
}

# expect_rc WANT CMD...: run CMD, check its exit status.
expect_rc() {
	want=$1
	shift
	"$@"
	rc=$?
	[ "$rc" = "$want" ] || check_fail "exit $rc, expected $want: $*"
}

# --- reports -------------------------------------------------------------
cp -r $here/fixture-run "$T/run"
expect_rc 1 "$cli" report "$T/run" > "$T/report.out"
cmp -s "$T/report.out" "$T/run/summary.md" ||
	check_fail "flipbed report printed something other than summary.md"
golden summary.md "$T/run/summary.md"
golden junit.xml "$T/run/junit.xml"
expect_rc 1 "$cli" report "$T/run" --ktap > "$T/ktap.out"
golden ktap "$T/ktap.out"
ls "$T/run" | grep -q '\.tmp$' && check_fail "temporary files left in the run directory"

# --- an interrupted run (interrupted-run/: run.json says interrupted, 6
# planned; a pass, a fail, a case cut short): every report says so, with
# the cases that ran and those planned; the case cut short is a KTAP SKIP
# and a JUnit skipped, and is never compared by diff -----------------------
cp -r $here/interrupted-run "$T/int"
expect_rc 1 "$cli" report "$T/int" > "$T/int-report.out"
golden interrupted-summary.md "$T/int/summary.md"
golden interrupted-junit.xml "$T/int/junit.xml"
expect_rc 1 "$cli" report "$T/int" --ktap > "$T/int-ktap.out"
golden interrupted-ktap "$T/int-ktap.out"
what='interrupted: 2 of 6 planned cases ran; 1 cut short, 3 never started'
for f in "$T/int-report.out" "$T/int/index.html"; do
	grep -q "$what" "$f" || check_fail "$f does not say '$what'"
done
xmllint --noout "$T/int/junit.xml" || check_fail "the interrupted run's junit.xml is not well-formed XML"
expect_rc 0 "$cli" show 'superblock/magic@patched/rest' --run "$T/int" > "$T/int-show.out"
golden interrupted-show "$T/int-show.out"
expect_rc 0 "$cli" diff "$T/int" "$T/int" 2> "$T/int-diff.err"
grep -q '^flipbed diff: 2 cases compared, 0 changed; 1 infra or skipped;' "$T/int-diff.err" ||
	check_fail "diff compared the case cut short: $(cat "$T/int-diff.err")"

# --- HTML: well-formed, every case has a page, every link resolves -------
xmllint --noout "$T/run/junit.xml" || check_fail "junit.xml is not well-formed XML"
pages=$(find "$T/run" -name index.html | sort)
[ "$(echo "$pages" | wc -l)" = 16 ] || check_fail "expected 16 HTML pages (index + 15 cases), got: $pages"
for p in $pages; do
	html_check "$p"
done > "$T/links.out"
[ -s "$T/links.out" ] && check_fail "HTML: $(cat "$T/links.out")"
grep -q 'class="k unsafe fail"' "$T/run/index.html" || check_fail "the panic cell is not coloured unsafe"
grep -q '&lt;init&gt; &amp; &quot;quoted&quot; ?? bytes ? here' \
	"$T/run/cases/extent_leaf-flip@stock_read/index.html" ||
	check_fail "dmesg text is not escaped on the case page"

# --- show ------------------------------------------------------------------
expect_rc 0 "$cli" show 'inode/base-flip@patched/read' --run "$T/run" > "$T/show.out"
golden show "$T/show.out"
expect_rc 0 "$cli" show 'inode_base-flip@patched_read' --run "$T/run" > "$T/show2.out"
cmp -s "$T/show.out" "$T/show2.out" || check_fail "show by case dir name differs from show by case name"
n=$("$cli" show 'extent/*@stock/*' --run "$T/run" | grep -c '^extent/')
[ "$n" = 2 ] || check_fail "show 'extent/*@stock/*' printed $n cases, expected 2"
mkdir -p "$T/repo/results/runs/20261201-000000"
cp -r $here/fixture-run "$T/repo/results/runs/20261203-000000"
touch -d '2026-12-01' "$T/repo/results/runs/20261201-000000"
(cd "$T/repo" && "$cli" show 'mmp/*' | head -1) > "$T/newest.out"
grep -q '^mmp/flip@stock/rest: pass' "$T/newest.out" || check_fail "show without --run did not use the newest run"
ln -s 20261201-000000 "$T/repo/results/runs/latest"
(cd "$T/repo" && "$cli" show 'mmp/*' 2>&1) > "$T/latest.out"
grep -q 'results/runs/latest/cases.jsonl' "$T/latest.out" || check_fail "show did not prefer results/runs/latest"

# --- diff ------------------------------------------------------------------
expect_rc 0 "$cli" diff "$T/run" "$T/run" > "$T/diff-same.out" 2>/dev/null
[ -s "$T/diff-same.out" ] && check_fail "diff of a run against itself printed: $(cat "$T/diff-same.out")"
mkdir "$T/run2"
sed '/"case": "extent\/leaf-flip@patched\/read"/d
/"case": "inode\/base-flip@stock\/read"/{
s/"detect": "none", "reaction": "none"/"detect": "csum", "reaction": "remount-ro"/
s/"verdict": "fail"/"verdict": "pass"/
}' "$T/run/cases.jsonl" > "$T/run2/cases.jsonl"
expect_rc 1 "$cli" diff "$T/run" "$T/run2/cases.jsonl" > "$T/diff.out" 2>&1
golden diff "$T/diff.out"
expect_rc 1 "$cli" diff "$T/run" --by kernel > "$T/diff-kernel.out" 2>&1
golden diff-kernel "$T/diff-kernel.out"
# two runs by kernel: the run again on the 6.12 variants (variant-of in
# kernel/kernels.ini), one outcome changed: stock-6.12's case is compared
# with stock's, patched-6.12's with patched's, never stock's with patched's
mkdir "$T/run612"
sed 's/@stock\//@stock-6.12\//; s/@patched\//@patched-6.12\//
s/"kernel": "stock"/"kernel": "stock-6.12"/g; s/"kernel": "patched"/"kernel": "patched-6.12"/g
/"case": "inode\/base-flip@stock-6.12\/read"/s/"reaction": "[a-z-]*"/"reaction": "shutdown"/' \
	"$T/run/cases.jsonl" > "$T/run612/cases.jsonl"
expect_rc 1 "$cli" diff "$T/run" "$T/run612" --by kernel > "$T/diff-kernels.out" 2>&1
golden diff-kernels "$T/diff-kernels.out"
expect_rc 0 "$cli" diff "$T/run" "$T/run" --by kernel > "$T/diff-kernels-same.out" 2>/dev/null
[ -s "$T/diff-kernels-same.out" ] && check_fail "diff --by kernel of a run against itself printed: $(cat "$T/diff-kernels-same.out")"

# --- loose: accepted values no case produced, over two runs ---------------
loose=$here/loose
expect_rc 1 "$cli" report --loose $loose/run-a $loose/run-b/cases.jsonl > "$T/loose.out" 2>&1
golden loose "$T/loose.out"
grep gone.scn $loose/run-a/cases.jsonl | sed 's/sanity|csum/sanity/' > "$T/tight.jsonl"
expect_rc 0 "$cli" report --loose "$T/tight.jsonl" > "$T/tight.out" 2>/dev/null
[ -s "$T/tight.out" ] && check_fail "report --loose on a tight run printed: $(cat "$T/tight.out")"

# --- merge -----------------------------------------------------------------
for s in a b c; do mkdir "$T/shard-$s"; cp -r "$T/run/cases" "$T/shard-$s/"; done
head -n 8 $here/fixture-run/cases.jsonl > "$T/shard-a/cases.jsonl"
tail -n +9 $here/fixture-run/cases.jsonl > "$T/shard-b/cases.jsonl"
sed -n 8,9p $here/fixture-run/cases.jsonl > "$T/shard-c/cases.jsonl"
cp $here/fixture-run/run.json "$T/shard-a/"
expect_rc 1 "$cli" merge "$T/merged" "$T/shard-a" "$T/shard-b" > "$T/merge.out"
sed -n '/^| type/,$p' "$T/run/summary.md" > "$T/table.want"
sed -n '/^| type/,$p' "$T/merged/summary.md" > "$T/table.got"
cmp -s "$T/table.want" "$T/table.got" || check_fail "merged summary table differs from the whole run's"
"$cli" report "$T/merged" --ktap > "$T/merged.ktap"
cmp -s "$T/ktap.out" "$T/merged.ktap" || check_fail "merged KTAP differs from the whole run's"
[ -f "$T/merged/cases/inode_base-flip@patched_read/transcript.log" ] ||
	check_fail "merge did not bring the case files along"
grep -q '"merged_from"' "$T/merged/run.json" || check_fail "merged run.json does not name its shards"

# --- bad input: one line naming file, line and value; exit 2 -------------
: > "$T/errors.out"
bad() {
	name=$1
	shift
	echo "== $name" >> "$T/errors.out"
	"$@" >/dev/null 2>> "$T/errors.out"
	echo "exit $?" >> "$T/errors.out"
}
bad merge-duplicate "$cli" merge "$T/merged2" "$T/shard-a" "$T/shard-c"
bad merge-existing "$cli" merge "$T/merged" "$T/shard-b"
mkbad() {
	mkdir -p "$T/$1"
	head -n 1 $here/fixture-run/cases.jsonl > "$T/$1/cases.jsonl"
	printf '%s\n' "$2" >> "$T/$1/cases.jsonl"
}
mkbad verdict '{"case": "x/y", "verdict": "maybe"}'
bad bad-verdict "$cli" report "$T/verdict"
mkbad json '{"case": "x/y", "verdict": "pass",'
bad bad-json "$cli" report "$T/json"
mkbad reaction '{"case": "x/y", "verdict": "pass", "outcome": {"detect": "csum", "reaction": "crash", "fsck": "clean", "data": "intact"}}'
bad bad-reaction "$cli" report "$T/reaction"
mkbad outcome '{"case": "x/y", "verdict": "fail"}'
bad no-outcome "$cli" report "$T/outcome"
mkbad dir '{"case": "x/y", "verdict": "skip", "dir": "../../etc"}'
bad bad-dir "$cli" report "$T/dir"
mkbad noname '{"verdict": "skip"}'
bad no-name "$cli" report "$T/noname"
mkbad dup "$(head -n 1 $here/fixture-run/cases.jsonl)"
bad duplicate "$cli" report "$T/dup"
bad missing "$cli" report "$T/nowhere"
bad show-nomatch "$cli" show 'nosuch/*' --run "$T/run"
bad diff-usage "$cli" diff "$T/run"
bad diff-by-two "$cli" diff "$T/run" "$T/run" --by fault.timing
bad report-usage "$cli" report "$T/run" --bogus
bad loose-usage "$cli" report --loose
bad loose-ktap "$cli" report --ktap --loose "$T/run"
bad loose-missing "$cli" report --loose "$T/run" "$T/nowhere"
golden errors "$T/errors.out"

finish

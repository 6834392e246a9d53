#!/bin/sh
# SPDX-License-Identifier: MIT
# What index.html and summary.md show at a glance, on the committed fixture
# run (harness/tests/report/fixture-run: stock and patched, two case pairs
# whose outcome the series changes) and on the ci baseline:
#  - the cells the patch series changed are marked, and listed at the top
#    with a link to each case of the pair;
#  - the headline (checksum-covered flips read / detected / unexplained)
#    and the undetected-by-cause tables, each number a link to its cases;
#  - the detection and reaction heatmaps: one inline SVG per kernel that
#    parses as XML, with the count of each cell;
#  - campaign.html (report-cli campaign: the run as a campaign, its failed
#    cases as findings): detection by type, causes, findings over cases,
#    detection rate over cases, as inline SVG; and cases per minute over
#    the clock when the records carry "finished" times;
#  - every page well-formed, every link resolving, no script (html-lib);
#  - the ci baseline's index.html stays under 2 MB;
#  - the ci baseline doubled gets every case page, written by
#    forked workers where there are two processors or more.
# Groups: quick.
set -u
. "$(dirname "$0")/../../tests/lib.sh"
. "$(dirname "$0")/report/html-lib"
cd "$top" || exit 1
cli=${FLIPBED_REPORT_CLI:-build/tests/bin/report-cli}
require_tools xmllint jq
require_built "$cli" "$cli"
case $cli in /*) ;; *) cli=$PWD/$cli ;; esac

cp -r harness/tests/report/fixture-run "$T/run"
"$cli" report "$T/run" > /dev/null
idx=$T/run/index.html

# --- the series' effect ----------------------------------------------------
for pair in 'inode_base-flip@stock_read inode_base-flip@patched_read' \
	    'extent_leaf-flip@stock_read extent_leaf-flip@patched_read'; do
	set -- $pair
	grep '^<li>' "$idx" | grep "href=\"cases/$1/index.html\"" |
		grep -q "href=\"cases/$2/index.html\"" ||
		check_fail "index.html lists no series change linking $1 and $2"
	for d in $1 $2; do
		grep -q "<td class=\"series\"><a [^>]*href=\"cases/$d/index.html\"" "$idx" ||
			check_fail "the cell of $d is not marked as changed by the series"
	done
	grep -q "^- \[.*\](cases/$1/index.html) → \[.*\](cases/$2/index.html): " \
		"$T/run/summary.md" || check_fail "summary.md does not list $1 → $2"
done
n=$(grep -o '<td class="series">' "$idx" | wc -l)
[ "$n" = 4 ] || check_fail "$n cells marked as changed by the series, expected 4"
grep -q '^2 of 4 case pairs differ' "$T/run/summary.md" ||
	check_fail "summary.md does not count the changed pairs (2 of 4)"
n=$(grep -c ' Δ |' "$T/run/summary.md")
[ "$n" = 2 ] || check_fail "summary.md marks $n rows with Δ, expected 2"

# --- headline and causes, each number a link to its cases ------------------
# the headline row of stock/inode: 1 read, 0 detected, 1 unexplained
row=$(grep '^<tr><th>stock</th><th>inode</th>' "$idx")
[ -n "$row" ] || check_fail "index.html has no headline row for stock inode"
un=$(echo "$row" | sed -n 's|.*<td><a href="#\(x-[0-9]*\)">1</a></td></tr>$|\1|p')
[ -n "$un" ] || check_fail "the unexplained count of stock inode is no link: $row"
echo "$row" | grep -q '<td><a href="#x-[0-9]*">1</a></td><td>0</td><td><a ' ||
	check_fail "the stock inode row does not read 1 read, 0 detected, 1 unexplained: $row"
sed -n "/<h3 id=\"$un\">/,/<\/p>/p" "$idx" > "$T/unexplained.html"
grep -q 'href="cases/inode_base-flip@stock_read/index.html"' "$T/unexplained.html" ||
	check_fail "the unexplained list of stock inode does not link its case"
[ "$(grep -o 'href=' "$T/unexplained.html" | wc -l)" = 1 ] ||
	check_fail "the unexplained list of stock inode holds another case"
grep -q '^<tr><th>stock</th><th>all types</th><td><a href="#x-[0-9]*">1</a></td><td>0</td><td><a href="#x-[0-9]*">1</a></td></tr>$' "$idx" ||
	check_fail "index.html has no headline total of stock reading 1 read, 0 detected, 1 unexplained"
grep -q '^<details open><summary>stock → patched: 2 of 4 pairs changed</summary>$' "$idx" ||
	check_fail "index.html does not count the pairs of stock and patched (2 of 4 changed)"
grep -q '<h2 id="causes">Undetected, by cause</h2>' "$idx" ||
	check_fail "index.html has no undetected-by-cause table"
grep '^<tr><th>data</th>' "$idx" | grep -q '<a href="#x-[0-9]*">1</a>' ||
	check_fail "the data row of the causes table has no linked count"

# --- heatmaps --------------------------------------------------------------
n=$(grep -c '^<svg ' "$idx")
[ "$n" = 4 ] || check_fail "$n SVG panels, expected 4 (detection and reactions x 2 kernels)"
grep -q '<text [^>]*>0/1</text><title>stock · inode · read: 0 of 1 cases detected</title>' "$idx" ||
	check_fail "the detection heatmap's stock/inode/read cell is not 0/1"
grep -q '<text [^>]*>2/2</text><title>patched · inode · read: 2 of 2 cases detected</title>' "$idx" ||
	check_fail "the detection heatmap's patched/inode/read cell is not 2/2"
grep -q '<title>stock · extent-leaf · read: 1 unsafe</title>' "$idx" ||
	check_fail "the reaction heatmap's stock/extent-leaf/read cell is not 1 unsafe"

# --- well-formed, links resolve --------------------------------------------
html_check "$idx" > "$T/check.out"
[ -s "$T/check.out" ] && check_fail "$(cat "$T/check.out")"

# --- campaign.html: four charts; the fixture's 3 failed cases as findings --
"$cli" campaign "$T/run" || check_fail "report-cli campaign failed"
c=$T/run/campaign.html
n=$(grep -c '^<svg ' "$c")
[ "$n" = 4 ] || check_fail "campaign.html has $n charts, expected 4"
grep -q '<title>inode: 75% (3/4)</title>' "$c" ||
	check_fail "campaign.html's detection by type does not show inode 3 of 4"
grep -q '<title>unexplained: 1</title>' "$c" ||
	check_fail "campaign.html's causes do not show 1 unexplained"
grep -A3 '<title>distinct findings over cases run</title>' "$c" | grep -q '>3</text>' ||
	check_fail "campaign.html's findings chart does not reach 3"
grep -q '^<p>The records carry no clock time' "$c" ||
	check_fail "campaign.html does not say the fixture's records carry no clock time"
html_check "$c" > "$T/check.out"
[ -s "$T/check.out" ] && check_fail "$(cat "$T/check.out")"

# --- campaign.html's speed over the clock: the fixture's 15 records given
# "finished" times, 10 in the first minute after run.json's start
# (10:15:00), 5 in the second, the last at 10:16:45: 15 cases in 1.75 min,
# 8.6 cases/min overall, bins of 60 s reading 10 and 5 cases/min --------
mkdir "$T/clock"
cp "$T/run/run.json" "$T/clock/"
i=0
while IFS= read -r line; do
	if [ $i -lt 10 ]; then s=$((10 + i * 5)); else s=$((65 + (i - 10) * 10)); fi
	printf '%s\n' "$line" | jq -c --arg f "$(printf '2026-12-03T10:%02d:%02d.250Z' $((15 + s / 60)) $((s % 60)))" '.finished = $f'
	i=$((i + 1))
done < "$T/run/cases.jsonl" > "$T/clock/cases.jsonl"
"$cli" campaign "$T/clock" || check_fail "report-cli campaign failed on the clocked run"
c=$T/clock/campaign.html
n=$(grep -c '^<svg ' "$c")
[ "$n" = 5 ] || check_fail "the clocked campaign.html has $n charts, expected 5"
grep -q '^<p>15 cases finished in 1.8 min since the campaign started: 8.6 cases/min overall; each step is a bin of 60 s.</p>$' "$c" ||
	check_fail "campaign.html's speed does not read 15 cases in 1.8 min, 8.6 cases/min: $(grep -A1 'id="speed"' "$c")"
sed -n '/<title>cases finished per minute<\/title>/,/<\/svg>/p' "$c" > "$T/speed.svg"
grep -q '>10</text>' "$T/speed.svg" || check_fail "the speed chart's axis does not reach 10 cases/min"
pts=$(sed -n 's/.*points="\([^"]*\)".*/\1/p' "$T/speed.svg" | wc -w)
[ "$pts" = 5 ] || check_fail "the speed chart has $pts points, expected 5 (two bins as steps)"
html_check "$c" > "$T/check.out"
[ -s "$T/check.out" ] && check_fail "$(cat "$T/check.out")"

# --- the ci baseline: a cell the series changed (without a journal, stock
# lets the write after the error through, patched goes read-only); under
# 2 MB ---
mkdir "$T/ci"
cp results/baseline/ci/cases.jsonl results/baseline/ci/run.json "$T/ci/"
"$cli" report "$T/ci" > /dev/null
size=$(stat -c %s "$T/ci/index.html")
[ "$size" -lt 2000000 ] || check_fail "the ci baseline's index.html is $size bytes, over 2 MB"
grep -q '<td class="series"><a [^>]*href="cases/inode_nojournal-write-after-error:rest@stock/index.html"' \
	"$T/ci/index.html" || check_fail "the ci baseline's inode/nojournal-write-after-error stock cell is not marked"
html_check "$T/ci/index.html" > "$T/check.out"
[ -s "$T/check.out" ] && check_fail "$(head -5 "$T/check.out")"

# --- a run big enough for forked workers to write the case pages (250 a
# worker, with two processors or more): every page written, none left
# half-written, the same exit status as the run on its own -----------------
mkdir "$T/big"
for k in 0 1; do
	sed "s/\"case\":\"\([^\"]*\)\"/\"case\":\"\1~$k\"/; s/\"dir\":\"\([^\"]*\)\"/\"dir\":\"\1~$k\"/" \
		results/baseline/ci/cases.jsonl
done > "$T/big/cases.jsonl"
"$cli" report "$T/ci" > /dev/null
want=$?
"$cli" report "$T/big" > /dev/null
rc=$?
[ "$rc" = "$want" ] || check_fail "report of the doubled ci run exited $rc, the ci run $want"
n=$(find "$T/big/cases" -name index.html | wc -l)
want=$(($(grep -c . results/baseline/ci/cases.jsonl) * 2))
[ "$n" = "$want" ] || check_fail "$n case pages of the doubled ci run, expected $want"
[ -z "$(find "$T/big" -name '*.tmp')" ] || check_fail "temporary files left in the doubled ci run"
finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# How long `flipbed report DIR` takes to write every report (summary.md,
# junit.xml, index.html and one page per case) of a 2000-case run; the
# target is at most 2 s. `make bench-report` runs it; it is not a test.
#
# The run is synthesized from committed records: the ci baseline's
# cases.jsonl (results/baseline/ci, 484 cases) is replicated with distinct
# names and case directories (copy K appends "~K" to "case" and "dir") up
# to 2000 lines, beside its run.json. Each case directory gets a
# dmesg.txt and a fsck.txt taken in turn from committed ones
# (harness/tests/classify/*.log, 4-14 KB console logs, and the fixture
# run's fsck.txt files), as a real run's case pages read them.
#
# It times with farm-bench when installed (median of 5 runs after a
# warm-up, the reports overwritten each time), else with the shell's
# `time` over one run after a warm-up. Exit 1 when the median is over 2 s.
#
#   bench/report.sh [CASES]   (default 2000)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
n=${1:-2000}
flipbed=$top/build/bin/flipbed
run=$top/build/bench/report-$n
src=results/baseline/ci
[ -x "$flipbed" ] || { echo "bench/report.sh: no $flipbed (make build/bin/flipbed)"; exit 2; }

rm -rf "$run"
mkdir -p "$run/cases"
cp "$src/run.json" "$run/"
: > "$run/cases.jsonl"
k=0
while [ "$(wc -l < "$run/cases.jsonl")" -lt "$n" ]; do
	sed "s/\"case\":\"\([^\"]*\)\"/\"case\":\"\1~$k\"/; s/\"dir\":\"\([^\"]*\)\"/\"dir\":\"\1~$k\"/" \
		"$src/cases.jsonl" >> "$run/cases.jsonl"
	k=$((k + 1))
done
head -n "$n" "$run/cases.jsonl" > "$run/cases.tmp" && mv "$run/cases.tmp" "$run/cases.jsonl"

set -- harness/tests/classify/*.log
logs=$*
fscks=$(echo harness/tests/report/fixture-run/cases/*/fsck.txt)
grep -o '"dir":"[^"]*"' "$run/cases.jsonl" | sed 's/^"dir":"//; s/"$//' > "$run/dirs"
i=0
while read -r d; do
	mkdir -p "$run/$d"
	set -- $logs
	shift $((i % $#))
	cp "$1" "$run/$d/dmesg.txt"
	set -- $fscks
	shift $((i % $#))
	cp "$1" "$run/$d/fsck.txt"
	i=$((i + 1))
done < "$run/dirs"
rm "$run/dirs"
echo "bench/report.sh: $(wc -l < "$run/cases.jsonl") cases in $run"

if command -v farm-bench > /dev/null; then
	farm-bench -n 5 -- "$flipbed" report "$run" | tee "$run/bench.txt"
	median=$(awk '$1 == "A" && $2 == "wall" { print $5 }' "$run/bench.txt")
else
	"$flipbed" report "$run" > /dev/null || true
	start=$(date +%s.%N)
	"$flipbed" report "$run" > /dev/null || true
	median=$(echo "$(date +%s.%N) - $start" | bc)
fi
index=$(stat -c %s "$run/index.html")
echo "bench/report.sh: $n cases: ${median} s wall (target 2 s); index.html $index bytes"
awk -v m="$median" 'BEGIN { exit !(m <= 2.0) }' || { echo "bench/report.sh: over the 2 s target"; exit 1; }

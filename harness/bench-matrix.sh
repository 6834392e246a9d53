#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-matrix: the quick matrix run twice in a row, with --jobs 1 and
# --jobs 2, printing each run's median case time split by phase and its
# throughput, and the throughput ratio of the two (what a second core buys).
# Targets: median case <= 2.5 s, >= 40 cases/min with --jobs 2.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
flipbed=$top/build/bin/flipbed
out=$top/build/bench/matrix
rm -rf "$out"
mkdir -p "$out"
# A run that did not pass measures something else than the matrix: no
# figure is printed for it, and the benchmark fails.
for j in 1 2; do
	if ! "$flipbed" matrix quick --jobs $j --out "$out/jobs$j" > "$out/jobs$j.log" 2>&1; then
		tail -n 5 "$out/jobs$j.log"
		echo "jobs $j: the quick matrix did not pass (log: $out/jobs$j.log); no figures" >&2
		exit 1
	fi
	line=$(grep '^flipbed: median case' "$out/jobs$j.log") || {
		echo "jobs $j: no timing line in $out/jobs$j.log" >&2
		exit 1
	}
	echo "jobs $j: ${line#flipbed: }"
	eval "rate$j=$(echo "$line" | sed -n 's/.*; \([0-9.]*\) cases\/min/\1/p')"
done
echo "throughput ratio jobs 2 / jobs 1: $(echo "scale=2; $rate2 / $rate1" | bc)"
echo "targets: median case <= 2.5 s, >= 40 cases/min with --jobs 2 (logs: $out)"

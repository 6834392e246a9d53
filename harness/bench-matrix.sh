#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-matrix: the ci matrix (both kernels) with --jobs 2, run twice
# in a row: one case per boot (--batch 1) and in batches (the default),
# printing each run's median case time split by phase and its throughput,
# and the ratio of the two (what batching buys); then, for each run, where
# its CPU went, phase by phase (harness/bench-profile.sh: QEMU, nbdkit,
# each e2fsck run, the data oracle, flipbed itself). Targets: at least 150
# cases/min batched with --jobs 2. FLIPBED_BENCH_MATRIX=quick benches the
# quick matrix instead (a shorter loop).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
flipbed=$top/build/bin/flipbed
matrix=${FLIPBED_BENCH_MATRIX:-ci}
out=$top/build/bench/matrix
rm -rf "$out"
mkdir -p "$out"
cd "$top"
# A run that did not pass measures something else than the matrix: no
# figure is printed for it, and the benchmark fails.
# The CPU time (user + system, seconds) of every process this shell has
# waited for, into FILE: `times` must run in this shell, as a $(...) would
# fork a fresh one that has waited for nothing.
children_cpu() {
	times > "$out/times"
	sed -n 2p "$out/times" | awk '{ split($1, u, "m"); split($2, s, "m");
		printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' > "$1"
}
for b in 1 7; do
	children_cpu "$out/cpu0"
	w0=$(date +%s.%N)
	if ! "$flipbed" matrix "$matrix" --jobs 2 --batch $b --out "$out/batch$b" > "$out/batch$b.log" 2>&1; then
		tail -n 5 "$out/batch$b.log"
		echo "batch $b: the $matrix matrix did not pass (log: $out/batch$b.log); no figures" >&2
		exit 1
	fi
	line=$(grep '^flipbed: median case' "$out/batch$b.log") || {
		echo "batch $b: no timing line in $out/batch$b.log" >&2
		exit 1
	}
	echo "$matrix matrix, --jobs 2 --batch $b: ${line#flipbed: }"
	eval "rate$b=$(echo "$line" | sed -n 's/.*; \([0-9.]*\) cases\/min/\1/p')"
	children_cpu "$out/cpu1"
	w1=$(date +%s.%N)
	"$top/harness/bench-profile.sh" "$out/batch$b" \
		"$(echo "$(cat "$out/cpu1") - $(cat "$out/cpu0")" | bc)" "$(echo "$w1 - $w0" | bc)" \
		> "$out/profile$b.txt"
done
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "throughput ratio batch 7 / batch 1: $(echo "scale=2; $rate7 / $rate1" | bc)"
echo "target: >= 150 cases/min with --jobs 2, batched (logs: $out)"
for b in 1 7; do
	echo
	echo "--batch $b:"
	cat "$out/profile$b.txt"
done

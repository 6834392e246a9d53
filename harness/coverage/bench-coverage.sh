#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-coverage: what a case costs on a coverage kernel. The ci
# matrix's cases on patched and on patched-gcov, batched with --jobs 2,
# one after the other, FLIPBED_BENCH_ROUNDS times (default 2: A B A B), so
# that drift of the machine's speed falls on both. Per run: the cases, the
# wall time, the CPU of every process (QEMU, nbdkit, e2fsck, flipbed) per
# case; per round the ratios patched-gcov / patched. Then `flipbed
# coverage` on the last patched-gcov run: its wall time per case, which a
# case pays once its counters are read. Target: a coverage-kernel case at
# most 2x a patched case (wall per case, batched).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
flipbed=$top/build/bin/flipbed
rounds=${FLIPBED_BENCH_ROUNDS:-2}
matrix=${FLIPBED_BENCH_MATRIX:-ci}
out=$top/build/bench/coverage
rm -rf "$out"
mkdir -p "$out"
cd "$top"
# The CPU time (user + system, s) of every child this shell has waited
# for, into FILE: `times` must run in this shell, as a $(...) would fork a
# fresh one that has waited for nothing.
children_cpu() {
	times > "$out/times"
	sed -n 2p "$out/times" | awk '{ split($1, u, "m"); split($2, s, "m");
		printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' > "$1"
}
# run NAME KERNEL: one matrix run; sets n, w (wall s) and c (CPU s). A run
# that does not pass measures something else: the benchmark stops without
# figures.
run() {
	children_cpu "$out/cpu0"
	w0=$(date +%s.%N)
	if ! "$flipbed" matrix "$matrix" --kernel "$2" --jobs 2 --out "$out/$1" > "$out/$1.log" 2>&1; then
		tail -n 5 "$out/$1.log" >&2
		echo "$1: the $matrix matrix on $2 did not pass (log: $out/$1.log); no figures" >&2
		exit 1
	fi
	w1=$(date +%s.%N)
	children_cpu "$out/cpu1"
	n=$(wc -l < "$out/$1/cases.jsonl")
	w=$(echo "$w1 - $w0" | bc)
	c=$(echo "$(cat "$out/cpu1") - $(cat "$out/cpu0")" | bc)
}
: > "$out/ratios"
i=1
while [ $i -le "$rounds" ]; do
	run "patched$i" patched
	pn=$n pw=$w pc=$c
	run "gcov$i" patched-gcov
	gn=$n gw=$w gc=$c
	printf 'round %d: patched %d cases in %.1f s (%.1f cases/min, CPU %.3f s a case); patched-gcov %d cases in %.1f s (%.1f cases/min, CPU %.3f s a case)\n' \
		$i "$pn" "$pw" "$(echo "$pn * 60 / $pw" | bc -l)" "$(echo "$pc / $pn" | bc -l)" \
		"$gn" "$gw" "$(echo "$gn * 60 / $gw" | bc -l)" "$(echo "$gc / $gn" | bc -l)"
	echo "$(echo "($gw / $gn) / ($pw / $pn)" | bc -l) $(echo "($gc / $gn) / ($pc / $pn)" | bc -l)" >> "$out/ratios"
	i=$((i + 1))
done
# min / median / max of column C of the ratios
stat() {
	cut -d' ' -f"$1" "$out/ratios" | sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f / %.2f / %.2f", v[1], m, v[NR] }'
}
w0=$(date +%s.%N)
"$flipbed" coverage "$out/gcov$rounds" > "$out/coverage.log" 2>&1 || {
	cat "$out/coverage.log" >&2
	echo "flipbed coverage failed; no figures" >&2
	exit 1
}
w1=$(date +%s.%N)
cw=$(echo "$w1 - $w0" | bc)
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "patched-gcov / patched, wall per case (min / median / max of $rounds rounds): $(stat 1)"
echo "patched-gcov / patched, CPU per case: $(stat 2)"
printf 'flipbed coverage on %d cases: %.1f s, %.3f s a case\n' "$gn" "$cw" "$(echo "$cw / $gn" | bc -l)"
echo "target: a coverage-kernel case at most 2x a patched case (logs: $out)"

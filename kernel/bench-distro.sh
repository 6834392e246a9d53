#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-distro: what a case costs on Debian's binary kernel against the
# rebuild of the same source. For each pair (stock and debian-6.1, stock-6.12
# and debian-6.12) the ci matrix runs on one kernel of the pair at a time,
# --jobs 2 and batched as CI runs it, the two alternating ROUNDS times (so
# that the machine's load falls on both alike). A kernel's cost per case is
# its run's wall time over its case count (boots, image, workload and e2fsck
# included), and its median case is the median of the records' total
# durations (what `flipbed matrix` prints as "median case": a case of a
# batch carries no boot); each round prints both measures and their
# ratios, then the median ratio of the rounds of each. The target, at most
# 1.5, is on the median case.
# Usage: kernel/bench-distro.sh [ROUNDS] (default 2); FLIPBED_BENCH_PAIRS=
# "REBUILD:SHIPPED ..." picks the pairs.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
flipbed=$top/build/bin/flipbed
rounds=${1:-2}
pairs=${FLIPBED_BENCH_PAIRS:-stock:debian-6.1 stock-6.12:debian-6.12}
out=$top/build/bench/distro
command -v jq > /dev/null || { echo "bench-distro: needs jq (the median case of each run)" >&2; exit 2; }
case $rounds in '' | *[!0-9]* | 0) echo "bench-distro: ROUNDS must be a positive number, not '$rounds'" >&2; exit 2 ;; esac
for p in $pairs; do
	for k in ${p%%:*} ${p#*:}; do
		[ -r "$top/build/kernel/$k/vmlinux" ] ||
			{ echo "bench-distro: kernel $k is not built (build/kernel/$k/vmlinux; make kernels-debian)" >&2; exit 2; }
	done
done
rm -rf "$out"
mkdir -p "$out"
cd "$top"

# run K R: the ci matrix on kernel K alone; prints "CASES SECONDS"
run() {
	d=$out/$1.$2
	w0=$(date +%s.%N)
	if ! "$flipbed" matrix ci --kernel "$1" --jobs 2 --out "$d" > "$d.log" 2>&1; then
		tail -n 3 "$d.log" >&2
		echo "bench-distro: the ci matrix did not pass on $1 (log: $d.log); no figures" >&2
		exit 1
	fi
	w1=$(date +%s.%N)
	echo "$(grep -c . "$d/cases.jsonl") $(echo "$w1 - $w0" | bc)" \
		"$(jq -s '[.[].durations.total] | sort | .[length / 2 | floor]' "$d/cases.jsonl")"
}
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for p in $pairs; do
	a=${p%%:*} b=${p#*:}
	: > "$out/$b.ratios"
	: > "$out/$b.median-ratios"
	r=1
	while [ "$r" -le "$rounds" ]; do
		res=$(run "$a" "$r") || exit 1
		set -- $res
		na=$1 sa=$2 ma=$3
		res=$(run "$b" "$r") || exit 1
		set -- $res
		nb=$1 sb=$2 mb=$3
		ra=$(echo "scale=3; $sa / $na" | bc)
		rb=$(echo "scale=3; $sb / $nb" | bc)
		ratio=$(echo "scale=2; $rb / $ra" | bc)
		mratio=$(echo "$mb $ma" | awk '{ printf "%.2f", $1 / $2 }')
		echo "$ratio" >> "$out/$b.ratios"
		echo "$mratio" >> "$out/$b.median-ratios"
		printf 'round %d: %s %s s/case (%d cases), %s %s s/case (%d cases): %s / %s = %s\n' \
			"$r" "$a" "$ra" "$na" "$b" "$rb" "$nb" "$b" "$a" "$ratio"
		printf '         median case: %s %.3f s, %s %.3f s: %s\n' "$a" "$ma" "$b" "$mb" "$mratio"
		r=$((r + 1))
	done
	echo "$b / $a over $rounds rounds: median case $(median "$out/$b.median-ratios") (target <= 1.5)," \
		"wall per case $(median "$out/$b.ratios") (boots included)"
done
printf 'load average: %s (logs: %s)\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$out"

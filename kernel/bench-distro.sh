#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-distro: what a case costs on Debian's binary kernel against the
# rebuild of the same source. For each pair (stock and debian-6.1, stock-6.12
# and debian-6.12) the ci matrix runs on one kernel of the pair at a time,
# --jobs 2 and batched as CI runs it, the two alternating ROUNDS times (so
# that the machine's load falls on both alike). A kernel's cost per case is
# its run's wall time over its case count (boots, image, workload and e2fsck
# included); each round prints both and their ratio, then the median ratio
# of the rounds against the target of 1.5.
# Usage: kernel/bench-distro.sh [ROUNDS] (default 2); FLIPBED_BENCH_PAIRS=
# "REBUILD:SHIPPED ..." picks the pairs.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
flipbed=$top/build/bin/flipbed
rounds=${1:-2}
pairs=${FLIPBED_BENCH_PAIRS:-stock:debian-6.1 stock-6.12:debian-6.12}
out=$top/build/bench/distro
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
	echo "$(grep -c . "$d/cases.jsonl") $(echo "$w1 - $w0" | bc)"
}

for p in $pairs; do
	a=${p%%:*} b=${p#*:}
	: > "$out/$b.ratios"
	r=1
	while [ "$r" -le "$rounds" ]; do
		res=$(run "$a" "$r") || exit 1
		set -- $res
		na=$1 sa=$2
		res=$(run "$b" "$r") || exit 1
		set -- $res
		nb=$1 sb=$2
		ra=$(echo "scale=3; $sa / $na" | bc)
		rb=$(echo "scale=3; $sb / $nb" | bc)
		ratio=$(echo "scale=2; $rb / $ra" | bc)
		echo "$ratio" >> "$out/$b.ratios"
		printf 'round %d: %s %s s/case (%d cases), %s %s s/case (%d cases): %s / %s = %s\n' \
			"$r" "$a" "$ra" "$na" "$b" "$rb" "$nb" "$b" "$a" "$ratio"
		r=$((r + 1))
	done
	med=$(sort -n "$out/$b.ratios" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	echo "$b / $a: median ratio $med over $rounds rounds (target <= 1.5)"
done
printf 'load average: %s (logs: %s)\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$out"

#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-distro: is the rebuild a faithful stand-in for the kernel Debian
# ships? The ci matrix runs on each pair (stock and debian-6.1, stock-6.12
# and debian-6.12) in one run, every case on both kernels of the pair, and
# `flipbed diff --by kernel` compares each case's outcome on the two. The
# check fails on any difference that kernel/distro-differences.tsv does not
# list, and on a listed one that no longer shows (results/baseline/distro.md
# explains each, by the config option behind it). Outside make check: it
# runs some 500 cases (about 7 minutes on two cores).
# Usage: kernel/check-distro.sh [OUT] (default build/check-distro);
# FLIPBED_DISTRO_PAIRS="REBUILD:SHIPPED ..." picks the pairs.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
flipbed=$top/build/bin/flipbed
out=${1:-$top/build/check-distro}
pairs=${FLIPBED_DISTRO_PAIRS:-stock:debian-6.1 stock-6.12:debian-6.12}
known=$top/kernel/distro-differences.tsv
for p in $pairs; do
	for k in ${p%%:*} ${p#*:}; do
		[ -r "$top/build/kernel/$k/vmlinux" ] ||
			{ echo "check-distro: kernel $k is not built (build/kernel/$k/vmlinux)" >&2; exit 2; }
	done
done
rm -rf "$out"
mkdir -p "$out"
cd "$top"
rc=0
for p in $pairs; do
	a=${p%%:*} b=${p#*:}
	d=$out/$b
	echo "check-distro: the ci matrix on $a and $b ($d)"
	# a case failing its expectation is the ci matrix's question; this
	# check asks whether the two kernels gave the same outcome
	"$flipbed" matrix ci --kernel "$a,$b" --jobs 2 --out "$d" > "$d.log" 2>&1 || true
	grep '^flipbed: [0-9]* cases in' "$d.log" ||
		{ tail -n 5 "$d.log" >&2; echo "check-distro: the run on $a,$b did not finish" >&2; exit 1; }
	"$flipbed" diff "$d" --by kernel > "$d.diff" 2>&1 || true
	head -n 1 "$d.diff"
	# each changed pair: "CASE@A -> CASE@B: OUTCOME -> OUTCOME"
	grep " -> .*@$b: " "$d.diff" | sed "s/@$a -> .*@$b: /	/" | sort > "$d.seen" || true
	awk -F '\t' -v b="$b" '$1 == b { print $2 "\t" $3 }' "$known" | sort > "$d.known"
	while IFS='	' read -r c o; do
		if grep -qF "$c	$o" "$d.known"; then
			echo "  known: $c@$b: $o"
		else
			echo "  NEW difference: $c@$b: $o (explain it in results/baseline/distro.md and list it in kernel/distro-differences.tsv, or fix it)"
			rc=1
		fi
	done < "$d.seen"
	while IFS='	' read -r c o; do
		grep -qF "$c	$o" "$d.seen" ||
			{ echo "  GONE: $c@$b: $o is listed but did not show"; rc=1; }
	done < "$d.known"
done
[ $rc -eq 0 ] && echo "check-distro: every difference is a known one" ||
	echo "check-distro: FAIL (runs: $out)"
exit $rc

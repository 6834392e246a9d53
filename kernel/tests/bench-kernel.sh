#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-kernel: the cost of the series on a metadata-heavy workload.
# Creates and unlinks FILES files (default 10000) on stock, patched and
# patched with csum_retry, in rounds of 500 creates + 500 unlinks per boot
# (flipbed boot takes at most 1024 steps), the three kernels interleaved
# round by round (in rotating order) so that drift in the shared machine
# hits them alike.
# Prints the guest step time per kernel (sum over rounds and the median
# round) and the ratios to stock. Nothing fails in the kernel path here:
# the figures show the cost of the code on the success path.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
flipbed=$top/build/bin/flipbed
files=${FILES:-10000}
per=500
rounds=$(( (files + per - 1) / per ))
T=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

for v in stock patched; do
	[ -f "$top/build/kernel/$v/vmlinux" ] || {
		echo "bench-kernel: kernel $v not built (make build/kernel/$v/bzImage)"; exit 2; }
done
[ -x "$flipbed" ] || { echo "bench-kernel: $flipbed not built"; exit 2; }

mkfs.ext4 -q -F -b 4096 -O metadata_csum "$T/base.img" 256M
args=$T/args
{
	echo "--step"; echo "mkdir /b"
	i=0; while [ $i -lt $per ]; do echo "--step"; echo "write /b/f$i 0"; i=$((i + 1)); done
	i=0; while [ $i -lt $per ]; do echo "--step"; echo "rm /b/f$i"; i=$((i + 1)); done
	echo "--step"; echo "sync"
} > "$args"

# run CONFIG KERNEL MOUNTOPTS: one round; appends its step seconds to $T/CONFIG
run() {
	cp "$T/base.img" "$T/$1.img"
	tr '\n' '\0' < "$args" | xargs -0 "$flipbed" boot --kernel "$2" \
		--image "$T/$1.img" --timeout 600 --step "mount $3" > "$T/$1.out" 2>&1 || {
		echo "bench-kernel: $1 round failed:"; tail -5 "$T/$1.out"; exit 1; }
	sed -n 's/.* steps \([0-9.]*\) .*/\1/p' "$T/$1.out" >> "$T/$1"
}

echo "bench-kernel: $rounds rounds x ($per creates + $per unlinks), 3 kernels interleaved;" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
r=0
config() {
	case $1 in
	0) run stock stock errors=remount-ro ;;
	1) run patched patched errors=remount-ro ;;
	2) run retry patched csum_retry ;;
	esac
}
# the order rotates each round, so no kernel always runs first or last
while [ $r -lt $rounds ]; do
	config $((r % 3)); config $(((r + 1) % 3)); config $(((r + 2) % 3))
	r=$((r + 1))
done

summary() {	# CONFIG: "sum median"
	sort -n "$T/$1" | awk '{ v[NR] = $1; s += $1 }
		END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		      printf "%.3f %.4f\n", s, m }'
}
set -- $(summary stock); s_sum=$1 s_med=$2
printf '%-28s %10s %12s %8s %8s\n' kernel "total s" "median s" "total/" "median/"
for c in stock patched retry; do
	set -- $(summary $c)
	case $c in
	stock) name="stock" ;;
	patched) name="patched" ;;
	retry) name="patched,csum_retry" ;;
	esac
	printf '%-28s %10s %12s %8.3f %8.3f\n' "$name" "$1" "$2" \
		"$(echo "$1 / $s_sum" | bc -l)" "$(echo "$2 / $s_med" | bc -l)"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(guest step time of $((rounds * per)) creates + $((rounds * per)) unlinks each; target: ratios within 1.02)"

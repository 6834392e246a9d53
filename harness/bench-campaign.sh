#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-campaign: cases per minute of `flipbed campaign` with --jobs 2
# on the patched kernel (target: >= 30 under TCG), and on the KASAN kernel
# beside it when build/kernel/kasan is built (make kasan). Same seed, same
# 40 cases on both; golden images are built before the clock starts.
# FLIPBED_BENCH_CASES changes the count.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
flipbed=$top/build/bin/flipbed
n=${FLIPBED_BENCH_CASES:-40}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$top" || exit 1

rate() {	# kernel -> "cases/min" of a fresh campaign dir
	"$flipbed" campaign --seed 77 --count "$n" --kernel "$1" --jobs 2 --out "$tmp/$1" \
		> "$tmp/$1.log" 2>&1
	sed -n 's/.*\*\*\([0-9.]*\) cases\/min\*\*.*/\1/p' "$tmp/$1/campaign.md"
}

# warm-up (not timed): build every golden image the seed needs, by running
# one generated case of each distinct image recipe (its [mkfs] and
# [populate] sections)
"$flipbed" campaign --seed 77 --count "$n" --kernel patched --generate --out "$tmp/warm" 2>/dev/null
recipes=$(for f in "$tmp"/warm/scenarios/*.scn; do
	printf '%s %s\n' "$(sed -n '/^\[mkfs\]/,/^\[target\]/p' "$f" | cksum | cut -d' ' -f1)" "$f"
done | sort -u -k1,1 | cut -d' ' -f2)
echo "warm-up: $(echo "$recipes" | wc -l) image recipes of $n cases"
"$flipbed" run $recipes --kernel patched --jobs 2 --out "$tmp/warm/run" > /dev/null 2>&1

p=$(rate patched)
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %10s\n' kernel cases/min
printf '%-8s %10s   (target >= 30)\n' patched "${p:-?}"
if [ -r "$top/build/kernel/kasan/bzImage" ]; then
	k=$(rate kasan)
	printf '%-8s %10s   (%s x patched)\n' kasan "${k:-?}" \
		"$(echo "${k:-0} ${p:-0}" | awk '{ if ($2 > 0) printf "%.2f", $1 / $2; else print "?" }')"
else
	printf '%-8s %10s   (build/kernel/kasan not built: make kasan)\n' kasan -
fi

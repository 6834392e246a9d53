#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-campaign: cases per minute of `flipbed campaign` with --jobs 2
# on the patched kernel (target: >= 45 under TCG with the next-mount pass
# on, as campaigns run), the same cases without the pass beside it (the
# pass's cost: target <= 0.3 s more median case time), and the KASAN
# kernel when build/kernel/kasan is built (make kasan), with its campaign
# profile (kasan: the smaller small-blocks htree; make bench-kasan-profile
# sets it beside the full one), one case per boot and batched (target:
# >= 30 cases/min batched), and the patched run
# without the read-ahead witness (FLIPBED_BIOREAD=0) beside it: its cost.
# Same seed, same 40 cases each; golden images are built before the clock
# starts. Then where the CPU of the patched campaign (next-mount on) and of
# the batched KASAN campaign went, phase by phase (harness/bench-profile.sh).
# FLIPBED_BENCH_CASES changes the count.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
flipbed=$top/build/bin/flipbed
n=${FLIPBED_BENCH_CASES:-40}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$top" || exit 1

# The CPU time (user + system, seconds) of every process this shell has
# waited for, into FILE: `times` must run in the shell that waited.
children_cpu() {
	times > "$tmp/times"
	sed -n 2p "$tmp/times" | awk '{ split($1, u, "m"); split($2, s, "m");
		printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' > "$1"
}
# kernel [next-mount [batch [tag]]] -> "cases/min" of a fresh campaign dir D;
# where its CPU went (harness/bench-profile.sh) in D.profile
rate() {
	d=$tmp/$1-${2:-yes}${3:+-b$3}${4:+-$4}
	children_cpu "$d.cpu0"
	w0=$(date +%s.%N)
	"$flipbed" campaign --seed 77 --count "$n" --kernel "$1" --jobs 2 \
		--next-mount "${2:-yes}" --batch "${3:-7}" --out "$d" > "$d.log" 2>&1
	children_cpu "$d.cpu1"
	"$top/harness/bench-profile.sh" "$d/run" "$(echo "$(cat "$d.cpu1") - $(cat "$d.cpu0")" | bc)" \
		"$(echo "$(date +%s.%N) - $w0" | bc)" > "$d.profile" 2>&1
	sed -n 's/.*\*\*\([0-9.]*\) cases\/min\*\*.*/\1/p' "$d/campaign.md"
}
median() {	# kernel next-mount [suffix] -> the run's median case seconds
	sed -n 's/.*median case \([0-9.]*\) s.*/\1/p' "$tmp/$1-$2${3:-}.log" | tail -n 1
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

p0=$(rate patched no)
p=$(rate patched yes)
pb=$(FLIPBED_BIOREAD=0 rate patched yes 7 nobio)
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-10s %10s %12s\n' kernel next-mount cases/min median-case
printf '%-8s %-10s %10s %10s s\n' patched no "${p0:-?}" "$(median patched no)"
printf '%-8s %-10s %10s %10s s   (target >= 45 cases/min)\n' patched yes "${p:-?}" \
	"$(median patched yes)"
echo "next-mount: $(echo "$(median patched yes) $(median patched no) ${p:-0} ${p0:-0}" |
	awk '{ printf "%+.2f s median case (target <= +0.3), rate %.2f x", $1 - $2, ($4 > 0 ? $3 / $4 : 0) }')"
printf '%-8s %-10s %10s %10s s   (FLIPBED_BIOREAD=0: no read-ahead witness)\n' patched yes \
	"${pb:-?}" "$(median patched yes -b7-nobio)"
echo "read-ahead witness: $(echo "$(median patched yes) $(median patched yes -b7-nobio) ${p:-0} ${pb:-0}" |
	awk '{ printf "%+.2f s median case, %.2f x the median, rate %.2f x", $1 - $2, ($2 > 0 ? $1 / $2 : 0), ($4 > 0 ? $3 / $4 : 0) }')"
if [ -r "$top/build/kernel/kasan/bzImage" ]; then
	k1=$(rate kasan yes 1)
	k=$(rate kasan)
	printf '%-8s %10s   (one case per boot: --batch 1)\n' kasan "${k1:-?}"
	printf '%-8s %10s   (batched, profile kasan: %s x one per boot, %s x patched; target >= 30 cases/min)\n' \
		kasan "${k:-?}" \
		"$(echo "${k:-0} ${k1:-0}" | awk '{ if ($2 > 0) printf "%.2f", $1 / $2; else print "?" }')" \
		"$(echo "${k:-0} ${p:-0}" | awk '{ if ($2 > 0) printf "%.2f", $1 / $2; else print "?" }')"
else
	printf '%-8s %10s   (build/kernel/kasan not built: make kasan)\n' kasan -
fi
for d in patched-yes kasan-yes; do
	[ -r "$tmp/$d.profile" ] || continue
	echo
	echo "$d:"
	cat "$tmp/$d.profile"
done

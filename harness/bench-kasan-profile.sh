#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-kasan-profile: a KASAN campaign under its two profiles, side by
# side in one run (flipbed campaign --profile, harness/campaign/README.md).
# The same seed and count on the kasan kernel with --jobs 2: cases per
# minute of each (target: >= 30 with the kasan profile), then what each
# found, by object type and by class (detected, and how; undetected, and
# why; a finding; infra), and the findings and unexplained cases per hour
# of each. The two profiles draw the same cases; only the small-blocks
# recipe's image differs, so the cases of every other recipe show what
# varies between two runs of the same case. Golden images are built
# before the clock starts. FLIPBED_BENCH_CASES (default 200) and
# FLIPBED_BENCH_SEED (default 77) change the campaign.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
flipbed=$top/build/bin/flipbed
n=${FLIPBED_BENCH_CASES:-200}
seed=${FLIPBED_BENCH_SEED:-77}
cd "$top" || exit 1
if [ ! -r build/kernel/kasan/bzImage ]; then
	echo "bench-kasan-profile: build/kernel/kasan is not built: make kasan" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# warm-up (not timed): one case of each distinct image recipe of each
# profile, on patched, builds every golden image the campaigns need
for p in full kasan; do
	"$flipbed" campaign --seed "$seed" --count "$n" --kernel kasan --profile "$p" \
		--generate --out "$tmp/warm-$p" 2>/dev/null
	recipes=$(for f in "$tmp/warm-$p"/scenarios/*.scn; do
		printf '%s %s\n' "$(sed -n '/^\[mkfs\]/,/^\[target\]/p' "$f" | cksum | cut -d' ' -f1)" "$f"
	done | sort -u -k1,1 | cut -d' ' -f2)
	"$flipbed" run $recipes --kernel patched --jobs 2 --out "$tmp/warm-$p/run" > /dev/null 2>&1
done

# One case per line: case, type, class. A finding as
# harness/campaign/campaign_find.c decides one (panic, oops, KASAN, hang, a
# WARNING/BUG/UBSAN line, data changed while nothing detected); a case
# read, covered and undetected is "unexplained"; otherwise the detection
# (and at the next mount) or the cause of an undetected case.
classes() {
	jq -r '
		(.outcome // {}) as $o
		| [ .case, .target.type // "?",
		    (if .verdict == "infra" or .verdict == "interrupted"
		     then "infra: " + ($o.infra // "" | split(" ") | .[0:4] | join(" "))
		     elif ($o.reaction | IN("panic", "oops", "kasan", "hang")) or $o.warning
		          or ($o.data == "changed" and $o.detect == "none") then "finding"
		     elif $o.undetected == "unexplained" then "unexplained"
		     elif $o.detect != "none" then "detected " + $o.detect
		     elif $o.detect_next != "none" then "detected at next mount " + $o.detect_next
		     else "undetected " + $o.undetected end) ] | @tsv' "$1/run/cases.jsonl" | sort
}

for p in kasan full; do
	w0=$(date +%s.%N)
	"$flipbed" campaign --seed "$seed" --count "$n" --kernel kasan --profile "$p" --jobs 2 \
		--out "$tmp/$p" > "$tmp/$p.log" 2>&1
	echo "$(date +%s.%N) - $w0" | bc > "$tmp/$p.wall"
	classes "$tmp/$p" > "$tmp/$p.tsv"
done

rate() { sed -n 's/.*\*\*\([0-9.]*\) cases\/min\*\*.*/\1/p' "$tmp/$1/campaign.md"; }
hits() { awk -F'\t' '$3 == "finding" || $3 == "unexplained"' "$tmp/$1.tsv" | wc -l; }
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "KASAN campaign, seed $seed, $n cases, --jobs 2"
printf '%-8s %9s %10s %12s %10s\n' profile wall-s cases/min "find+unexpl" per-hour
for p in kasan full; do
	printf '%-8s %9.1f %10s %12d %10.1f\n' "$p" "$(cat "$tmp/$p.wall")" "$(rate "$p")" \
		"$(hits "$p")" "$(echo "$(hits "$p") * 3600 / $(cat "$tmp/$p.wall")" | bc -l)"
done
echo "kasan / full: $(echo "$(rate kasan) $(rate full) $(hits kasan) $(hits full) $(cat "$tmp/kasan.wall") $(cat "$tmp/full.wall")" |
	awk '{ printf "rate %.2f x (target: kasan >= 30 cases/min); findings per hour %s", $1 / $2,
		($4 > 0 ? sprintf("%.2f x", ($3 / $5) / ($4 / $6)) : ($3 > 0 ? "more (full found none)" : "none in either")) }')"

echo
echo "Outcomes by object type and class (cases: full | kasan):"
cut -f2,3 "$tmp/full.tsv" | sed 's/^/full\t/' > "$tmp/both"
cut -f2,3 "$tmp/kasan.tsv" | sed 's/^/kasan\t/' >> "$tmp/both"
awk -F'\t' '{ k = $2 "\t" $3; if ($1 == "full") f[k]++; else s[k]++; keys[k] = 1 }
	END { for (k in keys) printf "%s\t%d\t%d\n", k, f[k], s[k] }' "$tmp/both" | sort |
	awk -F'\t' '{ printf "  %-18s %-44s %4d | %-4d%s\n", $1, $2, $3, $4, ($3 != $4 ? "  <" : "") }'

echo
echo "Cases whose class differs (recipe small-blocks: its image differs; any other: the same case run twice):"
join -t "$(printf '\t')" "$tmp/full.tsv" "$tmp/kasan.tsv" | awk -F'\t' '$3 != $5' > "$tmp/differ"
while IFS="$(printf '\t')" read -r c type cf tk ck; do
	recipe=$(sed -n "s/^# Recipe '\([^']*\)'.*/\1/p" "$tmp/full/scenarios/${c%@*}.scn")
	echo "  ${c%@*} ($recipe, $type): full $cf | kasan $ck"
done < "$tmp/differ"
[ -s "$tmp/differ" ] || echo "  none"
echo "small-blocks cases: $(grep -l "^# Recipe 'small-blocks'" "$tmp/full/scenarios/"*.scn | wc -l) of $n"

#!/bin/sh
# SPDX-License-Identifier: MIT
# harness/coverage/curve-svg.sh OUT.svg LABEL=RUN_DIR KERNEL...: the failure
# branches reached after each case (`curve` of RUN_DIR/coverage.json, made
# by `flipbed coverage RUN_DIR`) of KERNEL, one line per run, as one SVG
# chart; the legend names each LABEL and its last value. Used for the
# guided against unguided campaign plot of results/baseline/coverage.md.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 OUT.svg LABEL=RUN_DIR... KERNEL" >&2; exit 2; }
out=$1
shift
eval "kernel=\${$#}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for arg in "$@"; do
	[ "$arg" = "$kernel" ] && continue
	label=${arg%%=*} dir=${arg#*=}
	[ -f "$dir/coverage.json" ] || { echo "$0: no $dir/coverage.json (run flipbed coverage $dir)" >&2; exit 2; }
	n=$((n + 1))
	echo "$label" > "$tmp/label$n"
	jq -r --arg k "$kernel" '.[] | select(.kernel == $k) | .curve[] | "\(.[0]) \(.[1])"' \
		"$dir/coverage.json" > "$tmp/curve$n"
	[ -s "$tmp/curve$n" ] || { echo "$0: $dir has no curve for $kernel" >&2; exit 2; }
	jq -r --arg k "$kernel" '.[] | select(.kernel == $k) | .failure_branches' \
		"$dir/coverage.json" > "$tmp/max"
done
xmax=$(cat "$tmp"/curve* | awk '$1 > m { m = $1 } END { print m }')
ymax=$(cat "$tmp/max")
w=640 h=300 l=50 r=150 t=20 b=40
pw=$((w - l - r)) ph=$((h - t - b))
colors="#1f77b4 #d62728 #2ca02c #9467bd"
{
	printf '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">\n' $w $h $w $h
	printf '<title>Failure branches reached on %s, by cases run</title>\n' "$kernel"
	printf '<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>\n' $l $t $pw $ph
	printf '<text x="%d" y="%d" text-anchor="middle">cases</text>\n' $((l + pw / 2)) $((h - 6))
	printf '<text x="12" y="%d" transform="rotate(-90 12 %d)" text-anchor="middle">failure branches (of %s)</text>\n' $((t + ph / 2)) $((t + ph / 2)) "$ymax"
	for f in 0 0.25 0.5 0.75 1; do
		awk -v f=$f -v xm="$xmax" -v ym="$ymax" -v l=$l -v t=$t -v pw=$pw -v ph=$ph 'BEGIN {
			x = l + f * pw; y = t + ph - f * ph
			printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x, t + ph + 14, f * xm
			printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", l - 4, y + 4, f * ym }'
	done
	i=1
	while [ $i -le $n ]; do
		c=$(echo $colors | cut -d' ' -f$i)
		printf '<polyline fill="none" stroke="%s" stroke-width="1.5" points="' "$c"
		awk -v xm="$xmax" -v ym="$ymax" -v l=$l -v t=$t -v pw=$pw -v ph=$ph \
			'{ printf "%.1f,%.1f ", l + $1 / xm * pw, t + ph - $2 / ym * ph }' "$tmp/curve$i"
		printf '"/>\n'
		last=$(tail -n 1 "$tmp/curve$i" | cut -d' ' -f2)
		printf '<text x="%d" y="%d" fill="%s">%s: %s</text>\n' $((l + pw + 8)) $((t + 14 * i)) "$c" \
			"$(cat "$tmp/label$i")" "$last"
		i=$((i + 1))
	done
	printf '</svg>\n'
} > "$out"

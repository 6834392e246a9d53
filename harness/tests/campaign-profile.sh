#!/bin/sh
# SPDX-License-Identifier: MIT
# The kasan campaign profile keeps what the full one targets. One dx-node
# case (drawn covered and not resealed, so the fault itself says a read
# of it must be detected as a checksum failure) runs on patched under
# each profile. Both cases are detected as csum and pass. Their golden
# images hold /big as the same htree: two levels (debugfs: indirect
# levels 1), two dx nodes and one dx root (flipbed-corrupt map), with
# 12,002 entries under full and 602 under kasan. Groups: quick.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_flipbed
require_kernel patched
require_tools jq
cd "$top" || exit 1

# the first dx-node case of seed 3 whose flip is covered and not resealed
for p in full kasan; do
	"$FLIPBED" campaign --seed 3 --count 20 --types dx-node --kernel patched --profile $p \
		--generate --out "$T/$p" 2> "$T/gen.err" || { cat "$T/gen.err"; fail "generate ($p)"; }
done
case=
for f in "$T"/full/scenarios/*.scn; do
	grep -q '^region = covered$' "$f" && grep -q '^reseal = no$' "$f" && { case=${f##*/}; break; }
done
[ -n "$case" ] || fail "no covered, not resealed dx-node case among 20"
echo "case: $case ($(sed -n 's/^shows = //p' "$T/full/scenarios/$case"))"

for p in full kasan; do
	"$FLIPBED" run "$T/$p/scenarios/$case" --kernel patched --out "$T/$p/run" > "$T/$p.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { tail -n 5 "$T/$p.out"; fail "profile $p: flipbed run exited $rc"; }
	got=$(jq -r '"\(.verdict) \(.outcome.detect)"' "$T/$p/run/cases.jsonl")
	[ "$got" = "pass csum" ] && echo "ok: profile $p: $got" ||
		check_fail "profile $p: verdict and detection '$got', expected 'pass csum'"
done

# the golden image of each profile, by its recipe (harness/golden/golden.c)
golden() {
	for r in "$B"/cache/images/*/recipe.txt; do
		grep -q "^$1\$" "$r" && { echo "${r%/recipe.txt}/golden.raw"; return; }
	done
}
for p in "full files /big   12000 0" "kasan files /big   600 0 names 250"; do
	name=${p%% *}
	img=$(golden "${p#* }")
	[ -r "$img" ] || fail "profile $name: no golden image with '${p#* }' in build/cache/images"
	levels=$(debugfs -R "htree /big" "$img" 2>/dev/null | sed -n 's/.*Indirect levels: //p' | head -n 1)
	map=$("$B/bin/flipbed-corrupt" map "$img" 2>&1) || fail "flipbed-corrupt map $img: $map"
	nodes=$(echo "$map" | grep -c '^dx-node ')
	roots=$(echo "$map" | grep -c '^dx-root ')
	entries=$(debugfs -R "ls /big" "$img" 2>/dev/null | tr -s ' ' '\n' | grep -c '^f0')
	echo "profile $name: levels $levels, dx roots $roots, dx nodes $nodes, $entries entries in /big"
	[ "$levels" = 1 ] && [ "$roots" = 1 ] && [ "$nodes" = 2 ] ||
		check_fail "profile $name: /big is not a two-level htree with one root and two dx nodes"
	case $name in
	full) [ "$entries" = 12000 ] || check_fail "profile full: $entries f0… entries, expected 12000" ;;
	kasan) [ "$entries" = 602 ] || check_fail "profile kasan: $entries f0… entries, expected 602" ;;
	esac
done
no_leftovers
finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed plugin: the names its headers declare clash with none declared by
# the rest of flipbed (harness/, corruptor/, ...). No header guard is
# defined twice, and no function family (the prefix <word>_<noun>_, as
# fb_disk_ in fb_disk_open) is declared on both sides: a file that
# includes headers of both must not lose one to the other's guard or mix
# up two families of the same name. Groups: quick.
set -u
. "$(dirname "$0")/../../../tests/lib.sh"
root=$top
plugin=nbd-plugins/flipbed
cd "$root" || exit 1
tmp=$T

# guards FILE...: the header guards the files define
guards() { sed -n 's/^#ifndef \([A-Z0-9_]*_H\)$/\1/p' "$@" | sort -u; }
# families FILE...: prefixes of the functions declared at file scope
decl='^[a-z_][^(]*[ *]'
families() {
	sed -nE "s/$decl([a-z][a-z0-9]*_[a-z0-9]+_)[a-z0-9_]*\(.*/\1/p" "$@" |
		sort -u
}

others=$(find . -path ./build -prune -o -path ./.git -prune -o \
	-path "./$plugin" -prune -o -name '*.h' -type f -print)
[ -n "$others" ] || fail "no header outside $plugin to compare with"
mine=$(ls $plugin/*.h)
guards $others > "$tmp/guards"
families $others > "$tmp/families"
bad=0
for g in $(guards $mine | comm -12 - "$tmp/guards"); do
	echo "header guard $g in:" $(grep -l "^#ifndef $g\$" $mine $others)
	bad=$((bad + 1))
done
for f in $(families $mine | comm -12 - "$tmp/families"); do
	echo "function family $f* in:" $(grep -lE "$decl$f" $mine $others)
	bad=$((bad + 1))
done
echo "plugin-names: $(echo $mine | wc -w) plugin headers against" \
	"$(echo $others | wc -w) others, $bad clashes"
[ $bad -eq 0 ]

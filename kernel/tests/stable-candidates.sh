#!/bin/sh
# SPDX-License-Identifier: MIT
# kernel/stable-candidates/: fixes outside the checksum series. Each patch
# its series file lists is a build input of patched and its variants (so
# patched keeps the fix), is no patch of the checksum series nor named by
# its cover letter, is described in the folder's README, and applies to
# Debian's linux-source-6.1 as shipped (a stable candidate needs nothing
# of the series). Groups: quick.
. "$(dirname "$0")/../../tests/lib.sh"
require_tools patch xz
dir=$top/kernel/stable-candidates
series=$(grep -v '^[[:space:]]*\(#\|$\)' "$dir/series" 2>/dev/null) ||
	fail "kernel/stable-candidates/series: missing or empty"

checksum=$(grep -v '^[[:space:]]*\(#\|$\)' "$top/kernel/patches/series")
cover=$top/kernel/patches/0000-cover-letter.patch
subject() { sed -n '/^Subject: /{N;s/\n//;s/^Subject: \[PATCH[^]]*\] //;p;q}' "$1"; }

for p in $series; do
	f=$dir/$p
	[ -f "$f" ] || { check_fail "series names $p, which does not exist"; continue; }
	s=$(subject "$f")
	for k in patched kasan patched-smp; do
		"$top/kernel/build.sh" --inputs "$k" | grep -qx "kernel/stable-candidates/$p" &&
			ok "$k builds with $p" ||
			check_fail "$k: kernel/build.sh --inputs does not list kernel/stable-candidates/$p"
	done
	in_series=
	for q in $checksum; do
		[ "$(subject "$top/kernel/patches/$q")" = "$s" ] && in_series=$q
	done
	[ -z "$in_series" ] && ok "'$s' is not in the checksum series" ||
		check_fail "'$s' is also the checksum series' $in_series"
	first=$(echo "$s" | cut -c1-40)
	grep -qF "$first" "$cover" &&
		check_fail "the cover letter of kernel/patches names '$s'" ||
		ok "the cover letter does not name it"
	grep -qF "$first" "$dir/README.md" && ok "README.md describes it" ||
		check_fail "kernel/stable-candidates/README.md does not name '$s'"
done

# Each applies to Debian's source without the series.
tarball=$("$top/kernel/build.sh" --inputs stock | grep '^/usr/src/' || true)
[ -r "$tarball" ] || skip "$tarball: missing (make deps)"
src=$(basename "$tarball" .tar.xz)
for p in $series; do
	[ -f "$dir/$p" ] || continue
	sed -n 's|^--- a/||p' "$dir/$p" | sed "s|^|$src/|" > "$T/members"
	rm -rf "${T:?}/$src"
	tar -xJf "$tarball" -C "$T" -T "$T/members" || fail "$tarball: cannot extract $(cat "$T/members")"
	patch -s -p1 -N --dry-run -d "$T/$src" < "$dir/$p" > "$T/out" 2>&1 &&
		ok "$p applies to $src as shipped" ||
		check_fail "$p does not apply to $src: $(cat "$T/out")"
done
finish

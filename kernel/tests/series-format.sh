#!/bin/sh
# SPDX-License-Identifier: MIT
# kernel/series.sh on both series (patched's and patched-6.12's): `tree`
# makes one commit per patch on Debian's source; `export` writes them back
# with git format-patch into a copy of the series, which `check` then finds
# byte for byte reproducible (the commits' hashes do not depend on the
# machine or the hour); the copy's patches give the same final tree as the
# committed ones (the code is unchanged, only the form); and the committed
# series are that output, cover letters' shortlog and diffstat included.
# Bad input exits 2:
# an unknown kernel, a kernel without a series, an existing target, a
# directory that is not such a tree. Groups: quick.
. "$(dirname "$0")/../../tests/lib.sh"
require_tools git patch xz
series=$top/kernel/series.sh

for k in patched patched-6.12; do
	tarball=$("$top/kernel/build.sh" --inputs "$k" | grep '^/usr/src/' || true)
	[ -r "$tarball" ] || skip "$tarball: missing (make deps)"
	dir=$("$top/kernel/build.sh" --inputs "$k" | sed -n 's|/series$||p' | head -n1)
	n=$(grep -vc '^[[:space:]]*\(#\|$\)' "$top/$dir/series")

	"$series" tree "$k" "$T/$k" > "$T/out" 2>&1 || { cat "$T/out"; fail "tree $k"; }
	got=$(git -C "$T/$k" rev-list --count flipbed-base..HEAD)
	[ "$got" = "$n" ] || fail "$k: $got commits for $n patches"
	ok "$k: $n commits on $(basename "$tarball" .tar.xz)"

	# A registry whose $k reads a copy of the series.
	mkdir -p "$T/reg-$k"
	cp -a "$top/$dir" "$T/reg-$k/series"
	sed "s|^patches = $dir\( \|\$\)|patches = $T/reg-$k/series\1|" "$top/kernel/kernels.ini" > "$T/reg-$k/kernels.ini"
	FLIPBED_KERNELS_INI=$T/reg-$k/kernels.ini "$series" export "$k" "$T/$k" > "$T/out" 2>&1 ||
		{ cat "$T/out"; fail "export $k"; }
	[ -f "$T/reg-$k/series/0000-cover-letter.patch" ] || fail "$k: export removed the cover letter"
	m=$(grep -vc '^[[:space:]]*\(#\|$\)' "$T/reg-$k/series/series")
	[ "$m" = "$n" ] || fail "$k: the exported series file lists $m patches, not $n"
	head -n1 "$T/reg-$k/series/series" | grep -q '^#' || fail "$k: export dropped the series file's comment"
	FLIPBED_KERNELS_INI=$T/reg-$k/kernels.ini "$series" check "$k" > "$T/out" 2>&1 ||
		{ cat "$T/out"; fail "$k: the exported series is not reproduced by format-patch"; }
	ok "$k: exported by format-patch, reproduced byte for byte"

	FLIPBED_KERNELS_INI=$T/reg-$k/kernels.ini "$series" tree "$k" "$T/$k-again" > "$T/out" 2>&1 ||
		{ cat "$T/out"; fail "tree of the exported $k"; }
	a=$(git -C "$T/$k" rev-parse 'HEAD^{tree}')
	b=$(git -C "$T/$k-again" rev-parse 'HEAD^{tree}')
	[ "$a" = "$b" ] || fail "$k: the exported series gives another tree ($b, not $a)"
	ok "$k: the exported series changes the code as the committed one does"
done

# the committed series themselves: written by export, never by hand
for k in patched patched-6.12; do
	"$series" check "$k" > "$T/out" 2>&1 || { cat "$T/out"; fail "$k: the committed series is not format-patch's output (kernel/series.sh export)"; }
	ok "$k: the committed series is format-patch's output"
done

# bad input
expect2() {
	what=$1
	shift
	rc=0
	"$@" > "$T/out" 2>&1 || rc=$?
	[ $rc = 2 ] || { cat "$T/out"; fail "$what: exit $rc, not 2"; }
	ok "$what: exit 2 ($(head -n1 "$T/out"))"
}
expect2 "unknown kernel" "$series" tree nosuch "$T/x"
expect2 "a kernel without a series" "$series" tree stock "$T/x"
expect2 "an existing target" "$series" tree patched "$T/patched"
mkdir "$T/plain"
expect2 "export from a plain directory" "$series" export patched "$T/plain"
expect2 "no arguments" "$series"
finish

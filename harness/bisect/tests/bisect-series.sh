#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed bisect on a real history: a git tree of Debian's linux-source-6.1
# with the patch series (kernel/patches/series) as one commit per patch,
# and the case xattr/block-flip:rest, whose detection is `sanity` on the
# Debian source and `csum` with the series. The bisection must name the
# patch that made it `csum`: 0002, which gives the failed xattr block
# checksum its csum-error line (6.1's own message, "corrupted xattr
# block", names neither the checksum nor the magic; the bit this case
# flips is not in the magic, so 0005's reordering does not decide it).
# Running the command again must resume from its steps without building
# anything. Not part of make check: the first step builds a kernel
# from scratch, the others incrementally (make check-bisect; the figure is
# in kernel/README.md). Groups: slow, own-target.
. "$(dirname "$0")/../../../tests/lib.sh"
require_tools git tar
require_built "$B/bin/flipbed" build/bin/flipbed
pkg=linux-source-6.1
tarball=/usr/src/$pkg.tar.xz
[ -r "$tarball" ] || skip "$tarball not installed (make deps)"
series=$top/kernel/patches
want="ext4: report every metadata checksum failure in one stable form"

# The tree is kept between runs (build/kernel/series-git): it is rebuilt
# when the Debian version or a patch of the series changed.
tree=$B/kernel/series-git
version=$(dpkg-query -W -f='${Version}' "$pkg")
stamp=$( { echo "$version"; for p in $(grep -v '^[[:space:]]*\(#\|$\)' "$series/series"); do
	cat "$series/$p"; done; } | sha256sum | cut -c1-16)
g() { git -C "$tree" -c user.name=flipbed -c user.email=flipbed@localhost "$@"; }
if [ "$(cat "$tree/.git/flipbed-stamp" 2>/dev/null)" != "$stamp" ]; then
	echo "making $tree: $pkg $version and the series as commits"
	rm -rf "$tree" && mkdir -p "$tree" || fail "cannot make $tree"
	tar -xf "$tarball" -C "$tree" --strip-components=1 || fail "cannot extract $tarball"
	# Debian's .gitignore ignores everything at the top (its packaging
	# repository holds only debian/): the source is added by force
	g init -q && g add -A -f && g commit -q -m "$pkg $version (Debian)" && g tag base ||
		fail "cannot commit the Debian source in $tree"
	for p in $(grep -v '^[[:space:]]*\(#\|$\)' "$series/series"); do
		g am -q "$series/$p" || fail "git am $p failed in $tree"
	done
	echo "$stamp" > "$tree/.git/flipbed-stamp"
fi
trap 'git -C "$tree" worktree prune 2>/dev/null; rm -rf "$T"' EXIT

start=$(date +%s)
"$B/bin/flipbed" bisect xattr/block-flip:rest --tree "$tree" --good base --bad HEAD \
	--out "$T/bisect" > "$T/out" 2> "$T/err"
rc=$?
took=$(($(date +%s) - start))
cat "$T/out"
[ $rc -eq 0 ] || { tail -n 20 "$T/err"; fail "flipbed bisect exited $rc after $took s"; }
first=$(sed -n 's/^first commit whose .* differ from GOOD.s: \([0-9a-f]\{40\}\)$/\1/p' "$T/out")
[ -n "$first" ] || fail "no first commit in the output"
subject=$(git -C "$tree" log -1 --format=%s "$first")
if [ "$subject" = "$want" ]; then
	ok "the bisection names '$subject' ($took s, $(ls "$T/bisect/steps" | wc -l) revisions)"
else
	check_fail "the bisection names '$subject', expected '$want'"
fi
grep -q "GOOD [0-9a-f]*: detect=sanity" "$T/out" || check_fail "GOOD's outcome is not detect=sanity"
grep -q "^  [0-9a-f]*: detect=csum" "$T/out" || check_fail "the first commit's outcome is not detect=csum"

# Again: every step is read back, nothing is built.
"$B/bin/flipbed" bisect xattr/block-flip:rest --tree "$tree" --good base --bad HEAD \
	--out "$T/bisect" > "$T/out2" 2> "$T/err2" || check_fail "the second run exited $?"
grep -q building "$T/err2" && check_fail "the second run built a revision again"
cmp -s "$T/out" "$T/out2" || check_fail "the second run gave another answer"
finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# Build every prefix of kernel/patches/series (the tree must build after each
# patch) and run the kernel's checkpatch.pl on every patch.
#   kernel/check-patches.sh          all prefixes
#   kernel/check-patches.sh --last   only the whole series (what CI runs)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
series=$(grep -v '^[[:space:]]*\(#\|$\)' "$top/kernel/patches/series" || true)
n=$(echo "$series" | grep -c . || true)
if [ "$n" -eq 0 ]; then
	echo "check-patches: kernel/patches/series is empty"
	exit 0
fi
first=1
[ "${1:-}" = "--last" ] && first=$n
k=$first
while [ "$k" -le "$n" ]; do
	echo "check-patches: building with patches 1..$k of $n ($(echo "$series" | sed -n "${k}p"))"
	FLIPBED_SERIES_LIMIT=$k "$top/kernel/build.sh" check
	k=$((k + 1))
done
# The tree is Debian's source, not a clone of upstream: checkpatch.pl cannot
# look up the upstream commits a backport names (commit 8f984530c242 ("..."))
# and calls every one unknown. Their form is still checked (GIT_COMMIT_ID).
status=0
for p in $series; do
	if ! out=$(cd "$top/build/kernel/src/check" &&
		perl scripts/checkpatch.pl --quiet --no-tree --ignore UNKNOWN_COMMIT_ID \
			"$top/kernel/patches/$p" 2>&1); then
		echo "check-patches: checkpatch.pl: $p:"
		echo "$out" | sed 's/^/    /'
		status=1
	fi
done
[ $status = 0 ] && echo "check-patches: $n patches build in sequence and are checkpatch clean"
exit $status

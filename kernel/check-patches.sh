#!/bin/sh
# SPDX-License-Identifier: MIT
# Build every prefix of a kernel's patch series (the tree must build after
# each patch) and run the kernel's checkpatch.pl on every patch.
#   kernel/check-patches.sh [--kernel NAME]          all prefixes of NAME's series
#   kernel/check-patches.sh [--kernel NAME] --last   only the whole series
# NAME is a kernel of kernel/kernels.ini with a series (default: patched).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=patched
last=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2:?--kernel NAME}; shift ;;
	--last) last=1 ;;
	*) echo "usage: kernel/check-patches.sh [--kernel NAME] [--last]" >&2; exit 2 ;;
	esac
	shift
done
if ! "$top/kernel/build.sh" --list | grep -qxF -- "$kernel"; then
	echo "check-patches: unknown kernel '$kernel'; known: $("$top/kernel/build.sh" --list | paste -sd' ')" >&2
	exit 2
fi
dir=$("$top/kernel/build.sh" --inputs "$kernel" | sed -n 's|/series$||p')
[ -n "$dir" ] || { echo "check-patches: $kernel has no patch series" >&2; exit 2; }
case $dir in /*) ;; *) dir=$top/$dir ;; esac
tree=check
[ "$kernel" = patched ] || tree=check-$kernel
series=$(grep -v '^[[:space:]]*\(#\|$\)' "$dir/series" || true)
n=$(echo "$series" | grep -c . || true)
if [ "$n" -eq 0 ]; then
	echo "check-patches: $dir/series is empty"
	exit 0
fi
first=1
[ -n "$last" ] && first=$n
k=$first
while [ "$k" -le "$n" ]; do
	echo "check-patches: building $kernel with patches 1..$k of $n ($(echo "$series" | sed -n "${k}p"))"
	FLIPBED_SERIES_LIMIT=$k "$top/kernel/build.sh" check "$kernel"
	k=$((k + 1))
done
# The tree is Debian's source, not a clone of upstream: checkpatch.pl cannot
# look up the upstream commits a backport names (commit 8f984530c242 ("..."))
# and calls every one unknown. Their form is still checked (GIT_COMMIT_ID).
status=0
for p in $series; do
	if ! out=$(cd "$top/build/kernel/src/$tree" &&
		perl scripts/checkpatch.pl --quiet --no-tree --ignore UNKNOWN_COMMIT_ID \
			"$dir/$p" 2>&1); then
		echo "check-patches: checkpatch.pl: $p:"
		echo "$out" | sed 's/^/    /'
		status=1
	fi
done
[ $status = 0 ] && echo "check-patches: $n patches of $kernel build in sequence and are checkpatch clean"
exit $status

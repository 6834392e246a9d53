#!/bin/sh
# SPDX-License-Identifier: MIT
# Build every prefix of a kernel's patch series and boot each build (the
# tree must build and boot after each patch: mount, write and read back a
# file, unmount, on a metadata_csum image), then run the kernel's
# checkpatch.pl --strict on every patch.
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
# the series is the first directory of the kernel's patches (a later one
# holds fixes applied after it, not part of the series)
dir=$("$top/kernel/build.sh" --inputs "$kernel" | sed -n 's|/series$||p' | head -n1)
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
flipbed=$top/build/bin/flipbed
[ -x "$flipbed" ] || { echo "check-patches: $flipbed is not built (make all)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-check-patches.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# flipbed boots the kernels of its registry, by name, from build/kernel/NAME
# beside its bin/, and keeps the name check for the prefix tree: a copy of
# flipbed in $tmp boots the prefix's build as kernel "prefix", a variant of
# $kernel in a copy of the registry (so with $kernel's image format, memory
# and csum lines).
for d in bin guest lib kernel; do mkdir -p "$tmp/fb/$d"; done
cp "$flipbed" "$tmp/fb/bin/"
for f in guest/initramfs.cpio.gz lib/nbdkit-flipbed-plugin.so; do
	[ -r "$top/build/$f" ] || { echo "check-patches: build/$f is not built (make all)" >&2; exit 2; }
	ln -s "$top/build/$f" "$tmp/fb/$f"
done
ln -s "$top/build/kernel/$tree" "$tmp/fb/kernel/prefix"
cp "${FLIPBED_KERNELS_INI:-$top/kernel/kernels.ini}" "$tmp/kernels.ini"
printf '\n[prefix]\nvariant-of = %s\n' "$kernel" >> "$tmp/kernels.ini"
mkfs.ext4 -q -F -O metadata_csum,inline_data "$tmp/img" 64M
first=1
[ -n "$last" ] && first=$n
k=$first
while [ "$k" -le "$n" ]; do
	p=$(echo "$series" | sed -n "${k}p")
	echo "check-patches: building $kernel with patches 1..$k of $n ($p)"
	FLIPBED_SERIES_LIMIT=$k "$top/kernel/build.sh" check "$kernel"
	if ! FLIPBED_KERNELS_INI=$tmp/kernels.ini "$tmp/fb/bin/flipbed" boot --kernel prefix --image "$tmp/img" \
		--step mount --step 'write /a 100000' --step 'read /a 100000' --step umount \
		> "$tmp/boot.log" 2>&1 || ! grep -q '^flipbed: guest end: clean' "$tmp/boot.log"; then
		tail -n 30 "$tmp/boot.log" | sed 's/^/    /'
		echo "check-patches: $kernel with patches 1..$k ($p) does not boot, mount, write, read and unmount" >&2
		exit 1
	fi
	echo "check-patches: patches 1..$k boot, mount, write, read back and unmount"
	k=$((k + 1))
done
# The tree is Debian's source, not a clone of upstream: checkpatch.pl cannot
# look up the upstream commits a backport names (commit 8f984530c242 ("..."))
# and calls every one unknown. Their form is still checked (GIT_COMMIT_ID).
# --strict is asked for, without what the files the series touches are
# written in themselves: ext4.h and jbd2.h declare every function extern
# (AVOID_EXTERNS), ext4's mount options and buffer bits are Opt_* and
# BH_* (CAMELCASE), and a TRACE_EVENT's TP_STRUCT__entry( / TP_fast_assign(
# lines end open and its arguments are not aligned to its parenthesis in
# every trace header (OPEN_ENDED_LINE, PARENTHESIS_ALIGNMENT, accepted in
# include/trace/events/ only). Everything else fails the check.
status=0
for p in $series; do
	out=$(cd "$top/build/kernel/src/$tree" &&
		perl scripts/checkpatch.pl --quiet --strict --no-tree --terse --showfile --show-types \
			--ignore UNKNOWN_COMMIT_ID,AVOID_EXTERNS,CAMELCASE "$dir/$p" 2>&1 |
		grep -E '^[^ ]*:[0-9]+: (ERROR|WARNING|CHECK):' |
		grep -Ev '^include/trace/events/[^:]*:[0-9]+: CHECK:(OPEN_ENDED_LINE|PARENTHESIS_ALIGNMENT):' ||
		true)
	if [ -n "$out" ]; then
		echo "check-patches: checkpatch.pl --strict: $p:"
		echo "$out" | sed 's/^/    /'
		status=1
	fi
done
[ $status = 0 ] && echo "check-patches: $n patches of $kernel build and boot in sequence and are checkpatch --strict clean"
exit $status

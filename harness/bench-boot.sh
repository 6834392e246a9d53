#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-boot: boot to reboot with one mount/umount, 10 times per kernel;
# prints the median wall time of `flipbed boot` and the breakdown flipbed
# sees (QEMU start until it opens the agent channel, first console byte,
# kernel boot + agent start until "ready", the steps, "done" until QEMU
# exits), against a target of a 2.0 s median. With two kernels, the 6.1
# one and its 6.12 counterpart by default, their boots alternate (so that
# the machine's load falls on both alike) and the ratio of their medians
# is printed against a target of 1.3.
# Usage: harness/bench-boot.sh [RUNS] (default 10); FLIPBED_KERNEL="K..." picks
# the kernels (default: patched and patched-6.12, or stock and stock-6.12,
# those built), FLIPBED_BUILD=DIR another build directory
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${FLIPBED_BUILD:-$top/build}
runs=${1:-10}

built() { [ -r "$B/kernel/$1/vmlinux" ]; }
if [ -n "${FLIPBED_KERNEL:-}" ]; then
	kernels=$FLIPBED_KERNEL
	for k in $kernels; do
		built "$k" || { echo "bench-boot: kernel $k is not built ($B/kernel/$k/vmlinux)"; exit 2; }
	done
else
	kernels=
	for pair in "patched stock" "patched-6.12 stock-6.12"; do
		for k in $pair; do
			if built "$k"; then
				kernels="$kernels $k"
				break
			fi
		done
	done
fi
[ -n "$kernels" ] || { echo "bench-boot: no kernel built (make kernels)"; exit 2; }
T=$(mktemp -d /tmp/flipbed-bench.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T
mkfs.ext4 -q -F -O metadata_csum,inline_data "$T/img" 64M > /dev/null || exit 1

i=0
while [ $i -lt "$runs" ]; do
	for k in $kernels; do
		start=$(date +%s%N)
		"$B/bin/flipbed" boot --kernel "$k" --image "$T/img" --step mount --step umount \
			> "$T/log" 2>&1 || { cat "$T/log"; echo "bench-boot: $k run $i failed"; exit 1; }
		end=$(date +%s%N)
		# times qemu-start A first-console B kernel+agent-start C steps D
		#       reboot E total F s, qemu cpu G s
		sed -n 's/^flipbed: times //p' "$T/log" |
			awk -v wall="$(((end - start) / 1000))" '{
				print wall / 1e6, $2, $4, $6, $8, $10, $12, wall / 1e6 - $12, $16 }' >> "$T/times.$k"
	done
	i=$((i + 1))
done

# median, min and max of column $2 of kernel $1's times
stat() {
	cut -d' ' -f"$2" "$T/times.$1" | grep -v '^-$' | sort -n | awk '
		{ v[NR] = $1 }
		END {
			if (!NR) { printf "%8s %8s %8s", "-", "-", "-"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%8.3f %8.3f %8.3f", m, v[1], v[NR]
		}'
}

for k in $kernels; do
	version=$(cat "$B/kernel/$k/source-version" 2>/dev/null || echo unknown)
	echo "bench-boot: $runs boots of the $k kernel ($version), one mount + umount each (TCG, microvm, PVH vmlinux)"
	printf '%-44s %8s %8s %8s\n' "seconds" median min max
	printf '%-44s %s\n' "wall time of flipbed boot" "$(stat "$k" 1)"
	printf '%-44s %s\n' "  QEMU start -> agent channel open" "$(stat "$k" 2)"
	printf '%-44s %s\n' "  (QEMU start -> first console byte)" "$(stat "$k" 3)"
	printf '%-44s %s\n' "  kernel boot + agent start -> ready" "$(stat "$k" 4)"
	printf '%-44s %s\n' "  agent steps (mount, umount)" "$(stat "$k" 5)"
	printf '%-44s %s\n' "  done -> reboot -> QEMU exit" "$(stat "$k" 6)"
	printf '%-44s %s\n' "  QEMU run, start to exit" "$(stat "$k" 7)"
	printf '%-44s %s\n' "  outside QEMU (nbdkit start/stop, checks)" "$(stat "$k" 8)"
	printf '%-44s %s\n' "QEMU CPU time (user + system)" "$(stat "$k" 9)"
	stat "$k" 1 | awk '{ printf "target: median wall <= 2.0 s; measured %.3f s (ratio %.2f of the target)\n", $1, $1 / 2.0 }'
	echo
done
set -- $kernels
if [ $# -eq 2 ]; then
	a=$(stat "$1" 1 | awk '{ print $1 }')
	b=$(stat "$2" 1 | awk '{ print $1 }')
	ca=$(stat "$1" 9 | awk '{ print $1 }')
	cb=$(stat "$2" 9 | awk '{ print $1 }')
	awk -v a="$a" -v b="$b" -v ca="$ca" -v cb="$cb" -v ka="$1" -v kb="$2" 'BEGIN {
		printf "%s / %s: median wall %.3f / %.3f s = %.2f (target <= 1.30: %s); QEMU CPU %.3f / %.3f s = %.2f\n",
			kb, ka, b, a, b / a, b / a <= 1.3 ? "met" : "not met", cb, ca, cb / ca }'
fi

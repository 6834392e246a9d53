#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-boot: boot to reboot with one mount/umount, 10 times; prints
# the median wall time of `flipbed boot` and the breakdown flipbed sees
# (QEMU start until it opens the agent channel, first console byte, kernel
# boot + agent start until "ready", the steps, "done" until QEMU exits),
# against a target of a 2.0 s median.
# Usage: harness/bench-boot.sh [RUNS] (default 10); FLIPBED_KERNEL=stock|patched
# picks the kernel, FLIPBED_BUILD=DIR another build directory
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${FLIPBED_BUILD:-$top/build}
runs=${1:-10}
kernel=${FLIPBED_KERNEL:-patched}
[ -r "$B/kernel/$kernel/vmlinux" ] || kernel=stock
T=$(mktemp -d /tmp/flipbed-bench.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T
mkfs.ext4 -q -F -O metadata_csum,inline_data "$T/img" 64M > /dev/null || exit 1

i=0
while [ $i -lt "$runs" ]; do
	start=$(date +%s%N)
	"$B/bin/flipbed" boot --kernel "$kernel" --image "$T/img" --step mount --step umount \
		> "$T/log" 2>&1 || { cat "$T/log"; echo "bench-boot: run $i failed"; exit 1; }
	end=$(date +%s%N)
	# times qemu-start A first-console B kernel+agent-start C steps D
	#       reboot E total F s, qemu cpu G s
	sed -n 's/^flipbed: times //p' "$T/log" |
		awk -v wall="$(((end - start) / 1000))" '{
			print wall / 1e6, $2, $4, $6, $8, $10, $12, wall / 1e6 - $12, $16 }' >> "$T/times"
	i=$((i + 1))
done

# median, min and max of column $1 of the times file
stat() {
	cut -d' ' -f"$1" "$T/times" | grep -v '^-$' | sort -n | awk '
		{ v[NR] = $1 }
		END {
			if (!NR) { printf "%8s %8s %8s", "-", "-", "-"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%8.3f %8.3f %8.3f", m, v[1], v[NR]
		}'
}

echo "bench-boot: $runs boots of the $kernel kernel, one mount + umount each (TCG, microvm, PVH vmlinux)"
printf '%-44s %8s %8s %8s\n' "seconds" median min max
printf '%-44s %s\n' "wall time of flipbed boot" "$(stat 1)"
printf '%-44s %s\n' "  QEMU start -> agent channel open" "$(stat 2)"
printf '%-44s %s\n' "  (QEMU start -> first console byte)" "$(stat 3)"
printf '%-44s %s\n' "  kernel boot + agent start -> ready" "$(stat 4)"
printf '%-44s %s\n' "  agent steps (mount, umount)" "$(stat 5)"
printf '%-44s %s\n' "  done -> reboot -> QEMU exit" "$(stat 6)"
printf '%-44s %s\n' "  QEMU run, start to exit" "$(stat 7)"
printf '%-44s %s\n' "  outside QEMU (nbdkit start/stop, checks)" "$(stat 8)"
printf '%-44s %s\n' "QEMU CPU time (user + system)" "$(stat 9)"
median=$(stat 1 | awk '{ print $1 }')
echo "$median" | awk '{ printf "target: median wall <= 2.0 s; measured %.3f s (ratio %.2f of the target)\n", $1, $1 / 2.0 }'

#!/bin/sh
# SPDX-License-Identifier: MIT
# The cost of metadata_csum in the booted kernel (the LWN article:
# about -50 % on a create/delete and extent-modification test, no change
# for a mail-server mix). Two workloads, each on a metadata_csum image and
# a ^metadata_csum image, interleaved round by round (the order alternates)
# so that drift in the shared machine hits both alike:
#   micro  250 x fallocate 64 KiB (creates the file), truncate to 4 KiB,
#          then 250 unlinks: inode, bitmap and extent updates only
#   mixed  300 small files of 1-8 KiB written, the previous one read back,
#          every third one deleted two steps later, a sync every 50
# flipbed boot takes at most 1024 steps: one boot is one round.
# Output: "WORKLOAD CONFIG ROUND SECONDS" per boot (the guest step time).
# ROUNDS (default 8), KERNEL (default stock).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
flipbed=$top/build/bin/flipbed
rounds=${ROUNDS:-8}
kernel=${KERNEL:-stock}
T=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-csum.XXXXXX")
trap 'rm -rf "$T"' EXIT

[ -x "$flipbed" ] || { echo "csum: $flipbed not built" >&2; exit 2; }
for c in csum nocsum; do
	f=metadata_csum; [ $c = nocsum ] && f=^metadata_csum
	mkfs.ext4 -q -F -b 4096 -I 256 -O "$f" "$T/$c.img" 256M > /dev/null
done
{
	echo mkdir /b
	i=0; while [ $i -lt 250 ]; do
		echo "fallocate /b/f$i 0 65536"; echo "truncate /b/f$i 4096"; i=$((i + 1)); done
	i=0; while [ $i -lt 250 ]; do echo "rm /b/f$i"; i=$((i + 1)); done
	echo sync
} > "$T/micro"
{
	echo mkdir /m
	i=0; while [ $i -lt 300 ]; do
		echo "write /m/f$i $(( (i * 1237) % 8192 + 1 ))"
		[ $i -gt 0 ] && echo "read /m/f$((i - 1))"
		[ $((i % 3)) -eq 2 ] && echo "rm /m/f$((i - 2))"
		[ $((i % 50)) -eq 49 ] && echo sync
		i=$((i + 1))
	done
	echo sync
} > "$T/mixed"

# run WORKLOAD CONFIG ROUND: one boot on a fresh copy of the config's image
run() {
	cp --sparse=always "$T/$2.img" "$T/run.img"
	sed 's/^/--step\n/' "$T/$1" | tr '\n' '\0' | xargs -0 "$flipbed" boot \
		--kernel "$kernel" --image "$T/run.img" --timeout 600 --step mount \
		> "$T/out" 2>&1 || { echo "csum: $1 $2 round $3 failed:" >&2; tail -5 "$T/out" >&2; exit 1; }
	echo "$1 $2 $3 $(sed -n 's/.* steps \([0-9.]*\) .*/\1/p' "$T/out")"
}

# one boot first, not counted: the page cache of the host warms up
run micro csum 0 > /dev/null
r=1
while [ $r -le $rounds ]; do
	for w in micro mixed; do
		if [ $((r % 2)) -eq 1 ]; then run $w csum $r; run $w nocsum $r
		else run $w nocsum $r; run $w csum $r; fi
	done
	r=$((r + 1))
done

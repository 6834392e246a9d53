#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-crash-writelog: what the plugin's write log (the recording run
# of flipbed crash) adds to a guest workload's time. The same workload is
# booted with and without `flipbed boot --writelog`, each run on a fresh
# copy of the same image, the two alternating which goes first; the figure
# is flipbed's "steps" time (the agent's ready to done: the workload with
# its mount and umount, as the guest ran it), median of RUNS runs, and the
# ratio with / without (target: at most 1.10). Two workloads:
#   crash   the steps of scenarios/crash/fsync-rename.scn (fsyncs, a rename
#           over a synced file, a bigalloc file) on a bigalloc image
#   stream  32 MiB written in one file, then syncfs: the most a guest can
#           push through the log in one step
# The nbdcopy figures of `make bench-plugin-writelog` are the plugin alone,
# with a client that writes at page-cache speed.
# Usage: harness/crash/bench-writelog.sh [RUNS] (default 7); FLIPBED_KERNEL
# picks the kernel (default patched)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${FLIPBED_BUILD:-$top/build}
runs=${1:-7}
kernel=${FLIPBED_KERNEL:-patched}
for f in "$B/bin/flipbed" "$B/lib/nbdkit-flipbed-plugin.so" "$B/kernel/$kernel/vmlinux"; do
	[ -r "$f" ] || { echo "bench-crash-writelog: $f is not built (make all)"; exit 2; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-bench.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T

mkfs.ext4 -q -F -O bigalloc,metadata_csum -C 65536 "$T/crash.img" 256M > /dev/null || exit 1
mkfs.ext4 -q -F -O metadata_csum "$T/stream.img" 256M > /dev/null || exit 1
crash_steps="mount|write /new 3000|fsync /new|mkdir /d|write /d/f 7000|fsync /d/f|write /d/f.tmp 7000|fsync /d/f.tmp|rename /d/f.tmp /d/f|fsync /d|write /big 300000|write /big 100000 append|fsync /big|write /late 2000|umount"
stream_steps="mount|write /big 33554432|sync|umount"

# one WORKLOAD MODE: boot on a fresh copy, append "steps wall" to T/WORKLOAD.MODE
one() {
	w=$1 mode=$2
	cp "$T/$w.img" "$T/run.img"
	rm -f "$T/log"
	set -- --kernel "$kernel" --image "$T/run.img" --timeout 300
	[ "$mode" = with ] && set -- "$@" --writelog "$T/log"
	old_ifs=$IFS
	IFS='|'
	eval "list=\$${w}_steps"
	for s in $list; do
		set -- "$@" --step "$s"
	done
	IFS=$old_ifs
	start=$(date +%s%N)
	"$B/bin/flipbed" boot "$@" > "$T/boot.log" 2>&1 ||
		{ cat "$T/boot.log"; echo "bench-crash-writelog: $w $mode failed"; exit 1; }
	end=$(date +%s%N)
	steps=$(sed -n 's/^flipbed: times .* steps \([0-9.]*\) .*/\1/p' "$T/boot.log")
	echo "$steps $(((end - start) / 1000000))" >> "$T/$w.$mode"
	[ "$mode" = without ] || log_bytes=$(stat -c %s "$T/log")
}

median() {
	cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END {
		printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "bench-crash-writelog: kernel $kernel ($(cat "$B/kernel/$kernel/source-version" 2>/dev/null)), $runs runs per workload and mode, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-8s %-22s %9s %9s %7s\n' workload seconds without with ratio
for w in crash stream; do
	i=0
	while [ $i -lt "$runs" ]; do
		if [ $((i % 2)) -eq 0 ]; then
			one $w without; one $w with
		else
			one $w with; one $w without
		fi
		i=$((i + 1))
	done
	for col in 1 2; do
		a=$(median "$T/$w.without" $col)
		b=$(median "$T/$w.with" $col)
		[ $col -eq 1 ] && what="guest workload (steps)" || what="flipbed boot, wall"
		[ $col -eq 2 ] && { a=$(echo "$a / 1000" | bc -l); b=$(echo "$b / 1000" | bc -l); }
		printf '%-8s %-22s %9.3f %9.3f %7.2f\n' $w "$what" "$a" "$b" "$(echo "$b / $a" | bc -l)"
	done
	echo "$w: write log of the last run $((log_bytes / 1024)) KiB"
done

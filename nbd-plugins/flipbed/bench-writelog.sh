#!/bin/bash
# SPDX-License-Identifier: MIT
# flipbed plugin benchmark: what the write log (writelog=FILE) costs a
# write-heavy workload. The same image is written through flipbed without
# and with the log, side by side in one run: nbdcopy FILE -> NBD (random
# data, so nothing becomes a zero request), in nbdcopy's default requests
# and then in 4 KiB requests on one connection (the per-request cost:
# one locked pwritev of header and data per write). Each server is started
# afresh for every run (a log is created empty at start, and its start
# hashes the image: not timed), the two alternate which goes first, and
# every run starts with no dirty pages (sync, untimed). A run ends when
# nbdcopy has flushed the image; the log is not synced by a flush, so its
# own writeback is left to the kernel, outside the timing.
#
# Each figure is the median of REPS runs; "ratio" is with / without
# (1 = free; the target is at most 1.10). "cpu" is the median CPU time
# the server spent per run, steadier than wall time on a busy machine.
# Then flipbed-replay --to-end of the last log onto a copy of the image.
#
# Usage: bench-writelog.sh PLUGIN.so [FLIPBED_REPLAY]   (REPS, SIZE_MB,
# SMALL_MB and BENCH_DIR may be set; SIZE_MB is 1024 by default, SMALL_MB,
# the size written in 4 KiB requests, 128)
set -eu
plugin=$(realpath "$1")
replay=${2:-}
reps=${REPS:-7}
size_mb=${SIZE_MB:-1024}
small_mb=${SMALL_MB:-128}
dir=$(mktemp -d "${BENCH_DIR:-/var/tmp}/flipbed-bench-wlog.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM

for t in nbdkit nbdcopy bc; do
	command -v $t >/dev/null || { echo "bench-plugin-writelog: $t missing (Debian nbdkit, libnbd-bin, bc)"; exit 1; }
done

echo "bench-plugin-writelog: ${size_mb} MiB image in $dir, $reps" \
	"repetitions, $(nproc) cores"
head -c $((size_mb << 20)) /dev/urandom > "$dir/src"
head -c $((small_mb << 20)) "$dir/src" > "$dir/src-small"
cp "$dir/src" "$dir/image"
cp "$dir/image" "$dir/start"

# start NAME ARGS...: nbdkit serving on $dir/NAME.sock (its parent may
# return before the server has written its pid file)
start() {
	local name=$1 i
	shift
	rm -f "$dir/$name.sock" "$dir/$name.pid"
	nbdkit -U "$dir/$name.sock" -P "$dir/$name.pid" "$@"
	for ((i = 0; i < 200; i++)); do
		[ -s "$dir/$name.pid" ] && break
		sleep 0.05
	done
	pids+=("$(cat "$dir/$name.pid")")
}
stop() {
	local p
	p=$(cat "$dir/$1.pid")
	kill "$p"
	while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
}
# cpu NAME: CPU seconds (user + system) the server has used so far
cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' \
		"/proc/$(cat "$dir/$1.pid")/stat"
}
median() { tr ' ' '\n' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# run NAME SRC COPY-OPTIONS...: one timed copy into a fresh server NAME
# (plain, or logged with writelog=); appends its wall time to
# $dir/NAME.wall and the server's CPU time to $dir/NAME.cpu
run() {
	local name=$1 src=$2 s e c0 c1
	shift 2
	if [ "$name" = logged ]; then
		start logged "$plugin" file="$dir/image" \
			writelog="$dir/log.wlog"
	else
		start plain "$plugin" file="$dir/image"
	fi
	sync
	c0=$(cpu "$name")
	s=$(date +%s.%N)
	nbdcopy "$@" "$src" "nbd+unix:///?socket=$dir/$name.sock"
	e=$(date +%s.%N)
	c1=$(cpu "$name")
	stop "$name"
	echo "$e - $s" | bc >> "$dir/$name.wall"
	echo "$c1 - $c0" | bc >> "$dir/$name.cpu"
}

# measure LABEL SRC COPY-OPTIONS...: REPS runs of each, alternating
measure() {
	local label=$1 src=$2 i
	shift 2
	rm -f "$dir"/*.wall "$dir"/*.cpu
	for ((i = 0; i < reps; i++)); do
		if ((i % 2)); then
			run logged "$src" "$@"
			run plain "$src" "$@"
		else
			run plain "$src" "$@"
			run logged "$src" "$@"
		fi
	done
	local p l c d
	p=$(median < "$dir/plain.wall")
	l=$(median < "$dir/logged.wall")
	c=$(median < "$dir/plain.cpu")
	d=$(median < "$dir/logged.cpu")
	printf '%-26s %8.3f %8.3f %6.3f %8.3f %8.3f %6.3f   wall without: %s  with: %s\n' \
		"$label" "$p" "$l" "$(echo "$l / $p" | bc -l)" "$c" "$d" \
		"$(echo "$d / $c" | bc -l)" "$(echo $(cat "$dir/plain.wall"))" \
		"$(echo $(cat "$dir/logged.wall"))"
}

printf '%-26s %8s %8s %6s %8s %8s %6s\n' workload "without" "with" ratio \
	"cpu w/o" "cpu with" ratio
nbdcopy "$dir/src" "$dir/image"	# warm the page cache
measure "${size_mb} MiB, default requests" "$dir/src"
measure "${small_mb} MiB, 4 KiB requests" "$dir/src-small" \
	--request-size=4096 --connections=1
echo "ratio: with / without, wall time and server CPU time (1 = the log" \
	"costs nothing; target: at most 1.10)"
ls -l "$dir/log.wlog" | awk '{print "last log: " $5 " bytes"}'

if [ -n "$replay" ]; then
	sync
	s=$(date +%s.%N)
	"$replay" "$dir/log.wlog" "$dir/start" --to-end -o "$dir/replayed" >/dev/null
	e=$(date +%s.%N)
	echo "flipbed-replay --to-end of the last log: $(echo "$e - $s" | bc) s"
fi

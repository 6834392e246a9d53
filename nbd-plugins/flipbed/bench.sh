#!/bin/bash
# SPDX-License-Identifier: MIT
# flipbed plugin benchmark: nbdkit's file plugin vs flipbed on the same
# 1 GiB image, side by side in one run. Reads: nbdcopy NBD -> null:.
# Writes: nbdcopy FILE -> NBD (random data, so nothing is turned into
# zero requests). Each figure is the median of REPS runs, the two servers
# alternating which goes first; ratio = file time / flipbed time (throughput ratio, >= 1
# means flipbed is as fast). Then again with 10,000 rules armed, spread
# over the whole disk, not overlapping each other (len=8 flip=5 every
# SIZE/10,000 bytes), in two kinds of rows:
#   - rules of the other op (on=write during reads, on=read during writes):
#     every request searches among them, none applies;
#   - rules of the measured op (on=read during reads, on=write during
#     writes): every request that covers one has it applied (a read is
#     changed in place, a write is cut at the rule and stored in pieces).
# "vs 0" is flipbed's time with 0 rules / its time in the row (1 = the
# rules cost nothing). The median CPU seconds each nbdkit spent per run
# are printed too: on a busy machine they are steadier than wall time.
#
# With "witness", the read witness's cost per request instead: flipbed
# with nothing watched beside flipbed with 10 watched ranges, in 4 KiB
# requests (nbdcopy --request-size=4096 --connections=1), so that the
# per-request cost is not drowned in the copy. The ranges lie in a first
# MiB of the image that both servers hide behind nbdkit's offset filter:
# every request is checked against all 10 (the longest scan a request
# that touches none can make), and no write ends a fault's watch, which
# would leave the later runs nothing to check. Two kinds of rows: 10
# ranges that rest flips changed (the witness alone: no rule stays
# armed) and 10 watch rules (the witness and the rule set's search). "wall" and "cpu" are the
# ratios plain / watched of the median wall time and of the median CPU
# time of the server (1 = the witness costs nothing, below 1 = slower);
# "us/req" is the server's CPU time per request. A few tens of
# nanoseconds drown in the noise of these rows, so WITNESS_BENCH (the
# program tests/witness-bench.c, given as the third argument) times the
# check alone first, in a loop, with nothing watched and with 10 spans.
#
# Usage: bench.sh PLUGIN.so [witness [WITNESS_BENCH]]   (REPS, SIZE_MB and
# BENCH_DIR may be set; SIZE_MB is 1024 by default, 256 with witness)
set -eu
plugin=$(realpath "$1")
mode=${2:-}
witness_bench_bin=${3:-}
reps=${REPS:-7}
size_mb=${SIZE_MB:-1024}
[ "$mode" != witness ] || size_mb=${SIZE_MB:-256}
dir=$(mktemp -d "${BENCH_DIR:-/var/tmp}/flipbed-bench.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM

for t in nbdkit nbdcopy; do
	command -v $t >/dev/null || { echo "bench-plugin: $t missing (Debian nbdkit, libnbd-bin)"; exit 1; }
done

echo "bench-plugin: ${size_mb} MiB image in $dir, $reps repetitions, $(nproc) cores"
head -c $((size_mb << 20)) /dev/urandom > "$dir/src"
cp "$dir/src" "$dir/image"

# start NAME ARGS...: nbdkit serving on $dir/NAME.sock
start() {
	local name=$1; shift
	rm -f "$dir/$name.sock" "$dir/$name.pid"
	nbdkit -U "$dir/$name.sock" -P "$dir/$name.pid" "$@"
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

# secs NAME CMD...: wall time of one run; adds the server's CPU time to
# the file $dir/NAME.cpu
secs() {
	local name=$1 s e c0 c1
	shift
	c0=$(cpu "$name")
	s=$(date +%s.%N)
	"$@"
	e=$(date +%s.%N)
	c1=$(cpu "$name")
	echo "$c1 - $c0" | bc >> "$dir/$name.cpu"
	echo "$e - $s" | bc
}
median() { tr ' ' '\n' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure_witness LABEL OP: plain.sock vs watched.sock, REPS runs of OP
# in 4 KiB requests
measure_witness() {
	local label=$1 op=$2 pr=() wr=() i
	local copy=(nbdcopy --request-size=4096 --connections=1)
	local uri_p="nbd+unix:///?socket=$dir/plain.sock"
	local uri_w="nbd+unix:///?socket=$dir/watched.sock"
	local bytes=$((size_mb << 20))
	rm -f "$dir/plain.cpu" "$dir/watched.cpu"
	for ((i = 0; i < reps; i++)); do
		if [ "$op" = read ] && ((i % 2)); then
			wr+=("$(secs watched "${copy[@]}" "$uri_w" null:)")
			pr+=("$(secs plain "${copy[@]}" "$uri_p" null:)")
		elif [ "$op" = read ]; then
			pr+=("$(secs plain "${copy[@]}" "$uri_p" null:)")
			wr+=("$(secs watched "${copy[@]}" "$uri_w" null:)")
		elif ((i % 2)); then
			sync; wr+=("$(secs watched "${copy[@]}" "$dir/src" "$uri_w")")
			sync; pr+=("$(secs plain "${copy[@]}" "$dir/src" "$uri_p")")
		else
			sync; pr+=("$(secs plain "${copy[@]}" "$dir/src" "$uri_p")")
			sync; wr+=("$(secs watched "${copy[@]}" "$dir/src" "$uri_w")")
		fi
	done
	local p w pc wc
	p=$(echo "${pr[*]}" | median)
	w=$(echo "${wr[*]}" | median)
	pc=$(median < "$dir/plain.cpu")
	wc=$(median < "$dir/watched.cpu")
	printf '%-22s %-6s %8.3f %8.3f %6.3f %8.3f %8.3f %6.3f %7.2f %7.2f\n' \
		"$label" "$op" "$p" "$w" "$(echo "$p / $w" | bc -l)" \
		"$pc" "$wc" "$(echo "$pc / $wc" | bc -l)" \
		"$(echo "$pc * 1000000 / ($bytes / 4096)" | bc -l)" \
		"$(echo "$wc * 1000000 / ($bytes / 4096)" | bc -l)"
}

# The read witness's cost per request: nothing watched vs 10 ranges.
witness_bench() {
	local i kind
	[ -z "$witness_bench_bin" ] || "$witness_bench_bin"
	{ head -c $((1 << 20)) /dev/urandom; cat "$dir/src"; } > "$dir/image"
	for ((i = 0; i < 10; i++)); do
		echo "on=rest at=$((i * 65536 + 17)) len=8 flip=5"
	done > "$dir/rules-rest"
	for ((i = 0; i < 10; i++)); do
		echo "watch at=$((i * 65536 + 17)) len=8"
	done > "$dir/rules-watch"
	printf '%-22s %-6s %8s %8s %6s %8s %8s %6s %7s %7s\n' watched op \
		"plain s" "watch s" wall "plain c" "watch c" cpu \
		"us/req" "us/req"
	start plain --filter=offset "$plugin" file="$dir/image" offset=1048576
	nbdcopy "nbd+unix:///?socket=$dir/plain.sock" null:	# warm the cache
	for kind in rest watch; do
		start watched --filter=offset "$plugin" file="$dir/image" \
			offset=1048576 rules="$dir/rules-$kind"
		measure_witness "10 $kind ranges" read
		measure_witness "10 $kind ranges" write
		stop watched
	done
	stop plain
	echo "wall, cpu: plain / watched (1 = the witness costs nothing);" \
		"us/req: server CPU per 4 KiB request, plain then watched"
}

if [ "$mode" = witness ]; then
	witness_bench
	exit 0
fi

nrules=10000
step=$(((size_mb << 20) / nrules))
for on in read write; do
	for ((i = 0; i < nrules; i++)); do
		echo "on=$on at=$((i * step + 17)) len=8 flip=5"
	done > "$dir/rules-$on"
done

# flipbed's median time with 0 rules, per op, for the "vs 0" column
declare -A base

# measure LABEL OP: file.sock vs flipbed.sock, REPS runs of OP
measure() {
	local label=$1 op=$2 fr=() br=() i
	rm -f "$dir/file.cpu" "$dir/flipbed.cpu"
	local uri_f="nbd+unix:///?socket=$dir/file.sock"
	local uri_b="nbd+unix:///?socket=$dir/flipbed.sock"
	# Alternate who goes first, and start every write with no dirty
	# pages (sync, untimed), so neither server pays for the other's
	# writeback.
	for ((i = 0; i < reps; i++)); do
		if [ "$op" = read ] && ((i % 2)); then
			br+=("$(secs flipbed nbdcopy "$uri_b" null:)")
			fr+=("$(secs file nbdcopy "$uri_f" null:)")
		elif [ "$op" = read ]; then
			fr+=("$(secs file nbdcopy "$uri_f" null:)")
			br+=("$(secs flipbed nbdcopy "$uri_b" null:)")
		elif ((i % 2)); then
			sync; br+=("$(secs flipbed nbdcopy "$dir/src" "$uri_b")")
			sync; fr+=("$(secs file nbdcopy "$dir/src" "$uri_f")")
		else
			sync; fr+=("$(secs file nbdcopy "$dir/src" "$uri_f")")
			sync; br+=("$(secs flipbed nbdcopy "$dir/src" "$uri_b")")
		fi
	done
	local f b fc bc
	f=$(echo "${fr[*]}" | median)
	b=$(echo "${br[*]}" | median)
	fc=$(median < "$dir/file.cpu")
	bc=$(median < "$dir/flipbed.cpu")
	[ -n "${base[$op]:-}" ] || base[$op]=$b
	printf '%-22s %-6s %9.3f %9.3f %8.3f %6.3f %9.3f %9.3f   wall file: %s  flipbed: %s\n' \
		"$label" "$op" "$f" "$b" "$(echo "$f / $b" | bc -l)" \
		"$(echo "${base[$op]} / $b" | bc -l)" \
		"$fc" "$bc" "${fr[*]}" "${br[*]}"
}

start file file "$dir/image"
printf '%-22s %-6s %9s %9s %8s %6s %9s %9s\n' rules op "file s" \
	"flipbed s" ratio "vs 0" "file cpu" "flip cpu"
start flipbed "$plugin" file="$dir/image"
nbdcopy "nbd+unix:///?socket=$dir/file.sock" null:	# warm the page cache
measure "0 rules" read
measure "0 rules" write
stop flipbed
start flipbed "$plugin" file="$dir/image" rules="$dir/rules-write"
measure "$nrules on=write rules" read
measure "$nrules on=write rules" write
stop flipbed
start flipbed "$plugin" file="$dir/image" rules="$dir/rules-read"
measure "$nrules on=read rules" read
measure "$nrules on=read rules" write
stop flipbed
echo "targets: ratio >= 0.97 with 0 rules, >= 0.90 with $nrules rules of" \
	"the other op; rules of the measured op have no target (vs 0 shows" \
	"their cost)"

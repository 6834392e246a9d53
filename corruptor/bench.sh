#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-corruptor: `flipbed-corrupt map` against `e2fsck -fn` on the
# same 1 GiB image with 50,000 files (made with mke2fs -d from a generated
# tree). Target: map <= 0.5x e2fsck. Prints both (best of N wall times)
# and the ratio; then map --json against map (target: JSON <= 2x text).
#
# Fairness: the image sits in tmpfs (else the page cache, warmed by a
# first untimed run of each), so neither reads the disk; the two commands
# alternate, so a load spike from other work hits both; each is started
# by fork+exec without a shell and its output goes to /dev/null. Both
# read all the metadata: e2fsck -f checks every in-use inode and every
# directory block, map reads the same inode tables and directories and
# prints a record for each object (~25 MB of text here).
#
# FLIPBED_BENCH_RUNS=N (default 10) runs; KEEP=1 keeps the image;
# FLIPBED_CORRUPT=PATH times another build of the CLI.
set -u
F=${FLIPBED_CORRUPT:-build/bin/flipbed-corrupt}
runs=${FLIPBED_BENCH_RUNS:-10}
scratch=${TMPDIR:-}
[ -z "$scratch" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && scratch=/dev/shm
W=$(mktemp -d "${scratch:-/tmp}/flipbed-bench.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] && echo "image kept: $W/bench.img" || rm -rf "$W"' EXIT

echo "bench-corruptor: generating 50,000 files in 100 directories"
mkdir "$W/tree"
perl -e '
	for my $d (0 .. 99) {
		mkdir "$ARGV[0]/d$d" or die;
		for my $f (0 .. 499) {
			open(my $h, ">", "$ARGV[0]/d$d/file-$f") or die;
			print $h "x" x (($f * 37) % 9000);
			close $h;
		}
	}' "$W/tree" || exit 1
mkfs.ext4 -q -F -b 4096 -N 60000 -d "$W/tree" "$W/bench.img" 1G \
	>/dev/null 2>&1 || { echo "mkfs.ext4 failed"; exit 1; }
rm -rf "$W/tree"

# What the image holds (so that e2fsck's time can be judged).
$F map "$W/bench.img" > "$W/map.txt" || exit 1
dumpe2fs -h "$W/bench.img" 2>/dev/null | awk -F: '
	/^Inode count/ { n = $2 } /^Free inodes/ { f = $2 }
	/^Inode size/ { s = $2 } /^Filesystem features/ { ft = $2; sub(/^ +/, " ", ft) }
	END { printf "image: %d inodes in use (of %d, %d bytes each);%s\n",
		n - f, n, s, ft }'
awk '{ t[$1]++ } END { printf "map: %d records:", NR;
	for (k in t) printf " %s %d", k, t[k]; printf "\n" }' "$W/map.txt"
echo "files: 0 to 8,999 bytes (1 to 3 blocks, one extent in the inode)," \
	"no inline data; $(wc -c < "$W/map.txt") bytes of map output"

# Best wall time of each command over $runs alternating runs, after one
# untimed warm-up run each.
perl -MTime::HiRes=time -e '
	my ($runs, @cmds) = @ARGV;
	my @c = map { [split / /] } @cmds;
	my @best;
	sub run {
		my $s = time;
		my $pid = fork // die "fork: $!";
		if (!$pid) {
			open STDOUT, ">", "/dev/null";
			open STDERR, ">", "/dev/null";
			exec @{$_[0]} or exit 127;
		}
		waitpid $pid, 0;
		die "@{$_[0]}: exit $?\n" if $? >> 8 > 1;
		return time - $s;
	}
	run($_) for @c;
	for (1 .. $runs) {
		for my $k (0 .. $#c) {
			my $t = run($c[$k]);
			$best[$k] = $t if !defined $best[$k] || $t < $best[$k];
		}
	}
	printf "%.4f\n", $_ for @best;
' "$runs" "$F map $W/bench.img" "e2fsck -fn $W/bench.img" \
	"$F locate $W/bench.img --target superblock" \
	"$F map $W/bench.img --json" > "$W/times" || exit 1
m=$(sed -n 1p "$W/times")
e=$(sed -n 2p "$W/times")
b=$(sed -n 3p "$W/times")
j=$(sed -n 4p "$W/times")
r=$(printf '%.3f' "$(echo "scale=4; $m / $e" | bc)")
rj=$(printf '%.2f' "$(echo "scale=4; $j / $m" | bc)")
echo "best of $runs wall times ($(nproc) CPUs, load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg)):"
printf '%-36s %8s s\n' "flipbed-corrupt map" "$m"
printf '%-36s %8s s\n' "e2fsck -fn" "$e"
printf '%-36s %8s x  (target <= 0.5)\n' "ratio map / e2fsck" "$r"
printf '%-36s %8s s  (map built, one record printed)\n' \
	"flipbed-corrupt locate superblock" "$b"
printf '%-36s %8s s  text, %8s s JSON: %sx  (target <= 2)\n' \
	"flipbed-corrupt map, map --json" "$m" "$j" "$rj"

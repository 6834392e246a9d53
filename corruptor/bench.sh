#!/bin/sh
# make bench-corruptor: `flipbed-corrupt map` against `e2fsck -fn` on the
# same 1 GiB image with 50,000 files (made with mke2fs -d from a generated
# tree). Target: map <= 0.5x e2fsck. Prints both (best of 3) and the ratio.
set -u
F=build/bin/flipbed-corrupt
scratch=${TMPDIR:-}
[ -z "$scratch" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && scratch=/dev/shm
W=$(mktemp -d "${scratch:-/tmp}/flipbed-bench.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT

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
mkfs.ext4 -q -F -b 4096 -N 60000 -d "$W/tree" "$W/bench.img" 1G 2>/dev/null ||
	{ echo "mkfs.ext4 failed"; exit 1; }

best() { # COMMAND...: best wall time of 3 runs, in seconds
	b=
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" > /dev/null 2>&1
		t=$(echo "$(date +%s.%N) - $s" | bc)
		if [ -z "$b" ] || [ $(echo "$t < $b" | bc) = 1 ]; then b=$t; fi
	done
	printf '%.3f' "$b"
}

records=$($F map "$W/bench.img" | wc -l)
m=$(best $F map "$W/bench.img")
e=$(best e2fsck -fn "$W/bench.img")
r=$(echo "scale=3; $m / $e" | bc)
printf '%-28s %8s s  (%s records)\n' "flipbed-corrupt map" "$m" "$records"
printf '%-28s %8s s\n' "e2fsck -fn" "$e"
printf '%-28s %8s x  (target <= 0.5)\n' "ratio map / e2fsck" "$r"

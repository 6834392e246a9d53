#!/bin/sh
# Space used with inline_data on/off x bigalloc off (4 KiB) / 16 KiB / 64 KiB
# clusters x 256/1024-byte inodes, each image populated by `mke2fs -d` from
# the same tree. Trees: the Linux 6.1 source (build/kernel/src/stock, read
# only), this machine's /usr (hard-linked subset USR_DIRS, default without
# /usr/lib and /usr/local, which alone would take 7 GiB per image), and a
# generated tree of SMALL (default 30000) files of 0-200 bytes.
# TREES (default "small kernel usr") picks the trees.
# Output: one line per image on stdout, "TREE CLUSTER ISIZE INLINE USED_KIB",
# then nothing else; bench/seed.sh makes the tables and the plot.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-space.XXXXXX")
trap 'rm -rf "$T"' EXIT
ksrc=${KSRC:-$top/build/kernel/src/stock}
usr_dirs=${USR_DIRS:-bin sbin include share src}
small=${SMALL:-30000}
trees=${TREES:-small kernel usr}

[ -d "$ksrc" ] || { echo "space: $ksrc missing (make the stock kernel first)" >&2; exit 2; }

# A tree of $small files of 0-200 bytes, 100 per directory, sizes spread
# evenly (i * 67 mod 201) and contents that do not compress away.
mk_small() {
	awk -v n="$small" -v root="$T/small" 'BEGIN {
		srand(1)
		for (i = 0; i < n; i++) {
			d = sprintf("%s/d%03d", root, int(i / 100))
			if (i % 100 == 0) system("mkdir -p " d)
			f = sprintf("%s/f%05d", d, i)
			s = ""
			for (k = (i * 67) % 201; k > 0; k--) s = s sprintf("%c", 97 + int(rand() * 26))
			printf "%s", s > f
			close(f)
		}
	}'
}

# The /usr subset as hard links: no copy, the same files mke2fs reads.
mk_usr() {
	mkdir -p "$T/usr"
	for d in $usr_dirs; do
		[ -d "/usr/$d" ] && cp -al "/usr/$d" "$T/usr/$d" 2>/dev/null ||
			cp -a "/usr/$d" "$T/usr/$d"
	done
}

# measure NAME DIR: all twelve configurations of one tree
measure() {
	files=$(find "$2" | wc -l)
	kib=$(du -s --apparent-size -k "$2" | cut -f1)
	for cl in 4096 16384 65536; do
		# room for every file rounded up to a cluster, plus the tree again
		size=$(( (kib + files * cl / 1024) * 2 / 1024 + 256 ))M
		for is in 256 1024; do
			for inl in off on; do
				feat=^inline_data; [ $inl = on ] && feat=inline_data
				[ $cl = 4096 ] || feat=$feat,bigalloc
				cargs=; [ $cl = 4096 ] || cargs="-C $cl"
				mke2fs -q -F -t ext4 -b 4096 -I $is $cargs -N $((files + files / 4 + 1024)) \
					-O "$feat" -d "$2" "$T/img" "$size" > "$T/mkfs.log" 2>&1 || {
					echo "space: mke2fs failed for $1 $cl $is $inl:" >&2
					tail -3 "$T/mkfs.log" >&2; exit 1; }
				dumpe2fs -h "$T/img" 2>/dev/null | awk -v t="$1" -v c=$cl -v i=$is -v n=$inl '
					/^Block count:/ { b = $3 } /^Free blocks:/ { f = $3 }
					END { printf "%s %d %d %s %d\n", t, c, i, n, (b - f) * 4 }'
				rm -f "$T/img"
			done
		done
	done
}

for t in $trees; do
	case $t in
	small) mk_small; measure small "$T/small" ;;
	kernel) measure kernel "$ksrc" ;;
	usr) mk_usr; measure usr "$T/usr" ;;
	*) echo "space: unknown tree '$t'; accepted: small kernel usr" >&2; exit 2 ;;
	esac
done

# SPDX-License-Identifier: MIT
# Sourced by bench/space.sh and bench/populate.sh (not run): the trees both
# populate images from, and the image geometry they share, so that the two
# methods are compared on the same files and the same image sizes.
# Needs $T (a private temporary directory) set by the caller.
#   KSRC      the Linux 6.1 source (default build/kernel/src/stock, read
#             only; it holds the series of the last 6.1 kernel built, which
#             changes a few of its 78,580 files)
#   USR_DIRS  the /usr subset, hard-linked (default without /usr/lib and
#             /usr/local, which alone would take 7 GiB per image)
#   SMALL     files in the generated small-file tree (default 30000)
#   TREES     the trees to measure (default "small kernel usr")
ksrc=${KSRC:-$top/build/kernel/src/stock}
usr_dirs=${USR_DIRS:-bin sbin include share src}
small=${SMALL:-30000}
trees=${TREES:-small kernel usr}

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

# tree_dir NAME: make tree NAME if it is generated; print its directory.
tree_dir() {
	case $1 in
	small) [ -d "$T/small" ] || mk_small; echo "$T/small" ;;
	kernel)
		[ -d "$ksrc" ] || { echo "bench: $ksrc missing (make the stock kernel first)" >&2; return 2; }
		echo "$ksrc" ;;
	usr) [ -d "$T/usr" ] || mk_usr; echo "$T/usr" ;;
	*) echo "bench: unknown tree '$1'; accepted: small kernel usr" >&2; return 2 ;;
	esac
}

# geometry DIR: set $files (entries under DIR) and $kib (apparent KiB).
geometry() {
	files=$(find "$1" | wc -l)
	kib=$(du -s --apparent-size -k "$1" | cut -f1)
}

# mkfs_args CLUSTER ISIZE INLINE: set $size, $feat and $cargs for an image
# of the tree measured by geometry(): room for every file rounded up to a
# cluster, plus the tree again; inodes for every entry plus a quarter.
mkfs_args() {
	size=$(( (kib + files * $1 / 1024) * 2 / 1024 + 256 ))M
	feat=^inline_data; [ "$3" = on ] && feat=inline_data
	[ "$1" = 4096 ] || feat=$feat,bigalloc
	cargs="-I $2 -N $((files + files / 4 + 1024))"
	[ "$1" = 4096 ] || cargs="$cargs -C $1"
}

# used_kib IMAGE: blocks in use (block count - free blocks), in KiB.
used_kib() {
	dumpe2fs -h "$1" 2>/dev/null | awk '/^Block count:/ { b = $3 } /^Free blocks:/ { f = $3 }
		/^Block size:/ { s = $3 } END { print (b - f) * s / 1024 }'
}

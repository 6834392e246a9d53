#!/bin/sh
# SPDX-License-Identifier: MIT
# Build one flipbed kernel variant from Debian's linux-source-6.1.
#
#   kernel/build.sh stock|patched|kasan
#
# stock   : the tree as Debian ships it, pristine, in build/kernel/src/stock
# patched : the same tree plus kernel/patches/series, in build/kernel/src/patched
# kasan   : the patched tree, built with kernel/config/kasan.config as well
# check   : a tree of its own carrying the first $FLIPBED_SERIES_LIMIT patches
#           (kernel/check-patches.sh builds every prefix of the series with it)
#
# Each variant has its own O= directory (build/kernel/obj/VARIANT), so
# touching one patch re-applies only that patch and the ones after it and
# rebuilds only what they change. Results: build/kernel/VARIANT/{bzImage,vmlinux,config}.
set -eu

variant=${1:?usage: kernel/build.sh stock|patched|kasan}
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${FLIPBED_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
kb=$top/build/kernel
patches=$top/kernel/patches
jobs=${JOBS:-$(nproc)}

die() { echo "kernel/build.sh: $*" >&2; exit 1; }

case $variant in
stock) src=stock; fragments=flipbed.config ;;
patched) src=patched; fragments=flipbed.config ;;
kasan) src=patched; fragments="flipbed.config kasan.config" ;;
check) src=check; fragments=flipbed.config ;;
*) die "unknown variant '$variant'; accepted: stock, patched, kasan, check" ;;
esac

[ -r "$tarball" ] || die "$tarball not found; install Debian's linux-source-6.1 (make deps)"
version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)

# Extract a tree once per installed source version.
extract() {
	dir=$kb/src/$1
	if [ -f "$dir/.flipbed-source" ] && [ "$(cat "$dir/.flipbed-source")" = "$version" ]; then
		return
	fi
	echo "  EXTRACT $tarball ($version) -> $dir"
	rm -rf "$dir" "$kb/src/.tmp-$1"
	mkdir -p "$kb/src/.tmp-$1"
	tar -xf "$tarball" -C "$kb/src/.tmp-$1"
	mv "$kb/src/.tmp-$1"/linux-source-* "$dir"
	rmdir "$kb/src/.tmp-$1"
	echo "$version" > "$dir/.flipbed-source"
}

# Bring tree $1 to exactly kernel/patches/series (or its first
# $FLIPBED_SERIES_LIMIT patches): unwind the applied patches back to the
# first one that differs, then apply the rest.
apply_series() {
	dir=$kb/src/$1
	applied=$dir/.flipbed-applied
	mkdir -p "$applied"
	want=$(grep -v '^[[:space:]]*\(#\|$\)' "$patches/series" 2>/dev/null || true)
	[ -n "${FLIPBED_SERIES_LIMIT:-}" ] && want=$(echo "$want" | head -n "$FLIPBED_SERIES_LIMIT")
	have=$(cat "$applied/series" 2>/dev/null || true)
	i=0 keep=0 diverged=0
	for p in $have; do
		i=$((i + 1))
		w=$(echo "$want" | sed -n "${i}p")
		if [ $diverged = 0 ] && [ "$p" = "$w" ] && cmp -s "$applied/$p" "$patches/$p"; then
			keep=$i
		else
			diverged=1
		fi
	done
	# unwind in reverse order down to $keep
	n=$(echo "$have" | grep -c . || true)
	while [ "$n" -gt "$keep" ]; do
		p=$(echo "$have" | sed -n "${n}p")
		echo "  UNAPPLY $p"
		patch -s -R -p1 -d "$dir" < "$applied/$p" >/dev/null ||
			die "cannot unapply $p from $dir; remove $kb/src/patched and rebuild"
		rm -f "$applied/$p"
		n=$((n - 1))
	done
	echo "$have" | head -n "$keep" | grep . > "$applied/series.new" || true
	i=0
	for p in $want; do
		i=$((i + 1))
		[ $i -le $keep ] && continue
		[ -f "$patches/$p" ] || die "kernel/patches/series names $p, which does not exist"
		if ! patch -s -p1 -N --dry-run -d "$dir" < "$patches/$p" >/dev/null 2>&1; then
			base=$(cat "$patches/BASE" 2>/dev/null || echo unknown)
			die "kernel/patches/$p does not apply to linux-source-6.1 $version (series last rebased on $base, kernel/patches/BASE): rebase the series"
		fi
		echo "  APPLY   $p"
		patch -s -p1 -N -d "$dir" < "$patches/$p" >/dev/null
		cp "$patches/$p" "$applied/$p"
		echo "$p" >> "$applied/series.new"
	done
	mv "$applied/series.new" "$applied/series"
}

configure() {
	obj=$kb/obj/$variant
	mkdir -p "$obj"
	stamp=$obj/.flipbed-fragments
	new=$(cd "$top/kernel/config" && cat $fragments)
	if [ -f "$obj/.config" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$new" ]; then
		return
	fi
	echo "  CONFIG  tinyconfig + $fragments"
	make -s -C "$kb/src/$src" O="$obj" tinyconfig >/dev/null
	(cd "$top/kernel/config" && cat $fragments) > "$obj/fragment.config"
	"$kb/src/$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$obj/fragment.config" >/dev/null
	make -s -C "$kb/src/$src" O="$obj" olddefconfig >/dev/null
	# Every option the fragments ask for must have survived the merge.
	missing=$(grep '^CONFIG_' "$obj/fragment.config" | while read -r line; do
		grep -qx "$line" "$obj/.config" || echo "$line"
	done)
	[ -z "$missing" ] || die "config options not set after merge (unmet dependencies?): $(echo $missing)"
	echo "$new" > "$stamp"
}

mkdir -p "$kb/src"
# One build per source tree at a time (patched and kasan share a tree).
if [ -z "${FLIPBED_KERNEL_LOCKED:-}" ]; then
	export FLIPBED_KERNEL_LOCKED=1
	exec flock "$kb/src/.lock-$src" "$0" "$@"
fi
extract "$src"
[ "$src" != stock ] && apply_series "$src"
configure
echo "  KBUILD  $variant (-j$jobs)"
start=$(date +%s)
make -s -C "$kb/src/$src" O="$kb/obj/$variant" -j"$jobs" \
	KBUILD_BUILD_USER=flipbed KBUILD_BUILD_HOST=flipbed bzImage
out=$kb/$variant
mkdir -p "$out"
for f in arch/x86/boot/bzImage vmlinux .config; do
	name=$(basename "$f"); [ "$name" = .config ] && name=config
	cmp -s "$kb/obj/$variant/$f" "$out/$name" || cp "$kb/obj/$variant/$f" "$out/$name"
done
echo "$version" > "$out/source-version"
echo "  DONE    $out/bzImage ($(($(date +%s) - start)) s)"

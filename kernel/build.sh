#!/bin/sh
# SPDX-License-Identifier: MIT
# Build one kernel of kernel/kernels.ini (its keys are described there).
#
#   kernel/build.sh NAME           build/kernel/NAME/{bzImage,vmlinux,config,source-version};
#                                  for a Debian binary package (source = debian-image:):
#                                  build/kernel/NAME/{bzImage,vmlinux,config,release,
#                                  source-version,modules/}, nothing compiled
#   kernel/build.sh check [NAME]   NAME's series (default: patched's; the first
#                                  directory of its patches) cut to its first
#                                  $FLIPBED_SERIES_LIMIT patches, in a tree of its own,
#                                  build/kernel/check for patched, check-NAME for
#                                  another (kernel/check-patches.sh builds every prefix)
#   kernel/build.sh --dbg NAME     a debian-image kernel's debug info, from its -dbg
#                                  package: build/kernel/NAME/dbg/{vmlinux,modules/}
#                                  (flipbed decodes call traces with it)
#   kernel/build.sh --list         the kernels, one name a line
#   kernel/build.sh --inputs NAME  the files a build of NAME reads (make's prerequisites)
#   kernel/build.sh --tree DIR [--name NAME] [--config 'FRAGMENT...']
#                                  a kernel tree of the user's (any kernel source,
#                                  git or not), built as it is with the fragments
#                                  (default flipbed.config) into build/kernel/NAME
#                                  (default tree-BASENAME); boot it with
#                                  flipbed --kernel-image build/kernel/NAME/vmlinux.
#                                  Exit 2: not a kernel tree, a bad name; exit 3:
#                                  the build failed (nothing left in build/kernel/NAME)
#
# A source is extracted once per version into build/kernel/src/TREE, shared
# by every kernel with that source (stock, patched and kasan share one). A
# build first brings the tree to its kernel's series, as quilt would: it
# unwinds the applied patches back to the first that differs and applies
# the rest, so touching one patch redoes only it and those after it. The
# kernels with the same tree and config fragments share an O= directory
# (build/kernel/obj/FIRST: stock and patched build in obj/stock, kasan in
# obj/kasan), so the kernel's make compiles only what the series changed
# since the last build there: patched after stock recompiles the files its
# patches touch, and stock after patched the same files back.
# A Debian binary kernel package (debian-image:PACKAGE=VERSION) is fetched
# with apt-get download and unpacked with dpkg-deb -x, never installed: its
# vmlinuz becomes bzImage, the kernel ELF inside it vmlinux (what flipbed
# boots), lib/modules/RELEASE becomes modules/, with the
# modules.dep that depmod -b writes there (the package leaves it to its
# postinst). flipbed puts the modules the guest needs into its initramfs
# (harness/kernel_modules.h). A version the archive does not have, and a
# package without a kernel, exit 2 naming it.
# JOBS=N sets make -jN (default: every core). FLIPBED_KERNELS_INI=FILE reads
# another registry.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
ini=${FLIPBED_KERNELS_INI:-$top/kernel/kernels.ini}
kb=$top/build/kernel
jobs=${JOBS:-$(nproc)}

die() { echo "kernel/build.sh: $*" >&2; exit 1; }
# bad input (a series that does not fit its source): exit 2
bad() { echo "kernel/build.sh: $*" >&2; exit 2; }
usage() {
	echo "kernel/build.sh: $*" >&2
	echo "usage: kernel/build.sh NAME | check [NAME] | --dbg NAME | --list | --inputs NAME | --tree DIR [--name NAME] [--config 'FRAGMENT...']; NAME one of: $(names | paste -sd' ')" >&2
	exit 2
}

[ -r "$ini" ] || die "$ini: cannot read the kernel registry"

# The section names of the registry, in file order.
names() {
	sed -n 's/^[[:space:]]*\[[[:space:]]*\([^]]*[^][:space:]]\)[[:space:]]*\].*/\1/p' "$ini"
}

# raw NAME KEY: the value of KEY in [NAME]; fails when [NAME] has no KEY.
raw() {
	awk -v want="$1" -v key="$2" '
		/^[[:space:]]*[#;]/ || /^[[:space:]]*$/ { next }
		/^[[:space:]]*\[/ {
			s = $0
			sub(/^[[:space:]]*\[[[:space:]]*/, "", s)
			sub(/[[:space:]]*\].*$/, "", s)
			next
		}
		s == want {
			i = index($0, "=")
			if (!i)
				next
			k = substr($0, 1, i - 1)
			v = substr($0, i + 1)
			gsub(/^[[:space:]]+|[[:space:]]+$/, "", k)
			gsub(/^[[:space:]]+|[[:space:]]+$/, "", v)
			if (k == key) {
				val = v
				found = 1
			}
		}
		END { if (found) print val; exit !found }' "$ini"
}

# get NAME KEY: KEY of kernel NAME, or of the kernel it is a variant of
# (make is NAME's own); fails when none of them has it.
get() {
	_k=$1
	while :; do
		raw "$_k" "$2" && return 0
		[ "$2" = make ] && return 1
		_k=$(raw "$_k" variant-of) || return 1
	done
}

known() { names | grep -qxF -- "$1"; }

# first_like NAME KEY...: the first kernel of the registry whose KEYs all
# have NAME's values
first_like() {
	_n=$1
	shift
	for _t in $(names); do
		_same=1
		for _key in "$@"; do
			[ "$(get "$_t" "$_key" || true)" = "$(get "$_n" "$_key" || true)" ] || _same=
		done
		[ -n "$_same" ] && { echo "$_t"; return; }
	done
}

# The source tree of kernel NAME: the first kernel with its source; its
# object directory: the first with its source and config fragments.
tree_of() { first_like "$1" source; }
objdir_of() { first_like "$1" source config; }

# Resolve a path of the registry: relative to the repository, or absolute.
path_of() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$top/$1" ;;
	esac
}

# Everything about kernel $kernel: source, version, tree, series, fragments.
load() {
	src=$(get "$kernel" source) ||
		die "$ini: [$kernel] has no source; give debian:linux-source-X.Y, debian-image:PACKAGE=VERSION or git:PATH"
	debpkg=
	case $src in
	debian-image:?*=?*)
		debpkg=${src#debian-image:}
		pkg= tarball= gitdir= patches= fragments=
		return
		;;
	debian:linux-source-[0-9]*)
		pkg=${src#debian:}
		tarball=/usr/src/$pkg.tar.xz
		gitdir=
		;;
	git:?*)
		pkg=
		tarball=
		gitdir=$(path_of "${src#git:}")
		;;
	*) die "$ini: [$kernel] source = $src: expected debian:linux-source-X.Y, debian-image:PACKAGE=VERSION or git:PATH" ;;
	esac
	patches=
	for d in $(get "$kernel" patches || true); do
		patches="$patches${patches:+ }$(path_of "$d")"
	done
	fragments=$(get "$kernel" config) || die "$ini: [$kernel] has no config; give fragments of kernel/config/"
	for f in $fragments; do
		[ -r "$top/kernel/config/$f" ] || die "$ini: [$kernel] config: kernel/config/$f does not exist"
	done
}

inputs() {
	echo kernel/build.sh
	echo "$ini" | sed "s|^$top/||"
	for f in $fragments; do echo "kernel/config/$f"; done
	for d in $patches; do
		echo "$d/series" | sed "s|^$top/||"
	done
	for p in $(series); do
		[ -f "$p" ] && echo "$p" | sed "s|^$top/||"
	done
	if [ -n "$debpkg" ]; then
		:
	elif [ -n "$tarball" ]; then
		echo "$tarball"
	else
		# a new commit, checkout or reset moves HEAD and logs it there
		git -C "$gitdir" rev-parse --path-format=absolute --git-path logs/HEAD 2>/dev/null || true
	fi
}

# The patches of the series directories, in order (without comments and
# blank lines), each as DIR/PATCH.
series() {
	for d in $patches; do
		grep -v '^[[:space:]]*\(#\|$\)' "$d/series" 2>/dev/null | sed "s|^|$d/|"
	done
}

# A user's tree: checked, configured and built out of tree; the result
# appears in build/kernel/NAME only when the build succeeded.
build_tree() {
	dir=$1 name=$2 fragments=$3
	[ -d "$dir" ] || { echo "kernel/build.sh: --tree $dir: not a directory" >&2; exit 2; }
	for f in Makefile Kconfig arch/x86/Kconfig scripts/kconfig/merge_config.sh fs/ext4/super.c; do
		[ -f "$dir/$f" ] || {
			echo "kernel/build.sh: --tree $dir: not a kernel tree (no $f)" >&2
			exit 2
		}
	done
	dir=$(cd "$dir" && pwd)
	[ -n "$name" ] || name=tree-$(basename "$dir" | tr -c 'A-Za-z0-9._\n-' '-' | cut -c1-27)
	case $name in
	src | obj | check | check-* | .* | *[!A-Za-z0-9._-]*)
		echo "kernel/build.sh: --name $name: a name of letters, digits, '.', '_', '-', not src, obj or check*" >&2
		exit 2 ;;
	esac
	if known "$name"; then
		echo "kernel/build.sh: --name $name: a kernel of $ini has that name; choose another" >&2
		exit 2
	fi
	for f in $fragments; do
		[ -r "$top/kernel/config/$f" ] || {
			echo "kernel/build.sh: --config $f: kernel/config/$f does not exist" >&2
			exit 2
		}
	done
	if git -C "$dir" rev-parse --verify -q HEAD >/dev/null 2>&1; then
		version="$dir at $(git -C "$dir" describe --always --dirty 2>/dev/null)"
	else
		version="$dir (not a git tree)"
	fi
	obj=$kb/obj/$name
	fresh=
	[ -d "$obj" ] || fresh=1
	mkdir -p "$obj"
	# a failed first build leaves no object directory behind either
	fail_build() {
		tail -n 20 "$obj.log" | sed 's/^/    /' >&2
		echo "kernel/build.sh: --tree $dir: $1 (log: $obj.log)" >&2
		[ -n "$fresh" ] && rm -rf "$obj"
		exit 3
	}
	echo "  CONFIG  $name: tinyconfig +" $fragments
	make -s -C "$dir" O="$obj" tinyconfig > "$obj.log" 2>&1 || fail_build "make tinyconfig failed"
	(cd "$top/kernel/config" && cat $fragments) > "$obj/fragment.config"
	"$dir/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$obj/fragment.config" >> "$obj.log" 2>&1 &&
		make -s -C "$dir" O="$obj" olddefconfig >> "$obj.log" 2>&1 || fail_build "merging the fragments failed"
	missing=$(grep '^CONFIG_' "$obj/fragment.config" | while read -r line; do
		grep -qx "$line" "$obj/.config" || echo "$line"
	done)
	# not fatal: flipbed --kernel-image checks what a case needs
	[ -z "$missing" ] || echo "kernel/build.sh: $name: options of the fragments not set in this tree: $(echo $missing)" >&2
	echo "  KBUILD  $name (-j$jobs)"
	start=$(date +%s)
	make -s -C "$dir" O="$obj" -j"$jobs" KBUILD_BUILD_USER=flipbed KBUILD_BUILD_HOST=flipbed \
		bzImage >> "$obj.log" 2>&1 || fail_build "the build failed"
	tmp=$kb/.tmp-$name
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cp "$obj/arch/x86/boot/bzImage" "$obj/vmlinux" "$tmp/" && cp "$obj/.config" "$tmp/config" &&
		echo "$version" > "$tmp/source-version" || { rm -rf "$tmp"; fail_build "cannot copy the kernel"; }
	rm -rf "$kb/$name"
	mv "$tmp" "$kb/$name"
	rm -f "$obj.log"
	echo "  DONE    $kb/$name/vmlinux ($(($(date +%s) - start)) s)"
	echo "  run it: build/bin/flipbed run SCENARIO --kernel-image build/kernel/$name/vmlinux"
}

# The kernel ELF inside a bzImage, into $2: the x86 boot header gives the
# compressed payload's place (setup_sects at 0x1f1, payload_offset and
# payload_length at 0x248, counted from the protected-mode code after the
# setup sectors), and its magic the decompressor. QEMU boots that ELF
# through its PVH entry, without the firmware decompressing the kernel
# under TCG (seconds for an xz'd distribution kernel). Fails, leaving
# nothing, when the payload does not decompress whole to an ELF with a PVH
# entry note.
bzimage_vmlinux() {
	hdr=$(od -An -tu1 -j 497 -N 1 "$1" | tr -d ' ')
	[ "$hdr" -gt 0 ] 2>/dev/null || hdr=4
	set -- "$1" "$2" $(od -An -tu4 -j 584 -N 8 "$1")
	[ $# -eq 4 ] && [ "$4" -gt 0 ] || return 1
	poff=$(((hdr + 1) * 512 + $3))
	magic=$(od -An -tx1 -j "$poff" -N 4 "$1" | tr -d ' ')
	case $magic in
	fd377a58) unz="xz -dc" ;;
	28b52ffd) unz="zstd -dcq" ;;
	1f8b*) unz="gzip -dc" ;;
	02214c18) unz="lz4 -dc" ;;
	*) return 1 ;;
	esac
	# The payload ends with the kernel's size_append (the uncompressed size,
	# 4 bytes little-endian), which the decompressors call trailing
	# garbage: their exit status says nothing, the size says it all.
	want=$(tail -c +$((poff + $4 - 3)) "$1" | head -c 4 | od -An -tu4 | tr -d ' ')
	tail -c +$((poff + 1)) "$1" | head -c "$4" | $unz > "$2.tmp" 2>/dev/null || true
	# XEN_ELFNOTE_PHYS32_ENTRY (18): the PVH entry point QEMU needs
	if [ "$(stat -c %s "$2.tmp")" = "$want" ] &&
		[ "$(od -An -c -N 4 "$2.tmp" 2>/dev/null | tr -d ' ')" = '177ELF' ] &&
		readelf -n "$2.tmp" 2>/dev/null | grep -q 'Xen.*0x00000012'; then
		mv "$2.tmp" "$2"
	else
		rm -f "$2.tmp"
		return 1
	fi
}

# A Debian binary kernel package, fetched and unpacked into
# build/kernel/$name; the host installs nothing and loads nothing.
fetch_package() {
	pkgname=${debpkg%%=*} pkgver=${debpkg#*=}
	out=$kb/$name
	if [ -f "$out/bzImage" ] && [ -f "$out/vmlinux" ] && [ -f "$out/modules/modules.dep" ] &&
		[ "$(cat "$out/source-version" 2>/dev/null)" = "$pkgname $pkgver" ]; then
		touch "$out/bzImage"
		echo "  UP2DATE $out ($pkgname $pkgver)"
		return
	fi
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null && command -v depmod >/dev/null ||
		die "$name: fetching $pkgname needs apt-get, dpkg-deb and depmod (Debian's apt, dpkg, kmod)"
	[ -n "$(apt-cache show "$pkgname=$pkgver" 2>/dev/null)" ] ||
		bad "$ini: [$kernel] source = $src: the archive has no $pkgname version $pkgver (after apt-get update, apt-cache madison $pkgname lists what it has; pin one of those)"
	tmp=$kb/.tmp-$name
	rm -rf "$tmp"
	mkdir -p "$tmp/deb"
	echo "  FETCH   $pkgname $pkgver"
	# _apt cannot write into build/: download as the caller, quietly
	if ! (cd "$tmp/deb" && apt-get -q -o APT::Sandbox::User=root download "$pkgname=$pkgver") > "$tmp.log" 2>&1; then
		sed 's/^/    /' "$tmp.log" >&2
		rm -rf "$tmp" "$tmp.log"
		die "$name: apt-get download $pkgname=$pkgver failed"
	fi
	echo "  UNPACK  $(basename "$tmp"/deb/*.deb)"
	dpkg-deb -x "$tmp"/deb/*.deb "$tmp/x" || { rm -rf "$tmp" "$tmp.log"; die "$name: dpkg-deb -x failed"; }
	rel=$(ls "$tmp/x/lib/modules" 2>/dev/null | head -n 2)
	if [ -z "$rel" ] || [ "$(echo "$rel" | wc -l)" -ne 1 ] || [ ! -f "$tmp/x/boot/vmlinuz-$rel" ]; then
		rm -rf "$tmp" "$tmp.log"
		bad "$ini: [$kernel] source = $src: not a kernel image package (it has no boot/vmlinuz-RELEASE with one lib/modules/RELEASE)"
	fi
	echo "  DEPMOD  $rel"
	depmod -b "$tmp/x" "$rel" >> "$tmp.log" 2>&1 &&
		[ -s "$tmp/x/lib/modules/$rel/modules.dep" ] || {
		sed 's/^/    /' "$tmp.log" >&2
		rm -rf "$tmp" "$tmp.log"
		die "$name: depmod -b found no modules in $pkgname"
	}
	mkdir "$tmp/out"
	mv "$tmp/x/boot/vmlinuz-$rel" "$tmp/out/bzImage"
	bzimage_vmlinux "$tmp/out/bzImage" "$tmp/out/vmlinux" ||
		die "$name: $pkgname's vmlinuz holds no kernel ELF with a PVH entry (flipbed boots that ELF)"
	mv "$tmp/x/boot/config-$rel" "$tmp/out/config" 2>/dev/null || true
	mv "$tmp/x/lib/modules/$rel" "$tmp/out/modules"
	echo "$rel" > "$tmp/out/release"
	echo "$pkgname $pkgver" > "$tmp/out/source-version"
	# make's target: dpkg-deb keeps the package's times, older than kernels.ini
	touch "$tmp/out/bzImage"
	# the debug info of the same package version stays: fetching the image
	# again does not fetch its -dbg package again
	if [ -d "$out/dbg" ] && [ "$(cat "$out/source-version" 2>/dev/null)" = "$pkgname $pkgver" ]; then
		mv "$out/dbg" "$tmp/out/dbg"
	fi
	rm -rf "$out"
	mv "$tmp/out" "$out"
	rm -rf "$tmp" "$tmp.log"
	echo "  DONE    $out/bzImage ($rel, $(du -sm "$out" | cut -f1) MiB)"
}

# The debug info of kernel $name, from the -dbg package of the same
# version: vmlinux and the debug copies of the modules the guest loads
# (harness/kernel_modules.c), into build/kernel/$name/dbg; the package is
# large and only these are kept.
fetch_dbg() {
	pkgname=${debpkg%%=*} pkgver=${debpkg#*=}
	dbgpkg=${pkgname%-unsigned}-dbg
	out=$kb/$name/dbg
	[ -f "$kb/$name/release" ] || die "$name: not fetched; run 'make kernel-$name' first"
	rel=$(cat "$kb/$name/release")
	if [ -f "$out/vmlinux" ] && [ "$(cat "$out/source-version" 2>/dev/null)" = "$dbgpkg $pkgver" ]; then
		touch "$out/vmlinux"
		echo "  UP2DATE $out ($dbgpkg $pkgver)"
		return
	fi
	[ -n "$(apt-cache show "$dbgpkg=$pkgver" 2>/dev/null)" ] ||
		bad "$name: the archive has no $dbgpkg version $pkgver, the debug info of $pkgname"
	tmp=$kb/.tmp-$name-dbg
	rm -rf "$tmp"
	mkdir -p "$tmp/deb" "$tmp/x"
	echo "  FETCH   $dbgpkg $pkgver"
	if ! (cd "$tmp/deb" && apt-get -q -o APT::Sandbox::User=root download "$dbgpkg=$pkgver") > "$tmp.log" 2>&1; then
		sed 's/^/    /' "$tmp.log" >&2
		rm -rf "$tmp" "$tmp.log"
		die "$name: apt-get download $dbgpkg=$pkgver failed"
	fi
	echo "  UNPACK  vmlinux and the guest's modules of $(basename "$tmp"/deb/*.deb)"
	d=./usr/lib/debug/lib/modules/$rel/kernel
	# a pattern no file matches is not an error: the module may be built in
	dpkg-deb --fsys-tarfile "$tmp"/deb/*.deb | tar -x -C "$tmp/x" --wildcards \
		"./usr/lib/debug/boot/vmlinux-$rel" "$d/fs/ext4/*" "$d/fs/jbd2/*" "$d/fs/mbcache.ko*" \
		"$d/lib/crc16.ko*" "$d/drivers/virtio/*" "$d/drivers/block/virtio_blk.ko*" \
		"$d/drivers/char/virtio_console.ko*" "$d/crypto/crc32c_generic.ko*" \
		"$d/arch/x86/crypto/crc32c-intel.ko*" 2>> "$tmp.log"
	if [ ! -f "$tmp/x/usr/lib/debug/boot/vmlinux-$rel" ]; then
		sed 's/^/    /' "$tmp.log" >&2
		rm -rf "$tmp" "$tmp.log"
		bad "$name: $dbgpkg has no usr/lib/debug/boot/vmlinux-$rel"
	fi
	mkdir -p "$tmp/out/modules"
	mv "$tmp/x/usr/lib/debug/boot/vmlinux-$rel" "$tmp/out/vmlinux"
	# make's target: the package's times are older than the kernel's
	touch "$tmp/out/vmlinux"
	[ -d "$tmp/x/$d" ] && mv "$tmp/x/$d" "$tmp/out/modules/kernel"
	echo "$dbgpkg $pkgver" > "$tmp/out/source-version"
	rm -rf "$out"
	mv "$tmp/out" "$out"
	rm -rf "$tmp" "$tmp.log"
	echo "  DONE    $out ($(du -sm "$out" | cut -f1) MiB)"
}

case ${1:-} in
--dbg)
	kernel=${2:-}
	known "$kernel" || usage "--dbg: unknown kernel '$kernel'"
	load
	name=$kernel
	[ -n "$debpkg" ] || usage "--dbg $kernel: not a debian-image kernel (its debug info is its build's)"
	if [ -z "${FLIPBED_KERNEL_LOCKED:-}" ]; then
		export FLIPBED_KERNEL_LOCKED=1
		exec flock "$kb/.lock-$name" "$0" "$@"
	fi
	fetch_dbg
	exit 0
	;;
--tree)
	tdir=${2:-}
	[ -n "$tdir" ] || usage "--tree needs a directory"
	shift 2
	tname= tconf=flipbed.config
	while [ $# -gt 0 ]; do
		case $1 in
		--name) tname=${2:-}; [ -n "$tname" ] || usage "--name needs a name"; shift 2 ;;
		--config) tconf=${2:-}; [ -n "$tconf" ] || usage "--config needs fragments"; shift 2 ;;
		*) usage "--tree: unknown argument '$1'" ;;
		esac
	done
	mkdir -p "$kb/obj"
	build_tree "$tdir" "$tname" "$tconf"
	exit 0
	;;
--list)
	names
	exit 0
	;;
--inputs)
	kernel=${2:-}
	known "$kernel" || usage "unknown kernel '$kernel'"
	load
	inputs
	exit 0
	;;
check)
	of=${2:-patched}
	known "$of" || usage "check: unknown kernel '$of'"
	kernel=$of
	load
	[ -z "$debpkg" ] && [ -n "$patches" ] || die "check $of: $of has no patch series"
	# the series under review alone, not the fixes applied after it
	patches=${patches%% *}
	name=check
	[ "$of" = patched ] || name=check-$of
	tree=$name objdir=$name
	;;
"")
	usage "no kernel named"
	;;
*)
	kernel=$1
	known "$kernel" || usage "unknown kernel '$kernel'"
	load
	name=$kernel
	if [ -n "$debpkg" ]; then
		mkdir -p "$kb"
		if [ -z "${FLIPBED_KERNEL_LOCKED:-}" ]; then
			export FLIPBED_KERNEL_LOCKED=1
			exec flock "$kb/.lock-$name" "$0" "$@"
		fi
		fetch_package
		exit 0
	fi
	tree=$(tree_of "$kernel")
	objdir=$(objdir_of "$kernel")
	;;
esac

if [ -n "$tarball" ]; then
	[ -r "$tarball" ] || die "$tarball not found; install Debian's $pkg (make deps)"
	version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo unknown)
	label="$pkg $version"
else
	version=$(git -C "$gitdir" rev-parse --verify -q HEAD) ||
		die "$ini: [$kernel] source = $src: $gitdir is not a git tree with a commit"
	label="$gitdir at $version"
fi

# Extract a tree once per source version. Every file gets the time of the
# extraction (tar -m), not the one the tarball or commit gives it: a new
# version's files may be older than the objects built from the previous
# one, and kbuild would then keep those objects.
extract() {
	dir=$kb/src/$tree
	if [ -f "$dir/.flipbed-source" ] && [ "$(cat "$dir/.flipbed-source")" = "$version" ]; then
		return
	fi
	tmp=$kb/src/.tmp-$tree
	rm -rf "$dir" "$tmp"
	mkdir -p "$tmp"
	if [ -n "$tarball" ]; then
		echo "  EXTRACT $tarball ($version) -> $dir"
		tar -xmf "$tarball" -C "$tmp"
		mv "$tmp"/linux-source-* "$dir"
		rmdir "$tmp"
	else
		echo "  EXPORT  $gitdir $version -> $dir"
		git -C "$gitdir" archive --format=tar "$version" | tar -xmf - -C "$tmp"
		mv "$tmp" "$dir"
	fi
	echo "$version" > "$dir/.flipbed-source"
}

# Bring the tree to exactly the series (or its first $FLIPBED_SERIES_LIMIT
# patches): unwind the applied patches back to the first one that differs,
# then apply the rest.
apply_series() {
	dir=$kb/src/$tree
	applied=$dir/.flipbed-applied
	mkdir -p "$applied"
	want=$(series)
	# the tree records each applied patch by its file name
	twice=$(for w in $want; do basename "$w"; done | sort | uniq -d | head -n1)
	[ -z "$twice" ] || bad "two patches of $(get "$kernel" patches) are named $twice: rename one"
	[ -n "${FLIPBED_SERIES_LIMIT:-}" ] && want=$(echo "$want" | head -n "$FLIPBED_SERIES_LIMIT")
	have=$(cat "$applied/series" 2>/dev/null || true)
	i=0 keep=0 diverged=0
	for p in $have; do
		i=$((i + 1))
		w=$(echo "$want" | sed -n "${i}p")
		if [ $diverged = 0 ] && [ "$p" = "$(basename "$w")" ] && cmp -s "$applied/$p" "$w"; then
			keep=$i
		else
			diverged=1
		fi
	done
	# unwind in reverse order down to $keep; $applied/series says what is
	# applied after every step, so that a series that stops applying
	# midway leaves a tree the next build can bring to any series
	n=$(echo "$have" | grep -c . || true)
	while [ "$n" -gt "$keep" ]; do
		p=$(echo "$have" | sed -n "${n}p")
		echo "  UNAPPLY $p"
		patch -s -R -p1 -d "$dir" < "$applied/$p" >/dev/null ||
			die "cannot unapply $p from $dir; remove $dir and rebuild"
		n=$((n - 1))
		echo "$have" | head -n "$n" | grep . > "$applied/series.new" || true
		mv "$applied/series.new" "$applied/series"
		rm -f "$applied/$p"
	done
	echo "$have" | head -n "$keep" | grep . > "$applied/series.new" || true
	i=0
	for w in $want; do
		i=$((i + 1))
		[ $i -le $keep ] && continue
		p=$(basename "$w")
		sdir=$(dirname "$w")
		rel=$(echo "$sdir" | sed "s|^$top/||")
		[ -f "$w" ] || bad "$rel/series names $p, which does not exist"
		if ! patch -s -p1 -N --dry-run -d "$dir" < "$w" >/dev/null 2>&1; then
			base=$(cat "$sdir/BASE" 2>/dev/null || echo unknown)
			bad "$rel/$p does not apply to $label (series last rebased on $base, $rel/BASE): rebase the series"
		fi
		echo "  APPLY   $p"
		patch -s -p1 -N -d "$dir" < "$w" >/dev/null
		cp "$w" "$applied/$p"
		echo "$p" >> "$applied/series.new"
		cp "$applied/series.new" "$applied/series"
	done
	mv "$applied/series.new" "$applied/series"
}

configure() {
	obj=$kb/obj/$objdir
	mkdir -p "$obj"
	stamp=$obj/.flipbed-fragments
	new=$(cd "$top/kernel/config" && cat $fragments)
	if [ -f "$obj/.config" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$new" ]; then
		return
	fi
	echo "  CONFIG  tinyconfig +" $fragments
	make -s -C "$kb/src/$tree" O="$obj" tinyconfig >/dev/null
	(cd "$top/kernel/config" && cat $fragments) > "$obj/fragment.config"
	"$kb/src/$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$obj/fragment.config" >/dev/null
	make -s -C "$kb/src/$tree" O="$obj" olddefconfig >/dev/null
	# Every option the fragments ask for must have survived the merge.
	missing=$(grep '^CONFIG_' "$obj/fragment.config" | while read -r line; do
		grep -qx "$line" "$obj/.config" || echo "$line"
	done)
	[ -z "$missing" ] || die "$name: config options not set after merge (renamed, or unmet dependencies?): $(echo $missing)"
	echo "$new" > "$stamp"
}

mkdir -p "$kb/src"
# One build per source tree at a time (patched and kasan share a tree).
if [ -z "${FLIPBED_KERNEL_LOCKED:-}" ]; then
	export FLIPBED_KERNEL_LOCKED=1
	exec flock "$kb/src/.lock-$tree" "$0" "$@"
fi
extract
# with no series too: a tree shared with patched kernels goes back to none
apply_series
configure
echo "  KBUILD  $name (-j$jobs)"
start=$(date +%s)
make -s -C "$kb/src/$tree" O="$kb/obj/$objdir" -j"$jobs" \
	KBUILD_BUILD_USER=flipbed KBUILD_BUILD_HOST=flipbed bzImage
out=$kb/$name
mkdir -p "$out"
# A coverage kernel (coverage = gcov): what gcov needs to read its
# counters later, when the shared trees have moved on to another kernel's
# series (harness/coverage/README.md): the notes files of fs/ext4 and
# fs/jbd2 (.gcno) and their source as compiled, the build id that the
# guest's counters must carry, and the object directory that debugfs names
# them by. Kept before the kernel is copied out, so that a kernel whose
# bundle could not be made is not taken for built.
if [ "$(get "$kernel" coverage || true)" = gcov ]; then
	g=$out/gcov
	rm -rf "$g.new"
	for d in fs/ext4 fs/jbd2; do
		mkdir -p "$g.new/src/$d" "$g.new/obj/$d"
		find "$kb/src/$tree/$d" -maxdepth 1 -name '*.[ch]' -exec cp -t "$g.new/src/$d" {} +
		cp "$kb/obj/$objdir/$d"/*.gcno "$g.new/obj/$d/"
	done
	id=$(readelf -n "$kb/obj/$objdir/vmlinux" | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p' | head -n 1)
	[ -n "$id" ] || die "$name: vmlinux has no GNU build id"
	echo "$id" > "$g.new/build-id"
	echo "$kb/obj/$objdir" > "$g.new/objdir"
	rm -rf "$g"
	mv "$g.new" "$g"
fi
for f in arch/x86/boot/bzImage vmlinux .config; do
	base=$(basename "$f"); [ "$base" = .config ] && base=config
	cmp -s "$kb/obj/$objdir/$f" "$out/$base" || cp "$kb/obj/$objdir/$f" "$out/$base"
done
# bzImage is make's target: newer than its inputs (a patch whose text
# changed, the same code) even when the build changed nothing, or every
# make would rebuild it again
touch "$out/bzImage"
echo "$version" > "$out/source-version"
echo "  DONE    $out/bzImage ($(($(date +%s) - start)) s)"

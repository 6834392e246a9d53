#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's binary kernels (kernels.ini debian-6.1 and debian-6.12, a
# debian-image source: fetched, unpacked, their drivers modules). Each boots
# with its modules loaded from the initramfs (mount, write, read back,
# umount; /proc/modules lists every module flipbed loads that the package
# does not build in), then runs one scenario per object family as cases,
# which must meet the expectations of the stock kernel of its source. The
# same package's image and modules given as --kernel-image FILE --modules
# DIR boot too, and a case on them names both in its repro command. Bad
# input exits 2 naming what is wrong: a package that is not a kernel image
# and a version the archive does not have (kernel/build.sh), a modules.dep
# without ext4, one whose dependencies go round, the modules of another
# release, a modular image without --modules, --modules without
# --kernel-image, a folder without modules.dep; a module that does not
# load in the guest ends the boot as infra naming it.
# Groups: debian kernel.
. "$(dirname "$0")/lib.sh"
LC_ALL=C
export LC_ALL
require_tools mkfs.ext4 nbdkit qemu-system-x86_64 apt-cache
require_built "$flipbed" build/bin/flipbed
require_built "$B/guest/initramfs.cpio.gz" build/guest/initramfs.cpio.gz
for k in debian-6.1 debian-6.12; do
	require_built "$B/kernel/$k/bzImage" "kernel-$k"
done

mkfs.ext4 -q -F -O metadata_csum,inline_data "$T/img" 64M || fail "mkfs.ext4"

# The modules the initramfs carries for kernel K whose package does not
# build them in: every one flipbed asks for, and those modules.dep adds.
loaded_ok() {
	k=$1 log=$2
	missing=
	for m in virtio_pci virtio_blk virtio_console crc32c_generic crc32c_intel jbd2 ext4; do
		grep -q "/$(echo "$m" | sed 's/_/[-_]/g')\.ko" "$B/kernel/$k/modules/modules.builtin" && continue
		grep -q "^out [0-9]* $m " "$log" || missing="$missing $m"
	done
	[ -z "$missing" ] && ok "$k: /proc/modules lists every module it does not build in" ||
		check_fail "$k: /proc/modules lacks$missing"
}

boot() {
	"$flipbed" boot "$@" --image "$T/img" --timeout 120 --step mount --step 'write /a 100000' \
		--step 'read /a 100000' --step 'cat /proc/modules' --step umount > "$T/boot.log" 2>&1
}

for k in debian-6.1 debian-6.12; do
	boot --kernel "$k"
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^flipbed: guest end: clean' "$T/boot.log"; then
		ok "$k boots, loads its modules, mounts, writes and reads back, unmounts"
		loaded_ok "$k" "$T/boot.log"
		# ext4 is a module in both packages: it was loaded, not built in
		grep -q '^out [0-9]* ext4 ' "$T/boot.log" || check_fail "$k: ext4 is not in /proc/modules"
	else
		tail -n 30 "$T/boot.log" | sed 's/^/    /'
		check_fail "$k: flipbed boot exited $rc"
	fi
done

# One scenario per object family, as cases, with the expectations of the
# stock kernel of the package's source (debian-6.1 is a variant of stock,
# debian-6.12 of stock-6.12).
s=$top/scenarios
families="$s/superblock/primary-flip.scn $s/group-desc/flip.scn $s/bitmap/block-flip.scn
	$s/inode/base-flip.scn $s/extent/leaf-flip.scn $s/dir/leaf-flip.scn $s/xattr/block-flip.scn
	$s/journal/sb-flip.scn $s/data/file-flip.scn"
for k in debian-6.1 debian-6.12; do
	# shellcheck disable=SC2086
	"$flipbed" run $families --kernel "$k" --jobs 2 --out "$T/run-$k" > "$T/run-$k.log" 2>&1
	rc=$?
	n=$(grep -c '"verdict": *"pass"' "$T/run-$k/cases.jsonl" 2>/dev/null)
	all=$(grep -c . "$T/run-$k/cases.jsonl" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "${n:-0}" -ge 9 ] && [ "$n" = "$all" ]; then
		ok "$k: $n cases of 9 families met the expectations of its source's stock kernel"
	else
		sed -n '/^## Failures/,$p' "$T/run-$k/summary.md" 2>/dev/null | head -n 30 | sed 's/^/    /'
		tail -n 15 "$T/run-$k.log" | sed 's/^/    /'
		check_fail "$k: flipbed run exited $rc, ${n:-0} of ${all:-0} cases passed"
	fi
	grep -q "$k linux-image-[^ ]* [0-9]" "$T/run-$k/summary.md" 2>/dev/null ||
		check_fail "$k: summary.md does not name the package and its version"
done

# --kernel-image FILE --modules DIR: the same package, given by hand
boot --kernel-image "$B/kernel/debian-6.1/bzImage" --modules "$B/kernel/debian-6.1/modules"
rc=$?
if [ $rc -eq 0 ] && grep -q '^flipbed: guest end: clean' "$T/boot.log"; then
	ok "--kernel-image debian-6.1's bzImage --modules its modules: boots and mounts"
	loaded_ok debian-6.1 "$T/boot.log"
else
	tail -n 20 "$T/boot.log" | sed 's/^/    /'
	check_fail "--kernel-image --modules: flipbed boot exited $rc"
fi

# a run on it: the case passes, run.json and its repro command name the modules
mods=$B/kernel/debian-6.1/modules
"$flipbed" run "$top/scenarios/data/file-flip.scn" --kernel-image "$B/kernel/debian-6.1/bzImage" \
	--modules "$mods" --jobs 1 --out "$T/run-image" > "$T/run-image.log" 2>&1
rc=$?
[ $rc -eq 0 ] || { tail -n 10 "$T/run-image.log" | sed 's/^/    /'; check_fail "flipbed run --kernel-image --modules exited $rc"; }
grep -q '"verdict": *"pass"' "$T/run-image/cases.jsonl" 2>/dev/null ||
	check_fail "flipbed run --kernel-image --modules: the case did not pass"
grep -q "\"repro\": *\"[^\"]*--kernel-image $B/kernel/debian-6.1/bzImage --modules $mods\"" \
	"$T/run-image/cases.jsonl" 2>/dev/null && ok "a case on --kernel-image --modules: its repro names both" ||
	check_fail "the repro command does not name --modules $mods"
grep -q "\"modules\": *\"$mods\"" "$T/run-image/run.json" 2>/dev/null ||
	check_fail "run.json does not name the modules"

# refused WHAT PATTERN ARGS...: flipbed boot ARGS exits 2 with PATTERN, nothing booted
refused() {
	what=$1 pattern=$2
	shift 2
	"$flipbed" boot "$@" --image "$T/img" --step mount > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$pattern" "$T/err"; then
		ok "$what: exit 2, $(grep -- "$pattern" "$T/err" | head -n 1)"
	else
		sed 's/^/    /' "$T/err" | head -n 5
		check_fail "$what: exit $rc, expected 2 and '$pattern'"
	fi
	grep -q '^flipbed: times' "$T/out" && check_fail "$what: a guest was booted"
}
img61=$B/kernel/debian-6.1/bzImage
rel61=$(cat "$B/kernel/debian-6.1/release")
rel612=$(cat "$B/kernel/debian-6.12/release")
# a copy of 6.1's modules folder whose modules.dep is TEXT (stdin)
fake_modules() {
	rm -rf "$T/m"
	mkdir -p "$T/m/lib/modules/$rel61"
	ln -s "$B/kernel/debian-6.1/modules/kernel" "$T/m/lib/modules/$rel61/kernel"
	cp "$B/kernel/debian-6.1/modules/modules.builtin" "$T/m/lib/modules/$rel61/"
	cat > "$T/m/lib/modules/$rel61/modules.dep"
}
grep -v '^kernel/fs/ext4/ext4\.ko:' "$B/kernel/debian-6.1/modules/modules.dep" | fake_modules
refused "a modules.dep without ext4" "modules.dep has no module ext4 " \
	--kernel-image "$img61" --modules "$T/m"
{
	grep -v '^kernel/fs/\(ext4/ext4\|jbd2/jbd2\)\.ko:' "$B/kernel/debian-6.1/modules/modules.dep"
	echo "kernel/fs/ext4/ext4.ko: kernel/fs/jbd2/jbd2.ko"
	echo "kernel/fs/jbd2/jbd2.ko: kernel/fs/ext4/ext4.ko"
} | fake_modules
refused "a modules.dep whose dependencies go round" "a dependency cycle through" \
	--kernel-image "$img61" --modules "$T/m"
refused "the modules of another release" \
	"is built for kernel $rel612, and the kernel is $rel61" \
	--kernel-image "$img61" --modules "$B/kernel/debian-6.12/modules"
refused "a modular image without --modules" "lacks ext4: .*--modules DIR" --kernel-image "$img61"
refused "--modules without --kernel-image" "give --kernel-image too" \
	--kernel debian-6.1 --modules "$B/kernel/debian-6.1/modules"
mkdir -p "$T/empty"
refused "a folder without modules.dep" "no modules.dep in it" \
	--kernel-image "$img61" --modules "$T/empty"

# A module the guest cannot load (ext4 without crc16, which it needs: its
# modules.dep line says otherwise): the boot ends as infra naming ext4.
{
	grep -v '^kernel/fs/ext4/ext4\.ko:' "$B/kernel/debian-6.1/modules/modules.dep"
	echo "kernel/fs/ext4/ext4.ko: kernel/fs/mbcache.ko kernel/fs/jbd2/jbd2.ko"
} | fake_modules
"$flipbed" boot --kernel-image "$img61" --modules "$T/m" --image "$T/img" --timeout 120 \
	--step mount > "$T/out" 2>&1
rc=$?
if [ $rc -eq 3 ] && grep -q '^flipbed: guest end: infra: the guest could not load module ext4 ' "$T/out"; then
	ok "a module that does not load: exit 3, $(grep '^flipbed: guest end' "$T/out")"
else
	tail -n 8 "$T/out" | sed 's/^/    /'
	check_fail "a module that does not load: exit $rc, expected 3 and infra naming ext4"
fi

# kernel/build.sh: a package that is not a kernel image, and a pinned
# version the archive does not have (the registry in a file of the test's)
cpio_ver=$(apt-cache policy cpio 2>/dev/null | sed -n 's/^ *Candidate: *//p')
cat > "$T/kernels.ini" <<EOF
[notakernel]
source = debian-image:cpio=$cpio_ver
image = bzImage
memory = 256
csum-lines = no

[gone]
source = debian-image:linux-image-$rel61-unsigned=0.0-0
image = bzImage
memory = 256
csum-lines = no
EOF
build_refused() {
	FLIPBED_KERNELS_INI=$T/kernels.ini "$top/kernel/build.sh" "$1" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$2" "$T/err"; then
		ok "kernel/build.sh $1: exit 2, $(head -n 1 "$T/err")"
	else
		sed 's/^/    /' "$T/err" | head -n 5
		check_fail "kernel/build.sh $1: exit $rc, expected 2 and '$2'"
	fi
	[ -e "$B/kernel/$1" ] && check_fail "kernel/build.sh $1 left build/kernel/$1"
	rm -rf "$B/kernel/$1" "$B/kernel/.lock-$1"
}
if [ -n "$cpio_ver" ]; then
	build_refused notakernel "not a kernel image package"
else
	check_fail "apt-cache policy cpio gives no candidate version"
fi
build_refused gone "the archive has no linux-image-$rel61-unsigned version 0.0-0"
finish

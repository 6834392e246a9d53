# SPDX-License-Identifier: MIT
# Shared by the kernel/tests/*.sh boot tests (sourced, not run).
# Each test makes a small ext4 image with mkfs.ext4 + debugfs, corrupts one
# or more metadata objects, boots it with `flipbed boot` on the stock and the
# patched kernel, and asserts on the step log and kernel messages.
# On top of tests/lib.sh: a check that fails is check_fail (the test goes
# on and finish() exits 1), a broken setup is fail, a missing build or tool
# a skip.

. "$(dirname "$0")/../../tests/lib.sh"
flipbed=${FLIPBED:-$B/bin/flipbed}

# kt_require VARIANT...: the tools and kernels the test boots
kt_require() {
	require_tools mkfs.ext4 debugfs e2fsck
	require_built "$flipbed" build/bin/flipbed
	require_kernel "$@"
}

# kt_mkfs IMG: 64 MiB, 4 KiB blocks, one group, metadata_csum
kt_mkfs() {
	mkfs.ext4 -q -F -b 4096 -O metadata_csum,inline_data,dir_index "$1" 64M
}

# kt_debugfs IMG CMD...: run debugfs requests, quietly
kt_debugfs() {
	img=$1; shift
	for c in "$@"; do echo "$c"; done | debugfs -w -f - "$img" >/dev/null 2>&1
}

# kt_sparse FILE: 8 separate 4 KiB extents, 64 KiB apart: written into an
# image, the file's extent tree has a leaf block (debugfs stat: ETB0)
kt_sparse() {
	python3 -c "
import sys
f = open(sys.argv[1], 'wb')
for i in range(8):
    f.seek(i * 65536); f.write(b'x' * 4096)
" "$1"
}

# kt_flip IMG OFFSET: flip bit 0 of the byte at OFFSET of IMG, in place
kt_flip() {
	python3 -c "
import sys
f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 1]))" "$1" "$2"
}

# kt_stat IMG PATH FIELD-REGEX: one value from debugfs stat
kt_ino() { debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p'; }
kt_bmap() { debugfs -R "bmap $2 $3" "$1" 2>/dev/null; }
kt_itable_block() {
	debugfs -R "imap $2" "$1" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p'
}

# kt_boot NAME VARIANT IMG [flipbed boot args]: boot a copy of IMG, keep the
# transcript in $T/NAME.out; the exit status of flipbed boot is in $T/NAME.rc
kt_boot() {
	name=$1 variant=$2 img=$3; shift 3
	cp "$img" "$T/$name.img"
	"$flipbed" boot --kernel "$variant" --image "$T/$name.img" --timeout 120 \
		"$@" > "$T/$name.out" 2>&1
	echo $? > "$T/$name.rc"
	sed "s/^/    $name| /" "$T/$name.out"
}

# kt_has NAME FIXED-STRING: the transcript holds that exact text
kt_has() { grep -qF -- "$2" "$T/$1.out"; }
# kt_count NAME FIXED-STRING: how many lines hold it
kt_count() { grep -cF -- "$2" "$T/$1.out"; }
# kt_csum_line TYPE INO BLOCK GROUP: the structured line of patch 0002
kt_csum_line() {
	echo "EXT4-fs csum-error (device vda): type=$1 ino=$2 block=$3 group=$4"
}
# kt_sysfs NAME STEP TYPE: the count of TYPE that step STEP (a `cat` of
# csum_errors or csum_recovered) printed
kt_sysfs() {
	sed -n "s/^out $2 $3 \([0-9]*\)\$/\1/p" "$T/$1.out" | head -n 1
}

kt_done() { finish; }

# kt_csum_variants OVERRIDE WHAT: set $variants, the kernels a csum_retry
# test boots: OVERRIDE when given (an earlier series built from a
# kernels.ini of its own, say), else patched and the debug variant kasan
# (KASAN, lockdep), which CI requires; WHAT names the test in the message
kt_csum_variants() {
	variants=patched
	if [ -n "$1" ]; then
		variants=$1
	elif [ -f "$B/kernel/kasan/bzImage" ]; then
		variants="$variants kasan"
	elif [ "${CI:-}" = true ]; then
		fail "the kasan variant is not built (make kasan): $2 must run under KASAN and lockdep in CI"
	else
		echo "note: the kasan variant is not built (make kasan): $2 runs on patched only"
	fi
}

# kt_no_reports NAME: a failed check per kind of kernel report in NAME's
# transcript (WARNING, BUG, KASAN, lockdep, might_sleep, oops), one ok
# when there is none
kt_no_reports() {
	_n=0
	for _r in "WARNING:" "BUG:" "KASAN" "possible circular locking" "possible recursive locking" \
		"inconsistent lock state" "sleeping function called from invalid context" "Oops"; do
		if kt_has "$1" "$_r"; then
			check_fail "$1: kernel report '$_r': $(grep -F "$_r" "$T/$1.out" | head -n 1)"
			_n=$((_n + 1))
		fi
	done
	[ $_n = 0 ] && ok "$1: no WARNING, BUG, lockdep or KASAN report"
}

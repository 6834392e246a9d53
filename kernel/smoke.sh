#!/bin/sh
# SPDX-License-Identifier: MIT
# The short smoke test of a pair of kernels that make check does not boot
# (make check-6.12: kernel/smoke.sh stock-6.12 patched-6.12). For each: one
# boot of a small image (mount, write and read back a file, umount), then
# scenarios run as cases, which must meet their expectations (the kernel's
# own, or those of the kernel it is a variant of: kernel/kernels.ini):
#   both kernels     the superblock and a group descriptor refused at mount,
#                    a data block flip that no checksum covers
#   the patched one  an inode checksum failure answered read-only, an xattr
#                    block's magic caught by its checksum (0005), writes
#                    refused without a journal (0004), a transient flip
#                    recovered by csum_retry (0006)
# Prints how long each part took. Usage: kernel/smoke.sh STOCK PATCHED
. "$(dirname "$0")/../tests/lib.sh"
flipbed=$B/bin/flipbed
[ $# -eq 2 ] || { echo "usage: kernel/smoke.sh STOCK PATCHED (kernels of kernel/kernels.ini)"; exit 2; }
require_tools mkfs.ext4 nbdkit qemu-system-x86_64
require_built "$flipbed" build/bin/flipbed
require_built "$B/guest/initramfs.cpio.gz" build/guest/initramfs.cpio.gz
require_kernel "$@"

s=$top/scenarios
both="$s/superblock/primary-flip.scn $s/group-desc/flip.scn $s/data/file-flip.scn"
patched_only="$s/inode/base-flip.scn $s/xattr/block-flip.scn $s/inode/nojournal-write-after-error.scn $s/inode/base-retry.scn"

now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

mkfs.ext4 -q -F -O metadata_csum,inline_data "$T/img" 64M || fail "mkfs.ext4"
start=$(now)
for k in "$@"; do
	t=$(now)
	"$flipbed" boot --kernel "$k" --image "$T/img" --step mount --step 'write /a 100000' \
		--step 'read /a 100000' --step 'cat /proc/mounts' --step umount > "$T/boot-$k.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^flipbed: guest end: clean' "$T/boot-$k.log"; then
		ok "$k boots, mounts, writes and reads back, unmounts ($(secs "$t" "$(now)") s)"
	else
		sed 's/^/    /' "$T/boot-$k.log" | tail -n 30
		check_fail "$k: flipbed boot exited $rc"
	fi
done

# run KERNEL SCENARIO...: the scenarios as cases on KERNEL
run() {
	k=$1
	shift
	t=$(now)
	"$flipbed" run "$@" --kernel "$k" --jobs 2 --out "$T/run-$k" > "$T/run-$k.log" 2>&1
	rc=$?
	awk '/^\| type/ { p = 1 } p && /^$/ { exit } p { print "    " $0 }' \
		"$T/run-$k/summary.md" 2>/dev/null
	if [ $rc -eq 0 ]; then
		ok "$k: $# scenarios met their expectations ($(secs "$t" "$(now)") s)"
	else
		sed -n '/^## Failures/,$p' "$T/run-$k/summary.md" 2>/dev/null | sed 's/^/    /'
		[ -s "$T/run-$k/summary.md" ] || tail -n 20 "$T/run-$k.log" | sed 's/^/    /'
		check_fail "$k: flipbed run exited $rc"
	fi
}
run "$1" $both
run "$2" $both $patched_only
echo "smoke: $* in $(secs "$start" "$(now)") s"
finish

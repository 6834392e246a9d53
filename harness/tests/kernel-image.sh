#!/bin/sh
# SPDX-License-Identifier: MIT
# --kernel-image PATH, a kernel built elsewhere: a vmlinux (PVH entry) and a
# bzImage (through the firmware) boot, mount, write and read back; a run
# records the image's release and path, and its repro names the image; an
# image without what a case needs is refused before anything boots (exit 2,
# naming what is missing and the option that provides it): a vmlinux
# without the PVH note, one without virtio-mmio and ext4, a text file, a
# directory, a missing file. Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock patched
LC_ALL=C
export LC_ALL

mkimage "$T/img"
boot_ok() {
	"$FLIPBED" boot --kernel-image "$1" --image "$T/img" --step mount --step 'write /a 5000' \
		--step 'read /a 5000' --step umount > "$T/boot.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^flipbed: guest end: clean' "$T/boot.log"; then
		ok "$2 boots, mounts, writes, reads back, unmounts"
	else
		tail -n 20 "$T/boot.log" | sed 's/^/    /'
		check_fail "$2: flipbed boot --kernel-image exited $rc"
	fi
}
boot_ok "$B/kernel/stock/vmlinux" "a vmlinux"
boot_ok "$B/kernel/patched/bzImage" "a bzImage"

# A run: the case is named @image, takes patched's expectations (the image
# prints the csum-error lines), and run.json says which file it was.
"$FLIPBED" run "$top/scenarios/inode/base-flip.scn" --kernel-image "$B/kernel/patched/vmlinux" \
	--set fault.timing=rest --jobs 1 --out "$T/run" > "$T/run.log" 2>&1 ||
	{ tail -n 20 "$T/run.log"; check_fail "flipbed run --kernel-image exited $?"; }
grep -q '"case": *"inode/base-flip@image"' "$T/run/cases.jsonl" ||
	check_fail "no case inode/base-flip@image"
grep -q '"verdict": *"pass"' "$T/run/cases.jsonl" || check_fail "the case did not pass"
grep -q "\"repro\": *\"build/bin/flipbed run [^\"]*--kernel-image $B/kernel/patched/vmlinux" "$T/run/cases.jsonl" ||
	check_fail "the repro command does not name the image"
grep -q "\"image\": *\"$B/kernel/patched/vmlinux\"" "$T/run/run.json" ||
	check_fail "run.json does not name the image"
grep -q "image 6\.1\.[0-9]* ($B/kernel/patched/vmlinux)" "$T/run/summary.md" ||
	check_fail "summary.md does not give the image's release and path"

# flipbed image and flipbed campaign take it too: the same image as a case
# of its own (@image), and a campaign's cases on it
mkimage "$T/img"
"$FLIPBED" image "$T/img" --kernel-image "$B/kernel/stock/vmlinux" --workload mount-only \
	--out "$T/image-run" > "$T/image.log" 2>&1
grep -q '"case":"[^"]*@image"' "$T/image-run/cases.jsonl" 2>/dev/null &&
	ok "flipbed image --kernel-image: a case @image" ||
	{ tail -n 5 "$T/image.log"; check_fail "flipbed image --kernel-image: no case @image"; }
"$FLIPBED" campaign --seed 3 --count 2 --kernel-image "$B/kernel/stock/vmlinux" \
	--out "$T/campaign" > "$T/campaign.log" 2>&1
n=$(grep -c '"case":"case-0000[12]@image"' "$T/campaign/run/cases.jsonl" 2>/dev/null)
[ "${n:-0}" -eq 2 ] && ok "flipbed campaign --kernel-image: 2 cases @image" ||
	{ tail -n 5 "$T/campaign.log"; check_fail "flipbed campaign --kernel-image: ${n:-0} cases @image, expected 2"; }
"$FLIPBED" campaign --seed 3 --count 2 --kernel stock --kernel-image "$B/kernel/stock/vmlinux" \
	--generate --out "$T/c2" > "$T/out" 2> "$T/err"
[ $? -eq 2 ] && grep -q "a campaign runs one kernel" "$T/err" &&
	ok "campaign --kernel and --kernel-image: exit 2, $(cat "$T/err")" ||
	check_fail "campaign --kernel with --kernel-image: not refused ($(cat "$T/err"))"

# refused KERNEL WHAT PATTERN: exit 2 with PATTERN on stderr, nothing booted
refused() {
	"$FLIPBED" boot --kernel-image "$1" --image "$T/img" --step mount > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$3" "$T/err"; then
		ok "$2: exit 2, $(head -n 1 "$T/err")"
	else
		sed 's/^/    /' "$T/err" | head -n 5
		check_fail "$2: exit $rc, expected 2 and '$3'"
	fi
	grep -q '^flipbed: times' "$T/out" && check_fail "$2: a guest was booted"
}
# The Xen note of type 18 (XEN_ELFNOTE_PHYS32_ENTRY) made type 19.
cp "$B/kernel/stock/vmlinux" "$T/nopvh"
sed -i 's/\x04\x00\x00\x00\x08\x00\x00\x00\x12\x00\x00\x00Xen\x00/\x04\x00\x00\x00\x08\x00\x00\x00\x13\x00\x00\x00Xen\x00/' "$T/nopvh"
cmp -s "$B/kernel/stock/vmlinux" "$T/nopvh" && fail "could not remove the PVH note from a copy of the vmlinux"
refused "$T/nopvh" "a vmlinux without the PVH note" "without the PVH entry note.*CONFIG_PVH=y"
# The strings virtio-mmio and ext4 compile in, renamed in a copy.
sed 's/virtio-mmio/virtio-XXXX/g; s/EXT4-fs/EXT9-fs/g' "$B/kernel/stock/vmlinux" > "$T/bare"
refused "$T/bare" "a vmlinux without virtio-mmio" "lacks the virtio-mmio transport.*CONFIG_VIRTIO_MMIO=y"
grep -q "lacks ext4: build it with CONFIG_EXT4_FS=y" "$T/err" || check_fail "ext4 is not named as missing too"
refused "$top/README.md" "a text file" "not a kernel image: neither an ELF vmlinux nor a bzImage"
refused "$T" "a directory" "not a kernel image: not a regular file"
refused "$T/nosuch" "a missing file" "No such file or directory"
finish

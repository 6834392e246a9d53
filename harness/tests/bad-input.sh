#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input: each case exits 2 with one line on stderr naming the
# problem and what is accepted, and starts nothing. Groups: quick.
. "$(dirname "$0")/lib.sh"
[ -x "$FLIPBED" ] || skip "$FLIPBED not built (make build/bin/flipbed)"
require_tools mkfs.ext4 pgrep
img=$T/img
mkimage "$img"
head -c 2M /dev/zero > "$T/zero.img"
cases=0

# expect2 PATTERN ARGS...: flipbed ARGS exits 2 with one stderr line matching PATTERN.
expect2() {
	pat=$1
	shift
	"$FLIPBED" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	echo "flipbed $*"
	sed 's/^/  stderr: /' "$T/err"
	[ $rc -eq 2 ] || fail "exit $rc, expected 2: flipbed $*"
	[ "$(wc -l < "$T/err")" -eq 1 ] || fail "expected one stderr line: flipbed $*"
	grep -q -- "$pat" "$T/err" || fail "stderr does not match '$pat': flipbed $*"
	[ -z "$(leftovers)" ] || fail "a process was started: flipbed $*"
	cases=$((cases + 1))
}

expect2 "unknown step 'frobnicate'; accepted: mount, umount" boot --image "$img" --step 'frobnicate /a'
expect2 "bad argument 'lots'; accepted: a byte count" boot --image "$img" --step 'write /a lots'
expect2 "usage: write P BYTES" boot --image "$img" --step 'write'
expect2 "needs an errno name" boot --image "$img" --step 'expect ENOTANERRNO read /a'
expect2 "no \"..\"" boot --image "$img" --step 'read /../etc/passwd'
expect2 "missing.img: No such file or directory; accepted: an existing, writable ext4 image" \
	boot --image "$T/missing.img" --step mount
expect2 "not an ext4 image (no superblock magic 0xEF53 at byte 1080)" boot --image "$T/zero.img"
expect2 "image IMAGE is required" boot --step mount
expect2 "kernel 'vanilla': accepted: stock, patched, kasan" boot --kernel vanilla --image "$img"
expect2 "timeout 'soon': accepted: seconds" boot --timeout soon --image "$img"
expect2 "--cpus '0': accepted: 1 to 4" boot --cpus 0 --image "$img"
expect2 "--cpus '2x': accepted: 1 to 4" boot --cpus 2x --image "$img"
expect2 "no step 'wait armed'" boot --image "$img" --step mount --rule-at armed 'on=read at=0 len=1 flip=0'
expect2 "unknown option" boot --image "$img" --frobnicate
expect2 "--writelog $img: is the disk $img; the log would overwrite it" boot --image "$img" --writelog "$img"
expect2 "--writelog $T/no/log: No such file or directory; accepted: a file path" boot --image "$img" --writelog "$T/no/log"
expect2 "unknown command 'bot'; accepted: .*boot" bot
scn=$top/scenarios/inode/base-flip.scn
expect2 "shard 1/2/3: expected K/N with 1 <= K <= N" run "$scn" --shard 1/2/3 --list
expect2 "kernel bogus: accepted: stock, patched, kasan" run "$scn" --kernel bogus --list
expect2 "kernel ../../x: accepted: stock, patched, kasan" run "$scn" --kernel ../../x --list
expect2 "kernel ../../x: accepted: stock, patched, kasan" matrix quick --kernel ../../x --list
expect2 "batch 0: expected cases per boot, 1 to 7" run "$scn" --batch 0 --list
expect2 "batch 8: expected cases per boot, 1 to 7" matrix quick --batch 8 --list
expect2 "batch two: expected cases per boot, 1 to 7" matrix quick --batch two --list
expect2 "batch 9: expected cases per boot, 1 to 7" campaign --seed 1 --count 1 --batch 9 --generate
printf '[matrix]\nscenarios = %s\nkernels = stock ../../x\n' "$scn" > "$T/k.mat"
expect2 "k.mat:3: kernels = stock ../../x: unknown kernel '../../x'; accepted: stock, patched, kasan" \
	matrix "$T/k.mat" --list
# The kernel registry (kernel/kernels.ini; FLIPBED_KERNELS_INI reads another)
printf '[stock]\nsource = debian:linux-source-6.1\nconfig = flipbed.config\nimage = vmlinux\nmemory = 256\n[../x]\nimage = vmlinux\n' \
	> "$T/kernels.ini"
export FLIPBED_KERNELS_INI="$T/kernels.ini"
expect2 "kernels.ini:6: \\[../x\\]: a kernel name is" run "$scn" --list
unset FLIPBED_KERNELS_INI
expect2 "set: \\[target\\] unknown key 'bogus'" matrix quick --set target.bogus=1 --list
mkdir -p "$T/used" && : > "$T/used/cases.jsonl"
expect2 "out $T/used: not empty; give a new or empty directory" run "$scn" --out "$T/used"
expect2 "cannot create /proc/flipbed-nope/cases" run "$scn" --kernel stock --out /proc/flipbed-nope
expect2 "is given twice (also as $scn); give each scenario once" \
	run "$scn" "$top/scenarios/inode/../inode/base-flip.scn" --list

# A build without the KASAN kernel and the plugin: flipbed copied into a
# build directory of its own, so that these run whatever this tree has built.
fake=$T/build
mkdir -p "$fake/bin" "$fake/guest"
cp "$FLIPBED" "$fake/bin/flipbed"
cp "$B/guest/initramfs.cpio.gz" "$fake/guest/" 2>/dev/null
FLIPBED=$fake/bin/flipbed
expect2 "kernel variant 'kasan' is not built (.*missing); build it with 'make kasan'" \
	boot --kernel kasan --image "$img"
mkdir -p "$fake/kernel/patched"
: > "$fake/kernel/patched/vmlinux"
expect2 "need the flipbed nbdkit plugin, which is not built" \
	boot --image "$img" --rule 'on=read at=0 len=1 flip=0'
echo "ok: $cases bad inputs refused with exit 2"

#!/bin/sh
# SPDX-License-Identifier: MIT
# A program keeps two files open across an error, on a filesystem with a
# journal: /f and /g (4096 bytes each) are opened, an inode checksum
# failure (__ext4_iget) makes errors=remount-ro act, then 12288 bytes are
# written through each descriptor, /f is fsynced, both are closed and the
# filesystem unmounted. A buffered write takes no journal handle
# (ext4_da_write_begin), so unless something refuses it the data sits in
# the page cache, and writeback refuses it later (ext4_writepages).
# Asserted on every kernel: when write and fsync both succeeded, the bytes
# are on the image (debugfs cat). And what each kernel returns:
#   stock (6.1.192)  write ok (ext4_file_write_iter tests only a shutdown),
#                    fsync EROFS (ext4_writepages tests EXT4_MF_FS_ABORTED,
#                    file_write_and_wait_range in ext4_sync_file returns
#                    it): nothing fsync acknowledged is lost. Without the
#                    fsync the write, close and umount all succeed and the
#                    bytes are dropped: the known gap of
#                    scenarios/data/open-fd-umount-after-error.scn
#   patched, patched-6.12  write EROFS (ext4_emergency_state in
#                    ext4_file_write_iter), fsync EROFS (the same in
#                    ext4_sync_file)
#   stock-6.12       write and fsync EIO (ext4_forced_shutdown in both)
# On every kernel the image keeps the 4096 bytes written before.
# Groups: quick.
. "$(dirname "$0")/lib.sh"
kt_require stock patched stock-6.12 patched-6.12
require_tools python3

# pattern PATH BYTES: the agent's pattern of PATH (guest/pattern.c)
pattern() {
	python3 -c '
import sys
def mix(x):
    m = (1 << 64) - 1
    x = (x + 0x9e3779b97f4a7c15) & m
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & m
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & m
    return x ^ (x >> 31)
h = 0xcbf29ce484222325
for c in sys.argv[1].encode():
    h = ((h ^ c) * 0x100000001b3) & ((1 << 64) - 1)
n = int(sys.argv[2])
out = b"".join(mix(h ^ i).to_bytes(8, "little") for i in range((n + 7) // 8))
sys.stdout.buffer.write(out[:n])' "$1" "$2"
}

img=$T/base.img
mkfs.ext4 -q -F -b 4096 -O metadata_csum "$img" 64M || fail "mkfs.ext4"
head -c 3 /dev/zero > "$T/small"
for p in f g; do
	pattern /$p 4096 > "$T/$p.4096"
	pattern /$p 12288 > "$T/$p.12288"
done
kt_debugfs "$img" "mkdir d" "write $T/small d/small" "write $T/f.4096 f" "write $T/g.4096 g"
kt_debugfs "$img" "set_inode_field /d/small checksum 0"
[ -n "$(kt_ino "$img" /g)" ] || fail "image setup: no /g"

steps="--step mount --step 'open /f' --step 'open /g'
	--step 'expect EBADMSG stat /d/small'
	--step 'may write-fd /f 12288' --step 'may fsync-fd /f'
	--step 'may write-fd /g 12288' --step 'may close /f' --step 'may close /g'
	--step 'may umount'"
kernels="stock patched stock-6.12 patched-6.12"
for k in $kernels; do
	eval kt_boot $k $k "$img" $steps
done

# v KERNEL: KERNEL as part of a shell variable's name
v() { echo "$1" | tr -c 'a-z0-9\n' _; }
# result NAME N: step N's result, "ok" or "err ERRNAME"
result() {
	sed -n "s/^step $2 [^>]*-> \(ok\|err [A-Z]*\).*/\1/p" "$T/$1.out"
}
# ondisk NAME P: what debugfs reads of P on NAME's image: 12288 (the write
# after the error), 4096 (what was there before), or "other"
ondisk() {
	debugfs -R "cat /$2" "$T/$1.img" > "$T/$1.$2.disk" 2>/dev/null
	if cmp -s "$T/$1.$2.disk" "$T/$2.12288"; then
		echo 12288
	elif cmp -s "$T/$1.$2.disk" "$T/$2.4096"; then
		echo 4096
	else
		echo "other ($(wc -c < "$T/$1.$2.disk") bytes)"
	fi
}

for k in $kernels; do
	[ "$(cat "$T/$k.rc")" = 0 ] || check_fail "$k: stat /d/small did not fail with EBADMSG"
	wf=$(result $k 5) sf=$(result $k 6) wg=$(result $k 7)
	cg=$(result $k 9) um=$(result $k 10)
	df=$(ondisk $k f) dg=$(ondisk $k g)
	echo "$k: /f write '$wf' fsync '$sf', on disk $df; /g write '$wg' close '$cg' umount '$um', on disk $dg"
	if [ "$wf" = ok ] && [ "$sf" = ok ] && [ "$df" != 12288 ]; then
		check_fail "$k: write and fsync of /f succeeded, the image holds $df bytes of it"
	else
		ok "$k: nothing fsync acknowledged is lost"
	fi
	n=$(v $k)
	eval ${n}_wf=\$wf ${n}_sf=\$sf ${n}_wg=\$wg ${n}_um=\$um ${n}_df=\$df ${n}_dg=\$dg
done

# expect KERNEL WRITE FSYNC: the write-fd and fsync-fd results the code
# above says, and the 4096 bytes from before the error on the image
expect() {
	n=$(v $1)
	eval wf=\$${n}_wf sf=\$${n}_sf wg=\$${n}_wg df=\$${n}_df dg=\$${n}_dg
	if [ "$wf" = "$2" ] && [ "$wg" = "$2" ] && [ "$sf" = "$3" ]; then
		ok "$1: write-fd '$2', fsync-fd '$3'"
	else
		check_fail "$1: write-fd /f '$wf', /g '$wg', fsync-fd '$sf' (want '$2', '$3')"
	fi
	if [ "$df" = 4096 ] && [ "$dg" = 4096 ]; then
		ok "$1: /f and /g hold what they held before the error"
	else
		check_fail "$1: on disk /f $df, /g $dg (want 4096 each)"
	fi
}
expect stock ok "err EROFS"
expect patched "err EROFS" "err EROFS"
expect patched-6.12 "err EROFS" "err EROFS"
expect stock-6.12 "err EIO" "err EIO"
if [ "$stock_um" = ok ]; then
	echo "stock: known gap: /g's write and the umount succeeded, /g's 12288 bytes are not on the image"
else
	check_fail "stock: umount '$stock_um' (want ok: writeback errors do not fail a umount)"
fi
kt_done

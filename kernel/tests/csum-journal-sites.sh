#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0008: the two checksum verifications that had no csum-error line.
#  - A fast commit's tail CRC. A guest with fast_commit fsyncs three files
#    and crashes (the crash step: no sync, no umount), leaving one full
#    commit and two fast commits to replay. A bad CRC in the first fast
#    commit's tail fails the mount on both kernels, and patched names
#    the fast-commit block: the whole second fast commit after it shows
#    that the first had reached the disk (ext4_fc_next_is_valid()). One
#    in the second, the last, lets the mount succeed without the second
#    fsync()ed file, with no message on either kernel: that is also what
#    a crash that tore the last fast commit leaves, and how replay
#    (ext4_fc_replay_scan()) finds the end of the area, so patched keeps
#    quiet too. With no flip, both files are there (the control).
#  - An external journal's superblock checksum (mount journal_path= on
#    the second disk, read-only: enough for ext4 to read it with -o ro).
#    A good one mounts (the control); a bad one fails on both kernels,
#    and patched names it as type=journal-dev block=0.
# Groups: quick csum journal.
. "$(dirname "$0")/lib.sh"
kt_require stock patched

# fc_tails IMG: "BLOCK OFFSET" of every fast-commit tail tag, in replay
# order, OFFSET being the image byte of its CRC (tag 8 = EXT4_FC_TAG_TAIL,
# 9 = HEAD; a tag is le16 tag, le16 length, value; the tail's value is
# le32 tid, le32 crc)
fc_tails() {
	python3 -c "
import struct, subprocess, sys
img = sys.argv[1]
blocks = [int(x) for x in subprocess.run(['debugfs', '-R', 'blocks <8>', img],
          capture_output=True, text=True).stdout.split()]
f = open(img, 'rb')
area = [b for b in blocks if (f.seek(b * 4096), struct.unpack('<H', f.read(2))[0])[1] == 9]
if not area:
    sys.exit(0)
for pb in blocks[blocks.index(area[0]):]:
    f.seek(pb * 4096); d = f.read(4096); off = 0
    while off + 4 <= 4096:
        tag, ln = struct.unpack_from('<HH', d, off)
        if tag == 8:
            print(pb, pb * 4096 + off + 8)
        if tag == 0 or tag > 9:
            break
        off += 4 + ln
" "$1"
}

# --- fast commit ---------------------------------------------------------
base=$T/fc.img
mkfs.ext4 -q -F -b 4096 -O metadata_csum,fast_commit "$base" 64M >/dev/null
kt_boot crash patched "$base" --step mount --step "write /f 8192" \
	--step "fsync /f" --step "write /g 100" --step "fsync /g" \
	--step "write /h 200" --step "fsync /h" --step crash >/dev/null
cp "$T/crash.img" "$base"
dumpe2fs -h "$base" 2>/dev/null | grep -q needs_recovery ||
	fail "the crash left no journal to recover"
tails=$(fc_tails "$base")
[ "$(echo "$tails" | grep -c .)" -ge 2 ] ||
	fail "expected two fast-commit tails after the crash, found: '$tails'"
first=$(echo "$tails" | head -n 1) last=$(echo "$tails" | tail -n 1)
echo "fast-commit tails (block crc-offset): $(echo $tails)"

boot_fc() {	# NAME VARIANT IMG
	kt_boot $1 $2 $3 --step "may mount" --step "may stat /g" \
		--step "may stat /h" --step "may cat /sys/fs/ext4/vda/csum_errors" >/dev/null
}
for v in stock patched; do
	boot_fc fc-good-$v $v "$base"
	kt_has fc-good-$v "step 1 may mount -> ok" &&
	kt_has fc-good-$v "step 2 may stat /g -> ok" &&
	kt_has fc-good-$v "step 3 may stat /h -> ok" &&
		ok "$v: no flip: the fast commits replay, /g and /h are there" ||
		check_fail "$v: no flip: the replay lost a file or the mount failed"
	kt_has fc-good-$v "csum-error" && check_fail "$v: no flip, yet a csum-error line"
done

set -- $first
cp "$base" "$T/fc-first.img"; kt_flip "$T/fc-first.img" $2
line=$(echo "EXT4-fs csum-error (device vda): type=fast-commit ino=- block=$1 group=-")
for v in stock patched; do
	boot_fc fc-first-$v $v "$T/fc-first.img"
	kt_has fc-first-$v "step 1 may mount -> err EIO" ||
		check_fail "$v: bad first fast-commit tail: the mount was not refused with EIO"
done
kt_has fc-first-patched "$line" && ok "patched: first tail: $line" ||
	check_fail "patched: first tail: no '$line'"
kt_has fc-first-stock "csum-error" && check_fail "stock: a csum-error line?"

set -- $last
cp "$base" "$T/fc-last.img"; kt_flip "$T/fc-last.img" $2
line=$(echo "EXT4-fs csum-error (device vda): type=fast-commit ino=- block=$1 group=-")
for v in stock patched; do
	boot_fc fc-last-$v $v "$T/fc-last.img"
	kt_has fc-last-$v "step 1 may mount -> ok" &&
	kt_has fc-last-$v "step 2 may stat /g -> ok" &&
	kt_has fc-last-$v "step 3 may stat /h -> err ENOENT" &&
		ok "$v: bad last tail: the replay stops before /h, the mount succeeds" ||
		check_fail "$v: bad last tail: expected a mount with /g and without /h"
done
kt_has fc-last-patched "csum-error" &&
	check_fail "patched: last tail: a csum-error line, as for a torn last fast commit: $(grep -o 'csum-error.*' "$T/fc-last-patched.out")" ||
	ok "patched: last tail: no csum-error line (no whole fast commit after it)"
[ "$(kt_sysfs fc-last-patched 4 fast_commit)" = 0 ] &&
	ok "patched: csum_errors/fast_commit is 0" ||
	check_fail "patched: csum_errors/fast_commit is '$(kt_sysfs fc-last-patched 4 fast_commit)', expected 0"
kt_has fc-last-stock "csum-error" && check_fail "stock: a csum-error line?"
# print what each kernel said when it dropped the fsync()ed /h (measured
# on 6.1.192: only the mount line, no word of the dropped fast commit)
for v in stock patched; do
	echo "$v: bad last tail: $(grep -o 'EXT4-fs.*\|JBD2.*' "$T/fc-last-$v.out" | tr '\n' ';')"
done

# --- external journal ----------------------------------------------------
jdev=$T/journal.img fs=$T/ext.img
mke2fs -q -F -b 4096 -O journal_dev,metadata_csum "$jdev" 8M >/dev/null
mkfs.ext4 -q -F -b 4096 -O metadata_csum,^has_journal "$fs" 64M >/dev/null
ju=$(dumpe2fs -h "$jdev" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
fu=$(dumpe2fs -h "$fs" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
# mke2fs -J device= wants a block device: attach the journal by hand, and
# register the filesystem as the journal's one user (jbd2 superblock at
# block 1: s_nr_users at 0x40, s_users at 0x100)
kt_debugfs "$fs" "feature has_journal" "ssv journal_uuid $ju" "ssv journal_inum 0"
python3 -c "
import struct, sys, uuid
f = open(sys.argv[1], 'r+b')
f.seek(4096 + 0x40); f.write(struct.pack('>I', 1))
f.seek(4096 + 0x100); f.write(uuid.UUID(sys.argv[2]).bytes)" "$jdev" "$fu"
e2fsck -fn -j "$jdev" "$fs" >/dev/null 2>&1 || fail "e2fsck refuses the external journal setup"
cp "$jdev" "$T/journal-bad.img"
kt_flip "$T/journal-bad.img" $((1024 + 0x3fc))	# s_checksum of its ext4 superblock
line=$(kt_csum_line journal-dev - 0 -)
for v in stock patched; do
	kt_boot ext-good-$v $v "$fs" --source "$jdev" \
		--step "mount ro,journal_path=/dev/vdb" --step ls >/dev/null
	kt_has ext-good-$v "step 1 mount ro,journal_path=/dev/vdb -> ok" &&
		ok "$v: a good external journal mounts" ||
		check_fail "$v: the good external journal did not mount"
	kt_boot ext-bad-$v $v "$fs" --source "$T/journal-bad.img" \
		--step "may mount ro,journal_path=/dev/vdb" >/dev/null
	kt_has ext-bad-$v "-> err EINVAL" &&
	kt_has ext-bad-$v "external journal has corrupt superblock" ||
		check_fail "$v: the bad external journal superblock was not refused"
done
kt_has ext-bad-patched "$line" && ok "patched: $line" ||
	check_fail "patched: no '$line'"
kt_has ext-bad-stock "csum-error" && check_fail "stock: a csum-error line?"
kt_done

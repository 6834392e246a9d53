#!/bin/sh
# SPDX-License-Identifier: MIT
# Patches 0002+0003: every checksum failure gives one structured csum-error
# line with the object's type, inode, block and group, and the sysfs counter
# agrees. Five objects are corrupted at rest (their checksum bytes zapped)
# in one image; the guest touches each once. Stock prints only free text.
# Groups: quick csum.
. "$(dirname "$0")/lib.sh"
kt_require stock patched

img=$T/base.img
kt_mkfs "$img"
mkdir "$T/src"
head -c 3 /dev/zero > "$T/src/small"
head -c 5000 /dev/zero > "$T/src/a"
head -c 1000 /dev/zero | tr '\0' v > "$T/src/val"
# 8 separate 4 KiB extents: more than the inode holds, so an extent leaf block
kt_sparse "$T/src/sparse"
{
	echo "mkdir d"; echo "mkdir dir"; echo "mkdir h"
	echo "write $T/src/small d/small"
	echo "write $T/src/sparse ext"
	echo "write $T/src/a x"
	echo "ea_set -f $T/src/val /x user.big"
	for i in $(seq 1 40); do echo "write /dev/null dir/a-long-file-name-to-fill-the-block-$i"; done
	for i in $(seq 1 120); do echo "write /dev/null h/a-long-file-name-to-need-an-index-$i"; done
} | debugfs -w -f - "$img" >/dev/null 2>&1
e2fsck -fyD "$img" >/dev/null 2>&1	# index /h (and /dir: it fits one block, stays linear)

ino_small=$(kt_ino "$img" /d/small)
blk_small=$(kt_itable_block "$img" /d/small)
ino_dir=$(kt_ino "$img" /dir); blk_dir=$(kt_bmap "$img" /dir 0)
ino_h=$(kt_ino "$img" /h); blk_h=$(kt_bmap "$img" /h 0)
ino_ext=$(kt_ino "$img" /ext)
blk_ext=$(debugfs -R "stat /ext" "$img" 2>/dev/null | sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p')
ino_x=$(kt_ino "$img" /x)
blk_x=$(debugfs -R "stat /x" "$img" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
for v in "$ino_small" "$blk_small" "$blk_dir" "$blk_h" "$blk_ext" "$blk_x"; do
	[ -n "$v" ] || fail "image setup: an object was not found"
done

# Checksums: inode field; the last 4 bytes of dir leaf, dx root and extent
# blocks (4 KiB); the xattr header's h_checksum at offset 16.
kt_debugfs "$img" "set_inode_field /d/small checksum 0" \
	"zap_block -o 4092 -l 4 -p 0x55 $blk_dir" \
	"zap_block -o 4092 -l 4 -p 0x55 $blk_h" \
	"zap_block -o 4092 -l 4 -p 0x55 $blk_ext" \
	"zap_block -o 16 -l 4 -p 0x55 $blk_x"

# The xattr write comes first: once the filesystem is read-only, only reads
# still reach the other objects. The first open() after that fails with
# EROFS on stock (ext4_sample_last_mounted() starts a handle; patched skips
# it): `read /x` takes that hit.
steps="--step mount --step 'may setxattr /x other 8' --step 'may read /x'
	--step 'may stat /d/small' --step 'may ls /dir' --step 'may ls /h'
	--step 'may read /ext' --step 'may cat /sys/fs/ext4/vda/csum_errors'"
eval kt_boot stock stock "$img" $steps
eval kt_boot patched patched "$img" $steps

# group: one group of 32768 blocks
set -- "inode $ino_small $blk_small" "dir-leaf $ino_dir $blk_dir" \
	"dx-root $ino_h $blk_h" "extent-leaf $ino_ext $blk_ext" \
	"xattr-block $ino_x $blk_x"
for obj in "$@"; do
	set -- $obj
	line=$(kt_csum_line "$1" "$2" "$3" 0)
	if kt_has patched "$line"; then ok "patched: $line"; else check_fail "patched: no '$line'"; fi
	if kt_has stock "csum-error"; then check_fail "stock prints csum-error lines?"; fi
	# one failing block each: one line and a count of one, however often
	# the steps touched it (counts are per failing block, not per access)
	# (sysfs names the type with underscores: csum_errors/dir_leaf)
	f=$(echo "$1" | tr - _)
	n=$(grep -cF "type=$1 " "$T/patched.out")
	c=$(kt_sysfs patched 8 "$f")
	if [ "$n" = 1 ] && [ "$c" = 1 ]; then
		ok "patched: $1: one line, csum_errors/$f 1"
	else
		check_fail "patched: $1: $n lines, csum_errors/$f '$c' (one failing block: 1 and 1)"
	fi
done
if kt_has stock "step 8 may cat /sys/fs/ext4/vda/csum_errors -> err ENOENT"; then
	ok "stock: no csum_errors in sysfs (the gap)"
else
	check_fail "stock: csum_errors readable, or the step did not run: $(grep -F 'step 8 ' "$T/stock.out")"
fi
for name in stock patched; do
	kt_has $name "Remounting filesystem read-only" ||
		check_fail "$name: no remount read-only"
done
echo "stock: $(grep -c 'EXT4-fs error' "$T/stock.out") free-text errors, 0 csum-error lines;" \
	"patched: $(grep -c 'csum-error' "$T/patched.out") csum-error lines"
kt_done

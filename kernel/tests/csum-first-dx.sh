#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0005 on the htree read path: __ext4_read_dirblock() verifies the
# checksum of a block read as an index block before it judges the block's
# structure. Three htree blocks damaged at rest, each read by `ls`:
#   root    bit 0 of bytes 0x13, 0x18 and 0x35 of a dx root (the ".."
#           file_type, dx_root_info.reserved_zero, an entry's block): the
#           checksum fails, so the csum-error line is the first EXT4-fs
#           error line and the first fanotify error is EBADMSG (not the
#           "dir seems corrupt?" of get_dx_countlimit(), which cannot find
#           the count/limit behind a non-zero reserved_zero)
#   node    bit 0 of an index node's fake dirent rec_len (1024 -> 1025: the
#           block looks neither like an index node nor like a leaf): the
#           checksum is computed at the node layout and fails: csum-error
#           first, EBADMSG
#   sealed  the same flip with the dx tail checksum recomputed over it: the
#           checksum holds, so the damage is structure: "dir seems
#           corrupt?", EUCLEAN, and no csum-error line
# On patched and patched-6.12 (only the patched kernels print csum-error
# lines), and on kasan when it is built: the checksum is computed at a
# layout the damaged header does not decide, within the block.
# Groups: csum.
. "$(dirname "$0")/lib.sh"
kt_require patched patched-6.12
require_tools python3
corrupt=$B/bin/flipbed-corrupt
require_built "$corrupt" build/bin/flipbed-corrupt

# --- a one-level htree on 4 KiB blocks: a root with several entries --------
rootimg=$T/root.img
kt_mkfs "$rootimg"
{
	echo "mkdir htree"
	for i in $(seq 1 300); do echo "write /dev/null htree/a-rather-long-file-name-to-fill-blocks-$i"; done
} | debugfs -w -f - "$rootimg" >/dev/null 2>&1
e2fsck -fyD "$rootimg" >/dev/null 2>&1
[ $? -le 1 ] || fail "e2fsck -fyD on the htree image"
rino=$(kt_ino "$rootimg" /htree)
root=$("$corrupt" locate "$rootimg" --target dx-root --path /htree | sed -n "1s/.* pblk=\([0-9]*\) .*/\1/p")
[ -n "$root" ] || fail "no htree root in /htree"
# the root's checksum covers its first 32 + 8 * count bytes: count >= 3
# puts byte 0x35 under it too
cov=$("$corrupt" locate "$rootimg" --target dx-root --path /htree | sed -n '1s/.* covered=0x[0-9a-f]*+\([0-9]*\),.*/\1/p')
[ "${cov:-0}" -gt $((0x35)) ] || fail "the dx root covers $cov bytes, not byte 0x35"
for o in 0x13 0x18 0x35; do kt_flip "$rootimg" $((root * 4096 + o)); done

# --- a two-level htree on 1 KiB blocks (as csum-retry-paths.sh) ------------
dx=$T/dx.img
mkfs.ext4 -q -F -b 1024 -O metadata_csum,dir_index "$dx" 32M
{
	echo "mkdir big"
	for i in $(seq 1 1800); do echo "write /dev/null big/a-rather-long-file-name-to-fill-blocks-quickly-$i"; done
} | debugfs -w -f - "$dx" >/dev/null 2>&1
e2fsck -fyD "$dx" >/dev/null 2>&1
[ $? -le 1 ] || fail "e2fsck -fyD on the two-level htree image"
dino=$(kt_ino "$dx" /big)
node=$("$corrupt" locate "$dx" --target dx-node --path /big | sed -n "1s/.* pblk=\([0-9]*\) .*/\1/p")
[ -n "$node" ] || fail "no index node in /big"
gen=$(debugfs -R "stat /big" "$dx" 2>/dev/null | sed -n 's/^Generation: \([0-9]*\).*/\1/p')
[ -n "$gen" ] || fail "no generation for /big"
cp "$dx" "$T/sealed.img"
kt_flip "$dx" $((node * 1024 + 4))

# dxseal IMG BLOCK INO GEN: flip bit 0 of the node's rec_len and write the
# checksum ext4_dx_csum() computes for the node layout: crc32c seeded by the
# filesystem UUID, the inode number and generation, over the fake dirent and
# count/limit (8 + 4 bytes) and count entries, then dt_reserved and a zero
# dt_checksum; the tail sits after dx_node_limit() entries. It first checks
# that it reproduces the node's checksum as mkfs left it.
python3 - "$T/sealed.img" "$node" "$dino" "$gen" <<'EOF' || fail "resealing the index node"
import struct, sys
def crc32c(crc, data):
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc
path, blk, ino, gen = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
f = open(path, 'r+b')
f.seek(1024); sb = f.read(1024)
bs = 1024 << struct.unpack_from('<I', sb, 24)[0]
assert not struct.unpack_from('<I', sb, 0x60)[0] & 0x2000, "csum_seed feature"
seed = crc32c(0xffffffff, sb[0x68:0x78])
seed = crc32c(crc32c(seed, struct.pack('<I', ino)), struct.pack('<I', gen))
def dx_csum(b):
    limit = (bs - 8 - 8) // 8
    count = min(struct.unpack_from('<H', b, 10)[0], limit)
    tail = 8 + limit * 8
    c = crc32c(seed, b[:8 + count * 8])
    c = crc32c(c, b[tail:tail + 4])
    return tail, crc32c(c, b'\0' * 4)
f.seek(blk * bs); b = bytearray(f.read(bs))
tail, c = dx_csum(b)
if struct.unpack_from('<I', b, tail + 4)[0] != c:
    sys.exit("the computed checksum of block %d is not the one on disk" % blk)
b[4] ^= 1
tail, c = dx_csum(b)
struct.pack_into('<I', b, tail + 4, c)
f.seek(blk * bs); f.write(b)
EOF

# first_error NAME: the first EXT4-fs error or csum-error kernel line
first_error() { grep -m 1 -e 'EXT4-fs error' -e 'EXT4-fs csum-error' "$T/$1.out"; }
# first_fserror NAME: the errno of the first fanotify error event
first_fserror() { sed -n 's/^fserror \([A-Z]*\) .*/\1/p' "$T/$1.out" | head -n 1; }

kernels="patched patched-6.12"
[ -f "$B/kernel/kasan/bzImage" ] && kernels="$kernels kasan"
for k in $kernels; do
	kt_boot $k-root $k "$rootimg" --step mount --step "may ls /htree"
	kt_boot $k-node $k "$dx" --step mount --step "may ls /big"
	kt_boot $k-sealed $k "$T/sealed.img" --step mount --step "may ls /big"

	# __ext4_read_dirblock(): a block read as INDEX is verified at the
	# layout of its role (block 0: root) before get_dx_countlimit()
	l=$(kt_csum_line dx-root "$rino" "$root" 0)
	f=$(first_error $k-root)
	case $f in
	*"$l") ok "$k root: the first error line is '$l'" ;;
	*) check_fail "$k root: the first error line is '$f', not '$l'" ;;
	esac
	e=$(first_fserror $k-root)
	[ "$e" = EBADMSG ] && ok "$k root: the first fanotify error is EBADMSG" ||
		check_fail "$k root: the first fanotify error is '$e', not EBADMSG"

	l=$(kt_csum_line dx-node "$dino" "$node" 0)
	f=$(first_error $k-node)
	case $f in
	*"$l") ok "$k node: the first error line is '$l'" ;;
	*) check_fail "$k node: the first error line is '$f', not '$l'" ;;
	esac
	e=$(first_fserror $k-node)
	[ "$e" = EBADMSG ] && ok "$k node: the first fanotify error is EBADMSG" ||
		check_fail "$k node: the first fanotify error is '$e', not EBADMSG"

	# a checksum that holds over a header get_dx_countlimit() cannot read
	if kt_has $k-sealed "csum-error"; then
		check_fail "$k sealed: a csum-error line for a node whose checksum holds: $(grep -m 1 csum-error "$T/$k-sealed.out")"
	else
		ok "$k sealed: no csum-error line"
	fi
	kt_has $k-sealed "dir seems corrupt?  Run e2fsck -D." &&
		ok "$k sealed: 'dir seems corrupt?'" || check_fail "$k sealed: no 'dir seems corrupt?'"
	e=$(first_fserror $k-sealed)
	[ "$e" = EUCLEAN ] && ok "$k sealed: the first fanotify error is EUCLEAN" ||
		check_fail "$k sealed: the first fanotify error is '$e', not EUCLEAN"
	for n in root node sealed; do kt_no_reports $k-$n; done
done
kt_done

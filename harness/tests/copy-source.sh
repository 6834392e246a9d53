#!/bin/sh
# SPDX-License-Identifier: MIT
# Populating through the booted kernel: flipbed boot --source
# attaches a read-only ext4 image as /dev/vdb and the guest's copy-source
# step copies its tree into /dev/vda. The copy must equal the tree (content,
# sizes, holes, symlinks, one inode for a hard-linked pair, modes, xattrs),
# small files must come out inline as the kernel stores them, e2fsck -fn
# must be clean, and the source must be unchanged. Without --source the step
# fails with ENODEV and writes nothing; a --source that is not ext4 is
# refused before boot. Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_tools mke2fs debugfs e2fsck setfattr cmp sha256sum
require_kernel stock

# The tree: sizes around the inline limit of 256-byte inodes (128 bytes),
# an extent file, a sparse file, a long and a short symlink, a hard-linked
# pair, an empty directory, a fifo and an xattr.
# The tree needs user xattrs: $T (under TMPDIR) may be a tmpfs without
# them; build/ is on the repository's filesystem, which has them.
tree=$T/tree
mkdir -p "$tree"
if ! setfattr -n user.flipbed-probe -v 1 "$tree" 2>/dev/null; then
	tree=$B/tmp/copy-source.$$
	rm -rf "$tree"; mkdir -p "$tree"
	trap 'rm -rf "$T" "$tree"' EXIT
	setfattr -n user.flipbed-probe -v 1 "$tree" 2>/dev/null ||
		skip_anywhere "no user xattrs on $T or in $B/tmp"
fi
setfattr -x user.flipbed-probe "$tree"
mkdir -p "$tree/d/e" "$tree/empty"
for n in 1 60 128 129 5000; do
	head -c $n /dev/urandom > "$tree/d/f$n"
done
: > "$tree/zero"
truncate -s 1M "$tree/sparse"
printf 'middle' | dd of="$tree/sparse" bs=1 seek=300000 conv=notrunc 2>/dev/null
ln -s f60 "$tree/d/short"
ln -s "$(printf 'x%.0s' $(seq 100))" "$tree/d/long"
ln "$tree/d/f5000" "$tree/d/e/hard"
mkfifo "$tree/fifo"
chmod 0750 "$tree/d/e"
setfattr -n user.flipbed -v hello "$tree/d/f60" || fail "setfattr on $tree"

src=$T/src.img
mke2fs -q -F -t ext4 -d "$tree" "$src" 8M || fail "mke2fs -d $tree"
before=$(sha256sum < "$src")
img=$T/img
mke2fs -q -F -t ext4 -O metadata_csum,inline_data -I 256 "$img" 32M || fail "mke2fs $img"

echo "=== copy-source into an inline_data image (stock kernel)"
"$FLIPBED" boot --kernel stock --image "$img" --source "$src" --step mount \
	--step copy-source --step umount > "$T/boot.out" 2>&1 ||
	{ cat "$T/boot.out"; fail "flipbed boot exited $?"; }
grep 'copy-source -> ok' "$T/boot.out" ||
	{ cat "$T/boot.out"; fail "copy-source did not report ok"; }
grep -q 'files=7 dirs=3 symlinks=2 links=1 nodes=1 xattrs=1 .* failures=0' "$T/boot.out" ||
	{ cat "$T/boot.out"; fail "copy-source counted other entries than the tree has"; }
[ "$(sha256sum < "$src")" = "$before" ] || fail "the source image changed"
e2fsck -fn "$img" > "$T/fsck.out" 2>&1 || { cat "$T/fsck.out"; fail "e2fsck -fn is not clean"; }

# Content: dump the copy on the host and compare with the tree.
mkdir "$T/out"
debugfs -R "rdump / $T/out" "$img" 2>/dev/null
# debugfs 1.47.0 dumps an inline file as all 60 bytes of i_block whatever
# its size: compare the first SIZE bytes, and SIZE from debugfs stat.
for f in d/f1 d/f60 d/f128 d/f129 d/f5000 d/e/hard zero sparse; do
	n=$(stat -c %s "$tree/$f")
	debugfs -R "stat /$f" "$img" 2>/dev/null | grep -q "Size: $n\$" ||
		fail "/$f is not $n bytes after the copy"
	head -c "$n" "$T/out/$f" | cmp - "$tree/$f" || fail "$f differs after the copy"
done
[ "$(readlink "$T/out/d/long")" = "$(readlink "$tree/d/long")" ] || fail "d/long points elsewhere"
[ "$(readlink "$T/out/d/short")" = f60 ] || fail "d/short points elsewhere"

stat_of() { debugfs -R "stat $1" "$img" 2>/dev/null; }
ino() { debugfs -R "ls -l $(dirname "$1")" "$img" 2>/dev/null |
	awk -v n="$(basename "$1")" '$NF == n { print $1 }'; }
[ "$(ino /d/f5000)" = "$(ino /d/e/hard)" ] && [ -n "$(ino /d/f5000)" ] ||
	fail "the hard-linked pair is two inodes"
stat_of /d/f128 | grep -q 'Size of inline data' || fail "/d/f128 (128 bytes) is not inline"
stat_of /d/f129 | grep -q 'EXTENTS' || fail "/d/f129 (129 bytes) is not in extents"
stat_of /d/e | grep -q 'Mode:  0750' || fail "/d/e lost its mode 0750"
stat_of /fifo | grep -q 'Type: FIFO' || fail "/fifo is not a fifo"
debugfs -R 'ea_get /d/f60 user.flipbed' "$img" 2>/dev/null | grep -q hello ||
	fail "the xattr user.flipbed of /d/f60 was not copied"
blocks=$(stat_of /sparse | sed -n 's/.*Blockcount: \([0-9]*\).*/\1/p')
[ -n "$blocks" ] && [ "$blocks" -le 16 ] || fail "/sparse takes $blocks sectors: its hole was filled"
no_leftovers

echo "=== copy-source without a source disk: ENODEV, nothing written"
img2=$T/img2
mke2fs -q -F -t ext4 "$img2" 16M
"$FLIPBED" boot --kernel stock --image "$img2" --step mount \
	--step 'expect ENODEV copy-source' --step 'ls /' --step umount > "$T/boot2.out" 2>&1 ||
	{ cat "$T/boot2.out"; fail "copy-source without --source did not fail with ENODEV"; }
grep -q 'is there a source disk' "$T/boot2.out" || { cat "$T/boot2.out"; fail "no reason given"; }

echo "=== --source that is not ext4: refused before boot"
head -c 65536 /dev/zero > "$T/notext4"
"$FLIPBED" boot --kernel stock --image "$img2" --source "$T/notext4" --step mount > "$T/boot3.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'not an ext4 image' "$T/boot3.out" ||
	{ cat "$T/boot3.out"; fail "a non-ext4 --source gave exit $rc"; }
no_leftovers
echo "=== ok"

#!/bin/bash
# Reproducer: one bit of an inode's checksummed bytes changed, and
# e2fsck -fy destroys the root directory instead of re-sealing that inode.
#
# The image: metadata_csum + inline_data (+ bigalloc with 64 KiB clusters,
# as flipbed's scenarios/bigalloc/inline-flip.scn has it; BIGALLOC=no drops
# it, the result is the same). Two inline directories /d1 and /d2, then an
# inline file /small of 40 bytes. One byte of /small's i_block (its inline
# data) is changed with dd, so only the inode checksum is wrong.
#
# Expected: e2fsck -fy says "Inode N passes checks, but checksum does not
# match inode. Fix? yes", rewrites the checksum, and a second e2fsck -fy
# is clean.  Seen (1.47.0, and master at 1.47.4): e2fsck then treats the
# root directory as an inline directory whose '..' is the first four bytes
# of /small ("Entry '..' in <2> (2) has invalid inode #: 1818324339", that
# is "smal"), writes /small's inode over the root inode, cannot create
# /lost+found, and a second e2fsck -fy still finds errors.
#
# Usage: repro.sh [WORKDIR]     (as any user; needs only e2fsprogs)
# Other binaries: MKE2FS=... DEBUGFS=... E2FSCK=... repro.sh
# Exit status: 1 when the bug shows (the second e2fsck is not clean),
# 0 when it does not, 2 on a setup error.
set -u

MKE2FS=${MKE2FS:-mke2fs}
DEBUGFS=${DEBUGFS:-debugfs}
E2FSCK=${E2FSCK:-e2fsck}
BIGALLOC=${BIGALLOC:-yes}
PATH=$PATH:/sbin:/usr/sbin

work=${1:-$(mktemp -d)}
mkdir -p "$work" || exit 2
img=$work/repro.img
# Fixed time, UUID and hash seed: the same image, and output, every run.
export E2FSPROGS_FAKE_TIME=1700000000
uuid=6a0e4f44-33c1-4d3e-9f34-0c8a3bd5e1a0

features=metadata_csum,inline_data
cluster=
if [ "$BIGALLOC" = yes ]; then
	features=$features,bigalloc
	cluster="-C 65536"
fi

echo "== $("$E2FSCK" -V 2>&1 | head -1)"
rm -f "$img"
truncate -s 64M "$img" || exit 2
# shellcheck disable=SC2086
"$MKE2FS" -q -F -t ext4 -O "$features" -b 4096 $cluster -I 256 \
	-U "$uuid" -E hash_seed="$uuid" "$img" 64M || exit 2
echo "== mke2fs -t ext4 -O $features -b 4096 ${cluster:+$cluster }-I 256 (64 MiB)"

printf 'small file: forty bytes of inline data.\n' > "$work/small"
"$DEBUGFS" -w -f - "$img" >/dev/null 2>&1 <<CMDS
mkdir d1
mkdir d2
write $work/small small
CMDS

# Where /small's inode is: "located at block B, offset 0xO".
loc=$("$DEBUGFS" -R "imap /small" "$img" 2>/dev/null |
	sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
[ -n "$loc" ] || { echo "debugfs imap /small failed"; exit 2; }
# shellcheck disable=SC2086 # two words: block and offset
set -- $loc
ino=$("$DEBUGFS" -R "stat /small" "$img" 2>/dev/null | awk '/^Inode:/ {print $2; exit}')
bsize=4096
# i_block is at offset 0x28 of the inode; change its 6th byte.
pos=$(( $1 * bsize + $2 + 0x28 + 5 ))
old=$(od -An -tx1 -j "$pos" -N1 "$img" | tr -d ' ')
printf '\x21' | dd of="$img" bs=1 seek="$pos" conv=notrunc status=none
new=$(od -An -tx1 -j "$pos" -N1 "$img" | tr -d ' ')
echo "== /small is inode $ino (block $1, offset $2); byte $pos: 0x$old -> 0x$new"
echo

echo "== e2fsck -fy (first run)"
"$E2FSCK" -fy "$img"
rc1=$?
echo "== exit $rc1"
echo
echo "== e2fsck -fy (second run)"
"$E2FSCK" -fy "$img"
rc2=$?
echo "== exit $rc2"
echo
echo "== after both runs: the root inode, / and /lost+found (debugfs)"
"$DEBUGFS" -R "stat <2>" "$img" 2>/dev/null | sed -n '1p'
"$DEBUGFS" -R "ls /" "$img" 2>/dev/null | tr -s ' \n' ' '; echo
"$DEBUGFS" -R "ls /lost+found" "$img" 2>/dev/null | tr -s ' \n' ' '; echo
echo
if [ "$rc2" -ne 0 ]; then
	echo "BUG: the second e2fsck -fy still changed the filesystem (exit $rc2);"
	echo "expected exit 1 then 0 (only the inode checksum rewritten)."
	exit 1
fi
echo "not reproduced: the second e2fsck -fy was clean"
exit 0

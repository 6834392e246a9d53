#!/bin/sh
# SPDX-License-Identifier: MIT
# map agrees with debugfs (imap, stat, ex, blocks, bd) and dumpe2fs on the
# same image. Groups: quick.
. "$(dirname "$0")/lib.sh"

I=$W/l.img
mkfix $I 64M 300 -b 4096 -g 8192 -I 256 -O metadata_csum,inline_data
J="--json"
field() { # JSON-LINE KEY
	echo "$1" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}

for p in /plain /deep /big /sub/deeper/file /idir; do
	ino=$(debugfs -R "stat $p" $I 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	rec=$($F locate $I --target inode --path $p $J) || fail "no inode for $p"
	[ "$(field "$rec" ino)" = "$ino" ] || fail "$p: ino $(field "$rec" ino), debugfs says $ino"
	set -- $(debugfs -R "imap $p" $I 2>/dev/null | sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	want=$(( $1 * 4096 + $2 ))
	[ "$(field "$rec" offset)" = "$want" ] || fail "$p: inode offset $(field "$rec" offset), imap says $want"
	echo "ok imap $p: ino $ino at $want"
done

acl=$(debugfs -R "stat /plain" $I 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
rec=$($F locate $I --target xattr-block --path /plain $J) || fail "no xattr-block"
[ "$(field "$rec" pblk)" = "$acl" ] || fail "xattr block $(field "$rec" pblk), stat says $acl"
echo "ok stat /plain: File ACL $acl"

# ex: the physical blocks of interior entries are the index/leaf blocks.
debugfs -R "ex /deep" $I 2>/dev/null |
	awk 'NR > 1 { l = $1; sub("/", "", l); if (l + 0 < $2 + 0) print $8 }' |
	sort -n > "$W/ex"
{ $F locate $I --target extent-index --path /deep $J
  $F locate $I --target extent-leaf --path /deep $J; } |
	sed -n 's/.*"pblk":\([0-9]*\).*/\1/p' | sort -n > "$W/map"
[ -s "$W/ex" ] || fail "debugfs ex /deep listed no interior entry"
cmp -s "$W/ex" "$W/map" || fail "extent blocks differ: ex $(tr '\n' ' ' < "$W/ex"), map $(tr '\n' ' ' < "$W/map")"
echo "ok ex /deep: $(wc -l < "$W/map") extent blocks"

# blocks: the data blocks of /plain and the directory blocks of /big.
debugfs -R "blocks /plain" $I 2>/dev/null | tr ' ' '\n' | sed '/^$/d' > "$W/b1"
$F locate $I --target data --path /plain $J | while read -r r; do
	s=$(field "$r" pblk) n=$(( $(field "$r" length) / 4096 )) k=0
	while [ $k -lt $n ]; do echo $((s + k)); k=$((k + 1)); done
done > "$W/b2"
cmp -s "$W/b1" "$W/b2" || fail "/plain blocks differ"
debugfs -R "blocks /big" $I 2>/dev/null | tr ' ' '\n' | sed '/^$/d' | sort -n > "$W/b1"
for t in dx-root dx-node dir-leaf; do
	$F locate $I --target $t --path /big $J 2>/dev/null
done | sed -n 's/.*"pblk":\([0-9]*\).*/\1/p' | sort -n > "$W/b2"
cmp -s "$W/b1" "$W/b2" || fail "/big blocks differ"
echo "ok blocks /plain /big"

# bd: the dx-root's bytes at the mapped offset are debugfs' block 0 of /big.
rec=$($F locate $I --target dx-root --path /big $J) || fail "no dx-root"
bd=$(debugfs -R "bd -f /big 0" $I 2>/dev/null | head -1 |
	awk '{ print $2 $3 $4 $5 $6 $7 $8 $9 }')
img=$(od -A n -t x1 -j $(field "$rec" offset) -N 16 $I | tr -d ' \n')
[ -n "$bd" ] && [ "$bd" = "$img" ] ||
	fail "bd -f /big 0 shows $bd, the image at the dx-root offset $img"
echo "ok bd /big block 0 = dx-root at $(field "$rec" offset)"

# dumpe2fs: bitmaps and group descriptors of every group.
dumpe2fs $I 2>/dev/null | sed -n 's/^  Block bitmap at \([0-9]*\).*/\1/p' > "$W/d1"
$F locate $I --target block-bitmap $J | sed -n 's/.*"pblk":\([0-9]*\).*/\1/p' > "$W/d2"
cmp -s "$W/d1" "$W/d2" || fail "block bitmaps: dumpe2fs $(tr '\n' ' ' < "$W/d1"), map $(tr '\n' ' ' < "$W/d2")"
echo "ok dumpe2fs: block bitmaps"

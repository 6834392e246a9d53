#!/bin/sh
# SPDX-License-Identifier: MIT
# An image file shorter than the filesystem its superblock describes (cut
# to half with truncate -s): map, locate and pick refuse it (exit 2, one
# line naming the image, its size and the size the superblock gives);
# verify names the objects past the end as FAIL unverifiable and exits 1.
# Groups: quick.
. "$(dirname "$0")/lib.sh"

I=$W/t.img
mkfs.ext4 -q -F -b 1024 -O metadata_csum "$I" 64M ||
	fail "mkfs.ext4 failed"
$F map "$I" > "$W/full" || fail "map of the whole image failed"
truncate -s 32M "$I"
want="$I.* 33554432 bytes.*65536 blocks of 1024 bytes.*67108864"

for cmd in "map" "map --json" "locate --target superblock" \
	"pick --target block-bitmap"; do
	$F $cmd "$I" > "$W/out" 2> "$W/err"; rc=$?
	[ $rc = 2 ] || fail "$cmd: exit $rc on a truncated image, wanted 2"
	[ -s "$W/out" ] && fail "$cmd: wrote to stdout: $(head -3 "$W/out")"
	[ $(wc -l < "$W/err") = 1 ] || fail "$cmd: not one line: $(cat "$W/err")"
	grep -Eq "$want" "$W/err" || fail "$cmd: '$(cat "$W/err")' lacks /$want/"
	echo "ok $cmd: $(cat "$W/err")"
done

$F verify "$I" > "$W/out" 2> "$W/err"; rc=$?
[ $rc = 1 ] || fail "verify: exit $rc on a truncated image, wanted 1: $(cat "$W/err")"
grep -Eq "$want" "$W/err" || fail "verify: stderr does not say the image is truncated: $(cat "$W/err")"
# Every object of the full map that ends past 32 MiB, and only those.
perl -ne 'print "$1\n" if /^(\S+ id=\d+) .* offset=(0x[0-9a-f]+) length=(\d+)/ &&
	hex($2) + $3 > 33554432' "$W/full" > "$W/past"
[ -s "$W/past" ] || fail "no object of the full image lies past 32 MiB"
sed -n 's/^FAIL \([^ ]* id=[0-9]*\) .* verdict=unverifiable$/\1/p' "$W/out" > "$W/named"
cmp -s "$W/past" "$W/named" ||
	fail "verify named $(tr '\n' ',' < "$W/named"), past the end: $(tr '\n' ',' < "$W/past")"
echo "ok verify: exit 1, $(wc -l < "$W/named") objects past the end named unverifiable"
echo "truncated image refused by map/locate/pick, its lost objects named by verify"

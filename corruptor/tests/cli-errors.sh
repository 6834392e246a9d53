#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input: every case exits 2 with one line on stderr that names what is
# missing or wrong. Groups: quick.
. "$(dirname "$0")/lib.sh"

I=$W/plain.img	# no htree, no mmp, clean journal
mkfs.ext4 -q -F -b 4096 -O metadata_csum "$I" 16M || fail "mkfs.ext4 failed"
head -c 1M /dev/urandom > "$W/noise"

bad() { # WANTED-REGEX ARGS...
	want=$1; shift
	$F "$@" > "$W/out" 2> "$W/err"; rc=$?
	[ $rc = 2 ] || fail "'$*': exit $rc, wanted 2"
	[ $(wc -l < "$W/err") = 1 ] || fail "'$*': not one line: $(cat "$W/err")"
	[ -s "$W/out" ] && fail "'$*': wrote to stdout: $(cat "$W/out")"
	grep -Eq -e "$want" "$W/err" || fail "'$*': '$(cat "$W/err")' lacks /$want/"
	echo "ok: $* -> $(cat "$W/err")"
}

bad "not.*ext2/3/4|Bad magic" map "$W/noise"
bad "No such file" map "$W/missing.img"
bad "no such path /nope" locate "$I" --target inode --path /nope
bad "no dx-root object.*htree" locate "$I" --target dx-root
bad "no mmp object.*feature mmp is off" pick "$I" --target mmp
bad "no journal-descriptor object.*journal is clean" flip "$I" --target journal-descriptor
bad "no orphan-block object" locate "$I" --target orphan-block
bad "none with ino=999" locate "$I" --target inode --ino 999
bad "none with.*index=99" locate "$I" --target superblock --index 99
bad "unknown type 'frob'.*superblock" locate "$I" --target frob
bad "--target TYPE is required" pick "$I"
bad "unknown command 'zap'" zap "$I"
bad "missing command" 
bad "bad number 'x1'" pick "$I" --target inode --seed x1
bad "--bits: bad number" pick "$I" --target inode --bits 100000
bad "no field 'e_frob'.*s_magic" pick "$I" --target superblock --region e_frob
bad "--region: bad value" pick "$I" --target superblock --region 'a b'
bad "--on: bad value 'later'" pick "$I" --target superblock --on later
bad "at most one of --path, --ino, --group" locate "$I" --target inode --ino 2 --group 0
bad "unknown or incomplete option '--frob'" map "$I" --frob
bad "exactly one IMAGE" map "$I" "$I"
bad "map takes only IMAGE" map "$I" --target inode
bad "--on is for pick" flip "$I" --target inode --on read

# libext2fs' codes come out as its messages, never "Unknown code ext2 19"
# (EXT2_ET_BAD_MAGIC) or "… 36" (EXT2_ET_SHORT_READ).
head -c 1M /dev/zero > "$W/zeros"
head -c 2048 "$I" > "$W/short.img"
bad "cannot open as ext2/3/4: Bad magic number in super-block$" map "$W/zeros"
bad "cannot open as ext2/3/4: Attempt to read block from filesystem resulted in short read$" \
	verify "$W/short.img"

mkfs.ext4 -q -F -b 4096 -O ^metadata_csum "$W/nocsum.img" 16M
bad "no covered bytes.*metadata_csum off" flip "$W/nocsum.img" --target inode --region covered
echo "all bad-input cases exit 2 with one line"

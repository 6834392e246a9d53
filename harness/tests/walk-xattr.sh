#!/bin/sh
# SPDX-License-Identifier: MIT
# The walk step lists and reads every extended attribute of every entry.
# /x's user.big (1000 bytes) lives in an xattr block, /y's user.small in the
# inode. With the block's checksum (h_checksum, offset 16) zapped, walk must
# fail with EBADMSG and name /x ("out 2 EBADMSG listxattr /x"); without the
# fault it must read both attributes (xattrs=2) and fail nothing. A walk
# that only stats entries and reads files never reads the block. Stock and
# patched.
# Groups: quick csum.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock patched

img=$T/base.img
mkfs.ext4 -q -F -b 4096 -O metadata_csum "$img" 64M || fail "mkfs.ext4"
head -c 1000 /dev/zero | tr '\0' v > "$T/big"
{
	echo "write /dev/null x"; echo "write /dev/null y"
	echo "mkdir d"; echo "write /dev/null d/z"
	echo "ea_set -f $T/big /x user.big"
	echo "ea_set /y user.small hello"
} | debugfs -w -f - "$img" > /dev/null 2>&1
blk=$(debugfs -R 'stat /x' "$img" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
[ -n "$blk" ] && [ "$blk" != 0 ] || fail "image setup: /x's user.big has no xattr block"
debugfs -R 'ea_list /y' "$img" 2>/dev/null | grep -q 'user.small' ||
	fail "image setup: /y has no user.small"
cp "$img" "$T/clean.img"
debugfs -w -R "zap_block -o 16 -l 4 -p 0x55 $blk" "$img" > /dev/null 2>&1 ||
	fail "debugfs zap_block $blk"

# boot NAME VARIANT IMAGE: mount and walk; the agent's lines in $T/NAME.out
boot() {
	cp "$3" "$T/$1.img"
	"$FLIPBED" boot --kernel "$2" --image "$T/$1.img" --timeout 120 \
		--step mount --step 'may walk' --step umount > "$T/$1.out" 2>&1
	echo "flipbed boot exit $?" >> "$T/$1.out"
	grep -v '^kmsg ' "$T/$1.out" | sed "s/^/    $1| /"
}
has() { grep -q -- "$2" "$T/$1.out"; }

for v in stock patched; do
	echo "=== $v"
	boot "$v-bad" "$v" "$img"
	boot "$v-clean" "$v" "$T/clean.img"
	if has "$v-bad" '^step 2 may walk -> err EBADMSG entries=5 failures=1 xattrs=1$' &&
	   has "$v-bad" '^out 2 EBADMSG listxattr /x$'; then
		ok "$v: walk fails with EBADMSG on /x's xattr block"
	else
		check_fail "$v: walk did not report /x: $(grep '^step 2\|^out 2' "$T/$v-bad.out")"
	fi
	has "$v-bad" '^kmsg .*corrupted xattr block' ||
		check_fail "$v: no 'corrupted xattr block' kernel message"
	if has "$v-clean" '^step 2 may walk -> ok entries=5 failures=0 xattrs=2$'; then
		ok "$v: clean image: both attributes read"
	else
		check_fail "$v: clean walk: $(grep '^step 2\|^out 2' "$T/$v-clean.out")"
	fi
done
line=$(grep -F 'csum-error' "$T/patched-bad.out" | head -n 1)
case $line in
*"type=xattr-block"*) ok "patched: ${line#*kmsg }" ;;
*) check_fail "patched: no csum-error line for the xattr block" ;;
esac
finish

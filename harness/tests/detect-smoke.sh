#!/bin/sh
# SPDX-License-Identifier: MIT
# Detection smoke: with /d/small's inode checksum zeroed at rest,
# reading it fails with EBADMSG (EFSBADCRC), ext4 remounts read-only (a
# write fails with EROFS), and the kernel log says "checksum invalid" and
# "Remounting filesystem read-only". Both variants. Groups: quick, csum.
. "$(dirname "$0")/lib.sh"
require_flipbed
missing=
for v in stock patched; do
	if [ ! -r "$B/kernel/$v/vmlinux" ]; then
		missing="$missing $v"
		continue
	fi
	echo "=== $v"
	img=$T/$v.img
	mkimage "$img"
	populate "$img" "$v"
	debugfs -w -R 'set_inode_field /d/small checksum 0' "$img" || fail "debugfs -w"
	"$FLIPBED" boot --kernel "$v" --image "$img" --step mount \
		--step 'expect EBADMSG read /d/small' --step 'expect-erofs /x' > "$T/log"
	rc=$?
	cat "$T/log"
	[ $rc -eq 0 ] || fail "$v: flipbed boot exited $rc, expected 0"
	grep -q '^step 2 expect EBADMSG read /d/small -> err EBADMSG' "$T/log" ||
		fail "$v: no EBADMSG for read /d/small"
	grep -q '^step 3 expect-erofs /x -> err EROFS' "$T/log" || fail "$v: no EROFS for expect-erofs /x"
	grep -q '^kmsg .*checksum invalid' "$T/log" || fail "$v: no 'checksum invalid' kernel message"
	grep -q '^kmsg .*Remounting filesystem read-only' "$T/log" ||
		fail "$v: no 'Remounting filesystem read-only' kernel message"
	no_leftovers
	echo "=== $v: ok"
done
[ -z "$missing" ] || skip "kernel variant(s)$missing not built (make kernels)"

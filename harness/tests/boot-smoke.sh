#!/bin/sh
# SPDX-License-Identifier: MIT
# Boot smoke: each kernel variant boots, the guest writes /a (5000
# bytes) and /d/small (40 bytes, stored inline), unmounts, and the host
# finds both files with debugfs and a clean e2fsck -fn. Groups: quick.
# Usage: boot-smoke.sh [VARIANT...] (default: stock patched)
. "$(dirname "$0")/lib.sh"
require_flipbed
variants=${*:-stock patched}
missing=
for v in $variants; do
	if [ ! -r "$B/kernel/$v/vmlinux" ]; then
		missing="$missing $v"
		continue
	fi
	echo "=== $v"
	img=$T/$v.img
	mkimage "$img"
	populate "$img" "$v"
	debugfs -R 'stat /a' "$img" 2>/dev/null | grep -q 'Size: 5000$' ||
		fail "$v: debugfs does not show /a with 5000 bytes"
	st=$(debugfs -R 'stat /d/small' "$img" 2>/dev/null)
	echo "$st" | grep -q 'Size: 40$' || fail "$v: /d/small is not 40 bytes"
	echo "$st" | grep -q 'Size of inline data:' || fail "$v: /d/small is not stored inline"
	echo "$st" | grep -q 'Flags: 0x1[0-9a-f]\{7\}' || fail "$v: /d/small lacks the inline data flag"
	e2fsck -fn "$img" || fail "$v: e2fsck -fn is not clean"
	no_leftovers
	echo "=== $v: ok"
done
[ -z "$missing" ] || skip "kernel variant(s)$missing not built (make kernels)"

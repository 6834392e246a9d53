#!/bin/sh
# SPDX-License-Identifier: MIT
# The e2fsck oracle reads e2fsck's output, not only its exit status: each
# image below is made with mkfs.ext4 and debugfs, checked with e2fsck -fn,
# and its exit status and normalised output compared with the golden files
# in harness/tests/fsck/NAME.out (the image name, checksums and times
# replaced). The unit test build/tests/bin/test-fsck reads the same goldens
# and checks how many problem lines the oracle finds in each.
#   clean       a fresh filesystem: exit 0, no problem
#   free-count  the superblock's free block count wrong: exit 0, not damage
#               (the kernel recomputes it at mount)
#   gd-csum     group 0's descriptor checksum zeroed: exit 0 although e2fsck
#               printed the problem and "IGNORED" (the case the exit status
#               hides)
#   inode-csum  an inode's checksum zeroed: exit 4
#   future-mount the last mount time an hour ahead of the host's clock, as a
#               guest clock ahead of the host's leaves it: exit 0, a two-line
#               message, not damage
#   future-far  the last mount time a month ahead: exit 0, "Fix? no", not
#               damage either (the times in the message are normalised)
# FLIPBED_REGOLD=1 rewrites the goldens (review the diff).
# Groups: quick.
. "$(dirname "$0")/../../tests/lib.sh"
require_tools mkfs.ext4 debugfs e2fsck
here=harness/tests/fsck
cd "$top" || exit 1

ahead() {	# SECONDS: the last mount time that far ahead of now
	debugfs -w -R "ssv mtime @$(($(date +%s) + $1))" "$img" >/dev/null 2>&1
}

make_image() {	# NAME: the image $T/NAME.img
	img=$T/$1.img
	mkfs.ext4 -q -F -b 4096 -O metadata_csum "$img" 16M >/dev/null 2>&1 ||
		fail "mkfs.ext4 failed"
	case $1 in
	free-count) debugfs -w -R "ssv free_blocks_count 123" "$img" >/dev/null 2>&1 ;;
	gd-csum) debugfs -w -R "set_bg 0 checksum 0" "$img" >/dev/null 2>&1 ;;
	inode-csum) debugfs -w -R "sif <2> checksum 0" "$img" >/dev/null 2>&1 ;;
	future-mount) ahead 3600 ;;
	future-far) ahead 2592000 ;;
	esac
}

for name in clean free-count gd-csum inode-csum future-mount future-far; do
	make_image $name
	e2fsck -fn "$T/$name.img" > "$T/raw" 2>&1
	rc=$?
	{ echo "# exit $rc"
	  sed -E -e "s|$T/$name.img|IMAGE|g" -e 's/0x[0-9a-f]*/0xN/g' \
	      -e 's/[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}/DATE/g' \
	      -e '/^e2fsck [0-9]/d' "$T/raw"
	} > "$T/$name.out"
	[ "${FLIPBED_REGOLD:-0}" = 1 ] && cp "$T/$name.out" "$here/$name.out"
	if diff -u "$here/$name.out" "$T/$name.out"; then
		ok "$name: exit $rc, output as $here/$name.out"
	else
		check_fail "$name: e2fsck's output differs from $here/$name.out"
	fi
done
finish

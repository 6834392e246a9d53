#!/bin/sh
# SPDX-License-Identifier: MIT
# The documentation both series add, read from the patches: the csum_retry
# mount option (Documentation/admin-guide/ext4.rst, in the patch that adds
# the option) states what it does and its limits as the code has them: no
# copy over a dirty or journalled buffer; only the failing object's bytes,
# under its writers' lock, only while they are the bytes that failed; a
# damaged neighbour in the same block is not taken from the re-read copy
# and is written back with the block; EINVAL at mount without
# metadata_csum. Groups: quick.
. "$(dirname "$0")/../../tests/lib.sh"

# added FILE PATCH: the lines PATCH adds to FILE, joined into one line
added() {
	awk -v f="$1" '/^diff --git / { on = ($3 == "a/" f) } on && /^\+[^+]/ { print substr($0, 2) }' "$2" |
		sed 's/^[[:space:]]*//' | paste -sd' '
}

for s in patches patches-6.12; do
	p=$(grep -l '^+	fsparam_flag("csum_retry"' "$top/kernel/$s"/0*.patch | head -n1)
	[ -n "$p" ] || { check_fail "$s: no patch adds the csum_retry option"; continue; }
	doc=$(added Documentation/admin-guide/ext4.rst "$p")
	[ -n "$doc" ] || { check_fail "$s/$(basename "$p"): documents nothing in ext4.rst"; continue; }
	n=0
	for phrase in "csum_retry" "nocsum_retry" "dirty" "attached to the journal" \
		"only the failing object's bytes" "lock that object's writers take" \
		"still holds the bytes that failed" "neighbouring object" "written back" \
		"EINVAL" "metadata_csum" "mount time"; do
		echo "$doc" | grep -qiF -- "$phrase" && continue
		check_fail "$s/$(basename "$p"): ext4.rst's csum_retry entry does not say '$phrase'"
		n=$((n + 1))
	done
	[ $n = 0 ] && ok "$s: csum_retry's entry in ext4.rst states what it does and its limits"
done
finish

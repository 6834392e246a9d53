#!/bin/sh
# SPDX-License-Identifier: MIT
# The documentation both series add, read from the patches: the csum_retry
# mount option (Documentation/admin-guide/ext4.rst, in the patch that adds
# the option) states what it does and its limits as the code has them: no
# copy over a dirty or journalled buffer; only the failing object's bytes,
# under its writers' lock, only while they are the bytes that failed; a
# damaged neighbour in the same block is not taken from the re-read copy
# and is written back with the block; EINVAL at mount without
# metadata_csum. The csum-error reports (Documentation/admin-guide/ext4.rst,
# and the log of the patch that adds the tracepoint): the tracepoint
# ext4_csum_error is the stable interface, with type, ino, block and
# recovered, the line is for humans; the ratelimit's summary has its own
# form; sysfs names the types with underscores. Groups: quick.
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

	all=$(for q in $(grep -v '^[[:space:]]*\(#\|$\)' "$top/kernel/$s/series"); do
		added Documentation/admin-guide/ext4.rst "$top/kernel/$s/$q"; done | paste -sd' ')
	n=0
	for phrase in "ext4:ext4_csum_error" "interface for tools" "stable" "\`\`type\`\`" \
		"\`\`ino\`\`" "\`\`block\`\`" "\`\`recovered\`\`" "for humans" \
		"checksum error reports suppressed" "underscores" "/proc/fs/jbd2/<dev>/info"; do
		echo "$all" | grep -qF -- "$phrase" && continue
		check_fail "$s: ext4.rst does not document the csum-error reports: no '$phrase'"
		n=$((n + 1))
	done
	[ $n = 0 ] && ok "$s: ext4.rst documents the tracepoint as the interface, the line for humans"
	t=$(grep -l '^+TRACE_EVENT(ext4_csum_error' "$top/kernel/$s"/0*.patch | head -n1)
	log=$(sed -n '/^Subject: /,/^---$/p' "$t" | paste -sd' ')
	n=0
	for phrase in "interface for tools" "stable" "for humans"; do
		echo "$log" | grep -qF -- "$phrase" && continue
		check_fail "$s/$(basename "$t"): its log does not say the tracepoint is the interface: no '$phrase'"
		n=$((n + 1))
	done
	[ $n = 0 ] && ok "$s/$(basename "$t"): its log names the tracepoint the stable interface"
done
finish

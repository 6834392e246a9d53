#!/bin/sh
# SPDX-License-Identifier: MIT
# The interface both series add, read from the patches as upstream review
# reads them:
#  - every entry a patch adds to Documentation/ABI/testing/sysfs-fs-ext4
#    is dated the month of the patch's own Date and names the list,
#    linux-ext4@vger.kernel.org, as Contact; csum_errors/ (added with the
#    counters) counts failed verifications, not "blocks";
#  - the tracepoint ext4_csum_error gets its recovered field in the patch
#    that first sets it, the one that adds csum_retry, not before;
#  - a symbol the series exports has a caller outside the file that
#    defines it (jbd2_csum_type_name has none: ext4 and jbd2 may be
#    modules, but ext4 does not call it).
# Groups: quick.
. "$(dirname "$0")/../../tests/lib.sh"

# added FILE PATCH: the lines PATCH adds to FILE
added() {
	awk -v f="$1" '/^diff --git / { on = ($3 == "a/" f) } on && /^\+[^+]/ { print substr($0, 2) }' "$2"
}
# added_elsewhere FILE PATCH: the lines PATCH adds to the C files but FILE
# (a header's declaration is no caller)
added_elsewhere() {
	awk -v f="$1" '/^diff --git / { on = ($3 != "a/" f && $3 ~ /\.c$/) } on && /^\+[^+]/ { print substr($0, 2) }' "$2"
}

for s in patches patches-6.12; do
	dir=$top/kernel/$s
	patches=$(grep -v '^[[:space:]]*\(#\|$\)' "$dir/series")

	# the ABI entries
	for p in $patches; do
		abi=$(added Documentation/ABI/testing/sysfs-fs-ext4 "$dir/$p")
		[ -n "$abi" ] || continue
		month=$(date -u -d "$(sed -n 's/^Date: //p' "$dir/$p" | head -n 1)" '+%B %Y')
		n=0
		for d in $(echo "$abi" | sed -n 's/^Date:[[:space:]]*//p' | tr ' ' '_'); do
			[ "$d" = "$(echo "$month" | tr ' ' '_')" ] && continue
			check_fail "$s/$p: ABI Date '$(echo "$d" | tr _ ' ')', the patch is of $month"
			n=$((n + 1))
		done
		echo "$abi" | sed -n 's/^Contact:[[:space:]]*//p' | while read -r c; do
			[ "$c" = linux-ext4@vger.kernel.org ] ||
				echo "$s/$p: ABI Contact '$c', not linux-ext4@vger.kernel.org"
		done > "$T/contact"
		[ -s "$T/contact" ] && { check_fail "$(cat "$T/contact")"; n=$((n + 1)); }
		[ $n = 0 ] && ok "$s/$p: its ABI entries are of $month, Contact linux-ext4@vger.kernel.org"
	done
	p=$(grep -l '^+What:.*/csum_errors/' $(for q in $patches; do echo "$dir/$q"; done) | head -n 1)
	text=$(added Documentation/ABI/testing/sysfs-fs-ext4 "$p" | tr -s ' \t\n' '   ')
	if echo "$text" | grep -q 'number of blocks'; then
		check_fail "$s/$(basename "$p"): csum_errors/ is said to count 'blocks'; it counts failed verifications"
	elif echo "$text" | grep -q 'failed checksum verifications'; then
		ok "$s/$(basename "$p"): csum_errors/ counts failed checksum verifications"
	else
		check_fail "$s/$(basename "$p"): csum_errors/ does not say it counts failed checksum verifications"
	fi

	# the tracepoint's recovered field comes with csum_retry
	first_field= first_retry=
	for p in $patches; do
		[ -z "$first_field" ] && added include/trace/events/ext4.h "$dir/$p" | grep -q '__field(bool, recovered)' &&
			first_field=$p
		[ -z "$first_retry" ] && grep -q '^+bool ext4_csum_retry(' "$dir/$p" && first_retry=$p
	done
	[ -n "$first_retry" ] && [ "$first_field" = "$first_retry" ] &&
		ok "$s: ext4_csum_error's recovered field comes with csum_retry ($first_retry)" ||
		check_fail "$s: the recovered field comes in '$first_field', csum_retry in '$first_retry'"

	# exports and their callers
	for p in $patches; do
		awk '/^diff --git / { f = substr($3, 3) } /^\+EXPORT_SYMBOL(_GPL)?\(/ { print f, $0 }' "$dir/$p"
	done > "$T/exports"
	while read -r file sym; do
		sym=$(echo "$sym" | sed 's/^+EXPORT_SYMBOL\(_GPL\)\{0,1\}(\(.*\));$/\2/')
		users=$(for p in $patches; do added_elsewhere "$file" "$dir/$p"; done | grep -c "\\b$sym(" || true)
		[ "$users" -gt 0 ] && ok "$s: $sym is exported and called outside $file" ||
			check_fail "$s: EXPORT_SYMBOL($sym) in $file, called nowhere else in the series"
	done < "$T/exports"
done
finish

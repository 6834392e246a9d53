#!/bin/sh
# SPDX-License-Identifier: MIT
# The series' counters as an interface, on patched and patched-6.12:
#  - /sys/fs/ext4/vda/csum_errors/ and csum_recovered/ name their files as
#    ext4's other sysfs files, with underscores (block_bitmap, not
#    block-bitmap), and hold only files that can count: no csum_recovered
#    file for the objects csum_retry never re-reads (superblock,
#    group_desc, mmp, orphan_block), no csum_errors file for what only
#    fails a mount (journal_dev, orphan_block), no journal_* file at all;
#  - the journal's counts are jbd2's, at the end of
#    /proc/fs/jbd2/vda-8/info ("checksum failures:", one "N TYPE" line per
#    journal block type), 0 on a clean journal;
#  - patched-6.12 mounts a journal whose first commit block fails its
#    checksum while its header's holds (an incomplete commit to 6.12) and
#    a later one verifies, and counts it there: "1 journal-commit", ext4's
#    sysfs none of it.
# Groups: quick csum journal.
. "$(dirname "$0")/lib.sh"
kt_require stock patched patched-6.12

errors="block_bitmap dir_leaf dx_node dx_root extent_index extent_leaf fast_commit group_desc inode inode_bitmap mmp superblock xattr_block"
recovered="block_bitmap dir_leaf dx_node dx_root extent_index extent_leaf inode inode_bitmap xattr_block"
jtypes="journal-sb journal-descriptor journal-commit journal-revoke journal-data"

# names NAME STEP: the files a `cat` of a directory listed, sorted
names() { sed -n "s/^out $2 \([^ ]*\) .*/\1/p" "$T/$1.out" | paste -sd' '; }
# jbd2 NAME STEP TYPE: the count of TYPE in a `cat` of a jbd2 info file
jbd2() { sed -n "s/^out $2 *\([0-9]*\) $3\$/\1/p" "$T/$1.out" | head -n 1; }

img=$T/base.img
kt_mkfs "$img"
kt_debugfs "$img" "jo -c" "jc"	# journal checksums v3, as a first mount sets
for v in patched patched-6.12; do
	kt_boot clean-$v $v "$img" --step "mount csum_retry" \
		--step "cat /sys/fs/ext4/vda/csum_errors" \
		--step "cat /sys/fs/ext4/vda/csum_recovered" \
		--step "cat /proc/fs/jbd2/vda-8/info" --step umount >/dev/null
	got=$(names clean-$v 2)
	[ "$got" = "$errors" ] && ok "$v: csum_errors/ holds $got" ||
		check_fail "$v: csum_errors/ holds '$got', expected '$errors'"
	got=$(names clean-$v 3)
	[ "$got" = "$recovered" ] && ok "$v: csum_recovered/ holds $got" ||
		check_fail "$v: csum_recovered/ holds '$got', expected '$recovered'"
	kt_has clean-$v "out 4 checksum failures:" && ok "$v: jbd2's info has its checksum failures" ||
		check_fail "$v: /proc/fs/jbd2/vda-8/info has no 'checksum failures:' line"
	for t in $jtypes; do
		[ "$(jbd2 clean-$v 4 $t)" = 0 ] || check_fail "$v: jbd2 info: $t is '$(jbd2 clean-$v 4 $t)', not 0"
	done
done

# A journal left dirty (two transactions, no umount), a bit of the first
# commit block flipped past its header (byte 3858, zero as written): its
# checksum fails, the checksum of the header alone holds, so 6.12 takes it
# for an incomplete commit and mounts, and patched-6.12 reports it as a
# later commit block verifies (scenarios/journal/commit-flip.scn).
base=$T/dirty-base.img
kt_mkfs "$base"
kt_debugfs "$base" "jo -c" "jc"
kt_boot dirty stock "$base" --step mount --step "write /f 100 sync" \
	--step "mkdir /dd" --step "fsync /dd" >/dev/null
cp "$T/dirty.img" "$base"
dumpe2fs -h "$base" 2>/dev/null | grep -q needs_recovery || fail "the journal was not left dirty"
commit=$(debugfs -R logdump "$base" 2>/dev/null | sed -n 's/.*(commit block) at block \([0-9]*\).*/\1/p' | head -n 1)
[ -n "$commit" ] || fail "logdump: no commit block"
p=$(kt_bmap "$base" "<8>" "$commit")
kt_flip "$base" $((p * 4096 + 3858))
kt_boot commit patched-6.12 "$base" --step "may mount" \
	--step "may cat /proc/fs/jbd2/vda-8/info" --step "may cat /sys/fs/ext4/vda/csum_errors" >/dev/null
if kt_has commit "step 1 may mount -> ok"; then
	kt_has commit "JBD2 csum-error (device vda): type=journal-commit ino=8 block=$p group=-" &&
		ok "patched-6.12: the commit block at $p is reported" ||
		check_fail "patched-6.12: no csum-error line for the commit block at $p"
	[ "$(jbd2 commit 2 journal-commit)" = 1 ] && ok "patched-6.12: jbd2's info counts it: 1 journal-commit" ||
		check_fail "patched-6.12: jbd2's info says journal-commit '$(jbd2 commit 2 journal-commit)', expected 1"
	grep -q '^out 3 journal' "$T/commit.out" && check_fail "patched-6.12: ext4's csum_errors/ has journal files"
else
	check_fail "patched-6.12: the mount over the first commit block failed: $(grep -F 'step 1 ' "$T/commit.out")"
fi
kt_done

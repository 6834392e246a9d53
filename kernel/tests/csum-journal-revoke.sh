#!/bin/sh
# SPDX-License-Identifier: MIT
# A revoke block of a journal that needs recovery (checksums v3). The guest
# makes /d/e with two files, syncs, removes them, syncs and crashes, so the
# last transaction starts with a revoke block. Then:
#  - a bit of the revoke block's checksum flipped: 6.1 checks it in its
#    scan pass and, since the transaction's commit time is not older than
#    the one before, refuses recovery ("JBD2: Invalid checksum found in
#    transaction N", EIO) on both kernels; patched names the block
#    (type=journal-revoke). Not silent, on either kernel.
#  - a bit of its header's sequence flipped: jbd2 reads the header before
#    any checksum, takes the block for the end of the log, and recovers up
#    to the transaction before, with no message on either kernel: /d/e is
#    back. By design: a transaction whose commit block cannot be reached
#    is what a crash in the middle of a commit leaves, and recovery must
#    drop it without complaint; no checksum can tell the two apart.
# Groups: quick csum journal.
. "$(dirname "$0")/lib.sh"
kt_require stock patched

base=$T/base.img
# no inline_data: the directories get blocks, freeing them revokes
mkfs.ext4 -q -F -b 4096 -O metadata_csum "$base" 64M >/dev/null
kt_debugfs "$base" "jo -c" "jc"	# journal checksums v3
kt_boot crash stock "$base" --step mount --step "mkdir /d" --step "mkdir /d/e" \
	--step "write /d/e/a 100" --step "write /d/e/b 100" --step sync \
	--step "rm /d/e/a" --step "rm /d/e/b" --step "rm /d/e" --step sync \
	--step crash >/dev/null
cp "$T/crash.img" "$base"
log=$(debugfs -R logdump "$base" 2>/dev/null)
rev=$(echo "$log" | sed -n 's/.*(revoke table) at block \([0-9]*\).*/\1/p' | tail -n 1)
seq=$(echo "$log" | sed -n 's/.*sequence \([0-9]*\), type 5 (revoke table).*/\1/p' | tail -n 1)
[ -n "$rev" ] || fail "no revoke block in the journal: $log"
p=$(kt_bmap "$base" "<8>" "$rev")
echo "revoke block: journal block $rev (block $p), transaction $seq"

cp "$base" "$T/csum.img"; kt_flip "$T/csum.img" $((p * 4096 + 4095))	# its tail checksum
cp "$base" "$T/seq.img"; kt_flip "$T/seq.img" $((p * 4096 + 11))	# h_sequence, big-endian
line="JBD2 csum-error (device vda): type=journal-revoke ino=8 block=$p group=-"
for v in stock patched; do
	kt_boot good-$v $v "$base" --step "may mount" --step "may ls /d" >/dev/null
	kt_has good-$v "step 1 may mount -> ok" && ! kt_has good-$v "out 2 e" &&
		ok "$v: no flip: the journal replays, /d/e stays removed" ||
		check_fail "$v: no flip: the replay failed or /d/e is back"
	kt_boot csum-$v $v "$T/csum.img" --step "may mount" >/dev/null
	kt_has csum-$v "step 1 may mount -> err EIO" &&
	kt_has csum-$v "JBD2: Invalid checksum found in transaction $seq" &&
		ok "$v: bad revoke checksum: recovery refused, with jbd2's message" ||
		check_fail "$v: bad revoke checksum: expected EIO and 'Invalid checksum found in transaction $seq'"
	kt_boot seq-$v $v "$T/seq.img" --step "may mount" --step "may ls /d" >/dev/null
	kt_has seq-$v "step 1 may mount -> ok" && kt_has seq-$v "out 2 e" &&
		ok "$v: bad revoke sequence: the log ends before it, /d/e is back" ||
		check_fail "$v: bad revoke sequence: expected a mount with /d/e back"
	kt_has seq-$v "JBD2" && check_fail "$v: bad revoke sequence: a JBD2 message?"
done
kt_has csum-patched "$line" && ok "patched: $line" || check_fail "patched: no '$line'"
kt_has csum-stock "csum-error" && check_fail "stock: a csum-error line?"
kt_done

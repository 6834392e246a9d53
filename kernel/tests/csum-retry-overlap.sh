#!/bin/sh
# SPDX-License-Identifier: MIT
# Groups: csum.
# csum_retry (patch 0006) when two threads fail one block's checksum and one
# of them recovers it and changes it before the other's re-read lands: the
# late copy must neither be written over the newer block nor turn a
# verified block into an error. Three cases, each booted on patched, kasan,
# and patched-smp and patched-6.12 when built:
#
#   bitmap-nojournal, bitmap-journal: guest step `overlap rm /f fallocate
#   /n 500`. The unlink frees /f's blocks and reads the block bitmap of
#   group 0 (ext4_mb_clear_bb -> ext4_read_block_bitmap) for the first
#   time: the plugin flips a bit in that read, the checksum fails, and
#   csum_retry's re-read is held HOLD_MS. 500 ms later fallocate reads the
#   same cached bitmap to initialise the group's buddy
#   (ext4_mb_init_group), fails too, re-reads it (not held), recovers it
#   and allocates from it (ext4_mb_mark_diskspace_used: new bits and a new
#   checksum in the group descriptor). At 1000 ms a sync writes the bitmap
#   back (without a journal: the plugin holds that write WRITE_MS, so the
#   unlink's re-read, served at HOLD_MS, still finds the old bitmap on the
#   disk; with one, jbd2's commit waits for the unlink's handle and the
#   bitmap stays in the journal). The unlink's copy is the bitmap as it
#   was before the allocation: ext4_block_bitmap_csum_verify() compares it
#   with the descriptor's new checksum and refuses it; a retry that
#   then declares the failure reports the verified, correct bitmap as
#   corrupt (csum-error, "bad block bitmap checksum", remount-ro) and
#   leaks /f's blocks. The double allocation a stale bitmap copy threatens is not
#   reached this way: ext4_mb_mark_diskspace_used() sets the bits and the
#   descriptor's checksum in one ext4_lock_group() section, so a copy
#   that is not the cached bitmap fails that verification; it needed an
#   allocation between the retry's verification and its copy, and
#   ext4_csum_retry() compares and copies under the group lock. On 6.12
#   the two threads cannot overlap here: both read the bitmap first in
#   ext4_mb_init_group() (ext4_mb_clear_bb() loads the buddy first), under
#   the group's buddy cache page locks, so the fallocate waits for the
#   unlink's retry; the test checks that it did.
#
#   xattr-nojournal: /a and /b share one xattr block (h_refcount 2); guest
#   step `overlap getxattr /a setxattr /b 500`. /a's read of the block is
#   flipped and its re-read held HOLD_MS; /b's setxattr fails the same
#   cached block, recovers it with its own re-read, gives /b a block of its
#   own and drops the shared block's h_refcount to 1
#   (ext4_xattr_release_block: under lock_buffer(), dirtied after
#   unlock_buffer()); the sync writes it, held WRITE_MS. The getxattr's
#   re-read reads the disk while that write is held: h_refcount 2 with a
#   valid checksum (an xattr block's checksum is its own), then waits for
#   the buffer lock until the write ends, when the buffer is clean. A
#   retry that copies whenever the buffer is clean puts h_refcount 2 back
#   into the cache; `rm /a` then drops it to 1 and keeps the block, which
#   nothing refers to any more (e2fsck: block bitmap differences).
#
# Passes only if the second thread ended while the first one's re-read
# was held (6.12's bitmap cases: after it), every step succeeds (no
# read-only switch: a write after the overlap succeeds), no csum-error
# line is printed that is not "recovered" (the block was good on the
# disk), the image is consistent (e2fsck -fn clean: no block leaked or
# claimed twice), /keep holds its bytes (debugfs dump), the plugin's log
# shows the sync's write began during the held re-read (without a
# journal), and the kernel printed no WARNING, BUG, lockdep or KASAN
# report. OVERLAP_VARIANTS="NAME..." runs other kernels.
. "$(dirname "$0")/lib.sh"
kt_require patched
[ -f "$top/build/lib/nbdkit-flipbed-plugin.so" ] ||
	skip "flipbed nbdkit plugin not built (make build/lib/nbdkit-flipbed-plugin.so)"
kt_csum_variants "${OVERLAP_VARIANTS:-}" "this test"
if [ -z "${OVERLAP_VARIANTS:-}" ]; then
	for k in patched-smp patched-6.12; do
		[ -f "$B/kernel/$k/bzImage" ] && variants="$variants $k"
	done
fi
hold=2000 write_hold=3000 gap=500

# bitmap IMG JOURNAL: /f (256 KiB) to unlink, /keep to read back
mk_bitmap() {
	mkfs.ext4 -q -F -b 4096 -O metadata_csum,$2 "$1" 64M >/dev/null
	head -c 262144 /dev/zero | tr '\0' f > "$T/f"
	kt_debugfs "$1" "write $T/f f" "write $T/f keep"
	blk=$(debugfs -R "stats" "$1" 2>/dev/null | sed -n 's/.*block bitmap at \([0-9]*\).*/\1/p' | head -n 1)
	[ -n "$blk" ] || fail "no block bitmap found in $1"
	# bit 0 of byte 1024: block 8192 of the group, covered by the checksum
	flip_at=$((blk * 4096 + 1024))
}

# xattr IMG: /a and /b share one xattr block (e2fsck sets h_refcount 2)
mk_xattr() {
	mkfs.ext4 -q -F -b 4096 -I 128 -O metadata_csum,^has_journal "$1" 64M >/dev/null 2>&1
	python3 -c "open('$T/val', 'w').write('V' * 1000)"
	kt_debugfs "$1" "write /dev/null a" "write /dev/null b" "ea_set -f $T/val a user.big"
	blk=$(debugfs -R "stat /a" "$1" 2>/dev/null | sed -n 's/^File ACL: \([0-9]*\).*/\1/p')
	[ -n "$blk" ] && [ "$blk" != 0 ] || fail "/a has no xattr block"
	kt_debugfs "$1" "sif /b file_acl $blk"
	e2fsck -fy "$1" >/dev/null 2>&1
	debugfs -R "bd $blk" "$1" 2>/dev/null | grep -q '^0000  0000 02ea 0200 0000' ||
		fail "the xattr block $blk is not shared (h_refcount 2)"
	# bit 0 of the value's first byte, covered by the block's checksum
	flip_at=$((blk * 4096 + 4096 - 1000))
}

for case in bitmap-nojournal bitmap-journal xattr-nojournal; do
	img=$T/$case.img
	case $case in
	bitmap-nojournal)
		mk_bitmap "$img" ^has_journal
		what=block-bitmap op="overlap rm /f fallocate /n $gap" ;;
	bitmap-journal)
		mk_bitmap "$img" has_journal
		what=block-bitmap op="overlap rm /f fallocate /n $gap" ;;
	xattr-nojournal)
		mk_xattr "$img"
		what=xattr-block op="overlap getxattr /a setxattr /b $gap" ;;
	esac
	e2fsck -fn "$img" >/dev/null 2>&1 || fail "$case: the image is not clean before the run"
	rules="--rule 'on=read at=$flip_at len=1 flip=0 count=1 id=flip'"
	rules="$rules --rule 'on=read at=$((blk * 4096)) len=4096 stall=$hold after=1 count=1 id=reread-hold'"
	rules="$rules --rule 'on=write at=$((blk * 4096)) len=4096 stall=$write_hold count=1 id=write-hold'"
	case $case in
	bitmap-*) after="--step 'stat /keep' --step 'write /after 4096'" ;;
	xattr-*) after="--step 'getxattr /b big' --step 'rm /a' --step 'write /after 4096'" ;;
	esac
	for v in $variants; do
		n=$case-$v
		# no_prefetch_block_bitmaps: the lazyinit thread would read (and
		# fail) the bitmap at mount, before the overlap
		eval kt_boot $n $v "$img" $rules --timeout 300 --faultlog "$T/$n.faults" \
			--step "'mount csum_retry,no_prefetch_block_bitmaps'" \
			--step "'$op'" $after --step umount
		kt_has $n "step 2 $op -> ok" &&
			ok "$n: $op ($(grep '^out 2 ' "$T/$n.out" | cut -d' ' -f3- | paste -sd';'))" ||
			check_fail "$n: $(grep -F "step 2 overlap" "$T/$n.out" | tail -n 1) ($(grep '^out 2 ' "$T/$n.out" | cut -d' ' -f3- | paste -sd';'))"
		bad=$(grep "csum-error (device vda): type=$what " "$T/$n.out" | grep -v ' recovered$' | head -n 1)
		[ -z "$bad" ] && ok "$n: every $what csum-error line says recovered" ||
			check_fail "$n: a good $what reported as corrupt: $bad"
		kt_has $n "csum-error (device vda): type=$what ino=" &&
			kt_has $n "block=$blk group=0 recovered" ||
			check_fail "$n: no recovered $what line: the flip did not take place"
		errs=$(grep -E '^step [0-9]+ .* -> err' "$T/$n.out" | grep -v '^step 2 ' | paste -sd';')
		[ -z "$errs" ] && ok "$n: the steps after the overlap succeeded" ||
			check_fail "$n: $errs"
		kt_has $n "Remounting filesystem read-only" &&
			check_fail "$n: the filesystem went read-only"
		# end OPK: when the overlap's OP1 (K 1) or OP2 (K 2) ended, in ms
		end() { sed -n "s/^out 2 $1 [0-9]*\.\.\([0-9]*\) ms.*/\1/p" "$T/$n.out"; }
		# the second thread recovered the block and went on while the
		# first one's re-read was held (HOLD_MS from about the start): it
		# ended before half-way between its start (GAP_MS) and HOLD_MS; a
		# second thread that waited for the first one's retry ends after.
		# On 6.12 the bitmap is first read by ext4_mb_init_group(), for
		# the unlink too (ext4_mb_clear_bb() loads the buddy before the
		# bitmap), which holds the group's buddy cache pages
		# (ext4_mb_get_buddy_page_lock()) across the read and its retry:
		# fallocate's ext4_mb_init_group() waits for them and finds the
		# group initialised, so the bitmap overlap cannot happen there and
		# the check is that it did not
		closed=
		case $case,$(cat "$B/kernel/$v/source-version" 2>/dev/null) in
		bitmap-*,6.12.*) closed=yes ;;
		esac
		e2=$(end "$(echo "$op" | cut -d' ' -f4)2") mid=$(((gap + hold) / 2))
		if [ -z "$e2" ]; then
			check_fail "$n: no timings for the overlap"
		elif [ -n "$closed" ]; then
			[ "$e2" -ge $mid ] && [ "$(grep -c "type=$what " "$T/$n.out")" = 1 ] &&
				ok "$n: the second thread waited for the first's retry (ended at $e2 ms): no overlap on this kernel" ||
				check_fail "$n: the second thread ended at $e2 ms, before $mid ms: the buddy page lock did not serialise them"
		else
			[ "$e2" -lt $mid ] &&
				ok "$n: the second thread went on while the first's re-read was held (ended at $e2 ms)" ||
				check_fail "$n: the second thread ended at $e2 ms, not before $mid ms: no overlap"
		fi
		# from the plugin's log: without a journal, the sync's held write
		# began while the first re-read was held
		when=$(python3 -c "
import json, sys
ns = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get('action') == 'stall' and r['rule'] not in ns:
        ns[r['rule']] = r['ns']
held = ns.get('reread-hold')
wrote = ns.get('write-hold')
if held is None:
    print('none')
elif wrote is None or wrote - held > int(sys.argv[2]) * 1000000:
    print('nowrite', (wrote - held) // 1000000 if wrote else '-')
else:
    print('ok', (wrote - held) // 1000000)
" "$T/$n.faults" $hold 2>/dev/null || echo "nolog")
		case $closed,$case,$when in
		*,nolog) check_fail "$n: no readable fault log ($T/$n.faults)" ;;
		*,none) check_fail "$n: the re-read was not held: no overlap" ;;
		*-journal,*) ok "$n: the re-read was held (jbd2 writes the bitmap at the checkpoint)" ;;
		yes,*) ok "$n: the re-read was held" ;;
		*,ok*) ok "$n: the sync's write began ${when#ok } ms into the held re-read (of $hold ms)" ;;
		*) check_fail "$n: the sync's write did not begin inside the held re-read ($when ms)" ;;
		esac
		if out=$(e2fsck -fn "$T/$n.img" 2>&1); then
			ok "$n: e2fsck -fn clean"
		else
			check_fail "$n: e2fsck -fn: $(echo "$out" | grep -v '^Pass\|^e2fsck\|^Checking' | head -n 4 | paste -sd' ')"
		fi
		case $case in
		bitmap-*)
			debugfs -R "dump /keep $T/$n.keep" "$T/$n.img" >/dev/null 2>&1
			cmp -s "$T/f" "$T/$n.keep" && ok "$n: /keep holds its bytes on the disk" ||
				check_fail "$n: /keep lost its bytes on the disk (debugfs dump)" ;;
		esac
		kt_no_reports $n
		[ "$(cat "$T/$n.rc")" = 0 ] || check_fail "$n: flipbed boot exited $(cat "$T/$n.rc")"
	done
done
kt_done

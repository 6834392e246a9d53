#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0005 on the journal superblock: its checksum before the feature
# bits it covers. Bit 6 of the low byte of s_feature_incompat (an unknown
# feature, 0x40) is set at rest in a journal with checksums (v3), which
# also breaks the superblock's checksum:
#   patched, patched-6.12, stock  the checksum fails first (6.1's
#          journal_get_superblock() verifies it before jbd2_journal_load()
#          looks at unknown features; the 6.12 port reorders
#          journal_check_superblock() the same way): "journal checksum
#          error", and on the patched kernels the JBD2 csum-error line
#          (type=journal-sb) before any "Unrecognised features on journal"
#   stock-6.12  journal_check_superblock() refuses the unknown feature
#          first: "Unrecognised features on journal", no checksum message
# The mount is refused on every kernel.
# Groups: quick csum journal.
. "$(dirname "$0")/lib.sh"
kt_require stock patched stock-6.12 patched-6.12

img=$T/jsb.img
kt_mkfs "$img"
jblk=$(kt_bmap "$img" "<8>" 0)
[ -n "$jblk" ] || fail "no journal block"
# the journal's checksums (v3) are set up by the first mount otherwise
kt_debugfs "$img" "jo -c" "jc"
# s_feature_incompat: big-endian at offset 0x28 of the journal superblock
python3 -c "
import sys
f = open(sys.argv[1], 'r+b'); at = int(sys.argv[2]) * 4096 + 0x28
f.seek(at + 3); b = f.read(1); f.seek(at + 3); f.write(bytes([b[0] ^ 0x40]))
f.seek(at); v = int.from_bytes(f.read(4), 'big')
sys.exit(0 if v & 0x40 and v & 0x10 else 1)" "$img" "$jblk" ||
	fail "the flipped s_feature_incompat does not hold csum v3 and the unknown 0x40"

line="JBD2 csum-error (device vda): type=journal-sb ino=8 block=$jblk group=-"
for k in stock patched stock-6.12 patched-6.12; do
	kt_boot $k $k "$img" --step "may mount" >/dev/null
	kt_has $k "step 1 may mount -> err " && ok "$k: the mount is refused" ||
		check_fail "$k: the mount was not refused: $(grep -F 'step 1 ' "$T/$k.out")"
	unknown=$(grep -n -m 1 'Unrecognised features on journal' "$T/$k.out" | cut -d: -f1)
	case $k in
	stock-6.12)
		[ -n "$unknown" ] && ok "$k: 'Unrecognised features on journal'" ||
			check_fail "$k: no 'Unrecognised features on journal'"
		kt_has $k "journal checksum error" &&
			check_fail "$k: stock 6.12 verified the checksum of a superblock with an unknown feature"
		;;
	*)
		err=$(grep -n -m 1 'JBD2: journal checksum error' "$T/$k.out" | cut -d: -f1)
		[ -n "$err" ] && ok "$k: 'journal checksum error' (line $err)" ||
			check_fail "$k: no 'journal checksum error'"
		[ -n "$unknown" ] && [ -n "$err" ] && [ "$unknown" -lt "$err" ] &&
			check_fail "$k: 'Unrecognised features' (line $unknown) before the checksum failure"
		case $k in
		patched*)
			csum=$(grep -n -m 1 -F "$line" "$T/$k.out" | cut -d: -f1)
			[ -n "$csum" ] && ok "$k: '$line' (line $csum)" ||
				{ check_fail "$k: no '$line'"; grep -F csum-error "$T/$k.out"; }
			;;
		esac
		;;
	esac
done
kt_done

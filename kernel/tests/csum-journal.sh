#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0001 for jbd2's recovery: a journal left dirty by a guest that
# exits without unmounting is corrupted in a data, descriptor or commit
# block. Both kernels refuse the mount, with the errno measured on 6.1.192
# (EIO for a data or descriptor block, EUCLEAN for a commit block); patched
# names the journal block in a "JBD2 csum-error" line.
# Groups: quick csum journal.
. "$(dirname "$0")/lib.sh"
kt_require stock patched

base=$T/base.img
kt_mkfs "$base"
kt_debugfs "$base" "jo -c" "jc"	# journal checksums v3, as a first mount sets
# two transactions, then the guest reboots without umount: needs_recovery
kt_boot dirty stock "$base" --step mount --step "write /f 100 sync" \
	--step "mkdir /dd" --step "fsync /dd" >/dev/null
cp "$T/dirty.img" "$base"
dumpe2fs -h "$base" 2>/dev/null | grep -q needs_recovery ||
	fail "the journal was not left dirty"
log=$(debugfs -R logdump "$base" 2>/dev/null)
desc=$(echo "$log" | sed -n 's/.*(descriptor block) at block \([0-9]*\).*/\1/p' | tail -n 1)
commit=$(echo "$log" | sed -n 's/.*(commit block) at block \([0-9]*\).*/\1/p' | tail -n 1)
data=$(echo "$log" | sed -n 's/.*(descriptor block) at block \([0-9]*\).*/\1/p' | head -n 1)
data=$((data + 1))
[ -n "$desc" ] && [ -n "$commit" ] || fail "logdump: $log"
phys() { kt_bmap "$base" "<8>" "$1"; }

# offset 16: inside the first tag of a descriptor, h_chksum[0] of a commit
# block (where v3 keeps the checksum), data bytes of a data block
set -- "data journal-data $data EIO" "desc journal-descriptor $desc EIO" \
	"commit journal-commit $commit EUCLEAN"
for c in "$@"; do
	set -- $c
	p=$(phys $3)
	cp "$base" "$T/$1.img"; kt_flip "$T/$1.img" $((p * 4096 + 16))
	for v in stock patched; do
		kt_boot $1-$v $v "$T/$1.img" --step "may mount" >/dev/null
		kt_has $1-$v "step 1 may mount -> err $4 " ||
			check_fail "$v: $2: the mount was not refused with $4"
	done
	line="JBD2 csum-error (device vda): type=$2 ino=8 block=$p group=-"
	kt_has $1-patched "$line" && ok "patched: $line" ||
		{ check_fail "patched: no '$line'"; grep -F "JBD2" "$T/$1-patched.out"; }
	kt_has $1-stock "csum-error" && check_fail "stock: $2: a csum-error line?"
	for v in stock patched; do
		echo "$v: $2: $(grep -F 'step 1 ' "$T/$1-$v.out");" \
			"$(grep -o 'JBD2: [^\\]*' "$T/$1-$v.out" | head -n 1)"
	done
done
kt_done

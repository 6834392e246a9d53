#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch 0004: once an error has made the filesystem read-only, the EROFS
# that this read-only state itself causes is not a new error. /u is opened
# and unlinked, an inode checksum failure (__ext4_iget) makes
# errors=remount-ro act, then /u is closed: its last iput evicts it, and
# ext4_evict_inode() cannot start the handle that would free it
# (ext4_journal_check_start() returns EROFS) and passes that to
# ext4_std_error(). __ext4_std_error() ignores an EROFS outside a handle
# only on a read-only filesystem: the state 0004 sets instead of SB_RDONLY
# (EXT4_FLAGS_EMERGENCY_RO) must count as read-only there, or the close
# logs the EROFS ("Journal has aborted"), sends FAN_FS_ERROR(EROFS) and
# overwrites the superblock's last error with it. Asserted on patched and
# patched-6.12: the checksum failure is the only error line and the only
# fserror event, and dumpe2fs -h's "Last error" fields still name it.
# stock-6.12 is quiet too (its shutdown makes __ext4_std_error() return at
# once); stock 6.1.192 logs the close twice (ext4_journal_check_start's
# "Detected aborted journal", then the EROFS), asserted as the known noise
# it is.
# Groups: quick.
. "$(dirname "$0")/lib.sh"
kt_require stock patched stock-6.12 patched-6.12
require_tools dumpe2fs

img=$T/base.img
kt_mkfs "$img"
head -c 3 /dev/zero > "$T/small"
head -c 8192 /dev/zero > "$T/u"
kt_debugfs "$img" "mkdir d" "write $T/small d/small" "write $T/u u"
ino=$(kt_ino "$img" /d/small)
[ -n "$ino" ] || fail "image setup: no /d/small"
kt_debugfs "$img" "set_inode_field /d/small checksum 0"

steps="--step mount --step 'open /u' --step 'rm /u'
	--step 'expect EBADMSG stat /d/small' --step 'close /u'
	--step 'cat /proc/mounts' --step 'may umount'"
kernels="stock patched stock-6.12 patched-6.12"
for k in $kernels; do
	eval kt_boot $k $k "$img" $steps
done

# v KERNEL: KERNEL as part of a shell variable's name
v() { echo "$1" | tr -c 'a-z0-9\n' _; }
# dumpe2fs -h's value of FIELD ("First error function") on NAME's image
field() {
	dumpe2fs -h "$T/$1.img" 2>/dev/null | sed -n "s/^$2: *//p"
}

for k in $kernels; do
	[ "$(cat "$T/$k.rc")" = 0 ] ||
		check_fail "$k: a step was not met (EBADMSG on /d/small, the close)"
	kt_has $k "fserror EBADMSG $ino " ||
		check_fail "$k: no fserror EBADMSG for inode $ino"
	first="$(field $k 'First error function') $(field $k 'First error err')"
	last="$(field $k 'Last error function') $(field $k 'Last error err')"
	lines=$(kt_count $k "EXT4-fs error")
	events=$(grep -c '^fserror ' "$T/$k.out")
	echo "$k: first error '$first', last error '$last'; $lines 'EXT4-fs error' lines, $events fserror events"
	eval $(v $k)_first=\$first $(v $k)_last=\$last
	eval $(v $k)_lines=\$lines $(v $k)_events=\$events
done

# The first error is the checksum failure on every kernel: the iget of
# /d/small, called from ext4_lookup (ext4_iget passes its caller's name)
for k in $kernels; do
	eval first=\$$(v $k)_first
	[ "$first" = "ext4_lookup EFSBADCRC" ] ||
		check_fail "$k: first error '$first', want 'ext4_lookup EFSBADCRC'"
done

# The quiet kernels: the checksum failure is the only error, logged once
# and sent once (fserror EBADMSG, checked above)
for k in patched patched-6.12 stock-6.12; do
	eval first=\$$(v $k)_first last=\$$(v $k)_last
	eval lines=\$$(v $k)_lines events=\$$(v $k)_events
	if [ "$lines" = 1 ] && [ "$events" = 1 ]; then
		ok "$k: closing /u after the error logs no error and sends no fserror"
	else
		check_fail "$k: $lines 'EXT4-fs error' lines, $events fserror events (want 1 and 1, the checksum failure's): $(grep -F -e 'EXT4-fs error' -e 'fserror ' "$T/$k.out" | sed 1d | tr '\n' '|')"
	fi
	if [ "$last" = "$first" ]; then
		ok "$k: the last error is still the checksum failure ($last)"
	else
		check_fail "$k: the last error is '$last', the first '$first'"
	fi
done

# Stock 6.1: the known noise. ext4_handle_error() sets EXT4_MF_FS_ABORTED,
# not SB_RDONLY, so the evict's ext4_journal_check_start() finds the
# aborted journal (ext4_abort "Detected aborted journal", EIO) and
# __ext4_std_error() logs the EROFS it returns ("Journal has aborted", as
# ext4_decode_error() words EROFS when the journal has aborted).
if [ "$stock_lines" = 3 ] && grep -q "ext4_journal_check_start:[0-9]*: .*Detected aborted journal" "$T/stock.out" &&
	grep -q "EXT4-fs error (device vda) in ext4_evict_inode:[0-9]*: Journal has aborted" "$T/stock.out" &&
	kt_has stock "fserror EROFS - 1" && [ "$stock_last" = "ext4_evict_inode EROFS" ]; then
	ok "stock: known noise: closing /u logs 'Detected aborted journal' and the EROFS, the last error is '$stock_last'"
else
	check_fail "stock no longer logs the close after the error (last error '$stock_last'): update this test"
fi
kt_done

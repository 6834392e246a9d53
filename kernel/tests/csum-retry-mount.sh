#!/bin/sh
# SPDX-License-Identifier: MIT
# Groups: quick csum.
# Patch 0006: csum_retry on a filesystem without metadata_csum is refused,
# as ext4 refuses journal_checksum without a journal (__ext4_fill_super:
# "can't mount with journal_checksum, fs mounted w/o journal"): such a
# filesystem verifies no metadata checksum, so there is nothing to retry
# and the option would be a silent no-op. The mount fails with EINVAL and
# the kernel names the option and the missing feature; the same image
# mounts without the option, and a metadata_csum image mounts with it.
# Runs on patched and patched-6.12 (when built).
. "$(dirname "$0")/lib.sh"
kt_require patched
variants=patched
[ -f "$B/kernel/patched-6.12/vmlinux" ] && variants="$variants patched-6.12"

mkfs.ext4 -q -F -b 4096 -O ^metadata_csum "$T/nocsum.img" 64M >/dev/null
kt_mkfs "$T/csum.img" >/dev/null
msg="can't mount with csum_retry, fs has no metadata_csum"

for v in $variants; do
	kt_boot nocsum-$v $v "$T/nocsum.img" --step "expect EINVAL mount csum_retry" \
		--step "mount" --step "umount" >/dev/null
	kt_has nocsum-$v "step 1 expect EINVAL mount csum_retry -> err EINVAL" &&
		ok "nocsum-$v: mount -o csum_retry fails with EINVAL" ||
		check_fail "nocsum-$v: $(grep -F 'step 1 ' "$T/nocsum-$v.out" | tail -n 1)"
	kt_has nocsum-$v "$msg" && ok "nocsum-$v: the kernel says: $msg" ||
		check_fail "nocsum-$v: no '$msg' in the kernel log"
	kt_has nocsum-$v "step 2 mount -> ok" && ok "nocsum-$v: mounts without the option" ||
		check_fail "nocsum-$v: $(grep -F 'step 2 ' "$T/nocsum-$v.out" | tail -n 1)"
	kt_boot csum-$v $v "$T/csum.img" --step "mount csum_retry" --step "umount" >/dev/null
	kt_has csum-$v "step 1 mount csum_retry -> ok" && ok "csum-$v: metadata_csum mounts with csum_retry" ||
		check_fail "csum-$v: $(grep -F 'step 1 ' "$T/csum-$v.out" | tail -n 1)"
	kt_no_reports nocsum-$v
done
kt_done

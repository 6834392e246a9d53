#!/bin/sh
# SPDX-License-Identifier: MIT
# Host tools run on a guest-made image within a bound of memory as well as
# of time (fb_oracle_mib(), fb_oracle_seconds()). The image: a superblock
# whose block count is 2^42 blocks more than the device holds, checksum
# valid (debugfs reseals it), as a campaign's 3-bit superblock flip left
# it. Unbounded, e2fsck allocated 8 GiB for it and spent 40 s per run (of
# three) before printing that the superblock is corrupt; within the bound
# it prints the same at once. The test runs the case with a 15 s limit per
# oracle phase: an unbounded e2fsck runs past it and the case is infra (on
# a host with less than 8 GiB free the allocation fails early and the test
# cannot tell). It then checks that the bound holds e2fsck and nothing
# else: FLIPBED_ORACLE_MIB=64 still checks a healthy image clean.
# Groups: quick.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_flipbed
require_kernel stock
require_tools mkfs.ext4 debugfs e2fsck jq od
cd "$T" || fail "cannot cd to $T"
mkfs.ext4 -q -F -b 4096 -O metadata_csum healthy.img 16M > /dev/null 2>&1 || fail "mkfs.ext4"
cp healthy.img huge.img &&
	debugfs -w -R "ssv blocks_count $((4096 + (1 << 42)))" huge.img > /dev/null 2>&1 ||
	fail "debugfs ssv blocks_count"
# s_blocks_count_lo and _hi (no e2fsprogs tool opens the image to say)
lo=$(od -An -tu4 -j $((1024 + 0x4)) -N 4 huge.img | tr -d ' ')
hi=$(od -An -tu4 -j $((1024 + 0x150)) -N 4 huge.img | tr -d ' ')
[ "$lo" = 4096 ] && [ "$hi" = 1024 ] ||
	fail "huge.img's block count is not 2^42 + 4096 (lo $lo, hi $hi)"

case_of() {	# IMAGE EXPECTED-FSCK [VAR=VALUE]
	_img=$1 _want=$2
	shift 2
	env FLIPBED_ORACLE_SECONDS=15 "$@" "$FLIPBED" image "$_img.img" --kernel stock \
		--workload 'sleep 0' --expect "fsck=$_want" --out "$T/$_img" > "$T/$_img.log" 2>&1
	_rc=$?
	_got=$(jq -r '.outcome.fsck // .verdict' "$T/$_img/cases.jsonl" 2>/dev/null)
	_secs=$(jq -r '.durations.fsck' "$T/$_img/cases.jsonl" 2>/dev/null)
	[ $_rc -eq 0 ] && [ "$_got" = "$_want" ] &&
		ok "$_img${*:+ $*}: fsck $_got in $_secs s" ||
		check_fail "$_img${*:+ $*}: fsck '$_got', expected $_want in $_secs s (flipbed image exit $_rc: $(tail -n 2 "$T/$_img.log"))"
}
case_of huge unrepaired
f=$(ls "$T"/huge/cases/*/fsck.txt 2>/dev/null | head -n 1)
[ "$(grep -c 'superblock is corrupt while trying to open' "$f" 2>/dev/null)" -ge 3 ] &&
	! grep -q '^# killed' "$f" &&
	ok "each e2fsck run said the superblock is corrupt; none was killed" ||
	check_fail "fsck.txt of huge.img: $(grep '^\(#\|e2fsck:\)' "$f" 2>/dev/null | head -n 8 | tr '\n' ';')"
case_of healthy clean FLIPBED_ORACLE_MIB=64
no_leftovers
finish

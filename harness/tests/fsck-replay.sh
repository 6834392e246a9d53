#!/bin/sh
# SPDX-License-Identifier: MIT
# The e2fsck oracle judges a filesystem the kernel left with its journal
# to replay as the next mount sees it: replayed. The image is made here
# with debugfs: a file /x written in a copy, every block that changed put
# in the journal as one committed transaction, and of those only the root
# directory's block written in place (the other blocks' writeback had not
# run). Before the replay e2fsck -fn finds damage ('x' names an unused
# inode); after it, none. The case runs on a kernel that never mounts the
# disk (workload 'sleep 0'), so fsck must be clean. The control, the same
# directory block in place with nothing in the journal, is damage the
# replay cannot hide: fsck must be repaired. Groups: quick.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_flipbed
require_kernel stock
require_tools mkfs.ext4 debugfs e2fsck cmp dd
cd "$T" || fail "cannot cd to $T"
mkfs.ext4 -q -F -b 4096 -O metadata_csum before.img 16M > /dev/null 2>&1 || fail "mkfs.ext4"
cp before.img after.img && echo hello > x.txt &&
	debugfs -w -R "write x.txt x" after.img > /dev/null 2>&1 || fail "debugfs write"
root=$(debugfs -R "bmap / 0" after.img 2>/dev/null)
[ -n "$root" ] || fail "no block for / in after.img"
# the blocks /x changed, the superblock left out (debugfs writes its own)
changed=$(cmp -l before.img after.img | awk '{ b = int(($1 - 1) / 4096); if (b) print b }' | uniq)
echo "$changed" | grep -qx "$root" || fail "the root directory's block $root did not change"
cp before.img pending.img && cp before.img control.img || fail "cp"
{
	echo jo
	for b in $changed; do
		dd if=after.img of=blk.$b bs=4096 skip=$b count=1 2>/dev/null || fail "dd $b"
		echo "jw -b $b blk.$b"
	done
	echo jc
} > journal.cmds
debugfs -w -f journal.cmds pending.img > journal.out 2>&1 || fail "debugfs journal commands"
dumpe2fs -h pending.img 2>/dev/null | grep -q needs_recovery ||
	fail "pending.img does not need recovery: $(cat journal.out)"
for img in pending control; do
	dd if=after.img of=$img.img bs=4096 skip="$root" seek="$root" count=1 conv=notrunc 2>/dev/null ||
		fail "dd into $img.img"
done
cp pending.img probe.img
e2fsck -fn probe.img > probe.out 2>&1 && fail "e2fsck -fn finds no damage before the replay: the image does not test the replay"
ok "before the replay, e2fsck -fn exits $? on pending.img"

case_of() {	# IMAGE EXPECTED-FSCK
	"$FLIPBED" image "$1.img" --kernel stock --workload 'sleep 0' --expect "fsck=$2" \
		--out "$T/$1" > "$T/$1.log" 2>&1
	_rc=$?
	_got=$(sed -n 's/.*"outcome":{[^}]*"fsck":"\([a-z-]*\)".*/\1/p' "$T/$1/cases.jsonl")
	_codes=$(grep -o '"fsck_exit":{[^}]*}' "$T/$1/cases.jsonl")
	[ $_rc -eq 0 ] && [ "$_got" = "$2" ] && ok "$1: fsck $_got ($_codes)" ||
		check_fail "$1: fsck '$_got', expected $2 ($_codes; flipbed image exit $_rc)"
}
case_of pending clean
case_of control repaired
grep -q '^\$ e2fsck -y -E journal_only IMAGE$' "$T/pending/cases/"*/fsck.txt &&
	! grep -q 'journal_only' "$T/control/cases/"*/fsck.txt &&
	ok "the replay ran on the image with a journal to replay, and only there" ||
	check_fail "fsck.txt: the replay ran where it should not, or not where it should"
no_leftovers
finish

# SPDX-License-Identifier: MIT
# Shared by the corruptor tests (sourced), on top of tests/lib.sh (fail,
# skip, require_*): the CLI, a scratch directory that is removed on exit,
# and the fixture recipes. Fixtures are made here with mke2fs -d and
# debugfs; no image is committed.
set -u
# mke2fs, debugfs and e2fsck fsync what they write: on this project's VM
# disk the feature tests took 128 s in /tmp and 4.7 s in tmpfs. A TMPDIR
# given to the test wins; else tmpfs when there is one.
scratch=${TMPDIR:-}
. "$(dirname "$0")/../../tests/lib.sh"
F=${FLIPBED_CORRUPT:-$B/bin/flipbed-corrupt}
require_built "$F" build/bin/flipbed-corrupt
require_tools mkfs.ext4 debugfs e2fsck dumpe2fs perl
[ -z "$scratch" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && scratch=/dev/shm
W=$(mktemp -d "${scratch:-$T}/flipbed-corruptor.XXXXXX") || exit 1
trap 'rm -rf "$W" "$T"' EXIT
export E2FSPROGS_FAKE_TIME=1700000000 MKE2FS_CONFIG=/etc/mke2fs.conf

say() { echo "== $*"; }

# A source tree: a directory of N entries, small (inline) files, a small
# directory, a file with 1,500 one-block extents separated by holes (mke2fs
# -d leaves all-zero blocks as holes: a depth-2 extent tree), plain data.
make_tree() { # DIR BLOCKSIZE N
	mkdir -p "$1/big" "$1/idir" "$1/sub/deeper"
	(cd "$1/big" && i=0 && while [ $i -lt $3 ]; do
		: > "long-entry-name-$i"; i=$((i + 1)); done)
	echo tiny > "$1/small"
	echo x > "$1/idir/a"
	perl -e "print((\"x\" x $2) . (\"\\0\" x $2)) for 1..1500" > "$1/deep"
	head -c 20000 /dev/urandom > "$1/plain"
	head -c 9000 /dev/urandom > "$1/sub/deeper/file"
}

# mkfix IMG SIZE N MKFS-ARGS...: make IMG from a tree with an N-entry
# directory, index its directories (mke2fs -d writes linear ones; its
# insertion is quadratic, so only the dx-node fixture has 5,000 entries),
# add an xattr block to /plain.
mkfix() {
	img=$1 size=$2 n=$3; shift 3
	bs=4096
	case " $* " in *" -b 1024 "*) bs=1024 ;; esac
	[ -d "$W/tree$bs-$n" ] || make_tree "$W/tree$bs-$n" $bs $n
	mkfs.ext4 -q -F "$@" -d "$W/tree$bs-$n" "$img" "$size" ||
		fail "mkfs.ext4 $* failed"
	e2fsck -fyD "$img" >/dev/null 2>&1
	[ $? -le 1 ] || fail "e2fsck -fyD $img failed"
	head -c 1500 /dev/zero | tr '\0' v > "$W/val"
	debugfs -w -R "ea_set -f $W/val /plain user.big" "$img" 2>/dev/null
}

# A committed, not checkpointed transaction: descriptor + 2 data blocks,
# commit, then a revoke block and its commit (debugfs journal_write).
add_transaction() { # IMG
	blocks=$(dumpe2fs -h "$1" 2>/dev/null | awk '/^Block count:/ {print $3}')
	head -c 8192 /dev/urandom > "$W/jdata"
	b=$((blocks - 4))
	debugfs -w -f - "$1" >/dev/null 2>&1 <<-EOT
	jo -c
	jw -b $b,$((b + 1)) $W/jdata
	jw -r $((b + 2))
	jc
	EOT
	debugfs -R logdump "$1" 2>/dev/null | grep -q 'revoke table' ||
		fail "debugfs did not write a journal transaction"
}

# The fixture checks itself first (like fstests' populate_check).
expect_types() { # IMG TYPE...
	img=$1; shift
	for t in "$@"; do
		$F locate "$img" --target $t >/dev/null ||
			fail "fixture $img has no $t"
	done
}

# flip one covered bit of TYPE: verify names exactly that object, fsck
# sees it, and the same flip resealed verifies clean.
check_type() { # IMG TYPE [SELECTOR...]
	img=$1 t=$2; shift 2
	cp --sparse=always "$img" "$W/x"
	region=covered
	[ $t = data ] && region=any
	out=$($F flip "$W/x" --target $t "$@" --region $region --seed 7) ||
		fail "flip $t: $out"
	tline=$(echo "$out" | sed -n 's/^target: //p')
	toff=$(echo "$tline" | sed 's/.* offset=\(0x[0-9a-f]*\).*/\1/')
	tino=$(echo "$tline" | sed -n 's/.* ino=\([0-9]*\).*/\1/p')
	v=$($F verify "$W/x" 2>/dev/null); vrc=$?
	if [ $t = data ]; then
		[ $vrc = 0 ] || fail "data flip made verify fail: $v"
		e2fsck -fn "$W/x" >/dev/null 2>&1 || fail "data flip: e2fsck -fn failed"
		echo "ok $t: uncovered, verify and e2fsck clean"
		return
	fi
	[ $vrc = 1 ] || fail "$t: verify exit $vrc after a covered flip"
	[ $(echo "$v" | wc -l) = 1 ] || fail "$t: verify named more than one object: $v"
	case $t in
	inode-extra|inline-data)
		echo "$v" | grep -q "^FAIL inode .* ino=$tino " ||
			fail "$t: verify did not name inode $tino: $v" ;;
	*)
		echo "$v" | grep -q "^FAIL $t .* offset=$toff " ||
			fail "$t: verify named another object: $v (wanted $tline)" ;;
	esac
	case $t in
	journal-descriptor|journal-commit|journal-revoke|journal-data)
		# e2fsck -n never replays the log: let -y replay a copy.
		e2fsck -fy "$W/x" 2>&1 | grep -Eq 'Journal checksum error|was corrupt' ||
			fail "$t: e2fsck -fy replayed the log without complaint" ;;
	superblock-backup)
		# e2fsck reads backups only when told to.
		pb=$(echo "$tline" | sed 's/.* pblk=\([0-9]*\).*/\1/')
		bs=$(dumpe2fs -h "$img" 2>/dev/null | awk '/^Block size:/ {print $3}')
		e2fsck -fn -b $pb -B $bs "$W/x" >/dev/null 2>&1 &&
			fail "$t: e2fsck -fn -b $pb accepted the flipped backup" ;;
	*)
		e2fsck -fn "$W/x" >/dev/null 2>&1 &&
			fail "$t: e2fsck -fn found nothing" ;;
	esac
	cp --sparse=always "$img" "$W/x"
	$F flip "$W/x" --target $t "$@" --region covered --seed 7 --reseal >/dev/null ||
		fail "flip --reseal $t failed"
	v=$($F verify "$W/x" 2>&1) || fail "$t: verify fails after --reseal: $v"
	echo "ok $t: $tline"
}

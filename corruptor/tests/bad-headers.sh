#!/bin/sh
# SPDX-License-Identifier: MIT
# Header fields that locate a checksum (an extent block's eh_max, a
# directory's rec_len chain, an htree's limit, count and info_length) set to
# values that put it outside the block: verify, pick --reseal and
# flip --reseal must neither crash nor read outside their buffers
# (valgrind), and verify must name the object as FAIL and exit 1.
# Also a journal inode whose i_size no journal can have.
# Groups: quick csum htree.
. "$(dirname "$0")/lib.sh"
require_tools valgrind

I=$W/h.img	# 4 KiB blocks, csum: an extent leaf, a 300-entry htree
mkdir -p "$W/tree/big"
perl -e 'print(("x" x 4096) . ("\0" x 4096)) for 1..10' > "$W/tree/frag"
(cd "$W/tree/big" && i=0 && while [ $i -lt 300 ]; do
	: > "long-entry-name-$i"; i=$((i + 1)); done)
mkfs.ext4 -q -F -b 4096 -O metadata_csum -d "$W/tree" "$I" 16M ||
	fail "mkfs.ext4 failed"
e2fsck -fyD "$I" >/dev/null 2>&1
[ $? -le 1 ] || fail "e2fsck -fyD $I failed"
expect_types $I extent-leaf dir-leaf dx-root

# Under valgrind, an invalid read or write exits 99.
vg="valgrind -q --error-exitcode=99"

offset_of() { # IMG TYPE [SELECTOR...]
	img=$1; shift
	$F locate "$img" --target "$@" --index 0 |
		sed 's/.* offset=\(0x[0-9a-f]*\).*/\1/'
}

# poke IMG OFFSET BYTES: BYTES in printf's octal \NNN notation
poke() {
	printf "$3" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}

# bad CASE TYPE OFFSET: verify names that object as FAIL and exits 1.
bad() {
	$F verify "$W/x" > "$W/out" 2> "$W/err"; rc=$?
	[ $rc -lt 128 ] || fail "$1: verify killed by signal $((rc - 128))"
	[ $rc = 1 ] || fail "$1: verify exit $rc, wanted 1: $(cat "$W/out" "$W/err")"
	grep -q "^FAIL $2 .* offset=$3 " "$W/out" ||
		fail "$1: verify did not name $2 at $3: $(cat "$W/out" "$W/err")"
	$vg $F verify "$W/x" >/dev/null 2> "$W/vg"
	[ $? = 99 ] && fail "$1: valgrind: $(head -5 "$W/vg")"
	echo "ok $1: $(cat "$W/out")"
	grep -v '^verify: [0-9]* checksums' "$W/err" | sed 's/^/   /'
}

# noreseal CASE CMD: pick/flip --reseal exits 2 with one line, no crash.
noreseal() {
	case=$1; shift
	"$@" > "$W/out" 2> "$W/err"; rc=$?
	[ $rc -lt 128 ] || fail "$case: '$*' killed by signal $((rc - 128))"
	[ $rc = 2 ] || fail "$case: '$*' exit $rc, wanted 2: $(cat "$W/err")"
	[ $(wc -l < "$W/err") = 1 ] || fail "$case: not one line: $(cat "$W/err")"
	echo "ok $case: $(echo "$*" | sed "s|$W/||g") -> $(cat "$W/err")"
}

say "extent-leaf with eh_max 0xffff"
cp "$I" "$W/x"
off=$(offset_of "$W/x" extent-leaf)
poke "$W/x" $((off + 4)) '\377\377'
bad eh_max extent-leaf $off
grep -q 'eh_max 65535' "$W/err" || fail "eh_max: the reason does not name eh_max 65535: $(cat "$W/err")"
noreseal eh_max $F pick "$W/x" --target extent-leaf --reseal --seed 3
noreseal eh_max $F flip "$W/x" --target extent-leaf --reseal --seed 3

say "dir-leaf whose first rec_len runs 64 KiB past the block"
cp "$I" "$W/x"
off=$(offset_of "$W/x" dir-leaf --path /big)
poke "$W/x" $((off + 4)) '\374\377'
bad rec_len dir-leaf $off
grep -q 'rec_len 65532 of the entry at byte 0 runs past' "$W/err" ||
	fail "rec_len: the reason does not name rec_len 65532: $(cat "$W/err")"
noreseal rec_len $F flip "$W/x" --target dir-leaf --path /big --index 0 --reseal

say "dx-root with limit 0xffff"
cp "$I" "$W/x"
off=$(offset_of "$W/x" dx-root)
poke "$W/x" $((off + 32)) '\377\377'
bad limit dx-root $off
grep -q 'limit 65535 puts dt_checksum' "$W/err" ||
	fail "limit: the reason does not name limit 65535: $(cat "$W/err")"
noreseal limit $F pick "$W/x" --target dx-root --reseal

# libext2fs (and the kernel) checksum count entries even past limit: the
# checksum is found, and it no longer matches.
say "dx-root with count = limit + 1"
cp "$I" "$W/x"
off=$(offset_of "$W/x" dx-root)
limit=$(od -A n -t u2 -j $((off + 32)) -N 2 "$W/x" | tr -d ' ')
n=$((limit + 1))
poke "$W/x" $((off + 34)) "$(printf '\\%03o\\%03o' $((n % 256)) $((n / 256)))"
bad count dx-root $off

say "dx-root with info_length 16"
cp "$I" "$W/x"
off=$(offset_of "$W/x" dx-root)
poke "$W/x" $((off + 29)) '\020'
bad info_length dx-root $off
grep -q 'info_length 16 ' "$W/err" ||
	fail "info_length: the reason does not name info_length 16: $(cat "$W/err")"
# Found by the fuzzer: the journal's block table was sized from i_size,
# and 0xffffffff blocks wrapped the allocation to nothing.
say "journal inode whose i_size claims 0xffffffff blocks"
cp "$I" "$W/x"
debugfs -w -R "sif <8> size $((0xffffffff * 4096))" "$W/x" 2>/dev/null
for cmd in map verify; do
	$F $cmd "$W/x" > "$W/out" 2> "$W/err"; rc=$?
	[ $rc -lt 128 ] || fail "i_size: $cmd killed by signal $((rc - 128))"
	[ $rc -le 1 ] || fail "i_size: $cmd exit $rc: $(cat "$W/err")"
	$vg $F $cmd "$W/x" >/dev/null 2> "$W/vg"
	[ $? = 99 ] && fail "i_size: $cmd: valgrind: $(head -5 "$W/vg")"
	echo "ok i_size: $cmd exit $rc"
done
echo "all bad headers reported, nothing crashed"

#!/bin/sh
# SPDX-License-Identifier: MIT
# `flipbed report --iron` on hand-made records (report/iron/cases.jsonl:
# every fault class, every detect and reaction name the loader accepts, a
# next-mount detection, a record without steps, infra and skipped cases)
# against the golden report/iron/expected.md, so a change of the mapping
# from flipbed's outcomes to IRON's levels fails here; --out writes the
# same text; a run without device faults, a missing directory and --out
# without --iron are refused with one line and exit 2, leaving no file;
# the section beside Dan Luu's ext3/ext4 results shows the run's own data
# cells and the paragraph on the bitmap errno is there.
#
# FLIPBED_REGOLD=1 rewrites expected.md from this run (review the diff).
# Groups: quick.
set -u
. "$(dirname "$0")/../../tests/lib.sh"
cd "$top" || exit 1
here=harness/tests/report/iron
cli=${FLIPBED_REPORT_CLI:-build/tests/bin/report-cli}
require_built "$cli" "$cli"

# run WANT OUT CMD...: CMD's stdout to OUT, its stderr to OUT.err, its exit status checked.
run() {
	want=$1 out=$2
	shift 2
	"$@" > "$out" 2> "$out.err"
	rc=$?
	[ "$rc" = "$want" ] || check_fail "exit $rc, expected $want: $* ($(cat "$out.err"))"
}

cp -r "$here" "$T/iron"
run 0 "$T/iron.md" "$cli" report --iron "$T/iron"
sed "s|$T|TMP|g" "$T/iron.md" > "$T/iron.norm"
if [ "${FLIPBED_REGOLD:-0}" = 1 ]; then
	cp "$T/iron.norm" "$here/expected.md"
fi
if diff -u "$here/expected.md" "$T/iron.norm"; then
	ok "the IRON table matches $here/expected.md"
else
	check_fail "the IRON table differs from $here/expected.md"
fi

# The published comparison beside the run's own cells: the citation,
# and per kernel the data row's cell of the read and write failure tables
# as they are (Luu injected errors in one file's data blocks), "—" where
# the run has no such case.
sed -n '/^## Beside ext3 and ext4/,/^## The mapping/p' "$T/iron.md" > "$T/luu.md"
grep -qF 'Dan Luu, "Filesystem error handling", 2017, <https://danluu.com/filesystem-errors/>' "$T/luu.md" ||
	check_fail "no comparison section citing Dan Luu's reproduction (2017)"
# field CLASS-OR-ROW N FILE: the Nth "|"-separated field of the row whose
# first cell is CLASS-OR-ROW, trimmed; within a class table: "## CLASS".
field() {
	awk -F'|' -v row="$1" -v n="$2" '{ r = $2; gsub(/^ +| +$/, "", r) }
		r == row { v = $n; gsub(/^ +| +$/, "", v); print v; exit }' "$3"
}
for cls in "read failure" "write failure"; do
	sed -n "/^## $cls\$/,/^## /p" "$T/iron.md" > "$T/cls.md"
	nk=$(awk -F'|' '/^[|] block type/ { print NF - 3; exit }' "$T/cls.md")
	[ "${nk:-0}" -gt 0 ] || check_fail "no kernel columns in the $cls table"
	j=1
	while [ "$j" -le "${nk:-0}" ]; do
		want=$(field data $((j + 2)) "$T/cls.md")
		[ -n "$want" ] || want="—"
		got=$(field "$cls" $((j + 5)) "$T/luu.md")
		[ "$got" = "$want" ] ||
			check_fail "comparison, $cls, kernel column $j: data cell '$got', the table says '$want'"
		j=$((j + 1))
	done
done
grep -q 'ext4_validate_block_bitmap.*ext4_error().*EFSCORRUPTED.*EUCLEAN.*0007' "$T/iron.md" ||
	check_fail "no paragraph on the stock kernel's FAN_FS_ERROR errno for a bitmap checksum failure"

run 0 "$T/out.stdout" "$cli" report --iron "$T/iron" --out "$T/out.md"
[ -s "$T/out.stdout" ] && check_fail "--out printed on stdout too"
sed "s| --out $T/out.md||" "$T/out.md" | cmp -s - "$T/iron.md" ||
	check_fail "--out wrote something other than the report (besides its regenerate line)"
grep -q "^Regenerate: \`build/bin/flipbed report --iron $T/iron --out $T/out.md\`$" "$T/out.md" ||
	check_fail "the regenerate line does not name --out"
ls "$T" | grep -q '\.tmp$' && check_fail "temporary file left by --out"

# Bad input: one line on stderr, exit 2, nothing written.
run 2 "$T/not-iron" "$cli" report --iron "$here/not-iron" --out "$T/refused.md"
grep -q "not-iron/cases.jsonl: no device-fault case with an outcome (4 cases, 0 infra or skipped); accepted: a run of the IRON matrix" \
	"$T/not-iron.err" || check_fail "run without device faults: $(cat "$T/not-iron.err")"
[ -e "$T/refused.md" ] && check_fail "a refused run wrote its --out file"
run 2 "$T/missing" "$cli" report --iron "$T/no-such-run"
grep -q "no-such-run/cases.jsonl: No such file or directory; accepted: a run directory" \
	"$T/missing.err" || check_fail "missing directory: $(cat "$T/missing.err")"
run 2 "$T/noiron" "$cli" report "$T/iron" --out "$T/x.md"
grep -q "usage: .*--iron RUN \[--out FILE\]" "$T/noiron.err" ||
	check_fail "--out without --iron: $(cat "$T/noiron.err")"
for f in "$T/not-iron.err" "$T/missing.err" "$T/noiron.err"; do
	[ "$(wc -l < "$f")" = 1 ] || check_fail "$f: not one line: $(cat "$f")"
done
finish

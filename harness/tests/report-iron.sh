#!/bin/sh
# SPDX-License-Identifier: MIT
# `flipbed report --iron` on hand-made records (report/iron/cases.jsonl:
# every fault class, every detect and reaction name the loader accepts, a
# next-mount detection, a record without steps, infra and skipped cases)
# against the golden report/iron/expected.md, so a change of the mapping
# from flipbed's outcomes to IRON's levels fails here; --out writes the
# same text; a run without device faults, a missing directory and --out
# without --iron are refused with one line and exit 2, leaving no file.
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

#!/bin/sh
# SPDX-License-Identifier: MIT
# The checks of make check-baselines on planted inputs, so that they
# cannot pass by checking nothing. tests/baselines/check-records.sh on
# tests/baselines/planted/*: one file per rule with one record breaking it
# (a record without `signals`, a fanotify errno class that disagrees with
# outcome.detect and no conflict, a conflict naming no kernel function, an
# acknowledged durable write lost while data says intact, an unexplained
# case that passed, a run.json of a -dirty build), each named by
# FILE:LINE and rule, and a clean file (an agreeing record, a conflict
# explained by ext4_validate_block_bitmap, an event-less record, a
# skipped case) that passes. tests/baselines/check-figures.sh on the
# planted tree tests/baselines/planted/tree: a right figure passes, a
# wrong one, a regenerated file that differs, an unmarked historical
# file and an undeclared file each fail with FILE:LINE, written and
# computed; without them the tree passes.
# Groups: quick baselines.
set -u
. "$(dirname "$0")/lib.sh"
require_tools jq awk cmp xz
cd "$top" || fail "cannot enter $top"
p=tests/baselines/planted
records=tests/baselines/check-records.sh
figures=tests/baselines/check-figures.sh

# expect_records FILE WANT-LINE: the check fails on FILE and prints WANT-LINE.
expect_records() {
	"$records" "$1" > "$T/out" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && grep -qF -- "$2" "$T/out"; then
		ok "$1: $2"
	else
		check_fail "$1: exit $rc, expected 1 and '$2': $(cat "$T/out")"
	fi
}

expect_records $p/no-signals.jsonl \
	"$p/no-signals.jsonl:1: planted/predates@stock: signals: record predates the two-signal classifier: regenerate"
expect_records $p/errno-mismatch.jsonl \
	"$p/errno-mismatch.jsonl:2: planted/errno-sanity@stock: fanotify-errno: fanotify saw 1 event(s): detect csum, errno class sanity"
expect_records $p/conflict-unnamed.jsonl \
	"$p/conflict-unnamed.jsonl:1: planted/conflict-without-function@stock: fanotify-errno:"
expect_records $p/conflict-unexplained.jsonl \
	"$p/conflict-unexplained.jsonl:1: planted/conflict-unexplained@stock: fanotify-errno:"
expect_records $p/acked-lost.jsonl \
	"$p/acked-lost.jsonl:1: planted/acked-lost@patched: acknowledged: data intact, but /b made durable (sync step 6) reads back lost"
expect_records $p/unexplained-pass.jsonl \
	"$p/unexplained-pass.jsonl:1: planted/unexplained@stock: unexplained: undetected unexplained, verdict pass"
# the same record compressed, as the verdict campaigns' are committed
xz -c $p/unexplained-pass.jsonl > "$T/unexplained-pass.jsonl.xz"
expect_records "$T/unexplained-pass.jsonl.xz" \
	"$T/unexplained-pass.jsonl.xz:1: planted/unexplained@stock: unexplained: undetected unexplained, verdict pass"
expect_records $p/dirty-run.json \
	"$p/dirty-run.json:1: (run): dirty-build: records made by flipbed 0cb276c-dirty"
# Each planted file breaks one rule once: no rule fires beside it.
for f in no-signals errno-mismatch conflict-unnamed conflict-unexplained acked-lost unexplained-pass; do
	"$records" $p/$f.jsonl > "$T/out" 2>&1
	grep -q "; 1 violations$" "$T/out" || check_fail "$f.jsonl: not exactly one violation: $(cat "$T/out")"
done
if "$records" $p/clean.jsonl $p/clean-run.json > "$T/out" 2>&1; then
	ok "the clean records pass"
else
	check_fail "clean records: $(cat "$T/out")"
fi
printf '{"case": "x",\n' > "$T/broken.jsonl"
"$records" "$T/broken.jsonl" > "$T/out" 2>&1
[ $? -eq 2 ] || check_fail "a file that is not JSON lines is not refused with exit 2: $(cat "$T/out")"

# The figures of the planted tree.
cp -r $p/tree "$T/tree"
"$figures" "$T/tree/results/baseline/figures.tsv" "$T/tree" > "$T/out" 2>&1
rc=$?
[ $rc -eq 1 ] || check_fail "planted tree: exit $rc, expected 1"
for want in \
	"results/baseline/wrong.md:4: written 'Cases: 9 in all, 5 passing.', computed 'Cases: 7 in all, 5 passing.'; command: printf '7\\t5\\n'" \
	"results/baseline/gen.md:2: written 'c', computed 'b'; command: printf 'a\\nb\\n'" \
	"results/baseline/hist.md:1: its figures come from records not committed" \
	"results/baseline/undeclared.md:1: no row in" \
	"ok: README.md: matrix quick   # 3 cases" \
	"ok: results/baseline/good.md: Cases: 7 in all, 5 passing." \
	"not recomputed: results/baseline/hist-marked.md: historical, records not committed" \
	"check-figures: 7 rows; 4 mismatches"; do
	if grep -qF -- "$want" "$T/out"; then
		ok "planted tree: $want"
	else
		check_fail "planted tree: no line '$want' in: $(cat "$T/out")"
	fi
done
rm "$T/tree/results/baseline/wrong.md" "$T/tree/results/baseline/gen.md" \
	"$T/tree/results/baseline/hist.md" "$T/tree/results/baseline/undeclared.md"
grep -v 'wrong.md\|gen.md\|hist.md' "$T/tree/results/baseline/figures.tsv" > "$T/clean.tsv"
if "$figures" "$T/clean.tsv" "$T/tree" > "$T/out" 2>&1; then
	ok "the planted tree without its wrong figures passes"
else
	check_fail "the planted tree without its wrong figures: $(cat "$T/out")"
fi
finish

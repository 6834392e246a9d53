#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-baselines: every figure of results/baseline/*.md and
# README.md recomputed from the committed records as
# results/baseline/figures.tsv says (tests/baselines/check-figures.sh),
# and every committed record of results/baseline/*/ checked against the
# record rules (tests/baselines/check-records.sh). A figure that differs,
# a file nobody declared, a historical figure not marked as such or a
# record that breaks a rule (or predates the fields the rules read)
# fails, each named by FILE:LINE. tests/baselines-selftest.sh proves
# both checks fire.
# Groups: baselines.
set -u
. "$(dirname "$0")/lib.sh"
require_tools jq awk cmp
require_built "$B/bin/flipbed" build/bin/flipbed
cd "$top" || fail "cannot enter $top"

if tests/baselines/check-figures.sh; then
	ok "every figure recomputed, or marked historical or measured"
else
	check_fail "figures differ from what the committed records give (above)"
fi
set -- results/baseline/*/cases.jsonl results/baseline/*/case.json results/baseline/*/run.json \
	results/baseline/*/*/cases.jsonl.xz results/baseline/*/*/run.json
files=
for f in "$@"; do [ -e "$f" ] && files="$files $f"; done
[ -n "$files" ] || fail "no committed records under results/baseline/"
# shellcheck disable=SC2086
if tests/baselines/check-records.sh $files; then
	ok "every committed record meets the record rules"
else
	check_fail "committed records break the record rules (above)"
fi
finish

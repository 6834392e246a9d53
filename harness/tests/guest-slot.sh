#!/bin/sh
# SPDX-License-Identifier: MIT
# A run overlaps the waits it can know of from the scenarios, with --jobs 1
# --batch 1: an MMP case, whose e2fsck runs each sleep out the MMP interval
# (about 11 s of checks), named between two cases that wait for nothing.
# The run starts the MMP case first (the cases whose checks wait go
# first), and its worker gives its guest slot back before the checks: the
# two other cases boot, run and are recorded while the MMP case is still
# being checked. Without the reordering the first named case would start
# first; without the slot, the last named would wait for the checks.
# The outcomes are the scenarios' expectations (exit 0). Groups: quick.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_flipbed
require_kernel stock
require_tools jq
cd "$top" || exit 1
start=$(date +%s.%N)
"$FLIPBED" run scenarios/inode/links-reseal.scn scenarios/mmp/magic-reseal.scn \
	scenarios/xattr/magic-reseal.scn --kernel stock --jobs 1 --batch 1 --out "$T/run" > "$T/out" 2>&1
rc=$?
wall=$(echo "$(date +%s.%N) - $start" | bc)
[ $rc -eq 0 ] || { tail -n 5 "$T/out"; fail "flipbed run exited $rc"; }
# each case's start and end, in seconds: "finished" less its total (one
# case per boot: its total is its wall time), and its checks' time
span() {
	jq -r --arg c "$1" 'select(.case == $c) |
		(.finished | sub("\\.[0-9]+Z$"; "Z") | fromdate) as $s |
		(.finished | capture("\\.(?<f>[0-9]+)Z$").f | ("0." + .) | tonumber) as $f |
		"\($s + $f - .durations.total) \($s + $f) \(.durations.fsck)"' "$T/run/cases.jsonl"
}
set -- $(span mmp/magic-reseal@stock) $(span inode/links-reseal@stock) $(span xattr/magic-reseal@stock)
[ $# -eq 9 ] || fail "the records of the three cases were expected in $T/run/cases.jsonl"
echo "mmp/magic-reseal: $1 to $2 (checks $3 s); inode/links-reseal: $4 to $5;" \
	"xattr/magic-reseal: $7 to $8; run $wall s"
[ "$(echo "$3 > 5" | bc)" -eq 1 ] || check_fail "the MMP case's checks took $3 s: no wait to overlap"
[ "$(echo "$1 < $4" | bc)" -eq 1 ] && echo "ok: the MMP case, named second, started first" ||
	check_fail "the MMP case started at $1, after the first named case ($4)"
[ "$(echo "$8 + 5 < $2" | bc)" -eq 1 ] &&
	echo "ok: the last named case was recorded while the MMP case was being checked" ||
	check_fail "the last named case ended at $8, the MMP case at $2: it waited for the checks"
no_leftovers
finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# Outcomes do not depend on batching: the ci matrix run one case per boot
# (--batch 1) and in batches (the default) must give every case the same
# (detect, reaction, fsck, data); flipbed diff names a case that differs.
# An infra case compares nothing: at most one per run is tolerated, and
# none infra in both. Each run must also exit as its records say: 0, or 3
# for its tolerated infra case, never 1 (a case that missed its
# expectation) or another status (bad input, an interruption).
# The batched run must really share boots (a case at place 2 or later of
# its boot), or the test would compare two solo runs. Both runs' rates
# are printed. It runs the two 6.1 kernels (stock, patched): the 6.12 pair
# would double its time, and batching is the harness's, the same on any
# kernel (matrix-ci.sh runs the 6.12 cases batched). Groups: ci.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_flipbed
require_kernel stock patched
jobs=$(nproc)
run() {
	_t=$(date +%s)
	"$FLIPBED" matrix ci --kernel stock,patched --jobs "$jobs" "$@" > "$T/$out.log" 2>&1
	echo $? > "$T/$out.rc"
	echo "flipbed matrix ci $*: exit $(cat "$T/$out.rc") in $(($(date +%s) - _t)) s;" \
		"$(grep -o '[0-9.]* cases/min' "$T/$out.log" | tail -n 1)"
}
# For each case the diff names, what each run's record says about it: the
# fsck statuses and problem lines, the outcome's detail, the boot it had.
why_changed() {
	sed -n 's/^\([^ ]*@[^ ]*\): .* -> .*/\1/p' "$T/diff" | sort -u | while read -r c; do
		for r in solo batched; do
			jq -c --arg c "$c" 'select(.case == $c)' "$T/$r/cases.jsonl" | head -n 1 > "$T/rec"
			echo "  $c, $r run: $(grep -o '"fsck_exit":{[^}]*}' "$T/rec")" \
				"$(grep -o '"fsck_problems":\[[^]]*\]' "$T/rec" | cut -c 1-300)" \
				"$(grep -o '"detail":"[^"]*"' "$T/rec" | head -n 1 | cut -c 1-200)" \
				"$(grep -o '"vm":{[^}]*}' "$T/rec")"
		done
	done
}
out=solo run --batch 1 --out "$T/solo"
out=batched run --out "$T/batched"
# An infra case has no outcome to compare: each is named. One in a run is
# tolerated (a transient fault armed at a wait point can find its block
# already read: "the fault never fired"); more, or a case infra in both
# runs, fails the test.
for r in solo batched; do
	[ -s "$T/$r/cases.jsonl" ] || fail "the $r run wrote no cases.jsonl (log: $(tail -n 3 "$T/$r.log"))"
	jq -r 'select(.verdict == "infra") | "\(.case) \(.outcome.infra // .infra)"' "$T/$r/cases.jsonl" > "$T/$r.infra"
	n=$(wc -l < "$T/$r.infra")
	[ "$n" -eq 0 ] || { sed 's/^/  infra in the '"$r"' run: /' "$T/$r.infra"; }
	[ "$n" -le 1 ] || check_fail "$n infra cases in the $r run"
	rc=$(cat "$T/$r.rc")
	jq -r 'select(.verdict == "fail") | .case' "$T/$r/cases.jsonl" > "$T/$r.fail"
	[ ! -s "$T/$r.fail" ] || check_fail "cases that missed their expectation in the $r run: $(tr '\n' ' ' < "$T/$r.fail")"
	case $rc in
	0) ;;
	3) [ "$n" -ge 1 ] || check_fail "the $r run exited 3 (infrastructure) with no infra case" ;;
	*) check_fail "the $r run exited $rc (log: $(tail -n 3 "$T/$r.log"))" ;;
	esac
done
cut -d' ' -f1 "$T/solo.infra" | sort > "$T/solo.names"
cut -d' ' -f1 "$T/batched.infra" | sort > "$T/batched.names"
both=$(comm -12 "$T/solo.names" "$T/batched.names")
[ -z "$both" ] || check_fail "infra in both runs: $both"
shared=$(grep -c '"vm":{"boot":[0-9]*,"cases":[0-9]*,"place":[2-9]' "$T/batched/cases.jsonl")
[ "$shared" -gt 0 ] && echo "ok: $shared cases of the batched run shared a boot with an earlier case" ||
	check_fail "no case of the batched run shared a boot: batching did not happen"
"$FLIPBED" diff "$T/solo" "$T/batched" > "$T/diff" 2>&1
tail -n 1 "$T/diff"
grep -q ', 0 changed; [0-9]* infra or skipped; 0 only in .*, 0 only in ' "$T/diff" &&
	echo "ok: every case has the same (detect, reaction, fsck, data) one per boot and batched" ||
	{ cat "$T/diff"; why_changed; check_fail "the batched run differs from the one-per-boot run (above)"; }
no_leftovers
finish

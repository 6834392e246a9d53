#!/bin/sh
# SPDX-License-Identifier: MIT
# Outcomes do not depend on batching: the ci matrix run one case per boot
# (--batch 1) and in batches (the default) must give every case the same
# (detect, reaction, fsck, data), with no infra case in either run (an
# infra case compares nothing); flipbed diff names a case that differs.
# The batched run must really share boots (a case at place 2 or later of
# its boot), or the test would compare two solo runs. Both runs' rates
# are printed. Groups: ci.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_flipbed
require_kernel stock patched
jobs=$(nproc)
run() {
	_t=$(date +%s)
	"$FLIPBED" matrix ci --jobs "$jobs" "$@" > "$T/$out.log" 2>&1
	echo "flipbed matrix ci $*: exit $? in $(($(date +%s) - _t)) s;" \
		"$(grep -o '[0-9.]* cases/min' "$T/$out.log" | tail -n 1)"
}
out=solo run --batch 1 --out "$T/solo"
out=batched run --out "$T/batched"
for r in solo batched; do
	[ -s "$T/$r/cases.jsonl" ] || fail "the $r run wrote no cases.jsonl (log: $(tail -n 3 "$T/$r.log"))"
	n=$(grep -c '"verdict":"infra"' "$T/$r/cases.jsonl")
	[ "$n" -eq 0 ] || { grep '"verdict":"infra"' "$T/$r/cases.jsonl" | sed -n 's/^{"case":"\([^"]*\)".*"infra":"\([^"]*\)".*/  \1: \2/p';
		check_fail "$n infra case(s) in the $r run"; }
done
shared=$(grep -c '"vm":{"boot":[0-9]*,"cases":[0-9]*,"place":[2-9]' "$T/batched/cases.jsonl")
[ "$shared" -gt 0 ] && echo "ok: $shared cases of the batched run shared a boot with an earlier case" ||
	check_fail "no case of the batched run shared a boot: batching did not happen"
"$FLIPBED" diff "$T/solo" "$T/batched" > "$T/diff" 2>&1
tail -n 1 "$T/diff"
grep -q ', 0 changed; 0 infra or skipped; 0 only in .*, 0 only in ' "$T/diff" &&
	echo "ok: every case has the same (detect, reaction, fsck, data) one per boot and batched" ||
	{ cat "$T/diff"; check_fail "the batched run differs from the one-per-boot run (above)"; }
no_leftovers
finish

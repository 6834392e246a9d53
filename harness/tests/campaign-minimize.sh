#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed campaign --minimize on a known finding (campaign/panic-finding: a
# panic with errors=panic, 3 bits, 4 workload steps after the mount): the
# result still panics with the same title, with 1 bit and the one step that
# reads /a. Every try is an ordinary run in minimize/. Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel patched
cd "$top" || exit 1
cp -r "$top/harness/tests/campaign/panic-finding" "$T/f"
"$FLIPBED" campaign --minimize "$T/f" > "$T/out" 2> "$T/err"
rc=$?
cat "$T/out"; grep '^flipbed campaign: try' "$T/err"
[ $rc -eq 0 ] || { cat "$T/err"; fail "--minimize exited $rc"; }
m=$T/f/minimized.scn
[ -s "$m" ] || fail "no minimized.scn"
grep -q '^bits = 1$' "$m" || fail "not reduced to 1 bit"
steps=$(grep '^step = ' "$m" | tr '\n' ';')
[ "$steps" = "step = mount errors=panic;step = walk /a;" ] || fail "steps left: $steps"
"$FLIPBED" run "$m" --kernel patched --out "$T/check" > /dev/null 2>&1
grep -q '"reaction":"panic"' "$T/check/cases.jsonl" || fail "the minimized scenario does not panic"
no_leftovers
echo "ok: 3 bits and 5 steps reduced to 1 bit and 2 steps, still a panic"

#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad scenario files are refused before anything runs: exit 2 and a message
# that names the file (and the line, where one is at fault) and says what is
# accepted. Each file in scenario-errors/ states the message it must produce
# ("# error: TEXT") and, where it matters, the line ("# line: N").
# Groups: quick.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib.sh"
flipbed=${FLIPBED:-$B/bin/flipbed}
require_built "$flipbed" build/bin/flipbed
out=$T/out
fail=0 n=0
for f in "$here"/scenario-errors/*.scn; do
	n=$((n + 1))
	want=$(sed -n 's/^# error: //p' "$f")
	line=$(sed -n 's/^# line: //p' "$f")
	"$flipbed" run "$f" --list >/dev/null 2>"$out"
	rc=$?
	if [ $rc -ne 2 ]; then
		echo "FAIL $(basename "$f"): exit $rc, expected 2"; fail=1; continue
	fi
	if ! grep -qF -- "$want" "$out"; then
		echo "FAIL $(basename "$f"): no '$want' in:"; sed 's/^/    /' "$out"; fail=1; continue
	fi
	if ! grep -qF -- "$f:" "$out"; then
		echo "FAIL $(basename "$f"): the message does not name the file:"; sed 's/^/    /' "$out"; fail=1; continue
	fi
	if [ -n "$line" ] && ! grep -qF -- "$f:$line:" "$out"; then
		echo "FAIL $(basename "$f"): the message does not name line $line:"; sed 's/^/    /' "$out"; fail=1; continue
	fi
	echo "ok $(basename "$f"): $(grep -F -- "$want" "$out" | head -1)"
done
[ $n -ge 20 ] || { echo "FAIL: only $n bad scenario files"; fail=1; }
exit $fail

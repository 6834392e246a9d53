#!/bin/sh
# SPDX-License-Identifier: MIT
# A campaign interrupted while a case's nbdkit is still starting resumes
# cleanly. The case cut short is recorded as interrupted ("interrupted by
# ..."), which a resumed campaign drops and runs again; were it infra, the
# resume would count it as a failed case and exit 3 (CI hit this once, by
# chance, in campaign-run.sh). Here the window is made wide on purpose:
# a shim earlier in PATH waits 3 s, then execs the real nbdkit.
# Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel patched
real=$(command -v nbdkit)
mkdir "$T/shim"
cat > "$T/shim/nbdkit" <<SHIM
#!/bin/sh
sleep 3
exec $real "\$@"
SHIM
chmod +x "$T/shim/nbdkit"

c=$T/c
PATH=$T/shim:$PATH "$FLIPBED" campaign --seed 2 --count 3 --kernel patched --jobs 1 \
	--out "$c" > "$T/c.log" 2>&1 &
pid=$!
i=0
until pgrep -f "$T/shim/nbdkit" > /dev/null; do
	sleep 0.1
	i=$((i + 1))
	[ $i -lt 300 ] || { cat "$T/c.log"; fail "the slow nbdkit never started"; }
done
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
tail -3 "$T/c.log"
[ $rc -eq 130 ] || fail "interrupted campaign exited $rc, expected 130"
no_leftovers
grep '"verdict": *"infra"' "$c/run/cases.jsonl" 2>/dev/null | grep -v 'interrupted by' &&
	fail "a case cut short by SIGINT is infra without 'interrupted by'"
grep '"verdict": *"interrupted"' "$c/run/cases.jsonl" | grep -q 'interrupted by' ||
	fail "no case cut short by SIGINT is recorded as interrupted"

"$FLIPBED" campaign --seed 2 --count 3 --kernel patched --jobs 1 --out "$c" > "$T/c2.log" 2>&1
rc=$?
tail -3 "$T/c2.log"
if [ $rc -ne 0 ]; then
	grep '"infra"' "$c/run/cases.jsonl"
	fail "the resumed campaign exited $rc, expected 0"
fi
n=$(wc -l < "$c/run/cases.jsonl")
u=$(sed 's/.*"case": *"\([^"]*\)".*/\1/' "$c/run/cases.jsonl" | sort -u | wc -l)
[ "$n" -eq 3 ] && [ "$u" -eq 3 ] || fail "after resuming: $n records, $u distinct, expected 3"
no_leftovers
echo "ok: interrupted while nbdkit started (exit 130), resumed to 3 cases"

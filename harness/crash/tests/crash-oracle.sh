#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed crash's oracle at 3 flush points of scenarios/crash/fsync-rename.scn
# on the patched kernel: a sweep killed after its first point leaves no
# process behind and, run again with the same --out, goes on at the next
# point; a file written after a point's flush is absent there and not
# required, while the last point requires it intact; a durability record
# broken to claim everything durable from flush 0 turns a point into a
# failure naming a file; bad input exits 2 with one line.
# Groups: crash
. "$(dirname "$0")/../../../tests/lib.sh"
FLIPBED=${FLIPBED:-$B/bin/flipbed}
require_built "$FLIPBED" build/bin/flipbed
require_built "$B/bin/flipbed-replay" build/bin/flipbed-replay
require_built "$B/lib/nbdkit-flipbed-plugin.so" build/lib/nbdkit-flipbed-plugin.so
require_built "$B/guest/initramfs.cpio.gz" build/guest/initramfs.cpio.gz
require_kernel patched
require_tools qemu-system-x86_64 nbdkit mkfs.ext4 debugfs e2fsck pgrep
cd "$top" || fail "cd $top"
scn=scenarios/crash/fsync-rename.scn

# Processes whose command line names our TMPDIR (flipbed's private dirs are in it).
leftovers() { pgrep -f -- "$T" || true; }
trap 'p=$(leftovers); [ -n "$p" ] && kill -9 $p 2>/dev/null; rm -rf "$T"' EXIT

expect2() {
	pat=$1
	shift
	"$FLIPBED" crash "$@" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 2 ] || fail "exit $rc, expected 2: flipbed crash $*"
	[ "$(wc -l < "$T/err")" -eq 1 ] || fail "expected one stderr line: flipbed crash $*"
	grep -q -- "$pat" "$T/err" || fail "stderr '$(cat "$T/err")' lacks '$pat'"
	ok "exit 2: $(cat "$T/err")"
}
expect2 "needs a fault-free workload" scenarios/inode/base-flip.scn --out "$T/bad"
expect2 "expected all or a number of points" $scn --points 0 --out "$T/bad"
expect2 "expected all or a number of points" $scn --points many --out "$T/bad"
expect2 "--kernel vanilla: accepted: stock, patched" $scn --kernel vanilla --out "$T/bad"
[ ! -e "$T/bad" ] || fail "bad input made $T/bad"

# A sweep stopped by SIGTERM after its first point: exit 130, nothing left.
run=$T/run
"$FLIPBED" crash $scn --kernel patched --points 3 --out "$run" > "$T/first.log" 2>&1 &
pid=$!
i=0
while [ "$(cat "$run/cases.jsonl" 2>/dev/null | wc -l)" -lt 1 ] && [ $i -lt 1200 ]; do
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
n=$(wc -l < "$run/cases.jsonl")
[ "$n" -ge 1 ] || { cat "$T/first.log"; fail "no point recorded before the kill"; }
[ $rc -eq 130 ] || [ "$n" -eq 3 ] || { cat "$T/first.log"; fail "killed sweep exit $rc, expected 130"; }
sleep 0.5
[ -z "$(leftovers)" ] || fail "processes left behind: $(leftovers)"
# the point interrupted has no record, and neither its image nor replay's temporary file
for d in "$run"/cases/*/; do
	[ -e "$d/case.json" ] && continue
	[ -z "$(ls -A "$d" | grep -e '^image.raw$' -e '^\.image.raw.replay-')" ] ||
		fail "the interrupted point left its image: $(ls -A "$d")"
done
ok "killed after $n point(s): exit $rc, no process or image left"

"$FLIPBED" crash $scn --kernel patched --points 3 --out "$run" > "$T/second.log" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$T/second.log"; fail "resumed sweep exit $rc, expected 0"; }
[ "$(wc -l < "$run/cases.jsonl")" -eq 3 ] || fail "expected 3 records, got $(wc -l < "$run/cases.jsonl")"
[ "$(grep -o '"flush":[0-9]*' "$run/cases.jsonl" | sort -u | wc -l)" -eq 3 ] ||
	fail "a point was run twice: $(grep -o '"flush":[0-9]*' "$run/cases.jsonl")"
[ "$(grep -c '"verdict":"pass"' "$run/cases.jsonl")" -eq 3 ] || fail "not every point passed"
grep -q '| patched | 3 |' "$run/summary.md" || fail "summary.md lacks point 3"
ok "resumed: 3 distinct points, all pass"

# /late is written after /big's fsync and made durable by the umount only:
# a point before that holds no /late and does not require it; the last
# point (after the umount's flushes) requires it intact.
grep '"found":"absent","note":"not durable yet","path":"/late","required":null' \
	"$run/cases.jsonl" > /dev/null || fail "no point before /late lacked it"
grep '"point":3,' "$run/cases.jsonl" | grep -q \
	'"found":"step 15 (2000 bytes)","ok":true,"path":"/late","required":"step 15 (2000 bytes)"' ||
	{ grep '"point":3,' "$run/cases.jsonl"; fail "the last point does not require /late intact"; }
ok "/late: absent and not required before its sync, required and intact at the last point"
# /new is synced by the third step, long before the first point (F/3): a
# durability record that came too late would leave it unrequired somewhere.
[ "$(grep -c '"found":"step 2 (3000 bytes)","ok":true,"path":"/new","required":"step 2 (3000 bytes)"' \
	"$run/cases.jsonl")" -eq 3 ] || fail "a point after /new's fsync does not require it intact"
ok "/new: required and intact at every point after its fsync"

# A broken durability record: every barrier 0, as if each step had been
# durable before the first flush. The same log and points must now fail.
broken=$T/broken
mkdir -p "$broken/record"
cp -r "$run/record/patched" "$broken/record/"
cp "$run/crash.json" "$broken/"
sed -i '/"barriers"/,/]/s/[0-9][0-9]*/0/' "$broken/record/patched/durable.json"
"$FLIPBED" crash $scn --kernel patched --points 3 --out "$broken" > "$T/broken.log" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$T/broken.log"; fail "broken record: exit $rc, expected 1"; }
grep -q '"verdict":"fail"' "$broken/cases.jsonl" || fail "broken record: no point failed"
grep -q 'data: [0-9]* files*: /' "$broken/cases.jsonl" || fail "broken record: no file named"
ok "broken durability record: exit 1, $(grep -o 'data: [^"]*' "$broken/cases.jsonl" | head -n 1)"
finish

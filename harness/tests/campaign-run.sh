#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed campaign end to end on the patched kernel, and the reliability of
# flipbed itself, over 200 cases in all (188 + 12; 7.5 minutes measured on
# 2 idle cores, 15 beside a 2-job campaign).
#   1. 188 cases, 2 jobs; one QEMU is killed mid-case: that case is infra
#      (never a kernel outcome); nothing is left running, no private
#      directory or socket of a worker stays ($TMPDIR/flipbed-*), no case
#      image stays (only findings' image.qcow2), campaign.md counts every
#      case, and running it again runs nothing (resume).
#   2. 12 more cases (another seed) interrupted with SIGINT: exit 130,
#      nothing left behind, what finished is recorded; running it again
#      finishes the rest with no case twice.
#   3. the golden images' bytes never change (sha256 before and after 2).
# Groups: slow.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel patched
require_tools sha256sum qemu-img

workers=$T/workers
: > "$workers"
# age_cs PID: centiseconds since PID started (/proc: uptime, and the start
# time in clock ticks, 100 a second here)
age_cs() {
	st=$(cut -d' ' -f22 "/proc/$1/stat" 2>/dev/null) || return 1
	up=$(cut -d' ' -f1 /proc/uptime | tr -d .)
	echo $((up - st))
}

# Record the worker processes of flipbed PID (their QEMU and sockets live
# in a private directory under $TMPDIR) until it exits; with KILL_QEMU=1 also kill,
# once, a QEMU younger than 0.5 s seen after 3 finished cases: its guest is
# still booting (a boot takes 0.9 s or more), so its case cannot have
# finished. An older QEMU may be exiting after its guest's reboot, and
# killing it then changes nothing.
watch() {
	killed=0
	while kill -0 "$1" 2>/dev/null; do
		for w in $(pgrep -P "$1"); do
			grep -qx "$w" "$workers" || echo "$w" >> "$workers"
			if [ "${KILL_QEMU:-0}" = 1 ] && [ $killed = 0 ] &&
			   [ "$(cat "$2/run/cases.jsonl" 2>/dev/null | wc -l)" -ge 3 ]; then
				q=$(pgrep -P "$w" qemu-system 2>/dev/null | head -1)
				a=$([ -n "$q" ] && age_cs "$q" || echo 999)
				[ "$a" -lt 50 ] && kill -9 "$q" && killed=1 &&
					echo "killed qemu $q of worker $w, $a cs old"
			fi
		done
		sleep 0.05
	done
}

no_trace() {
	# the workers' QEMU and nbdkit name their private directory under $T:
	# no_leftovers finds any of them still running
	no_leftovers
	for d in "$T"/flipbed-??????; do
		[ ! -e "$d" ] || fail "$1: $d (a worker's sockets) left behind"
	done
	imgs=$(find "$2/run/cases" -name image.raw | head -3)
	[ -z "$imgs" ] || fail "$1: case images left: $imgs"
	find "$2" -name '*.tmp' -o -name '*.raw' | grep . && fail "$1: temporary files left"
	return 0
}

records() { cat "$1/run/cases.jsonl" 2>/dev/null | wc -l; }
unique() { sed 's/.*"case": *"\([^"]*\)".*/\1/' "$1/run/cases.jsonl" | sort -u | wc -l; }

N1=188
echo "=== 1: $N1 cases, one QEMU killed"
c1=$T/c1
"$FLIPBED" campaign --seed 1 --count $N1 --kernel patched --jobs 2 --out "$c1" > "$T/c1.log" 2>&1 &
pid=$!
KILL_QEMU=1 watch $pid "$c1" > "$T/watch.log"
wait $pid
rc=$?
tail -5 "$T/c1.log"; cat "$T/watch.log"
[ $rc -eq 3 ] || fail "campaign exited $rc, expected 3 (the killed QEMU is infra)"
grep -q '^killed qemu' "$T/watch.log" || fail "no QEMU was seen to kill"
[ "$(records "$c1")" -eq $N1 ] || fail "$(records "$c1") records, expected $N1"
killedcase=$(grep '"verdict": *"infra"' "$c1/run/cases.jsonl" | grep -i 'qemu' | head -1)
[ -n "$killedcase" ] || fail "the case whose QEMU was killed is not infra naming qemu"
grep -q '^| infrastructure | [1-9]' "$c1/campaign.md" || fail "campaign.md counts no infrastructure case"
total=$(sed -n '/^| class | cases |/,/^$/p' "$c1/campaign.md" | awk -F'|' '$3 ~ /[0-9]/ {s += $3} END {print s}')
[ "$total" -eq $N1 ] || fail "campaign.md classes add up to $total, expected $N1"
grep -q 'cases/min' "$c1/campaign.md" || fail "campaign.md has no cases/min"
for d in "$c1"/findings/*/; do
	[ -d "$d" ] || continue
	for f in finding.txt scenario.scn transcript.log image.qcow2; do
		[ -s "$d/$f" ] || fail "finding $d has no $f"
	done
	grep -q '^repro: build/bin/flipbed run .*--kernel patched' "$d/finding.txt" || fail "$d: no repro line"
done
no_trace "run 1" "$c1"
"$FLIPBED" campaign --seed 1 --count $N1 --kernel patched --jobs 2 --out "$c1" > "$T/c1b.log" 2>&1
[ $? -eq 3 ] || fail "the resumed campaign (with the killed QEMU's case) did not exit 3"
grep -q "resuming: $N1 of $N1" "$T/c1b.log" || fail "running it again did not resume"
[ "$(records "$c1")" -eq $N1 ] || fail "resuming a finished campaign ran cases again"

sums() { for f in "$B"/cache/images/*/golden.raw; do sha256sum "$f"; done | sort -k 2; }
sums > "$T/golden.before"

echo "=== 2: 12 cases, SIGINT"
c2=$T/c2
"$FLIPBED" campaign --seed 2 --count 12 --kernel patched --jobs 2 --out "$c2" > "$T/c2.log" 2>&1 &
pid=$!
( watch $pid "$c2" ) &
i=0
while [ "$(records "$c2")" -lt 3 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $pid
wait $pid
rc=$?
sleep 0.5
tail -3 "$T/c2.log"
[ $rc -eq 130 ] || fail "interrupted campaign exited $rc, expected 130"
n=$(records "$c2")
[ "$n" -lt 12 ] || fail "the interrupt came too late: all 12 cases ran"
[ -s "$c2/campaign.md" ] || fail "no campaign.md after the interrupt"
no_trace "SIGINT" "$c2"
"$FLIPBED" campaign --seed 2 --count 12 --kernel patched --jobs 2 --out "$c2" > "$T/c2b.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	# say which case was infra and why, so a failure here is diagnosable
	cat "$T/c2b.log"
	grep '"infra"' "$c2/run/cases.jsonl"
	fail "the resumed campaign exited $rc"
fi
[ "$(records "$c2")" -eq 12 ] && [ "$(unique "$c2")" -eq 12 ] ||
	fail "after resuming: $(records "$c2") records, $(unique "$c2") distinct, expected 12"
no_trace "resume" "$c2"

echo "=== 3: golden images"
sums > "$T/golden.after"
join "$T/golden.before" "$T/golden.after" -j 2 -o 1.1,2.1,0 | awk '$1 != $2 {print; bad=1} END {exit bad}' ||
	fail "a golden image changed"
grep -l 'golden image .* changed' "$c1/run/cases.jsonl" "$c2/run/cases.jsonl" && fail "a case saw a golden image change"
echo "ok: $n of 12 before SIGINT, resumed to 12; $N1 with one QEMU killed; goldens unchanged"

#!/bin/sh
# SPDX-License-Identifier: MIT
# A run cut short by Ctrl-C records only what it did: a case the signal
# cut short has the verdict "interrupted" (never fail or infra), a case
# never started has no record, and run.json (interrupted, cases_planned),
# stderr's closing line, summary.md, index.html and junit.xml say that the
# run was interrupted, with the cases that ran and those planned; `--failed`
# on that run picks no interrupted case. Three tries of the quick matrix on
# patched, SIGINT to flipbed's process group as a terminal sends it:
#   1. --jobs 2, while a case's e2fsck runs (a shim earlier in PATH makes
#      each e2fsck of a case image wait 4 s; the signal comes once one waits);
#   2. --jobs 1 (a batch of cases in one boot), as soon as the first
#      case's steps run (a fixed delay after QEMU starts can outlast a
#      whole batch of 7 fast cases): the cases of the batch after the one
#      cut short never start;
#   3. --jobs 2, at a moment drawn from a seeded RNG (printed), halved and
#      tried again when every case ran before it.
# Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel patched
require_tools jq setsid
cd "$top" || exit 1

real=$(command -v e2fsck)
mkdir "$T/shim"
cat > "$T/shim/e2fsck" <<SHIM
#!/bin/sh
case "\$*" in
*/cases/*) touch "$T/fsck-waits"; sleep 4 ;;
esac
exec $real "\$@"
SHIM
chmod +x "$T/shim/e2fsck"
sel="matrix quick --kernel patched"

# start NAME JOBS [PATH]: flipbed in a process group of its own, in the background
start() {
	rm -f "$T/fsck-waits"
	PATH=${3:-$PATH} setsid "$FLIPBED" $sel --jobs "$2" --out "$T/$1" > "$T/$1.out" 2> "$T/$1.log" &
	pid=$!
}

# wait_for WHAT COMMAND...: until COMMAND succeeds (at most 300 s)
wait_for() {
	what=$1
	shift
	i=0
	until "$@"; do
		sleep 0.1
		i=$((i + 1))
		[ $i -lt 3000 ] || { cat "$T/$name.log"; fail "$name: $what never came"; }
	done
}
qemu_up() { pgrep -f "qemu-system.*$T" > /dev/null; }
case_running() { grep -qs '^A step ' "$T/$name"/cases/*/transcript.log; }

# interrupt: SIGINT to the process group, as a terminal's Ctrl-C; then check the run
interrupt() {
	/bin/kill -s INT -- "-$pid"
	wait $pid
	rc=$?
	check
}

# q JQ: jq -r over the records
q() { jq -r "$1" "$T/$name/cases.jsonl"; }

check() {
	d=$T/$name
	tail -n 3 "$d.log"
	[ $rc -eq 130 ] || fail "$name: exit $rc, expected 130"
	no_leftovers
	planned=$(sed -n 's/^flipbed: \([0-9]*\) cases, .*/\1/p' "$d.log")
	[ -n "$planned" ] || fail "$name: no 'N cases' line on stderr"
	[ "$(jq -r .interrupted "$d/run.json")" = true ] || fail "$name: run.json does not say interrupted"
	[ "$(jq -r .cases_planned "$d/run.json")" = "$planned" ] ||
		fail "$name: run.json cases_planned is $(jq -r .cases_planned "$d/run.json"), expected $planned"
	bad=$(q 'select(.verdict | IN("pass", "fail", "infra", "skip", "interrupted") | not) | .case')
	[ -z "$bad" ] || fail "$name: records with an unknown verdict: $bad"
	# what the interruption did must not read as a failure of the kernel or of flipbed
	false=$(q 'select(.verdict == "fail" or .verdict == "infra") |
		select(((.outcome.infra // "") + ((.mismatch // []) | join("; ")))
		       | test("interrupted|not started|not-run")) | "\(.case): \(.verdict): \(.outcome.infra) \(.mismatch)"')
	[ -z "$false" ] || fail "$name: cases the interruption cut short recorded as fail or infra:
$false"
	# a data check cut short found no file lost
	lost=$(q 'select(.verdict == "interrupted") | select((.acknowledged // []) | length > 0) | .case')
	[ -z "$lost" ] || fail "$name: interrupted cases that list acknowledged files: $lost"
	records=$(wc -l < "$d/cases.jsonl")
	dirs=$(find "$d/cases" -mindepth 1 -maxdepth 1 -type d | wc -l)
	[ "$records" -eq "$dirs" ] || fail "$name: $records records for $dirs cases that started"
	[ "$records" -lt "$planned" ] || fail "$name: the interrupt came too late: every case ran"
	cut=$(q 'select(.verdict == "interrupted") | .case' | wc -l)
	ran=$((records - cut))
	echo "$name: $planned planned, $ran ran, $cut cut short"
	what="interrupted: $ran of $planned planned cases ran"
	grep -q "$what" "$d.log" || fail "$name: stderr's closing line does not say '$what'"
	for f in summary.md index.html junit.xml; do
		grep -q "$what" "$d/$f" || fail "$name: $f does not say '$what'"
	done
	"$FLIPBED" report "$d" > "$T/report.out" 2>&1
	grep -q "$what" "$T/report.out" || fail "$name: flipbed report does not say '$what'"
	junit_skipped=$(sed -n 's/^<testsuites .* skipped="\([0-9]*\)".*/\1/p' "$d/junit.xml")
	skips=$(q 'select(.verdict == "skip") | .case' | wc -l)
	[ "$junit_skipped" -eq $((skips + cut)) ] ||
		fail "$name: junit.xml counts $junit_skipped skipped, expected $((skips + cut)) (skip and interrupted)"
	failed_picks
}

# --failed on this run (as results/runs/latest of a scratch checkout) re-runs
# its fail and infra cases, and no case the interruption cut short
failed_picks() {
	repo=$T/repo-$name
	mkdir -p "$repo/results/runs"
	ln -s "$top/scenarios" "$repo/scenarios"
	ln -s "$T/$name" "$repo/results/runs/latest"
	(cd "$repo" && "$FLIPBED" $sel --failed --list) > "$T/failed.out" 2> "$T/failed.err"
	cut -f1 "$T/failed.out" | sort > "$T/failed.got"
	q 'select(.verdict == "fail" or .verdict == "infra") | .case' | sort > "$T/failed.want"
	cmp -s "$T/failed.got" "$T/failed.want" || {
		diff "$T/failed.want" "$T/failed.got"
		fail "$name: --failed does not pick exactly the fail and infra cases"
	}
	for c in $(q 'select(.verdict == "interrupted") | .case'); do
		! grep -qx "$c" "$T/failed.got" || fail "$name: --failed picks $c, which was interrupted"
	done
}

name=fsck
echo "=== 1: SIGINT during a case's e2fsck, --jobs 2"
start $name 2 "$T/shim:$PATH"
wait_for "a case's e2fsck" test -e "$T/fsck-waits"
sleep 0.5
interrupt
[ "$cut" -ge 1 ] || fail "$name: the case whose e2fsck was cut short is not interrupted"

name=boot
echo "=== 2: SIGINT once the first case's steps run, --jobs 1"
start $name 1
wait_for "a case's steps" case_running
interrupt
[ "$cut" -ge 1 ] || fail "$name: the case whose boot was cut short is not interrupted"

name=random
seed=${FLIPBED_TEST_SEED:-$(date +%s)}
delay=$(awk -v s="$seed" 'BEGIN { srand(s); printf "%.2f", 0.5 + rand() * 3 }')
# A fast machine may run every case before the drawn moment: then the
# moment is halved and the matrix run again, at most four times.
try=1
while :; do
	echo "=== 3.$try: SIGINT $delay s after the first boot, --jobs 2 (FLIPBED_TEST_SEED=$seed)"
	rm -rf "$T/$name" "$T/$name.out" "$T/$name.log"
	start $name 2
	wait_for "a QEMU" qemu_up
	sleep "$delay"
	/bin/kill -s INT -- "-$pid" 2> /dev/null
	wait $pid
	rc=$?
	planned=$(sed -n 's/^flipbed: \([0-9]*\) cases, .*/\1/p' "$T/$name.log")
	records=$(cat "$T/$name/cases.jsonl" 2> /dev/null | wc -l)
	if [ $try -lt 4 ] && { [ $rc -ne 130 ] || [ "$records" -ge "${planned:-0}" ]; }; then
		echo "every case ran before the signal (exit $rc): halving the moment"
		delay=$(awk -v d="$delay" 'BEGIN { printf "%.2f", d / 2 }')
		try=$((try + 1))
		continue
	fi
	check
	break
done
echo "ok: three interrupted runs recorded only what ran"

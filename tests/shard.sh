#!/bin/sh
# SPDX-License-Identifier: MIT
# Shards without a job engine: --shard auto reads a Slurm array task or a
# Kubernetes Indexed Job pod from the environment (and refuses what is not
# one); a shard run again into its own run directory replaces its earlier
# run, any other non-empty --out is refused; `flipbed merge` refuses runs
# that are not the shards of one run (exit 2) and names a missing or
# incomplete shard (exit 1, nothing written); --watchdog stops a run whose
# cases make no progress, on real boots, and records every unfinished case
# as infra with its reason, leaving no QEMU, nbdkit or private directory.
# Groups: shard.
set -u
. "$(dirname "$0")/lib.sh"
set -f	# --filter globs are flipbed's, not the shell's
require_built "$B/bin/flipbed" build/bin/flipbed
require_built "$B/guest/initramfs.cpio.gz" build/guest/initramfs.cpio.gz
require_built "$B/lib/nbdkit-flipbed-plugin.so" build/lib/nbdkit-flipbed-plugin.so
require_kernel stock
require_tools qemu-system-x86_64 nbdkit mkfs.ext4 debugfs e2fsck pgrep

# The processes whose command line names our TMPDIR (flipbed's private
# directories are made there, so every QEMU and nbdkit of this test has it).
leftovers() { pgrep -f -- "$T" || true; }
trap 'p=$(leftovers); [ -n "$p" ] && kill -9 $p 2>/dev/null; rm -rf "$T"' EXIT

# flipbed as one build and scenarios/ as one version: the merge compares
# build ids and selections (which hash the scenario files), and this tree's
# build/bin/flipbed may be rebuilt, or a scenario edited, while the test
# runs. Kernels and the golden image cache are shared (a copy of flipbed
# finds them beside its bin/).
snap=$T/flipbed
mkdir -p "$snap/bin" "$snap/guest" "$snap/lib"
cp "$B/bin/flipbed" "$snap/bin/" && cp "$B/guest/initramfs.cpio.gz" "$snap/guest/" &&
	cp "$B/lib/nbdkit-flipbed-plugin.so" "$snap/lib/" || fail "cannot copy flipbed to $snap"
mkdir -p "$B/cache"
ln -s "$B/kernel" "$snap/kernel" && ln -s "$B/cache" "$snap/cache" || fail "cannot link $snap"
F=$snap/bin/flipbed
mkdir -p "$T/tree" && cp -r "$top/scenarios" "$T/tree/" || fail "cannot copy scenarios/ into $T/tree"
cd "$T/tree" || fail "cannot cd to $T/tree"
sel="matrix quick --kernel stock --filter i*"

# expect RC WHAT COMMAND...: COMMAND exits RC; its stderr is in $T/err.
expect() {
	_rc=$1 _what=$2
	shift 2
	"$@" > "$T/out" 2> "$T/err"
	_got=$?
	sed 's/^/    /' "$T/err" | head -n 5
	if [ $_got -eq "$_rc" ]; then ok "$_what: exit $_rc"; else check_fail "$_what: exit $_got, expected $_rc"; fi
}

echo "== --shard auto from the environment"
$F $sel --list > "$T/all" || fail "flipbed $sel --list exited $?"
[ "$(wc -l < "$T/all")" -eq 4 ] || fail "expected 4 cases of '$sel', got $(wc -l < "$T/all")"
for k in 1 2; do
	$F $sel --shard $k/2 --list > "$T/explicit-$k"
	env SLURM_ARRAY_TASK_ID=$((k + 6)) SLURM_ARRAY_TASK_MIN=7 SLURM_ARRAY_TASK_MAX=8 \
		SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_STEP=1 $F $sel --shard auto --list > "$T/slurm-$k"
	env JOB_COMPLETION_INDEX=$((k - 1)) $F $sel --shard auto/2 --list > "$T/k8s-$k"
	cmp -s "$T/explicit-$k" "$T/slurm-$k" && cmp -s "$T/explicit-$k" "$T/k8s-$k" ||
		check_fail "shard $k/2: Slurm task $((k + 6)) of 7-8 or JOB_COMPLETION_INDEX=$((k - 1)) lists other cases than --shard $k/2"
done
cat "$T/explicit-1" "$T/explicit-2" | cut -f1 | sort > "$T/union"
cut -f1 "$T/all" | sort | cmp -s - "$T/union" || check_fail "shards 1/2 and 2/2 are not the 4 cases"
[ -z "$(uniq -d "$T/union")" ] || check_fail "a case is in both shards: $(uniq -d "$T/union")"
expect 2 "--shard auto without a job engine" env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX \
	$F $sel --shard auto --list
grep -q "no job engine in the environment" "$T/err" || check_fail "no 'no job engine' message"
expect 2 "Slurm task 5 of an array of 4" env SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_MIN=1 \
	SLURM_ARRAY_TASK_COUNT=4 $F $sel --shard auto --list
grep -q "shard 5 is outside 1..4" "$T/err" || check_fail "no 'outside 1..4' message"
expect 2 "a stepped Slurm array" env SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=0 \
	SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_STEP=2 $F $sel --shard auto --list
expect 2 "auto/3 in an array of 4" env SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=1 \
	SLURM_ARRAY_TASK_COUNT=4 $F $sel --shard auto/3 --list
expect 2 "JOB_COMPLETION_INDEX without N" env JOB_COMPLETION_INDEX=0 $F $sel --shard auto --list
expect 2 "JOB_COMPLETION_INDEX=4 of auto/4" env JOB_COMPLETION_INDEX=4 $F $sel --shard auto/4 --list
grep -q "shard 5 is outside 1..4" "$T/err" || check_fail "no 'outside 1..4' message"
for bad in 1/2/3 0/2 3/2 1/ /2 auto/0 auto/x autox 1/+2; do
	expect 2 "--shard $bad" $F $sel --shard $bad --list
done
expect 2 "--watchdog 0" $F $sel --watchdog 0 --list

echo "== two shards, run again, merged"
for k in 1 2; do
	$F $sel --shard $k/2 --jobs 2 --out "$T/s$k" > "$T/s$k.log" 2>&1 ||
		{ tail -n 20 "$T/s$k.log"; fail "shard $k/2 exited $?"; }
done
before=$(sed -n 's/.*"started": "\(.*\)".*/\1/p' "$T/s1/run.json")
sleep 1
expect 0 "shard 1/2 run again into its own run directory" $F $sel --shard 1/2 --jobs 2 --out "$T/s1"
grep -q "holds an earlier run of shard 1/2: replacing it" "$T/err" || check_fail "no 'replacing it' line"
[ "$(wc -l < "$T/s1/cases.jsonl")" -eq 2 ] ||
	check_fail "shard 1/2 run twice holds $(wc -l < "$T/s1/cases.jsonl") records, expected 2"
[ "$(sed -n 's/.*"started": "\(.*\)".*/\1/p' "$T/s1/run.json")" != "$before" ] ||
	check_fail "shard 1/2's run.json was not rewritten"
expect 2 "shard 2/2 into shard 1/2's directory" $F $sel --shard 2/2 --out "$T/s1"
expect 2 "another selection's shard 1/2 into it" $F matrix quick --kernel stock --filter 'd*' \
	--shard 1/2 --out "$T/s1"
expect 2 "an unsharded run into it" $F $sel --out "$T/s1"
: > "$T/s1/notes.txt"
expect 2 "shard 1/2 into its directory holding another file" $F $sel --shard 1/2 --out "$T/s1"
rm "$T/s1/notes.txt"
expect 0 "merge of shards 1/2 and 2/2" $F merge "$T/m" "$T/s1" "$T/s2"
jq -r .case "$T/m/cases.jsonl" | sort | cmp -s - "$T/union" ||
	check_fail "the merged cases are not the 4 cases"

echo "== merges that are refused"
expect 1 "merge without shard 2/2" $F merge "$T/m1" "$T/s1"
grep -q "missing shard(s) 2/2" "$T/err" || check_fail "the missing shard 2/2 is not named"
[ ! -e "$T/m1" ] || check_fail "a merge with a missing shard wrote $T/m1"
# shard 2/2 as a job engine that lost a case would leave it
cp -r "$T/s2" "$T/s2-short"
sed -i '$d' "$T/s2-short/cases.jsonl"
expect 1 "merge with an incomplete shard 2/2" $F merge "$T/m2" "$T/s1" "$T/s2-short"
grep -q "shard 2/2 in $T/s2-short holds 1 of its 2 cases" "$T/err" || check_fail "the incomplete shard is not named"
# edit one field of run.json: FIELD VALUE -> $T/edited
edited() {
	rm -rf "$T/edited" && cp -r "$T/s2" "$T/edited"
	sed -i "s|^  \"$1\": .*|  \"$1\": $2,|" "$T/edited/run.json"
	grep -q "^  \"$1\": $2," "$T/edited/run.json" || fail "cannot edit $1 in run.json"
}
edited flipbed_build '"0123456789abcdef"'
expect 2 "merge of two builds of flipbed" $F merge "$T/m3" "$T/s1" "$T/edited"
grep -q "different builds of flipbed" "$T/err" || check_fail "no 'different builds' message"
edited matrix '"ci"'
expect 2 "merge of two matrices" $F merge "$T/m3" "$T/s1" "$T/edited"
grep -q "runs of different matrices (quick, ci)" "$T/err" || check_fail "no 'different matrices' message"
edited shard '"2/3"'
expect 2 "merge of shards of 2 and of 3" $F merge "$T/m3" "$T/s1" "$T/edited"
edited shard '"1/2"'
expect 2 "merge of shard 1/2 twice" $F merge "$T/m3" "$T/s1" "$T/edited"
grep -q "shard 1/2 is given twice" "$T/err" || check_fail "no 'given twice' message"
edited selection '"0123456789abcdef"'
expect 2 "merge of two selections" $F merge "$T/m3" "$T/s1" "$T/edited"
grep -q "select different cases" "$T/err" || check_fail "no 'select different cases' message"
[ ! -e "$T/m3" ] || check_fail "a refused merge wrote $T/m3"

echo "== the watchdog, on real boots"
# The watchdog runs use their own copy of the scenarios whose workloads
# begin with a 5 s sleep in the guest: a case then lasts longer than the
# watchdog's 1 s however fast the machine boots (a quick case alone takes
# about 1 s on an idle machine, which is no margin).
mkdir -p "$T/slow" && cp -r "$top/scenarios" "$T/slow/" || fail "cannot copy scenarios/ into $T/slow"
set +f
for f in "$T"/slow/scenarios/i*/*.scn; do
	sed -i 's/^\[workload\]$/&\nstep = sleep 5/' "$f" || fail "cannot edit $f"
done
cd "$T/slow" || fail "cannot cd to $T/slow"
[ "$(grep -l '^step = sleep 5$' scenarios/i*/*.scn | wc -l)" -ge 2 ] || fail "no slowed scenario in $T/slow"
set -f
# 1 s without a finished case: every case takes longer, so the first ones
# are stopped and the others never start
expect 3 "--watchdog 1" $F $sel --jobs 2 --watchdog 1 --out "$T/w1"
grep -q "watchdog: no case finished for 1 s" "$T/err" || check_fail "no watchdog line on stderr"
[ "$(wc -l < "$T/w1/cases.jsonl")" -eq 4 ] ||
	check_fail "the stopped run holds $(wc -l < "$T/w1/cases.jsonl") records, expected all 4"
n=$(grep -c '"infra":"watchdog: no case finished for 1 s; this case was \(stopped\|never started\)' "$T/w1/cases.jsonl")
[ "$n" -ge 3 ] || check_fail "$n of 4 records say the watchdog stopped them (at least 3 expected)"
grep -q '"fired": "' "$T/w1/run.json" || check_fail "run.json does not say when the watchdog fired"
# a worker that does not answer SIGTERM (stopped) is killed after the
# grace, and its QEMU and nbdkit go with it
$F $sel --jobs 1 --watchdog 3 --out "$T/w2" > "$T/w2.log" 2>&1 &
fpid=$!
i=0 worker=
while [ -z "$worker" ] && [ $i -lt 600 ] && kill -0 $fpid 2>/dev/null; do
	q=$(pgrep -f -- "qemu-system.*$T" | head -n 1)
	[ -n "$q" ] && worker=$(ps -o ppid= -p "$q" | tr -d ' ')
	sleep 0.1
	i=$((i + 1))
done
[ -n "$worker" ] || fail "no QEMU of the watchdog run appeared"
kill -STOP "$worker"
start=$(date +%s)
wait $fpid
rc=$?
took=$(($(date +%s) - start))
tail -n 3 "$T/w2.log"
[ $rc -eq 3 ] && ok "a stopped worker: exit 3 after $took s" || check_fail "a stopped worker: exit $rc, expected 3"
[ $took -le 60 ] || check_fail "the watchdog took $took s to end a run with a stopped worker"
grep -q '"infra":"watchdog: no case finished for 3 s; this case was stopped after [0-9]* s; the case said: the case worker was killed by a signal"' \
	"$T/w2/cases.jsonl" || check_fail "no record of the killed worker's case"
[ "$(wc -l < "$T/w2/cases.jsonl")" -eq 4 ] || check_fail "the run with a stopped worker does not hold all 4 cases"
i=0
while [ -n "$(leftovers)" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
p=$(leftovers)
[ -z "$p" ] || { ps -o pid,args -p "$(echo $p | tr ' ' ,)"; check_fail "processes left behind: $p"; }
left=$(find "$T" -mindepth 1 -maxdepth 1 -name 'flipbed-*')
[ -z "$left" ] || check_fail "private directories left in $T: $left"
finish

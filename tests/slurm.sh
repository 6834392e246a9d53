#!/bin/sh
# SPDX-License-Identifier: MIT
# A real job engine: a single-node Slurm cluster (munged, slurmctld and
# slurmd, with a private config, key, state, logs and ports in
# build/slurm/) runs the ci matrix of the stock kernel as a 4-task job
# array of docs/slurm/flipbed-matrix.sbatch (--shard auto), then
# docs/slurm/flipbed-merge.sbatch as a job that depends on it. The merged
# case set and every case's verdict must equal a run of the same matrix on
# this machine alone; a case that differs is named. The daemons are stopped
# by their pids, and nothing of the cluster is left: no process, no
# listening port or socket, no state outside build/slurm/. Installs
# slurm-wlm and munge from Debian when missing (as root). When Slurm cannot
# be installed or started, the test is reported "not run" (skipped), never
# passed; under CI, which runs as root and so can install and start it,
# that is a failure: make check-slurm must not pass having run nothing. A
# user who is not root gets the skip under CI too (nothing can install the
# packages then). Wall times go to build/slurm/times.
# Groups: slurm.
set -u
. "$(dirname "$0")/lib.sh"
require_built "$B/bin/flipbed" build/bin/flipbed
require_built "$B/guest/initramfs.cpio.gz" build/guest/initramfs.cpio.gz
require_built "$B/lib/nbdkit-flipbed-plugin.so" build/lib/nbdkit-flipbed-plugin.so
require_kernel stock
require_tools qemu-system-x86_64 nbdkit mkfs.ext4 debugfs e2fsck pgrep
cd "$top" || fail "cannot cd to $top"
t0=$(date +%s)
S=$B/slurm
matrix=ci
args="--kernel stock"
shards=4

# --- Slurm and munge from Debian -------------------------------------------
have_slurm() {
	for _p in munged slurmctld slurmd sbatch squeue scontrol sinfo; do
		command -v "$_p" >/dev/null 2>&1 || return 1
	done
}
if ! have_slurm; then
	[ "$(id -u)" -eq 0 ] ||
		skip_anywhere "not run: slurm-wlm and munge are not installed, and only root installs them"
	echo "installing slurm-wlm and munge"
	{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends slurm-wlm munge; } > "$T/apt.log" 2>&1 ||
		{ tail -n 5 "$T/apt.log"; skip "not run: cannot install slurm-wlm and munge (apt-get failed)"; }
	have_slurm || skip "not run: slurm-wlm and munge installed, but their programs are missing"
fi

# --- one build of flipbed, one set of scenarios, for every shard ------------
# The merge compares build ids and selections (which hash the scenario
# files), and this tree's build/bin/flipbed may be rebuilt, or a scenario
# edited, while the array runs: the single run and the jobs use a copy of
# flipbed and of scenarios/, as a cluster runs one checkout. Kernels and the
# golden image cache are shared (found beside bin/).
# A cluster left by an earlier run of this test, killed before its cleanup,
# is stopped first: only processes whose pid file is ours and whose
# command line names our directory.
for f in "$S"/run/*.pid; do
	[ -f "$f" ] || continue
	p=$(cat "$f")
	case $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null) in
	*"$S"*) kill "$p" 2>/dev/null && echo "stopped pid $p of an earlier run ($f)" ;;
	esac
done
rm -rf "$S"
mkdir -p "$S/flipbed/bin" "$S/flipbed/guest" "$S/flipbed/lib" "$S/munge" "$S/state" \
	"$S/spool" "$S/log" "$S/run" "$S/out" "$S/runs" "$B/cache" || fail "cannot make $S"
cp "$B/bin/flipbed" "$S/flipbed/bin/" && cp "$B/guest/initramfs.cpio.gz" "$S/flipbed/guest/" &&
	cp "$B/lib/nbdkit-flipbed-plugin.so" "$S/flipbed/lib/" &&
	ln -s "$B/kernel" "$S/flipbed/kernel" && ln -s "$B/cache" "$S/flipbed/cache" ||
	fail "cannot copy flipbed into $S/flipbed"
F=$S/flipbed/bin/flipbed
tree=$S/tree
mkdir -p "$tree" && cp -r scenarios "$tree/" || fail "cannot copy scenarios/ into $tree"
cd "$tree" || fail "cannot cd to $tree"
: > "$S/times"

# secs START: whole seconds since START (date +%s).
secs() { echo $(($(date +%s) - $1)); }

# --- the cluster ---------------------------------------------------------------
# free_port P: the first TCP port from P on that nothing on this machine uses.
free_port() {
	_p=$1
	while grep -qi ":$(printf %04X "$_p") " /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
		_p=$((_p + 1))
	done
	echo "$_p"
}
node=$(uname -n | cut -d. -f1)
ctld_port=$(free_port 26817)
slurmd_port=$(free_port $((ctld_port + 1)))
dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null &&
	chmod 400 "$S/munge/munge.key" || fail "cannot make a munge key"
: > "$S/plugstack.conf"
cat > "$S/slurm.conf" <<EOF
# flipbed's single-node test cluster (tests/slurm.sh): every path is private.
ClusterName=flipbed
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/munge.sock
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
PlugStackConfig=$S/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=flipbed Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$S/slurm.conf"

# What was running before: any slurm or munge process after the test that
# is not in this list is one the test left.
pgrep 'slurm|munge' | sort > "$T/before"
: > "$T/marker"
pid_munged= pid_slurmctld= pid_slurmd= job= merge_job=

# stop_daemons: each daemon by its pid, SIGTERM then SIGKILL after 10 s.
stop_daemons() {
	for _d in slurmd slurmctld munged; do
		eval "_pid=\${pid_$_d}"
		[ -n "$_pid" ] || continue
		kill "$_pid" 2>/dev/null
		_i=0
		while kill -0 "$_pid" 2>/dev/null && [ $_i -lt 100 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		kill -0 "$_pid" 2>/dev/null && { echo "$_d ($_pid) ignored SIGTERM: SIGKILL"; kill -9 "$_pid"; }
		wait "$_pid" 2>/dev/null
		eval "pid_$_d="
	done
}
cleanup() {
	[ -n "$job$merge_job" ] && [ -n "$pid_slurmctld" ] && scancel $job $merge_job 2>/dev/null
	_i=0
	while [ -n "$job$merge_job" ] && [ -n "$pid_slurmctld" ] && [ $_i -lt 30 ] &&
	      [ -n "$(squeue -h -j "$job,$merge_job" 2>/dev/null)" ]; do
		sleep 1
		_i=$((_i + 1))
	done
	stop_daemons
	_p=$(pgrep -f -- "$T" || true)
	[ -n "$_p" ] && kill -9 $_p 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# not_run WHY: Slurm did not come up; say why, with the log that says it.
not_run() {
	for _l in "$S"/log/*; do
		echo "--- $_l"
		tail -n 5 "$_l"
	done
	stop_daemons
	skip "not run: slurm cannot start here: $*"
}

t=$(date +%s)
munged -F --force --key-file="$S/munge/munge.key" --socket="$S/munge/munge.sock" \
	--pid-file="$S/run/munged.pid" --log-file="$S/log/munged.log" \
	--seed-file="$S/munge/munged.seed" > "$S/log/munged.out" 2>&1 &
pid_munged=$!
i=0
while [ ! -S "$S/munge/munge.sock" ] && kill -0 $pid_munged 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -S "$S/munge/munge.sock" ] || not_run "munged made no socket"
slurmctld -D -c -f "$S/slurm.conf" > "$S/log/slurmctld.out" 2>&1 &
pid_slurmctld=$!
slurmd -D -N "$node" -f "$S/slurm.conf" > "$S/log/slurmd.out" 2>&1 &
pid_slurmd=$!
i=0
while [ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" != idle ] && [ $i -lt 60 ]; do
	kill -0 $pid_slurmctld 2>/dev/null || not_run "slurmctld exited"
	kill -0 $pid_slurmd 2>/dev/null || not_run "slurmd exited"
	sleep 0.5
	i=$((i + 1))
done
[ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" = idle ] ||
	not_run "node $node is not idle after 30 s ($(sinfo -h -n "$node" -o %T 2>&1))"
echo "cluster up in $(secs $t) s: munged $pid_munged, slurmctld $pid_slurmctld, slurmd $pid_slurmd; ports $ctld_port, $slurmd_port"

# --- the same matrix on this machine alone ----------------------------------
echo "== flipbed matrix $matrix $args on this machine ($(nproc) jobs)"
t=$(date +%s)
$F matrix $matrix $args --jobs "$(nproc)" --out "$S/single" > "$S/single.log" 2>&1
single_rc=$?
single_s=$(secs $t)
tail -n 3 "$S/single.log"
echo "single machine: $single_s s (exit $single_rc)" | tee -a "$S/times"
[ -s "$S/single/cases.jsonl" ] || fail "the single run wrote no cases (exit $single_rc, $S/single.log)"

# --- the array and its merge -----------------------------------------------------
echo "== sbatch --array=1-$shards docs/slurm/flipbed-matrix.sbatch, then the merge job"
export FLIPBED="$F" FLIPBED_MATRIX="$matrix" FLIPBED_ARGS="$args" FLIPBED_RESULTS="$S/runs"
t=$(date +%s)
job=$(sbatch --parsable --array=1-$shards --cpus-per-task=1 --chdir="$tree" \
	--output="$S/out/%A_%a.log" "$top/docs/slurm/flipbed-matrix.sbatch") ||
	fail "sbatch of the array failed: $job"
merge_job=$(sbatch --parsable --dependency=afterany:$job --chdir="$tree" \
	--output="$S/out/merge.log" "$top/docs/slurm/flipbed-merge.sbatch" "$job") ||
	fail "sbatch of the merge failed: $merge_job"
echo "array job $job, merge job $merge_job"
i=0
while [ -n "$(squeue -h -j "$job,$merge_job" 2>/dev/null)" ] && [ $i -lt 3600 ]; do
	[ $((i % 60)) -eq 0 ] && squeue -h -j "$job,$merge_job" -o '%i %T %M' | tr '\n' ';' && echo
	sleep 1
	i=$((i + 1))
done
[ -z "$(squeue -h -j "$job,$merge_job" 2>/dev/null)" ] || fail "the jobs still run after 3600 s"
sharded_s=$(secs $t)
echo "sharded through Slurm ($shards tasks, $(nproc) at a time, 1 job each, merge included): $sharded_s s" |
	tee -a "$S/times"
for k in $(seq 1 $shards); do
	echo "task $k: $(scontrol -o show job "${job}_$k" 2>/dev/null |
		sed -n 's/.* \(JobState=[A-Z]*\) .* \(ExitCode=[0-9:]*\) .*/\1 \2/p')"
	grep -q "\"shard\": \"$k/$shards\"" "$S/runs/$job/shard-$k/run.json" 2>/dev/null ||
		check_fail "task $k's run.json does not say shard $k/$shards"
	grep -q '"shard_from": "Slurm array: SLURM_ARRAY_TASK_ID=' "$S/runs/$job/shard-$k/run.json" 2>/dev/null ||
		check_fail "task $k did not take its shard from the Slurm array"
done
merge_rc=$(scontrol -o show job "$merge_job" 2>/dev/null | sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p')
tail -n 4 "$S/out/merge.log"
merged=$S/runs/$job/merged
[ -s "$merged/cases.jsonl" ] || { cat "$S/out/merge.log"; fail "the merge job wrote no $merged/cases.jsonl"; }
[ "$merge_rc" = "$single_rc" ] && ok "the merge job exited $merge_rc, as the single run did" ||
	check_fail "the merge job exited ${merge_rc:-?}, the single run $single_rc"

# --- the same cases, the same verdicts ---------------------------------------------
verdicts() { jq -r '"\(.case) \(.verdict)"' "$1" | sort; }
verdicts "$S/single/cases.jsonl" > "$S/single.verdicts"
verdicts "$merged/cases.jsonl" > "$S/sharded.verdicts"
n=$(wc -l < "$S/single.verdicts")
join -a 1 -a 2 -e missing -o 0,1.2,2.2 "$S/single.verdicts" "$S/sharded.verdicts" |
	awk '$2 != $3 { print "case " $1 ": single run " $2 ", sharded " $3 }' > "$S/differ"
if [ -s "$S/differ" ]; then
	cat "$S/differ"
	check_fail "$(wc -l < "$S/differ") of $n cases differ between the single and the sharded run"
else
	ok "the merged run holds the single run's $n cases with the same verdicts"
fi
[ "$n" -eq "$($F matrix $matrix $args --list | wc -l)" ] ||
	check_fail "the single run holds $n cases, the matrix has $($F matrix $matrix $args --list | wc -l)"
"$F" diff "$S/single" "$merged" > "$S/diff.out" 2>&1
echo "flipbed diff single sharded (outcomes): exit $?, $(tail -n 1 "$S/diff.out")"

# --- nothing left -----------------------------------------------------------------
failed_before=$_failures
job= merge_job=
stop_daemons
sleep 0.5
pgrep 'slurm|munge' | sort > "$T/after"
# A zombie has exited and holds nothing but its pid: slurmd's step daemons
# (slurmstepd) detach, so when one ends after slurmd it is reaped by the
# init of the machine or container, and where that init does not reap
# (CI's does not) it stays a zombie for ever. It is named, not counted as
# a process the test left running.
left= zombies=
for p in $(comm -13 "$T/before" "$T/after"); do
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$p/status" 2>/dev/null)
	case $st in
	'') ;;
	Z) zombies="$zombies $p" ;;
	*) left="$left $p" ;;
	esac
done
[ -z "$zombies" ] || { ps -o pid,ppid,stat,args -p "$(echo $zombies | tr ' ' ,)";
	echo "note: exited, not reaped by their parent (not running):$zombies"; }
[ -z "$left" ] || { ps -o pid,stat,args -p "$(echo $left | tr ' ' ,)"; check_fail "processes left:$left"; }
p=$(pgrep -f -- "$S/" || true)
[ -z "$p" ] || { ps -o pid,args -p "$(echo $p | tr ' ' ,)"; check_fail "processes naming $S left: $p"; }
p=$(pgrep -f -- "$T" || true)
[ -z "$p" ] || { ps -o pid,args -p "$(echo $p | tr ' ' ,)"; check_fail "QEMU or nbdkit left: $p"; }
for port in $ctld_port $slurmd_port; do
	grep -qi ":$(printf %04X $port) .* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null &&
		check_fail "port $port still listens"
done
[ ! -e "$S/munge/munge.sock" ] || check_fail "munge's socket $S/munge/munge.sock is left"
# (this test's own output may be a file named so: it is not the cluster's;
# nor is anything in this repository, which may itself be under /tmp:
# $S is build/slurm)
outside=$(find /run /var/run /var/spool /var/log /var/lib /etc /tmp /dev/shm -maxdepth 3 \
	\( -iname '*slurm*' -o -iname '*munge*' \) -newer "$T/marker" 2>/dev/null |
	grep -vFx -e "$(readlink -f /proc/$$/fd/1)" -e "$(readlink -f /proc/$$/fd/2)" |
	awk -v top="$(cd "$top" && pwd -P)/" 'index($0 "/", top) != 1' | sort -u)
[ -z "$outside" ] || check_fail "state written outside $S: $outside"
[ -z "$(find "$T" -mindepth 1 -maxdepth 1 -name 'flipbed-*')" ] ||
	check_fail "flipbed's private directories are left in $T"
[ $_failures -eq "$failed_before" ] &&
	ok "daemons stopped by pid; no process, port, socket or state of the cluster left outside $S"
echo "tests/slurm.sh: $(secs $t0) s in all" | tee -a "$S/times"
finish

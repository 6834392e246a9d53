# SPDX-License-Identifier: MIT
# flipbed's shell test library, sourced by every test script (corruptor,
# harness, kernel, plugin). It gives each test the same words:
#
#   fail MSG          the test failed: print "FAIL: MSG", exit 1, at once
#   check_fail MSG    one check failed, the test goes on; finish() exits 1
#   skip MSG          a prerequisite is missing: print "SKIP: MSG", exit 77
#                     (tests/run reports it as skipped, never as passed)
#   ok MSG            one check passed
#   finish            exit 1 when a check_fail happened, else 0
#   require_tools T...        programs on PATH (make deps installs them)
#   require_built FILE HOW    a build product; HOW is the make target
#   require_kernel VARIANT... build/kernel/VARIANT/vmlinux
#   fuzz NAME BIN SECONDS CORPUS SEEDS CRASHES [OPTIONS]  a libFuzzer run
#   fuzz_target NAME SECONDS SEEDS [OPTIONS]  the same for build/tests/bin/NAME
#
# and a private scratch directory $T, also exported as TMPDIR so that
# flipbed puts its private directories there; it is removed at exit.
# $top is the repository, $B its build/ folder.
#
# A test states its groups on one line of its header comment:
#   # Groups: quick csum
# `tests/run -g GROUP` runs the tests of one group (`make check-quick`).
#
# Under CI (CI=true), a missing prerequisite that `make deps` or `make`
# provides is a failure, not a skip: CI installs and builds everything.

top=$(cd "$(dirname "$0")" && while [ ! -x tests/run ] && [ "$PWD" != / ]; do cd ..; done; pwd)
B=$top/build
_failures=0

skip() {
	if [ "${CI:-}" = true ] && [ "${_skip_ok_in_ci:-0}" != 1 ]; then
		echo "FAIL: under CI a prerequisite must be there: $*"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}
fail() { echo "FAIL: $*"; exit 1; }
check_fail() { echo "FAIL: $*"; _failures=$((_failures + 1)); }
ok() { echo "ok: $*"; }
finish() {
	if [ $_failures -ne 0 ]; then
		echo "$_failures check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}

# skip_anywhere MSG: a skip that CI accepts too (a prerequisite that no
# package of Debian provides here, e.g. a host feature).
skip_anywhere() { _skip_ok_in_ci=1 skip "$@"; }

require_tools() {
	for _t in "$@"; do
		command -v "$_t" >/dev/null 2>&1 || skip "$_t not installed (make deps)"
	done
}

require_built() {
	[ -e "$1" ] || skip "$1 not built (make $2)"
}

require_kernel() {
	for _v in "$@"; do
		require_built "$B/kernel/$_v/vmlinux" "build/kernel/$_v/bzImage"
	done
}

# fuzz NAME BIN SECONDS CORPUS SEEDS CRASHES [libFuzzer options...]: run a
# libFuzzer target for SECONDS from CORPUS (written) and SEEDS (only read),
# keeping crashing inputs in CRASHES, with its log in $T/NAME.log, and say
# in one line what it did:
#   NAME: N executions in S s (R/s); corpus C inputs (+M new); K crashes
# Returns non-zero when the target failed or kept a crashing input.
# FLIPBED_FUZZ_TIMEOUT (default 10) is libFuzzer's -timeout, seconds of wall
# time for one input: on a machine busy with other work, or at a low
# scheduling priority, a fast input can wait longer than that for a CPU
# and be kept as a "timeout" that is not one.
fuzz() {
	_name=$1 _bin=$2 _secs=$3 _corpus=$4 _seeds=$5 _crashes=$6
	shift 6
	mkdir -p "$_corpus" "$_crashes" || return 1
	_before=$(find "$_corpus" -maxdepth 1 -type f | wc -l)
	_found=$(find "$_crashes" -maxdepth 1 -type f | wc -l)
	"$_bin" -max_total_time="$_secs" -timeout="${FLIPBED_FUZZ_TIMEOUT:-10}" -print_final_stats=1 \
		-artifact_prefix="$_crashes/" "$@" "$_corpus" "$_seeds" > "$T/$_name.log" 2>&1
	_rc=$?
	# libFuzzer's closing lines, or the end of its report when it failed
	if [ $_rc -eq 0 ]; then
		grep -e '^Done' -e '^stat::' "$T/$_name.log"
	else
		grep -v '^"' "$T/$_name.log" | tail -n 60
	fi
	_execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/$_name.log")
	_took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$T/$_name.log")
	_after=$(find "$_corpus" -maxdepth 1 -type f | wc -l)
	_found=$(($(find "$_crashes" -maxdepth 1 -type f | wc -l) - _found))
	[ $_rc -eq 0 ] || [ "$_found" -gt 0 ] || _found=1
	if [ -n "$_took" ]; then
		_ran="${_execs:-0} executions in $_took s ($((${_execs:-0} / (_took > 0 ? _took : 1)))/s)"
	else
		_ran="${_execs:-0} executions before it stopped early"
	fi
	_kept=
	[ "$_found" -eq 0 ] || _kept=" (rc $_rc; inputs in $_crashes)"
	echo "$_name: $_ran; corpus $_after inputs (+$((_after - _before)) new);" \
		"$_found crashes$_kept"
	[ "$_found" -eq 0 ]
}

# fuzz_target NAME SECONDS SEEDS [libFuzzer options...]: fuzz with the
# target build/tests/bin/NAME as a component's fuzz test runs it: for
# FLIPBED_FUZZ_SECONDS (default SECONDS), from FLIPBED_FUZZ_CORPUS (default a
# directory removed at exit), crashes kept in FLIPBED_FUZZ_CRASHES (default
# build/tests/NAME-crashes); FLIPBED_FUZZER names another binary.
fuzz_target() {
	_fz=${FLIPBED_FUZZER:-$B/tests/bin/$1}
	require_built "$_fz" "build/tests/bin/$1"
	_fn=$1 _fs=${FLIPBED_FUZZ_SECONDS:-$2} _fseeds=$3
	shift 3
	fuzz "$_fn" "$_fz" "$_fs" "${FLIPBED_FUZZ_CORPUS:-$T/corpus}" "$_fseeds" \
		"${FLIPBED_FUZZ_CRASHES:-$B/tests/$_fn-crashes}" "$@"
}

T=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-test.XXXXXX") || exit 1
export TMPDIR=$T
trap 'rm -rf "$T"' EXIT

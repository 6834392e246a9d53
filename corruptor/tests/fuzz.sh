#!/bin/sh
# SPDX-License-Identifier: MIT
# corruptor: fuzz map, verify, print and pick (the libFuzzer target
# corruptor-fuzz, tests/fuzz.c) on mutated small images for a bounded time,
# starting from the committed seeds and regression inputs in
# tests/fuzz-corpus (read, never written), and say what the run did:
#   corruptor-fuzz: N executions in S s (R/s); corpus C inputs (+M new);
#   K crashes
#
#   FLIPBED_FUZZ_SECONDS  how long (default 20)
#   FLIPBED_FUZZ_CORPUS   a directory that keeps the inputs the run finds
#                         (else a temporary directory removed at exit)
#   FLIPBED_FUZZ_CRASHES  where a crashing input is kept
#                         (default build/tests/corruptor-fuzz-crashes)
# Groups: fuzz.
set -u
here=$(dirname "$0")
. "$here/../../tests/lib.sh"
fuzzer=${FLIPBED_FUZZER:-$B/tests/bin/corruptor-fuzz}
secs=${FLIPBED_FUZZ_SECONDS:-20}
crashes=${FLIPBED_FUZZ_CRASHES:-$B/tests/corruptor-fuzz-crashes}
require_built "$fuzzer" build/tests/bin/corruptor-fuzz
work=$T
corpus=${FLIPBED_FUZZ_CORPUS:-$work/corpus}
mkdir -p "$corpus" "$crashes" || exit 1

count() { find "$1" -maxdepth 1 -type f | wc -l; }
artifacts() { find "$crashes" -maxdepth 1 -type f | wc -l; }

before=$(count "$corpus")
found_before=$(artifacts)
# Inputs are image prefixes: the seeds are 14 to 27 KiB.
"$fuzzer" -max_total_time="$secs" -max_len=32768 -timeout=10 \
	-rss_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="$crashes/" "$corpus" "$here/fuzz-corpus" \
	> "$work/log" 2>&1
rc=$?
cat "$work/log"
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$work/log")
after=$(count "$corpus")
found=$(($(artifacts) - found_before))
[ -n "$execs" ] || execs=0
[ -n "$took" ] || took=$secs
kept=
[ "$found" -eq 0 ] || kept=" (in $crashes)"
echo "corruptor-fuzz: $execs executions in $took s" \
	"($((execs / (took > 0 ? took : 1)))/s); corpus $after inputs" \
	"(+$((after - before)) new) besides $(count "$here/fuzz-corpus")" \
	"committed; $found crashes$kept"
[ $rc -eq 0 ] && [ "$found" -eq 0 ]

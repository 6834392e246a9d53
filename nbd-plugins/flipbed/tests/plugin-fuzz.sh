#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed plugin: fuzz the rule and control-line parsers (the libFuzzer
# target plugin-fuzz, tests/fuzz.c) for a bounded time and say what the run
# did in the last output line:
#   plugin-fuzz: N executions in S s (R/s); corpus C inputs (+M new) in
#   DIR besides the seeds; K crashes
#
#   FLIPBED_FUZZ_SECONDS  how long (default 60)
#   FLIPBED_FUZZ_CORPUS   a directory that keeps the inputs the run finds, and
#                         whose inputs the next run starts from (make
#                         fuzz-long: build/fuzz/plugin-corpus); without it
#                         they go to a temporary directory removed at exit
#   FLIPBED_FUZZ_CRASHES  where a crashing input is kept
#                         (default build/tests/plugin-fuzz-crashes)
# The committed seeds in tests/fuzz-corpus are read, never written.
set -u
here=$(dirname "$0")
. "$here/../../../tests/lib.sh"
fuzzer=${FLIPBED_FUZZER:-$B/tests/bin/plugin-fuzz}
secs=${FLIPBED_FUZZ_SECONDS:-60}
crashes=${FLIPBED_FUZZ_CRASHES:-$B/tests/plugin-fuzz-crashes}
require_built "$fuzzer" build/tests/bin/plugin-fuzz
# The seeds are committed: small text inputs, none cut by -max_len.
big=$(find "$here/fuzz-corpus" -type f -size +4096c)
if [ -n "$big" ]; then
	echo "seeds over 4096 bytes (-max_len) in $here/fuzz-corpus:" $big
	exit 1
fi
work=$T
trap 'rm -rf "$work"' EXIT INT TERM
corpus=${FLIPBED_FUZZ_CORPUS:-$work/corpus}
mkdir -p "$corpus" "$crashes" || exit 1

# count DIR: the regular files in DIR
count() { find "$1" -maxdepth 1 -type f | wc -l; }
# artifacts: the crash, leak, timeout and out-of-memory inputs kept so far
artifacts() { find "$crashes" -maxdepth 1 -type f | wc -l; }

before=$(count "$corpus")
found_before=$(artifacts)
"$fuzzer" -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-print_final_stats=1 -artifact_prefix="$crashes/" \
	"$corpus" "$here/fuzz-corpus" > "$work/log" 2>&1
rc=$?
cat "$work/log"
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$work/log")
after=$(count "$corpus")
found=$(($(artifacts) - found_before))
[ -n "$execs" ] || execs=0
# No "Done" line: it stopped early (a crash); no rate to give.
if [ -n "$took" ]; then
	ran="$execs executions in $took s ($((execs / (took > 0 ? took : 1)))/s)"
else
	ran="$execs executions before it stopped early"
fi
where=$corpus
[ -n "${FLIPBED_FUZZ_CORPUS:-}" ] || where="a temporary directory"
kept=
[ "$found" -eq 0 ] || kept=" (in $crashes)"
echo "plugin-fuzz: $ran;" \
	"corpus $after inputs (+$((after - before)) new) in $where" \
	"besides $(count "$here/fuzz-corpus") seeds; $found crashes$kept"
[ $rc -eq 0 ] && [ "$found" -eq 0 ]

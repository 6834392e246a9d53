#!/bin/sh
# flipbed plugin: fuzz the rule and control-line parsers for a bounded time
# (FLIPBED_FUZZ_SECONDS, default 60). The seeds in tests/fuzz-corpus are
# read only; what the run finds goes to a temporary directory, and a crash
# input is kept in build/tests/plugin-fuzz-crashes/.
set -u
here=$(dirname "$0")
fuzzer=${FLIPBED_FUZZER:-build/tests/bin/plugin-fuzz}
secs=${FLIPBED_FUZZ_SECONDS:-60}
if [ ! -x "$fuzzer" ]; then
	echo "no fuzzer at $fuzzer (needs clang-14, libfuzzer-14-dev)"
	exit 77
fi
work=$(mktemp -d /tmp/flipbed-fuzz.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
crashes=build/tests/plugin-fuzz-crashes
mkdir -p "$crashes"
"$fuzzer" -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-artifact_prefix="$crashes/" "$work" "$here/fuzz-corpus"

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
# Groups: fuzz.
set -u
here=$(dirname "$0")
. "$here/../../../tests/lib.sh"
# The seeds are committed: small text inputs, none cut by -max_len.
big=$(find "$here/fuzz-corpus" -type f -size +4096c)
if [ -n "$big" ]; then
	echo "seeds over 4096 bytes (-max_len) in $here/fuzz-corpus:" $big
	exit 1
fi
fuzz_target plugin-fuzz 60 "$here/fuzz-corpus" -max_len=4096

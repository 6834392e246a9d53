#!/bin/sh
# SPDX-License-Identifier: MIT
# corruptor: fuzz map, verify, print and pick (the libFuzzer target
# corruptor-fuzz, tests/fuzz.c) on mutated small images for a bounded time,
# starting from the committed seeds and regression inputs in
# tests/fuzz-corpus (read, never written), and say what the run did:
#   corruptor-fuzz: N executions in S s (R/s); corpus C inputs (+M new);
#   K crashes (tests/lib.sh's fuzz)
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
# Inputs are image prefixes: the seeds are 14 to 27 KiB.
fuzz_target corruptor-fuzz 20 "$here/fuzz-corpus" -max_len=32768 -rss_limit_mb=1024

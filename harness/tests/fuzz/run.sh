#!/bin/sh
# SPDX-License-Identifier: MIT
# Fuzz every parser of the harness (the libFuzzer targets of fuzz.mk) for a
# bounded time each, starting from the committed seeds and regression
# inputs in corpus/NAME/, which are read and never written, and say per
# target what the run did:
#   fuzz-NAME: N executions in S s; corpus C inputs; K crashes
# A crash, leak, hang (10 s for one input) or sanitizer report fails the
# test; the input is kept in build/tests/fuzz-crashes/NAME/ (with
# FLIPBED_FUZZ_KEEP: DIR/harness-NAME-crashes/) to be committed to
# corpus/NAME/ with the fix.
#
#   FLIPBED_FUZZ_SECONDS  seconds per target (default 13: libFuzzer overruns
#                         it by 2 to 3 s, so about 15 s each, 80 s in all)
#   FLIPBED_FUZZ_KEEP     a directory (make fuzz-long: build/fuzz) that keeps
#                         each target's corpus in DIR/harness-NAME, grown from
#                         run to run; the line then says the coverage too
#                         (libFuzzer's cov: figure). Without it each target
#                         runs on a copy of its corpus, removed at exit.
#   FLIPBED_FUZZ_TARGETS  the targets to run (default all five)
#
# Groups: fuzz
. "$(dirname "$0")/../../../tests/lib.sh"
here=$top/harness/tests/fuzz
secs=${FLIPBED_FUZZ_SECONDS:-13}
keep=${FLIPBED_FUZZ_KEEP:-}
targets=${FLIPBED_FUZZ_TARGETS:-scenario matrix classify runload steps}
[ -z "$keep" ] || keep=$(mkdir -p "$keep" && cd "$keep" && pwd) || fail "cannot use $keep"

for name in $targets; do
	bin=$B/tests/bin/fuzz-$name
	require_built "$bin" "$bin"
done
# The targets read real scenarios and fixtures from the repository's top.
cd "$top" || fail "cannot enter $top"
for name in $targets; do
	bin=$B/tests/bin/fuzz-$name
	seeds=$here/corpus/$name
	if [ -n "$keep" ]; then
		corpus=$keep/harness-$name
		crashes=$keep/harness-$name-crashes
		mkdir -p "$corpus"
	else
		corpus=$T/corpus-$name
		crashes=$B/tests/fuzz-crashes/$name
		cp -r "$seeds" "$corpus" || fail "cannot copy $seeds"
	fi
	# -close_fd_mask=3: the parsers' messages about bad input are not
	# wanted; libFuzzer's own report still comes on stderr.
	fuzz fuzz-$name "$bin" "$secs" "$corpus" "$seeds" "$crashes" \
		-max_len=8192 -rss_limit_mb=1024 -close_fd_mask=3 ||
		check_fail "fuzz-$name found a crashing input"
	[ -z "$keep" ] ||
		echo "fuzz-$name: cov $(sed -n 's/^#[0-9]*.* cov: \([0-9]*\) .*/\1/p' "$T/fuzz-$name.log" | tail -n 1) in $corpus"
done
finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# Cut a case's transcript.log (flipbed run --keep: DIR/cases/CASE/) into
# the body of a golden file: the host's lines, the agent's lines (steps,
# fserror events) and the kernel messages that concern ext4, jbd2 or the
# block layer as /dev/kmsg carried them. Boot messages and the console's
# copy of each message are left out: the classifier reads the same message
# from either (classify.c). The header, written by a person who read the
# log, goes before it (test-classify.c).
#
# Usage: harness/tests/classify/cut.sh CASE_DIR > BODY
set -eu
t=$1/transcript.log
[ -r "$t" ] || { echo "cut.sh: no $t (run the case with --keep)" >&2; exit 2; }
awk '
/^C / { next }
/^A kmsg / {
	split($0, w, " ")
	text = $0
	for (i = 1; i <= 5; i++)
		sub(/^[^ ]* /, "", text)
	if (text ~ /^(EXT4-fs|JBD2|I\/O error|Buffer I\/O error|Aborting journal|flipbed-mark)/ ||
	    text ~ /(WARNING:|BUG:|UBSAN:)/)
		print
	next
}
{ print }' "$t"

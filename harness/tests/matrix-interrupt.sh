#!/bin/sh
# SPDX-License-Identifier: MIT
# A matrix interrupted with Ctrl-C (SIGINT) or SIGTERM stops, writes what it
# finished, exits non-zero, and leaves no QEMU, nbdkit or worker behind.
# Groups: quick.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_flipbed
require_kernel patched
flipbed=$FLIPBED
cd "$top" || exit 1
fail=0
for sig in INT TERM; do
	out=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-int.XXXXXX")
	# the ci matrix on one kernel (about 100 cases) cannot finish before the
	# signal; it comes once two cases are recorded, so workers are running
	"$flipbed" matrix ci --kernel patched --jobs 2 --out "$out/run" > "$out/log" 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 3000 ] && [ "$(cat "$out/run/cases.jsonl" 2>/dev/null | wc -l)" -lt 2 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -$sig $pid
	wait $pid
	rc=$?
	# workers and their QEMU/nbdkit run with the run directory or their
	# private directory (under this test's TMPDIR) in their command lines:
	# flipbed has exited, so each of them must be gone (or going: the
	# kernel delivers PDEATHSIG and reaps; wait for that, up to 10 s)
	i=0
	while :; do
		left=$(ps -eo pid,args | grep -E "qemu-system|nbdkit|flipbed matrix" | grep -v grep |
			while read -r p args; do
				case "$args" in *"$out"*|*"$T"/flipbed-*) echo "$p $args" ;; esac
			done)
		[ -z "$left" ] || [ $i -ge 100 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	if [ -n "$left" ]; then
		echo "FAIL SIG$sig: processes left:"; echo "$left"; fail=1
	fi
	if [ $rc -eq 0 ]; then
		echo "FAIL SIG$sig: exit 0 after an interruption"; fail=1
	fi
	if ! grep -q '"interrupted": true' "$out/run/run.json" 2>/dev/null; then
		echo "FAIL SIG$sig: run.json does not say interrupted"; fail=1
	fi
	n=$(wc -l < "$out/run/cases.jsonl" 2>/dev/null || echo 0)
	echo "SIG$sig: exit $rc, $n cases recorded, nothing left running"
	for d in "$T"/flipbed-??????; do
		[ -e "$d" ] && echo "FAIL SIG$sig: $d left behind"
	done | grep FAIL && fail=1
	rm -rf "$out"
done
exit $fail

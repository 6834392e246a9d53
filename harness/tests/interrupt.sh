#!/bin/sh
# SPDX-License-Identifier: MIT
# Interrupting flipbed mid-boot leaves nothing behind: SIGINT (Ctrl-C) and
# SIGTERM make it kill QEMU and nbdkit and exit 128+N; after SIGKILL, the
# children die of PR_SET_PDEATHSIG and --exit-with-parent. Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock
img=$T/img
mkimage "$img"
for sig in INT TERM KILL; do
	echo "=== SIG$sig"
	: > "$T/log"	# before the background job opens it: grep below needs it
	"$FLIPBED" boot --kernel stock --image "$img" --timeout 60 --step mount \
		--step 'sleep 100000' > "$T/log" 2>&1 &
	pid=$!
	i=0
	until grep -q '^step 1 mount -> ok' "$T/log"; do
		sleep 0.1
		i=$((i + 1))
		[ $i -lt 300 ] || { cat "$T/log"; fail "SIG$sig: the guest never reached its steps"; }
	done
	[ -n "$(leftovers)" ] || fail "SIG$sig: no QEMU/nbdkit found under $T while booted"
	kill -s "$sig" $pid
	wait $pid
	rc=$?
	tail -n 3 "$T/log"
	case $sig in
	INT) want=130 ;;
	TERM) want=143 ;;
	KILL) want=137 ;;
	esac
	[ $rc -eq $want ] || fail "SIG$sig: flipbed exited $rc, expected $want"
	no_leftovers
	echo "=== SIG$sig: exit $rc, nothing left"
done

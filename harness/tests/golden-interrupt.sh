#!/bin/sh
# SPDX-License-Identifier: MIT
# A Ctrl-C while a golden image is built leaves no build directory behind
# (build/cache/images/KEY.tmp-PID) and no image of the recipe in the cache,
# and exits 130 within 1 s with nothing booted, naming the build it cut
# short; a build directory left by a process that no longer runs (SIGKILL)
# is swept by the next build of that recipe. Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock
require_tools setsid
# the cache of the build FLIPBED belongs to (build/bin/flipbed -> build/cache)
cache=$(cd "$(dirname "$FLIPBED")/.." && pwd)/cache/images

# a recipe of its own (the file size is this test's PID) that takes a few
# seconds to build: 4,000 files indexed by e2fsck -fyD
cat > "$T/slow.scn" <<EOS
[scenario]
shows = A golden image slow enough to interrupt.
groups = quick
kernels = stock
[mkfs]
features = metadata_csum
options = -b 1024 -I 256
size = 256M
[populate]
file = /a $$
files = /dir 4000 10
index-dirs = yes
[target]
type = none
[workload]
step = mount
EOS

# its own process group, so that SIGINT reaches flipbed and the mkfs or
# e2fsck it runs, as a Ctrl-C on a terminal does
setsid "$FLIPBED" run "$T/slow.scn" --out "$T/run" > "$T/log" 2>&1 &
pid=$!
i=0
while [ $i -lt 600 ] && ! ls -d "$cache"/*.tmp-$pid > /dev/null 2>&1; do
	sleep 0.05
	i=$((i + 1))
done
tmp=$(ls -d "$cache"/*.tmp-$pid 2>/dev/null)
[ -n "$tmp" ] || { kill $pid; cat "$T/log"; fail "no build directory of PID $pid appeared"; }
sent=$(date +%s%N)
kill -INT -$pid
wait $pid
rc=$?
ms=$((($(date +%s%N) - sent) / 1000000))
cat "$T/log"
[ $rc -eq 130 ] || fail "exit $rc after SIGINT during the golden build, expected 130"
[ ! -e "$tmp" ] || fail "$tmp left behind"
[ ! -e "$T/run" ] || fail "a run directory was made after the interruption"
# at once (a tool running is killed, the staging tree is not written on),
# saying what was cut short; no half-built image in the cache
[ $ms -le 1000 ] || check_fail "flipbed exited $ms ms after SIGINT; at most 1000"
grep -q "interrupted (Interrupt) while building golden image .* for $T/slow.scn: its partial build $tmp is removed" "$T/log" ||
	check_fail "no message says which golden image build was cut short"
[ ! -e "${tmp%.tmp-*}" ] || check_fail "${tmp%.tmp-*} is in the cache after the interrupted build"
ok "interrupted golden build: exit 130 after $ms ms, $tmp removed"

# a dead process's build directory of the same recipe is swept
stale=${tmp%.tmp-*}.tmp-999999
kill -0 999999 2>/dev/null && skip_anywhere "PID 999999 is alive here"
mkdir -p "$stale"
"$FLIPBED" run "$T/slow.scn" --out "$T/run2" > "$T/log2" 2>&1 || { cat "$T/log2"; fail "the run after the interruption failed"; }
[ ! -e "$stale" ] || fail "$stale (a dead PID's build) was not swept"
ok "a dead build's directory swept"
no_leftovers
finish

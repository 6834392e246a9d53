#!/bin/sh
# SPDX-License-Identifier: MIT
# The host's data oracle is bounded: one flipped bit of i_size_high makes
# /a a valid sparse file of 128 GiB (resealed, so e2fsck and the kernel
# accept it). The oracle must call /a changed without reading it, and the
# golden image's own 128 GiB sparse file /b must be hashed over its first
# 256 MiB only. Before the bound, the oracle read every byte of both.
# With FLIPBED_ORACLE_SECONDS=0, e2fsck runs past its limit: infra.
# Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock
require_tools timeout

cat > "$T/size.scn" <<'EOS'
[scenario]
shows = A 128 GiB i_size from one flipped bit is judged without reading it.
groups = quick
kernels = stock

[mkfs]
features = metadata_csum
options = -b 4096 -I 256
size = 64M

[populate]
file = /a 5000
file = /b 5000
debugfs = sif /b size 0x2000001388

[target]
type = inode
path = /a
region = i_size_high
bits = 1
seed = 1
reseal = yes

[fault]
timing = rest

[workload]
step = mount
step = stat /a

[expect]
detect = none
reaction = none
fsck = clean
data = changed
EOS
start=$(date +%s)
timeout 120 "$FLIPBED" run "$T/size.scn" --jobs 1 --out "$T/run" > "$T/log" 2>&1
rc=$?
secs=$(($(date +%s) - start))
cat "$T/log"
[ $rc -ne 124 ] || fail "flipbed run did not end in 120 s: the oracle read the sparse files"
[ $rc -eq 0 ] || fail "exit $rc, expected 0 (data changed, nothing detected)"
json=$(cat "$T/run"/cases/*/case.json)
echo "$json" | grep -q '"data_detail": "/a: size differs"' ||
	fail "the oracle did not name /a's size: $(echo "$json" | grep data_detail)"
[ $secs -lt 60 ] || fail "the case took $secs s"
ok "128 GiB sparse files judged in $secs s (golden manifest and comparison)"

# every oracle phase has a time limit, and running past it is an infra
# reason, never an outcome: with a limit of 0 s e2fsck is killed at once
FLIPBED_ORACLE_SECONDS=0 timeout 120 "$FLIPBED" run "$T/size.scn" --jobs 1 --out "$T/run0" \
	> "$T/log0" 2>&1
rc=$?
[ $rc -eq 3 ] || { cat "$T/log0"; fail "a 0 s oracle limit: exit $rc, expected 3 (infra)"; }
grep -q '"infra": "e2fsck [-a-zA-Z_ ]* ran past 0 s"' "$T/run0"/cases/*/case.json ||
	fail "the record does not say e2fsck ran past its limit: $(grep '"infra"' "$T/run0"/cases/*/case.json)"
ok "an oracle past its time limit is infra"
no_leftovers

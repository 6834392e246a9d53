#!/bin/sh
# SPDX-License-Identifier: MIT
# The data oracle on a given image whose journal needs recovery. A guest
# writes /f (100 bytes), syncs, rewrites it with 5000 bytes, fsyncs it and
# crashes: the new size and extent are only in the journal (a sync would
# have written them in place too). A scenario that
# starts from that image ([mkfs] image =) with no fault and a workload that
# mounts (the kernel replays the journal) and reads /f must find the data
# intact: the reference manifest is taken after replaying the journal on a
# copy with e2fsck, and the case says so (data_reference). Taken from the
# image as it is, the replay read as "data changed".
# Groups: quick.
. "$(dirname "$0")/../../tests/lib.sh"
flipbed=${FLIPBED:-$B/bin/flipbed}
require_tools mkfs.ext4 e2fsck dumpe2fs
require_built "$flipbed" build/bin/flipbed
require_kernel stock

img=$T/crashed.img
mkfs.ext4 -q -F -b 4096 -O metadata_csum "$img" 64M >/dev/null 2>&1 || fail "mkfs.ext4"
"$flipbed" boot --kernel stock --image "$img" --timeout 120 --step mount \
	--step "write /f 100" --step sync --step "write /f 5000" --step "fsync /f" \
	--step crash > "$T/boot.out" 2>&1 || { cat "$T/boot.out"; fail "flipbed boot"; }
dumpe2fs -h "$img" 2>/dev/null | grep -q needs_recovery || fail "the crash left no journal to recover"
mkdir -p "$T/s"
cat > "$T/s/replay.scn" <<EOS
[scenario]
shows = A given image whose journal needs recovery: its files are compared after the replay.
groups = quick
kernels = stock
[mkfs]
image = $img
[target]
type = none
[workload]
step = mount
step = read /f 5000
[expect]
detect = none
reaction = none
data = intact
EOS
"$flipbed" run "$T/s/replay.scn" --out "$T/run" --jobs 1 > "$T/run.out" 2>&1
rc=$?
rec=$(find "$T/run/cases" -name case.json | head -n 1)
[ -n "$rec" ] || { cat "$T/run.out"; fail "no case record"; }
data=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['outcome']['data'], '|', d.get('data_detail'), '|', d.get('data_reference'))" "$rec")
echo "data: $data"
case $data in
"intact | "*"| golden image after journal replay (e2fsck -E journal_only)")
	ok "the replayed golden image is the reference: $data" ;;
*)	check_fail "expected intact against the replayed golden image, got: $data" ;;
esac
[ $rc = 0 ] && ok "flipbed run: exit 0" || check_fail "flipbed run: exit $rc"
finish

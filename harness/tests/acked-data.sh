#!/bin/sh
# SPDX-License-Identifier: MIT
# What the workload saw made durable must read back after the next mount:
# a file whose write and a later sync, fsync or umount succeeded is
# "acknowledged" (case.json "acknowledged"), and one the final image or a
# later read of it lacks makes outcome.data lost (changed for other bytes),
# whether or not a later step failed and whether or not the loss was
# detected. The iron dir-leaf write with a lost write (drop): write and
# sync succeed, the checkpoint at the umount never reaches the disk, the
# remount's read gets ENOENT; the inode write with a flipped bit: the
# remount's read gets EBADMSG (detected). A file whose sync failed is not
# acknowledged (dir-leaf, eio), nor a write through a descriptor opened
# before an error whose fsync-fd failed (data/open-fd-after-error.scn). A
# healthy workload keeps its acknowledged files intact.
# Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock

# run NAME SCENARIO [ARGS...]: its case.json in $T/NAME.json
run() {
	name=$1 scn=$2; shift 2
	"$FLIPBED" run "$scn" --kernel stock --jobs 1 --out "$T/run-$name" "$@" \
		> "$T/$name.log" 2>&1
	cat "$T/run-$name"/cases/*/case.json > "$T/$name.json" 2>/dev/null ||
		{ cat "$T/$name.log"; fail "$name: no case.json"; }
}

# field NAME EXPR: a python expression on the record r
field() {
	python3 -c "import json, sys; r = json.load(open(sys.argv[1])); print($2)" "$T/$1.json"
}

# acked NAME PATH: "DURABLE RESULT" of PATH in the record's acknowledged list
acked() {
	field "$1" "' '.join(next(([a['durable'], a['result']] for a in r.get('acknowledged') or [] if a['path'] == '$2'), ['missing']))"
}

run leaf scenarios/iron/dir-leaf/write.scn --set fault.action=drop
[ "$(acked leaf /dir/new)" = "sync step 4 lost" ] ||
	fail "dir-leaf drop: /dir/new acknowledged as '$(acked leaf /dir/new)', expected 'sync step 4 lost'"
[ "$(field leaf "r['outcome']['data']")" = lost ] ||
	fail "dir-leaf drop: data $(field leaf "r['outcome']['data']"), expected lost ($(field leaf "r['data_detail']"))"
field leaf "r['data_detail']" | grep -q '^/dir/new' ||
	fail "dir-leaf drop: data_detail does not name /dir/new: $(field leaf "r['data_detail']")"
ok "a synced file the lost write took is data lost"

run inode scenarios/iron/inode/write.scn --set fault.action=flip
[ "$(acked inode /a)" = "sync step 4 lost" ] ||
	fail "inode flip: /a acknowledged as '$(acked inode /a)', expected 'sync step 4 lost'"
[ "$(field inode "r['outcome']['data']")" = lost ] ||
	fail "inode flip: data $(field inode "r['outcome']['data']"), expected lost"
field inode "r['data_detail']" | grep -q 'EBADMSG' ||
	fail "inode flip: data_detail does not say the read got EBADMSG: $(field inode "r['data_detail']")"
ok "a synced file the next mount cannot read is data lost, detected"

run eio scenarios/iron/dir-leaf/write.scn --set fault.action=eio
[ "$(acked eio /dir/new)" = "none not-checked" ] ||
	fail "dir-leaf eio: /dir/new acknowledged as '$(acked eio /dir/new)', expected 'none not-checked' (its sync failed)"
ok "a file whose sync failed is not acknowledged, by that sync or a later umount"

run ofd scenarios/data/open-fd-after-error.scn
[ "$(acked ofd /f)" = "fsync step 3 intact" ] ||
	fail "open-fd-after-error: /f acknowledged as '$(acked ofd /f)', expected 'fsync step 3 intact'"
[ "$(field ofd "r['verdict']")" = pass ] ||
	fail "open-fd-after-error: verdict $(field ofd "r['verdict']"): $(field ofd "r['mismatch']")"
ok "a write through a descriptor opened before the error is not acknowledged by a failed fsync-fd"

mkdir -p "$T/s"
cat > "$T/s/healthy.scn" <<EOS
[scenario]
shows = A healthy workload: what it made durable is intact, what it did not is not acknowledged.
groups = quick
kernels = stock
[mkfs]
features = metadata_csum
options = -b 4096
size = 64M
[target]
type = none
[workload]
step = mount
step = write /a 5000
step = fsync /a
step = write /b 3000
step = sync
step = write /c 100
step = umount
step = mount
step = read /a 5000
[expect]
detect = none
reaction = none
fsck = clean
data = intact
EOS
run healthy "$T/s/healthy.scn"
[ "$(field healthy "r['verdict']")" = pass ] ||
	fail "healthy: verdict $(field healthy "r['verdict']"): $(field healthy "r['mismatch']")"
[ "$(acked healthy /a)" = "fsync step 3 intact" ] || fail "healthy: /a is '$(acked healthy /a)'"
[ "$(acked healthy /b)" = "sync step 5 intact" ] || fail "healthy: /b is '$(acked healthy /b)'"
[ "$(acked healthy /c)" = "umount step 7 intact" ] || fail "healthy: /c is '$(acked healthy /c)'"
ok "a healthy workload's acknowledged files are intact"
no_leftovers
echo "ok"

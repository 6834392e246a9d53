#!/bin/sh
# SPDX-License-Identifier: MIT
# fserror (fanotify), the second witness of ext4's error reports (guest/fserror.c,
# harness/witness/fserror.c). /d/small's inode checksum is zeroed at rest; the
# guest mounts and stats it. On a kernel with CONFIG_FANOTIFY the agent must
# send "fserror-watch /mnt" and "fserror EBADMSG INO 1" with /d/small's inode,
# and nothing but the watch on the same image without the fault. On a kernel
# without it the agent must say "fserror-unavailable fanotify_init ENOSYS"
# once and no event, and a case run on it must record the witness as
# unavailable (never as "no events") and not compare it. Stock and patched.
# While build/kernel/*/config lacks CONFIG_FANOTIFY=y the event path cannot
# be booted: the test then checks the rest and is reported skipped.
# Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock patched
require_tools python3

img=$T/base.img
mkfs.ext4 -q -F -b 4096 -O metadata_csum "$img" 64M || fail "mkfs.ext4"
printf 'mkdir d\nwrite /dev/null d/small\nwrite /dev/null d/good\n' |
	debugfs -w -f - "$img" > /dev/null 2>&1
ino=$(debugfs -R 'stat /d/small' "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
[ -n "$ino" ] || fail "image setup: /d/small has no inode"
cp "$img" "$T/clean.img"
debugfs -w -R 'set_inode_field /d/small checksum 0' "$img" || fail "debugfs -w"

# boot NAME VARIANT IMAGE STEP...: the agent's lines in $T/NAME.out
boot() {
	name=$1 variant=$2 image=$3
	shift 3
	cp "$image" "$T/$name.img"
	for s in "$@"; do set -- "$@" --step "$s"; shift; done
	"$FLIPBED" boot --kernel "$variant" --image "$T/$name.img" --timeout 120 "$@" \
		> "$T/$name.out" 2>&1
	echo "flipbed boot exit $?" >> "$T/$name.out"
	grep -v '^kmsg ' "$T/$name.out" | sed "s/^/    $name| /"
}
has() { grep -qxF -- "$2" "$T/$1.out"; }
count() { grep -c -- "$2" "$T/$1.out"; }

untested=
for v in stock patched; do
	echo "=== $v"
	boot "$v-bad" "$v" "$img" mount 'expect EBADMSG stat /d/small' 'stat /d/good' umount
	boot "$v-clean" "$v" "$T/clean.img" mount 'stat /d/small' 'stat /d/good' umount
	has "$v-bad" "step 2 expect EBADMSG stat /d/small -> err EBADMSG" ||
		check_fail "$v: stat /d/small did not fail with EBADMSG"
	has "$v-clean" "done 4 0" || check_fail "$v: the clean image's steps did not all pass"
	if grep -qx 'CONFIG_FANOTIFY=y' "$B/kernel/$v/config"; then
		for n in bad clean; do
			has "$v-$n" "fserror-watch /mnt" || check_fail "$v-$n: no fserror-watch /mnt"
		done
		if has "$v-bad" "fserror EBADMSG $ino 1"; then
			ok "$v: fserror EBADMSG $ino 1"
		else
			check_fail "$v: no 'fserror EBADMSG $ino 1': $(grep '^fserror' "$T/$v-bad.out")"
		fi
		[ "$(count "$v-clean" '^fserror ')" = 0 ] ||
			check_fail "$v: events on the clean image: $(grep '^fserror ' "$T/$v-clean.out")"
		continue
	fi
	untested="$untested $v"
	for n in bad clean; do
		c=$(count "$v-$n" '^fserror-unavailable ')
		if [ "$c" = 1 ] && has "$v-$n" "fserror-unavailable fanotify_init ENOSYS"; then
			ok "$v-$n: fserror-unavailable fanotify_init ENOSYS, once"
		else
			check_fail "$v-$n: $c fserror-unavailable lines, expected one 'fanotify_init ENOSYS'"
		fi
		[ "$(count "$v-$n" '^fserror \|^fserror-watch')" = 0 ] ||
			check_fail "$v-$n: an event or a watch without fanotify"
	done
done

# The host's record of a case: available, the events, the flag, the show line.
echo "=== case.json (patched)"
"$FLIPBED" run "$top/scenarios/inode/base-flip.scn" --kernel patched \
	--set fault.timing=rest --jobs 1 --out "$T/run" > "$T/run.log" 2>&1
sed 's/^/    run| /' "$T/run.log"
rec=$T/run/cases/inode_base-flip@patched/case.json
[ -f "$rec" ] || fail "no $rec"
fa=$(grep -qx 'CONFIG_FANOTIFY=y' "$B/kernel/patched/config" && echo y)
if python3 - "$rec" "$fa" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
f, a = r.get("fanotify"), r.get("fanotify_agrees", "missing")
print("    fanotify:", json.dumps(f), "fanotify_agrees:", json.dumps(a))
if sys.argv[2] == "y":
    ok = f["available"] and f["events"] and a is True
else:
    ok = (f["available"] is False and f["reason"] == "fanotify_init ENOSYS"
          and f["events"] == [] and a is None
          and f["agreement"].startswith("not compared: witness unavailable"))
sys.exit(0 if ok else 1)
EOF
then
	ok "case.json: the fanotify record this kernel gives"
else
	check_fail "case.json: the fanotify record is not what this kernel gives"
fi
"$FLIPBED" show 'inode/base-flip@patched' --run "$T/run" > "$T/show.out" 2>&1
if line=$(grep '  fanotify  ' "$T/show.out"); then
	ok "flipbed show:$line"
else
	check_fail "flipbed show prints no fanotify line"
fi

if [ -n "$untested" ] && [ $_failures -eq 0 ]; then
	skip_anywhere "CONFIG_FANOTIFY is not set in build/kernel/{$(echo $untested |
		tr ' ' ,)}/config: the unavailable path passed; the FAN_FS_ERROR event path needs" \
		"CONFIG_FANOTIFY=y in kernel/config/flipbed.config and rebuilt kernels"
fi
finish

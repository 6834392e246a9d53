#!/bin/sh
# SPDX-License-Identifier: MIT
# The hostile inputs that need a boot (HOSTILE.md; the quick ones are in
# hostile-input.sh): flipbed image on a path of 600 characters and a file
# name of 204 runs as any image does, and leaves nothing behind; an image
# holding one 256 GiB sparse file is walked in seconds (the walk reads
# the data extents, and at most 64 MiB of a file: a dense file of 70 MiB
# is cut, and said to be) and is no hang; a step that runs past the
# timeout while the kernel keeps answering (sleep) is infra "slow step",
# not a hang: a hang is the kernel's own report or a silent guest. No
# verdict the kernel did not give. Boots: three, about 15 s.
# Groups: own-target (make check-hostile).
. "$(dirname "$0")/lib.sh"
require_flipbed
require_kernel stock
require_tools jq truncate
cd "$top" || exit 1

# record DIR: the one case record of run directory DIR
record() { head -n 1 "$1/cases.jsonl"; }

# A legal path longer than a scenario line: a symbolic link beside the
# written scenario names it, the case name is cut to 64 bytes
long=$T/$(printf 'd%.0s' $(seq 200))/$(printf 'e%.0s' $(seq 200))
name=$(printf 'f%.0s' $(seq 200)).img
mkdir -p "$long"
mkfs.ext4 -q -F "$long/$name" 8M || fail "mkfs.ext4 on a long path"
timeout 120 "$FLIPBED" image "$long/$name" --kernel stock --workload walk --out "$T/long" \
	> "$T/long.log" 2>&1
rc=$?
[ $rc -eq 0 ] || { tail -n 20 "$T/long.log"; check_fail "image on a path of ${#long} characters: exit $rc, expected 0"; }
grep -q "line longer than" "$T/long.log" && check_fail "image on a long path: flipbed's own scenario refused"
[ "$(record "$T/long" | jq -r .verdict)" = pass ] || check_fail "image on a long path: no passing case"
echo "got: image on a path of $((${#long} + ${#name} + 1)) characters: exit $rc"

# One 256 GiB sparse file with one block of data at 100 GiB, a small one,
# and a dense one of 70 MiB, more than walk reads of a file
mkdir -p "$T/sparse"
truncate -s 256G "$T/sparse/big"
printf 'data' | dd of="$T/sparse/big" bs=1 seek=107374182400 conv=notrunc 2>/dev/null
echo small > "$T/sparse/small"
head -c 70M /dev/urandom > "$T/sparse/dense"
mkfs.ext4 -q -F -b 4096 -d "$T/sparse" "$T/sparse.img" 128M || fail "mkfs.ext4 -d with a sparse file"
start=$(date +%s)
timeout 120 "$FLIPBED" image "$T/sparse.img" --kernel stock --workload walk --out "$T/sp" \
	> "$T/sp.log" 2>&1
rc=$?
took=$(($(date +%s) - start))
rec=$(record "$T/sp")
reaction=$(echo "$rec" | jq -r .outcome.reaction)
[ $rc -eq 0 ] || { tail -n 20 "$T/sp.log"; check_fail "a 256 GiB sparse file: exit $rc, expected 0"; }
[ "$reaction" != hang ] || check_fail "a 256 GiB sparse file walked as a kernel hang"
walk=$(grep -h "^A out [0-9]* read bytes=" "$T"/sp/cases/*/transcript.log | head -n 1)
# the 4 KiB block at 100 GiB, /small, and 64 MiB of the 70 MiB /dense: cut
echo "$walk" | grep -q "read bytes=$((4096 + 6 + 67108864)) capped=1 max=67108864" ||
	check_fail "the walk does not say what it read: $walk"
echo "got: a 256 GiB sparse file: exit $rc in $took s, reaction $reaction; $walk"

# A step slower than the case's timeout, the kernel answering all along
printf '[scenario]\nshows = A step that outlasts the timeout.\ngroups = quick\nkernels = stock\ntimeout = 8\n[target]\ntype = none\n[workload]\nstep = mount\nstep = sleep 30\n[expect]\ndetect = any\nreaction = any\nfsck = any\ndata = any\n' \
	> "$T/slow.scn"
timeout 120 "$FLIPBED" run "$T/slow.scn" --out "$T/slow" > "$T/slow.log" 2>&1
rc=$?
rec=$(record "$T/slow")
reaction=$(echo "$rec" | jq -r .outcome.reaction)
infra=$(echo "$rec" | jq -r .outcome.infra)
[ "$reaction" != hang ] || check_fail "a slow step with the kernel answering recorded as a hang"
case $infra in
"slow step: step 2 ran past the timeout while the kernel kept answering"*) ;;
*) check_fail "a slow step: infra '$infra', expected 'slow step: step 2 ...'" ;;
esac
[ $rc -eq 3 ] || check_fail "a slow step: exit $rc, expected 3 (infra)"
echo "got: a slow step: exit $rc, reaction $reaction, infra '$infra'"
# nothing left behind by any of them: no process, no private directory
# or socket of flipbed's (flipbed-XXXXXX under $TMPDIR, which is $T)
no_leftovers
left=$(find "$T" -maxdepth 1 -name 'flipbed-??????' | head -n 3)
[ -z "$left" ] || check_fail "private directories left behind: $left"
[ -z "$(find "$T" -type s | head -n 1)" ] || check_fail "sockets left behind: $(find "$T" -type s)"
finish

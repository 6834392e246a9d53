#!/bin/sh
# SPDX-License-Identifier: MIT
# Input that is not what it claims to be is refused at once with one clear
# line and exit 2, never read without end: a device, a directory or a FIFO
# given as a scenario; a binary file (too large, or stopped at its first
# NUL byte); a text file of 1000 overlong lines (20 errors, then the
# parser stops); a NUL byte (named as such, not as a long line); and
# `flipbed image` on an empty file, random bytes, a directory and
# /dev/zero ("not an ext4 image" / "not a regular file", no stale errno);
# a libext2fs error is printed by name; a target the image lacks (path,
# field, index) is refused before anything boots; `flipbed report` on a
# cases.jsonl holding a sparse line of 1 GiB refuses its NUL bytes at once
# under a 256 MiB address-space limit (reading the line whole takes
# gigabytes, and a failed allocation ended the reading as if the file
# ended there: exit 0), and a 2 MiB line as longer than any record; the
# guest agent's limits (steps, a step's length, attr-race's threads) at
# load; a --set value longer than a scenario line; a matrix given to run
# and a scenario to matrix; an empty --out. The table: HOSTILE.md.
# Groups: quick.
. "$(dirname "$0")/lib.sh"
require_built "$FLIPBED" build/bin/flipbed
require_tools timeout mkfifo

# refused WHAT WANT CMD...: CMD exits 2 within 10 s, its stderr holds WANT
# (a check: the test goes on, and fails at the end)
refused() {
	what=$1 want=$2; shift 2
	timeout 10 "$@" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -ne 124 ] || { check_fail "$what: still running after 10 s"; return; }
	[ $rc -eq 2 ] || { head -c 2000 "$T/err"; check_fail "$what: exit $rc, expected 2"; return; }
	grep -qF -- "$want" "$T/err" || { head -c 2000 "$T/err"; check_fail "$what: no '$want'"; return; }
	ok "$what: $(head -n 1 "$T/err")"
}

mkfifo "$T/fifo"
mkdir "$T/dir.scn"
head -c 10M /dev/urandom > "$T/binary.scn"
printf '[scenario]\nshows = a\000b\n' > "$T/nul.scn"
: > "$T/empty.img"
head -c 1M /dev/urandom > "$T/random.img"

refused "scenario /dev/zero" "/dev/zero: not a regular file" "$FLIPBED" run /dev/zero --list
refused "scenario directory" "dir.scn: not a regular file" "$FLIPBED" run "$T/dir.scn" --list
refused "scenario FIFO" "fifo: not a regular file" "$FLIPBED" run "$T/fifo" --list
refused "10 MiB binary scenario" "binary.scn: too large" "$FLIPBED" run "$T/binary.scn" --list
[ "$(wc -l < "$T/err")" -le 2 ] || fail "the binary scenario gave $(wc -l < "$T/err") lines"
head -c 300000 /dev/urandom > "$T/binary.scn"
refused "300 KB binary scenario" "a NUL byte; a scenario is text" "$FLIPBED" run "$T/binary.scn" --list
[ "$(wc -l < "$T/err")" -le 21 ] || fail "the binary scenario gave $(wc -l < "$T/err") lines"
awk 'BEGIN { for (i = 0; i < 1000; i++) { s = ""; for (j = 0; j < 30; j++) s = s "0123456789"; print s } }' \
	> "$T/long.scn"
refused "1000 overlong lines" "20 errors; not reading further" "$FLIPBED" run "$T/long.scn" --list
[ "$(wc -l < "$T/err")" -le 30 ] || fail "1000 overlong lines gave $(wc -l < "$T/err") lines"
refused "NUL byte" "nul.scn:2: a NUL byte" "$FLIPBED" run "$T/nul.scn" --list
grep -q "longer than" "$T/err" && fail "a NUL byte reported as a long line"

refused "image: empty file" "not an ext4 image" "$FLIPBED" image "$T/empty.img" --out "$T/r1"
refused "image: random bytes" "not an ext4 image" "$FLIPBED" image "$T/random.img" --out "$T/r2"
refused "image: a directory" "$T: not a regular file" "$FLIPBED" image "$T" --out "$T/r3"
refused "image: /dev/zero" "/dev/zero: not a regular file" "$FLIPBED" image /dev/zero --out "$T/r4"
grep -q "Invalid argument" "$T/err" && fail "a stale errno in the message"

# A run directory's records: the first is a real one, the second hostile
for d in run-sparse run-long; do
	mkdir -p "$T/$d"
	head -n 1 "$top/results/baseline/ci/cases.jsonl" > "$T/$d/cases.jsonl"
done
truncate -s +1G "$T/run-sparse/cases.jsonl"
awk 'BEGIN { s = "x"; for (i = 0; i < 21; i++) s = s s; print s }' >> "$T/run-long/cases.jsonl"
refused "report: a sparse 1 GiB line" "cases.jsonl:2: a NUL byte" \
	sh -c 'ulimit -v 262144; exec "$@"' sh "$FLIPBED" report "$T/run-sparse"
refused "report: a 2 MiB line" "cases.jsonl:2: a line longer than 1048576 bytes" \
	"$FLIPBED" report "$T/run-long"

# libext2fs' errors are named, not "Unknown code ext2 N": an image whose
# superblock says 2^31 blocks cannot be opened, and the message says why
require_tools mkfs.ext4
require_kernel stock
mkfs.ext4 -q -F "$T/bad.img" 8M
printf '\377\377\377\177' | dd of="$T/bad.img" bs=1 seek=1028 conv=notrunc 2>/dev/null
printf '[scenario]\nshows = x\ngroups = quick\nkernels = stock\n[mkfs]\nimage = %s\n[target]\ntype = none\n[workload]\nstep = may mount\n[expect]\ndetect = any\nreaction = any\nfsck = any\ndata = any\n' \
	"$T/bad.img" > "$T/badimg.scn"
timeout 60 "$FLIPBED" run "$T/badimg.scn" --out "$T/r5" > "$T/out" 2> "$T/err"
grep -q "Unknown code" "$T/err" && check_fail "an untranslated libext2fs code: $(grep 'Unknown code' "$T/err")"
grep -q "with libext2fs: The ext2 superblock is corrupt" "$T/err" ||
	check_fail "no named libext2fs error: $(grep -i libext2fs "$T/err")"

# Records are JSON, which holds only UTF-8: a path or a scenario value that
# is not UTF-8 is refused where it is read, never a case without a record
printf '[scenario]\nshows = x\ngroups = quick\n[target]\ntype = none\n[workload]\nstep = mount\nstep = write /caf\351 10\n' \
	> "$T/latin1.scn"
refused "a Latin-1 path in a step" "latin1.scn:8: not UTF-8" "$FLIPBED" run "$T/latin1.scn" --list
cp "$T/latin1.scn" "$T/caf$(printf '\351').scn"
refused "a Latin-1 scenario file name" "not UTF-8" "$FLIPBED" run "$T/caf$(printf '\351').scn" --list
mkfs.ext4 -q -F "$T/nl.img" 8M
mv "$T/nl.img" "$T/a
b.img"
refused "an image path with a newline" "not one line of UTF-8" "$FLIPBED" image "$T/a
b.img" --out "$T/r6"

# A repro command is one shell command line, whatever the scenario's path
mkdir -p "$T/a dir"
tscn_path="$T/a dir/it's.scn"
printf '[scenario]\nshows = x\ngroups = quick\nkernels = stock\n[mkfs]\nfeatures = metadata_csum\n[target]\ntype = none\n[workload]\nstep = mount\n' \
	> "$tscn_path"
repro=$("$FLIPBED" run "$tscn_path" --set scenario.timeout=9 --list 2>/dev/null | cut -f2)
[ -n "$repro" ] || fail "no repro line for $tscn_path"
again=$(cd "$top" && eval "$repro --list" 2>&1 | cut -f2)
[ "$again" = "$repro" ] || check_fail "the repro does not run as one command: $repro -> $again"
ok "repro quoted: $repro"

# A target the image lacks is the scenario's mistake: exit 2 naming the
# scenario and why, before anything boots and before a run directory is made
# tscn NAME TARGET-LINES: a scenario file whose [target] is TARGET-LINES
tscn() {
	printf '[scenario]\nshows = x\ngroups = quick\nkernels = stock\n[mkfs]\nfeatures = metadata_csum\noptions = -b 4096 -I 256\nsize = 64M\n[populate]\nfile = /a 5000\n[target]\n%b\n[fault]\ntiming = rest\n[workload]\nstep = mount\n' \
		"$2" > "$T/$1.scn"
}
tscn nopath 'type = inode\npath = /nonexistent'
tscn nofield 'type = inode\npath = /a\nregion = no_such_field'
tscn noindex 'type = inode\npath = /a\nindex = 5'
tscn norange 'type = range\nat = 67108860\nlen = 8'
refused "target path missing" "nopath.scn: case" "$FLIPBED" run "$T/nopath.scn" --out "$T/t1"
grep -q "no such path /nonexistent" "$T/err" || check_fail "the missing path is not named: $(cat "$T/err")"
refused "target field missing" "nofield.scn: case" "$FLIPBED" run "$T/nofield.scn" --out "$T/t2"
refused "target index past the count" "index 5, but the image has 1 such objects" \
	"$FLIPBED" run "$T/noindex.scn" --out "$T/t3"
refused "target range past the disk" "past the end of the 67108864-byte image" \
	"$FLIPBED" run "$T/norange.scn" --out "$T/t4"
printf '[scenario]\nshows = x\ngroups = quick\n[mkfs]\nimage = %s\n[target]\ntype = none\n[workload]\nstep = mount\n' \
	"$T/random.img" > "$T/notext4.scn"
refused "a [mkfs] image that is not ext4" "notext4.scn:5: image = $T/random.img: not an ext4 image" \
	"$FLIPBED" run "$T/notext4.scn" --list
for d in t1 t2 t3 t4; do
	[ ! -e "$T/$d" ] || check_fail "a run directory was made for a bad target ($d)"
done
# The guest agent's limits are the scenario's, checked when it loads: a
# workload the agent would cut short (its last steps are the probes flipbed
# adds) is refused at FILE:LINE of the first step too many, counting the
# two probes and, with next-mount, its pass of 8 (guest/steps.h)
# steps N [NEXT-MOUNT]: a scenario of N "step = sync" lines from line 7 on
steps() {
	{
		printf '[scenario]\nshows = x\ngroups = quick\n[target]\ntype = none\n[workload]\n'
		awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) print "step = sync" }'
		[ -z "${2:-}" ] || printf 'next-mount = yes\n'
	} > "$T/steps.scn"
}
steps 10000
refused "10,000 steps" "steps.scn:1029: [workload]: 10000 steps; a case runs at most 1024" \
	"$FLIPBED" run "$T/steps.scn" --list
[ "$(wc -l < "$T/err")" -eq 1 ] || check_fail "10,000 steps gave $(wc -l < "$T/err") lines"
steps 1022
"$FLIPBED" run "$T/steps.scn" --list > /dev/null 2>&1 || check_fail "1,022 steps (the most a case takes) refused"
steps 1020 next-mount
refused "1,020 steps and the next-mount pass" "steps.scn:1021: [workload]: 1020 steps; a case runs at most 1024, and flipbed adds 10" \
	"$FLIPBED" run "$T/steps.scn" --list
printf '[scenario]\nshows = x\ngroups = quick\n[target]\ntype = none\n[workload]\nstep = mount\nstep = attr-race /d 65 10\n' \
	> "$T/race.scn"
refused "attr-race with 65 threads" "race.scn:8: step = attr-race /d 65 10: step 'attr-race /d 65 10': THREADS 65 is not what the agent runs; accepted: 1 to 64" \
	"$FLIPBED" run "$T/race.scn" --list
# ${EXPR} can make a step longer than the agent's line: the reason comes first
v=1000000000000000000
printf '[scenario]\nshows = x\ngroups = quick\n[vars]\nv = %s\n[target]\ntype = none\n[workload]\nstep = write /%s 1\n' \
	"$v" "$(awk 'BEGIN { for (i = 0; i < 40; i++) printf "${v}" }')" > "$T/longstep.scn"
refused "a step of 769 characters" "longstep.scn:9: step: 769 characters, longer than the 511" \
	"$FLIPBED" run "$T/longstep.scn" --list

# --set holds what a scenario line holds: the reason first, whatever the value
scn=$top/scenarios/bitmap/block-flip.scn
long=$(awk 'BEGIN { for (i = 0; i < 1000; i++) printf "a" }')
refused "--set of 1,000 characters" "--set workload.step: 'KEY = VALUE' is 1016 characters; a scenario line holds at most 199" \
	"$FLIPBED" run "$scn" --set "workload.step=write /$long 1" --list
[ "$(wc -L < "$T/err")" -lt 300 ] || check_fail "--set of 1,000 characters: a line of $(wc -L < "$T/err") characters"
huge=$(head -c 120000 /dev/zero | tr '\0' a)
refused "--set scenario.shows of 120 KB" "--set scenario.shows: 'KEY = VALUE' is 120008 characters; a scenario line holds at most 199" \
	"$FLIPBED" run "$scn" --set "scenario.shows=$huge" --list

# A matrix is not a scenario and a scenario is not a matrix: one line each
refused "flipbed run on a matrix" "quick.mat: this is a matrix (it has a [matrix] section): use flipbed matrix" \
	"$FLIPBED" run "$top/scenarios/matrix/quick.mat" --list
[ "$(wc -l < "$T/err")" -eq 1 ] || check_fail "run on a matrix gave $(wc -l < "$T/err") lines"
refused "flipbed matrix on a scenario" "block-flip.scn: this is a scenario (it has a [scenario] section): use flipbed run" \
	"$FLIPBED" matrix "$scn" --list
[ "$(wc -l < "$T/err")" -eq 1 ] || check_fail "matrix on a scenario gave $(wc -l < "$T/err") lines"

# An empty --out names nothing: said so, not a path the user never typed
refused "run --out ''" "--out '': empty; give a directory" "$FLIPBED" run "$scn" --kernel stock --out ''
grep -q "/cases" "$T/err" && check_fail "--out '' names /cases"
refused "image --out ''" "--out '': empty; give a directory" "$FLIPBED" image "$T/bad.img" --out ''

# An image path longer than a scenario line is named through a link beside
# the written scenario (hostile-slow.sh runs one); when the run directory's
# own path is too long for that, it is said, and nothing is left behind
deep=$T/$(printf 'd%.0s' $(seq 200))
mkdir -p "$deep"
mkfs.ext4 -q -F "$deep/x.img" 8M
longout=$T/$(printf 'o%.0s' $(seq 200))
refused "image: a long path and a long --out" "give a shorter --out" \
	"$FLIPBED" image "$deep/x.img" --kernel stock --out "$longout"
[ ! -e "$longout" ] || check_fail "image with a long --out left $(find "$longout" | wc -l) files behind"
# nothing left behind by any of them: no process, no private directory
# or socket of flipbed's (flipbed-XXXXXX under $TMPDIR, which is $T)
no_leftovers
left=$(find "$T" -maxdepth 1 -name 'flipbed-??????' | head -n 3)
[ -z "$left" ] || check_fail "private directories left behind: $left"
[ -z "$(find "$T" -type s | head -n 1)" ] || check_fail "sockets left behind: $(find "$T" -type s)"
finish

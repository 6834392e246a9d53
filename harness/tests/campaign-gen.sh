#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed campaign without a kernel: the same seed gives byte-identical
# scenario files (twice, and case 7 whether the campaign has 10 or 300
# cases), another seed gives other files, transient faults are armed by
# the workload's first step, every generated file is a valid
# scenario (`flipbed run --list` accepts all 300), --types is honoured, bad
# options are refused with exit 2; and the finding titles of known kernel
# reports (harness/tests/classify/*.log, campaign/*.dmesg) are the
# syzkaller-like ones in campaign/titles.ok. Groups: quick.
. "$(dirname "$0")/lib.sh"
[ -x "$FLIPBED" ] || skip "$FLIPBED not built (make build/bin/flipbed)"
here=$top/harness/tests

gen() { "$FLIPBED" campaign --kernel patched --generate "$@" 2>> "$T/gen.log" ||
	fail "flipbed campaign --generate $* exited $?"; }

gen --seed 42 --count 300 --out "$T/a"
gen --seed 42 --count 300 --out "$T/b"
diff -r "$T/a/scenarios" "$T/b/scenarios" > /dev/null || fail "seed 42 twice: the files differ"
gen --seed 42 --count 10 --out "$T/c"
cmp -s "$T/a/scenarios/case-00007.scn" "$T/c/scenarios/case-00007.scn" ||
	fail "case 7 depends on --count"
gen --seed 43 --count 300 --out "$T/d"
diff -r -q "$T/a/scenarios" "$T/d/scenarios" > /dev/null && fail "seeds 42 and 43 give the same files"
n=$("$FLIPBED" run "$T"/a/scenarios/*.scn --list 2> "$T/list.err" | wc -l)
[ "$n" -eq 300 ] || { cat "$T/list.err"; fail "flipbed run --list accepted $n of 300 files"; }
types=$(grep -h '^type = ' "$T"/a/scenarios/*.scn | sort -u | wc -l)
[ "$types" -ge 15 ] || fail "300 cases drew only $types object types"
grep -q '^type = mmp' "$T"/a/scenarios/*.scn && fail "mmp drawn without --types mmp"
grep -q '^detect = any' "$T/a/scenarios/case-00001.scn" || fail "expectations are not 'any'"

gen --seed 5 --count 40 --types dx-node,xattr-block --timing read --bits 2 --out "$T/e"
other=$(grep -h '^type = ' "$T"/e/scenarios/*.scn | grep -v -e dx-node -e xattr-block | head -1)
[ -z "$other" ] || fail "--types dx-node,xattr-block drew '$other'"
grep -h '^timing = ' "$T"/e/scenarios/*.scn | grep -qv 'timing = read$' && fail "--timing read not honoured"
# A transient fault armed at boot would be spent on the partition scan of
# the disk's first 4 KiB: it is armed by the workload's first step.
for f in "$T"/a/scenarios/*.scn; do
	if grep -q '^timing = rest$' "$f"; then
		grep -q '^arm = boot$' "$f" || fail "$f: a rest fault not applied before boot"
	else
		grep -q '^arm = armed$' "$f" && [ "$(grep -m 1 '^step = ' "$f")" = "step = wait armed" ] ||
			fail "$f: a transient fault not armed by the first step (wait armed)"
	fi
done
grep -h '^bits = ' "$T"/e/scenarios/*.scn | grep -qv -e 'bits = 1$' -e 'bits = 2$' && fail "--bits 2 not honoured"

for bad in "--seed x --count 1" "--seed 1 --count 1 --types nosuch" "--seed 1 --count 1 --timing soon" \
	"--seed 1 --count 1 --bits 0" "--seed 1 --count 1 --reseal-ratio 2" "--count 3"; do
	# shellcheck disable=SC2086
	"$FLIPBED" campaign $bad --generate --out "$T/bad" > /dev/null 2> "$T/bad.err"
	rc=$?
	[ $rc -eq 2 ] || fail "flipbed campaign $bad exited $rc, expected 2"
	[ -s "$T/bad.err" ] || fail "flipbed campaign $bad said nothing on stderr"
done

: > "$T/titles"
while IFS= read -r line; do
	f=${line%%:*}
	[ -r "$here/classify/$f" ] && log=$here/classify/$f || log=$here/campaign/$f
	printf '%s: %s\n' "$f" "$("$FLIPBED" campaign --title "$log")" >> "$T/titles"
done < "$here/campaign/titles.ok"
diff -u "$here/campaign/titles.ok" "$T/titles" || fail "finding titles differ from campaign/titles.ok"
echo "ok: deterministic generation, valid files, options, titles"

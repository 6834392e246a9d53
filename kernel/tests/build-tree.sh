#!/bin/sh
# SPDX-License-Identifier: MIT
# kernel/build.sh --tree DIR refuses what it cannot build, before and after
# trying, and leaves nothing of a failed build in build/kernel/: a missing
# directory and a directory that is not a kernel tree (exit 2, naming the
# missing file), a name of the registry or one that is not a folder name,
# an unknown fragment (exit 2), and a tree whose configuration fails (exit
# 3, the log's tail on stderr, no build/kernel/NAME and no object
# directory). Building a real tree takes minutes: kernel/README.md gives
# the measured figure. Groups: quick.
. "$(dirname "$0")/../../tests/lib.sh"
build=$top/kernel/build.sh
name=tree-test-$$
trap 'rm -rf "$T" "$B/kernel/$name" "$B/kernel/obj/$name" "$B/kernel/obj/$name.log"' EXIT

# expect RC WHAT PATTERN ARG...
expect() {
	_rc=$1 _what=$2 _pat=$3
	shift 3
	"$build" "$@" > "$T/out" 2> "$T/err"
	_got=$?
	if [ $_got -eq "$_rc" ] && grep -q -- "$_pat" "$T/err"; then
		ok "$_what: exit $_rc, $(tail -n 1 "$T/err")"
	else
		sed 's/^/    /' "$T/err" | tail -n 5
		check_fail "$_what: exit $_got, expected $_rc and '$_pat'"
	fi
}

expect 2 "a missing directory" "not a directory" --tree "$T/nosuch" --name "$name"
mkdir -p "$T/empty"
expect 2 "an empty directory" "not a kernel tree (no Makefile)" --tree "$T/empty" --name "$name"
# A tree with the files a kernel tree has, whose make fails.
fake=$T/fake
mkdir -p "$fake/arch/x86" "$fake/scripts/kconfig" "$fake/fs/ext4"
printf 'tinyconfig:\n\t@echo "*** no Kconfig in this tree"; exit 1\n' > "$fake/Makefile"
touch "$fake/Kconfig" "$fake/arch/x86/Kconfig" "$fake/scripts/kconfig/merge_config.sh" "$fake/fs/ext4/super.c"
rm "$fake/fs/ext4/super.c"
expect 2 "a tree without ext4" "not a kernel tree (no fs/ext4/super.c)" --tree "$fake" --name "$name"
touch "$fake/fs/ext4/super.c"
expect 2 "a registry kernel's name" "a kernel of .* has that name" --tree "$fake" --name stock
expect 2 "a name that is not a folder name" "a name of letters" --tree "$fake" --name "a/b"
expect 2 "an unknown fragment" "kernel/config/nosuch.config does not exist" --tree "$fake" --name "$name" --config nosuch.config
expect 3 "a tree whose configuration fails" "make tinyconfig failed" --tree "$fake" --name "$name"
grep -q "no Kconfig in this tree" "$T/err" || check_fail "the log's tail is not on stderr"
[ ! -e "$B/kernel/$name" ] || check_fail "a failed build left $B/kernel/$name"
[ ! -e "$B/kernel/obj/$name" ] || check_fail "a failed first build left its object directory"
finish

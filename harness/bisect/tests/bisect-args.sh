#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed bisect refuses, before building anything (exit 2, one line that
# says why): missing arguments, a tree that is not a git tree, revisions
# that are not its commits, the same commit twice, a GOOD that is not an
# ancestor of BAD, a case the matrix does not have, a case given with
# @KERNEL, an unknown field, and an --out that holds another bisection.
# Groups: quick.
. "$(dirname "$0")/../../../tests/lib.sh"
require_tools git
require_built "$B/bin/flipbed" build/bin/flipbed
F=$B/bin/flipbed
cd "$top" || fail "cannot cd to $top"

# A small history: a -- b, and c on a branch from a (not b's ancestor).
repo=$T/repo
g() { git -C "$repo" -c user.name=t -c user.email=t@localhost "$@"; }
mkdir -p "$repo" && g init -q && echo 1 > "$repo/f" && g add f && g commit -q -m a && g tag a &&
	echo 2 > "$repo/f" && g commit -q -am b && g tag b &&
	g checkout -q -b side a && echo 3 > "$repo/f" && g commit -q -am c && g tag c ||
	fail "cannot make the history in $repo"

# expect WHAT PATTERN ARG...: exit 2 with PATTERN on stderr, no step built
expect() {
	_what=$1 _pat=$2
	shift 2
	"$F" bisect "$@" > "$T/out" 2> "$T/err"
	_rc=$?
	if [ $_rc -eq 2 ] && grep -q -- "$_pat" "$T/err"; then
		ok "$_what: exit 2, $(head -n 1 "$T/err")"
	else
		sed 's/^/    /' "$T/err" | head -n 5
		check_fail "$_what: exit $_rc, expected 2 and '$_pat'"
	fi
	grep -q building "$T/err" && check_fail "$_what: a revision was built"
}
c=xattr/block-flip:rest
expect "no arguments" "CASE, --tree, --good and --bad are all needed"
expect "a tree that is not git" "not a git tree" $c --tree "$T" --good a --bad b --out "$T/o"
expect "an unknown GOOD" "--good nosuch: not a commit" $c --tree "$repo" --good nosuch --bad b --out "$T/o"
expect "an unknown BAD" "--bad nosuch: not a commit" $c --tree "$repo" --good a --bad nosuch --out "$T/o"
expect "the same commit twice" "the same commit" $c --tree "$repo" --good b --bad b --out "$T/o"
expect "GOOD after BAD" "is not an ancestor of --bad" $c --tree "$repo" --good b --bad a --out "$T/o"
expect "GOOD on another branch" "is not an ancestor of --bad" $c --tree "$repo" --good c --bad b --out "$T/o"
expect "a case the matrix lacks" "not a case of matrix ci" xattr/nosuch:rest --tree "$repo" --good a --bad b --out "$T/o"
expect "a case with @KERNEL" "without @KERNEL" $c@stock --tree "$repo" --good a --bad b --out "$T/o"
expect "an unknown field" "--field color: accepted" $c --field color --tree "$repo" --good a --bad b --out "$T/o"
mkdir -p "$T/o2" && echo "case another" > "$T/o2/params"
expect "an --out of another bisection" "holds another bisection" $c --tree "$repo" --good a --bad b --out "$T/o2"
[ ! -e "$T/o2/tree" ] || check_fail "a refused bisection made a worktree"
finish

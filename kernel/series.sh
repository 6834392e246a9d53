#!/bin/sh
# SPDX-License-Identifier: MIT
# A kernel's patch series as git commits, and back: the series is edited in
# a git tree and written out by `git format-patch`, so that every patch
# carries its commit's hash and each file's index line.
#
#   kernel/series.sh tree NAME DIR     DIR: a git tree of NAME's source (the
#                                      files the series touches, and
#                                      checkpatch.pl with its data), one base
#                                      commit for Debian's source, then one
#                                      commit per patch of NAME's series
#   kernel/series.sh export NAME DIR   the commits after DIR's base written
#                                      into NAME's series directory by
#                                      git format-patch, and its series file
#                                      rewritten to list them
#   kernel/series.sh check NAME        exit 1 unless every patch of NAME's
#                                      series (and the cover letter's
#                                      shortlog and diffstat) is byte for
#                                      byte what `tree` then `export`
#                                      make of it
#
# The commits are reproducible: the base commit has a fixed author and date,
# and each patch's commit takes its author, date and message from the patch
# (committer = author), so the same series gives the same hashes on every
# machine. A patch is applied with patch(1), as kernel/build.sh applies it,
# so one that only applies with an offset still becomes a commit; `check`
# then shows the difference. The cover letter (0000-*) is written by hand;
# export makes its shortlog, diffstat and patch count again from the
# commits, and check compares them.
# Exit 2: an unknown kernel, a kernel without a series, a DIR that exists
# (tree) or is not such a tree (export).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
prog=kernel/series.sh
die() { echo "$prog: $*" >&2; exit 1; }
bad() { echo "$prog: $*" >&2; exit 2; }
usage() { bad "usage: $prog tree NAME DIR | export NAME DIR | check NAME"; }

# The base commit's identity: Debian's source as its package ships it.
base_ident() {
	GIT_AUTHOR_NAME="Debian kernel source"
	GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org"
	GIT_AUTHOR_DATE="@0 +0000"
	GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
	GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
		GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
}

# resolve NAME: NAME's series directory (absolute) in $series_dir, its
# Debian source package in $source and $tarball.
resolve() {
	name=$1
	"$top/kernel/build.sh" --list | grep -qxF -- "$name" ||
		bad "unknown kernel '$name'; known: $("$top/kernel/build.sh" --list | paste -sd' ')"
	# the first series directory: the series; a later one holds fixes
	# applied after it (kernel/kernels.ini, patches)
	dir=$("$top/kernel/build.sh" --inputs "$name" | sed -n 's|/series$||p' | head -n1)
	[ -n "$dir" ] || bad "$name has no patch series"
	case $dir in /*) ;; *) dir=$top/$dir ;; esac
	series_dir=$dir
	tarball=$("$top/kernel/build.sh" --inputs "$name" | grep '^/usr/src/linux-source-[0-9.]*\.tar\.xz$' || true)
	[ -n "$tarball" ] || bad "$name: its source is not a Debian linux-source package"
	source=$(basename "$tarball" .tar.xz)
	[ -r "$tarball" ] || bad "$tarball: missing (make deps installs $source)"
}

patches() {
	grep -v '^[[:space:]]*\(#\|$\)' "$series_dir/series"
}

# The files the series reads from the source: every file a patch changes
# that no earlier patch created, checkpatch.pl with its data files, and
# .gitattributes (its diff=cpp gives each hunk its C function).
source_paths() {
	for p in $(patches); do
		awk '/^--- a\// { sub(/^--- a\//, ""); sub(/\t.*/, ""); print }' "$series_dir/$p"
	done | sort -u > "$1.changed"
	for p in $(patches); do
		awk '/^--- \/dev\/null/ { new = 1; next }
			new && /^\+\+\+ b\// { sub(/^\+\+\+ b\//, ""); sub(/\t.*/, ""); print }
			{ new = 0 }' "$series_dir/$p"
	done | sort -u > "$1.created"
	comm -23 "$1.changed" "$1.created"
	printf '%s\n' .gitattributes scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch
}

make_tree() {
	resolve "$1"
	out=$2
	[ -e "$out" ] && bad "$out: exists (tree makes a new directory)"
	mkdir -p "$out"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-series.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	source_paths "$tmp/paths" | sed "s|^|$source/|" > "$tmp/members"
	tar -xJf "$tarball" -C "$tmp" -T "$tmp/members" ||
		die "$tarball: cannot extract the series' files"
	cp -a "$tmp/$source/." "$out/"
	git -C "$out" init -q
	git -C "$out" config core.autocrlf false
	git -C "$out" config user.name "flipbed series"
	git -C "$out" config user.email "series@localhost"
	(
		base_ident
		git -C "$out" add -A
		git -C "$out" commit -q -m "$source $(cat "$series_dir/BASE" 2>/dev/null | head -n1)" \
			-m "Debian's $source, only the files the series changes."
	)
	git -C "$out" tag flipbed-base
	for p in $(patches); do
		apply_one "$series_dir/$p" "$out" "$tmp"
	done
	echo "$prog: $out: $(patches | wc -l) commits of $1's series on $source"
}

# apply_one PATCH DIR TMP: PATCH as a commit of DIR, with the patch's own
# author, date and message.
apply_one() {
	git mailinfo -b "$3/msg" "$3/diff" < "$1" > "$3/info" ||
		die "$1: not a patch mail (git mailinfo)"
	subject=$(sed -n 's/^Subject: //p' "$3/info")
	GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' "$3/info")
	GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' "$3/info")
	GIT_AUTHOR_DATE=$(sed -n 's/^Date: //p' "$3/info")
	[ -n "$subject" ] && [ -n "$GIT_AUTHOR_NAME" ] && [ -n "$GIT_AUTHOR_DATE" ] ||
		die "$1: no Subject, From or Date header"
	patch -s -p1 -N --no-backup-if-mismatch -d "$2" < "$3/diff" >/dev/null ||
		die "$1: does not apply to the tree"
	{ printf '%s\n\n' "$subject"; cat "$3/msg"; } > "$3/commit"
	(
		GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
		GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
		GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
		export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
			GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
		git -C "$2" add -A
		git -C "$2" commit -q --cleanup=verbatim -F "$3/commit"
	)
}

# cover DIR LETTER OUT: the cover letter LETTER with its shortlog and
# diffstat (from the shortlog's "Author (N):" line to the end) made again
# from DIR's commits, as git format-patch --cover-letter writes them, and
# its subject's count of patches, into OUT.
cover() {
	n=$(git -C "$1" rev-list --count flipbed-base..HEAD)
	awk '/^[^ ].* \([0-9]+\):$/ { exit } { print }' "$2" |
		sed "s|^\(Subject: \[PATCH 0/\)[0-9]*\]|\1$n]|" > "$3"
	git -C "$1" shortlog -w72,2,4 flipbed-base..HEAD >> "$3"
	git -C "$1" diff --stat=72 flipbed-base HEAD >> "$3"
	echo >> "$3"
}

# format DIR OUT: the commits after DIR's base as patch files in OUT. An
# edit (an amend, a rebase) makes its committer the editor, now: each
# commit is first given its author as committer, as `tree` makes them, so
# that the hashes stay reproducible.
format() {
	git -C "$1" rev-parse -q --verify flipbed-base >/dev/null ||
		bad "$1: not a tree of $prog (no flipbed-base tag)"
	FILTER_BRANCH_SQUELCH_WARNING=1 git -C "$1" filter-branch -f --env-filter '
		GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
		GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
		GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
		export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE' \
		flipbed-base..HEAD >/dev/null 2>&1 ||
		die "$1: cannot give the commits their authors as committers"
	git -C "$1" update-ref -d refs/original/refs/heads/"$(git -C "$1" symbolic-ref --short HEAD)" 2>/dev/null || true
	git -C "$1" -c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicPrefix=false \
		format-patch -q --no-renames --no-signature -o "$2" flipbed-base..HEAD
}

export_series() {
	resolve "$1"
	tree=$2
	[ -d "$tree/.git" ] || bad "$tree: not a git tree"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-series.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	format "$tree" "$tmp/once"
	# A fixed point: the patches made into commits again, as `tree`
	# makes them (git mailinfo normalises a message an edit left with
	# trailing blank lines, say), then formatted: what check expects.
	git clone -q "$tree" "$tmp/again"
	git -C "$tmp/again" checkout -q -b again flipbed-base
	for f in "$tmp/once"/*.patch; do
		apply_one "$f" "$tmp/again" "$tmp"
	done
	format "$tmp/again" "$tmp/out"
	if [ -f "$series_dir/0000-cover-letter.patch" ]; then
		cover "$tree" "$series_dir/0000-cover-letter.patch" "$tmp/cover"
		mv "$tmp/cover" "$series_dir/0000-cover-letter.patch"
	fi
	for p in $(patches); do
		rm -f "$series_dir/$p"
	done
	head=$(sed -n '/^[[:space:]]*#/p' "$series_dir/series")
	{
		[ -n "$head" ] && printf '%s\n' "$head"
		for f in "$tmp/out"/*.patch; do
			cp "$f" "$series_dir/"
			basename "$f"
		done
	} > "$tmp/series"
	mv "$tmp/series" "$series_dir/series"
	echo "$prog: $(ls "$tmp/out" | wc -l) patches written to $series_dir"
}

check_series() {
	resolve "$1"
	tmp2=$(mktemp -d "${TMPDIR:-/tmp}/flipbed-series-check.XXXXXX")
	"$0" tree "$1" "$tmp2/tree" >/dev/null
	format "$tmp2/tree" "$tmp2/out"
	status=0
	ls "$tmp2/out" > "$tmp2/made"
	patches > "$tmp2/listed"
	if ! cmp -s "$tmp2/made" "$tmp2/listed"; then
		echo "$prog: $1: format-patch names the patches otherwise:"
		diff "$tmp2/listed" "$tmp2/made" | sed -n 's/^[<>] /  /p'
		status=1
	fi
	for p in $(patches); do
		[ -f "$tmp2/out/$p" ] || continue
		if ! cmp -s "$series_dir/$p" "$tmp2/out/$p"; then
			echo "$prog: $1: $p is not format-patch's output:"
			diff -u "$series_dir/$p" "$tmp2/out/$p" | sed -n '3,12p'
			status=1
		fi
	done
	if [ -f "$series_dir/0000-cover-letter.patch" ]; then
		cover "$tmp2/tree" "$series_dir/0000-cover-letter.patch" "$tmp2/cover"
		if ! cmp -s "$series_dir/0000-cover-letter.patch" "$tmp2/cover"; then
			echo "$prog: $1: the cover letter's shortlog or diffstat is not the series':"
			diff -u "$series_dir/0000-cover-letter.patch" "$tmp2/cover" | sed -n '3,14p'
			status=1
		fi
	fi
	rm -rf "$tmp2"
	[ $status = 0 ] && echo "$prog: $1: $(patches | wc -l) patches, each format-patch's output"
	return $status
}

[ $# -ge 2 ] || usage
case $1 in
tree) [ $# = 3 ] || usage; make_tree "$2" "$3" ;;
export) [ $# = 3 ] || usage; export_series "$2" "$3" ;;
check) [ $# = 2 ] || usage; check_series "$2" ;;
*) usage ;;
esac

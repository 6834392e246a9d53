#!/bin/sh
# SPDX-License-Identifier: MIT
# Recomputes the figures the documents of results/baseline/ and the
# top README quote, from the committed records and the tree, as the
# table results/baseline/figures.tsv says (one row per figure or file,
# tab-separated: FILE, KIND, PHRASE, COMMAND):
#
#   generated   FILE is a tool's output: COMMAND prints it again from the
#               records; it must be the same byte for byte
#   figure      PHRASE is a phrase of FILE, on one line, with {} where
#               each figure stands; COMMAND prints the figures, one per
#               {}, tab-separated; the phrase with them must be in FILE
#   historical  FILE's figures come from records that are not committed:
#               they cannot be recomputed, so FILE must carry PHRASE (the
#               note "Historical, records not committed") saying so;
#               COMMAND names where the records were
#   measured    FILE is a log of dated measurements, each with the command
#               that measures it again (COMMAND says where): they are
#               observations of a moment, not counts over records, and
#               are not recomputed
#
# Every results/baseline/*.md and README.md must have a row. A mismatch
# prints FILE:LINE, the figure written, the figure computed and the
# command. COMMAND runs under sh in the tree's top directory with
# $FLIPBED (build/bin/flipbed) and $T (a scratch directory of its own).
#
# Usage: check-figures.sh [TABLE [ROOT]]   (default: results/baseline/figures.tsv
#        of the tree; ROOT, the tree the table's paths are relative to)
# Exit 0 all figures match, 1 some do not, 2 bad table.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "${2:-$here/../..}" && pwd) || exit 2
table=${1:-$root/results/baseline/figures.tsv}
case $table in /*) ;; *) table=$PWD/$table ;; esac
cd "$root" || exit 2
[ -r "$table" ] || { echo "check-figures: no table $table" >&2; exit 2; }
FLIPBED=${FLIPBED:-$root/build/bin/flipbed}
export FLIPBED
scratch=$(mktemp -d) || exit 2
trap 'rm -rf "$scratch"' EXIT
bad=0 rows=0 tab=$(printf '\t')

mismatch() { printf '%s\n' "$1"; bad=$((bad + 1)); }

# run N COMMAND: COMMAND's stdout to $scratch/N.out, in a scratch dir of its own.
run() {
	mkdir -p "$scratch/$1.d"
	T=$scratch/$1.d sh -c "$2" > "$scratch/$1.out" 2> "$scratch/$1.err"
}

# substitute PHRASE VALUES: PHRASE with each {} replaced by the next
# tab-separated value.
substitute() {
	awk -v p="$1" -v v="$2" 'BEGIN {
		n = split(v, val, "\t"); out = ""; i = 1
		while ((k = index(p, "{}")) > 0) {
			out = out substr(p, 1, k - 1) (i <= n ? val[i] : "?"); p = substr(p, k + 2); i++
		}
		print out p }'
}

check_generated() {	# N FILE COMMAND
	if ! run "$1" "$3"; then
		mismatch "$2:1: cannot regenerate: $(tail -n 1 "$scratch/$1.err"); command: $3"
		return
	fi
	cmp -s "$2" "$scratch/$1.out" && { echo "ok: $2: regenerated, the same"; return; }
	line=$(cmp "$2" "$scratch/$1.out" 2>&1 | sed -n 's/.*line \([0-9]*\).*/\1/p')
	line=${line:-$(($(wc -l < "$2") + 1))}
	mismatch "$2:$line: written '$(sed -n "${line}p" "$2" | cut -c1-160)', computed '$(sed -n "${line}p" "$scratch/$1.out" | cut -c1-160)'; command: $3"
}

check_figure() {	# N FILE PHRASE COMMAND
	if ! run "$1" "$4"; then
		mismatch "$2:1: cannot compute '$3': $(tail -n 1 "$scratch/$1.err"); command: $4"
		return
	fi
	want=$(substitute "$3" "$(head -n 1 "$scratch/$1.out")")
	if grep -qF -- "$want" "$2"; then
		printf 'ok: %s: %s\n' "$2" "$want"
		return
	fi
	prefix=${3%%\{\}*}
	at=$(grep -nF -- "$prefix" "$2" | head -n 1)
	if [ -z "$prefix" ] || [ -z "$at" ]; then
		mismatch "$2:0: no line holds '$3'; computed '$want'; command: $4"
		return
	fi
	line=${at%%:*} text=${at#*:}
	written=$(printf '%s\n' "$text" | awk -v p="$prefix" -v n=${#want} \
		'{ print substr($0, index($0, p), n + 8) }')
	mismatch "$2:$line: written '$written', computed '$want'; command: $4"
}

n=0
while IFS="$tab" read -r file kind phrase cmd; do
	case $file in ''|'#'*) continue ;; esac
	n=$((n + 1)) rows=$((rows + 1))
	echo "$file" >> "$scratch/declared"
	if [ ! -e "$file" ]; then
		mismatch "$file:0: in $table, but no such file"
		continue
	fi
	case $kind in
	generated) check_generated "$n" "$file" "$cmd" ;;
	figure) check_figure "$n" "$file" "$phrase" "$cmd" ;;
	historical)
		if grep -qF -- "$phrase" "$file"; then
			echo "not recomputed: $file: historical, records not committed ($cmd)"
		else
			mismatch "$file:1: its figures come from records not committed ($cmd): nothing recomputes them; mark them '$phrase' or commit the records"
		fi ;;
	measured) echo "not recomputed: $file: dated measurements ($cmd)" ;;
	*) echo "check-figures: $table: row $rows: unknown kind '$kind'" >&2; exit 2 ;;
	esac
done < "$table"
for f in README.md results/baseline/*.md; do
	[ -e "$f" ] || continue
	grep -qxF -- "$f" "$scratch/declared" 2>/dev/null ||
		mismatch "$f:1: no row in $table: add its figures (or say why they cannot be recomputed)"
done
echo "check-figures: $rows rows; $bad mismatches"
[ "$bad" -eq 0 ]

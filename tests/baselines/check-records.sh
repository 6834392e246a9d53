#!/bin/sh
# SPDX-License-Identifier: MIT
# The rules every committed case record must meet (harness/RESULTS.md
# for the fields), over record files given on the command line: a
# cases.jsonl (one record a line, or xz-compressed: cases.jsonl.xz) or a
# case.json; a run.json is checked
# for the build that made the run.
#
#   signals        a record that ran (verdict not skip) holds `signals`
#                  and `acknowledged`; one without them predates the
#                  two-signal classifier or the acknowledged-writes check
#                  and proves nothing: regenerate it
#   fanotify-errno where fanotify saw an event of a detection (the errno
#                  signal's source is fanotify: an EROFS, or an EIO once
#                  the journal aborted or ext4 went read-only, is a
#                  consequence of an earlier error), outcome.detect equals
#                  signals.errno.class, or signals.conflict names the
#                  kernel function (ext4_*, __ext4_*, jbd2_*, ...) that
#                  explains the disagreement (a conflict left
#                  "unexplained" explains nothing)
#   acknowledged   data "intact" while a write made durable (durable not
#                  "none") reads back lost or changed
#   unexplained    outcome.undetected "unexplained" with verdict pass,
#                  unless the scenario wrote `undetected = unexplained`
#                  itself: a finding that documents a kernel's gap (its
#                  comment names the finding), counted apart as such
#   dirty-build    run.json's flipbed version ends in -dirty: the records
#                  were made by a tree no commit holds
#
# Prints one line per violation, FILE:LINE: CASE: RULE: what (at most
# FLIPBED_RECORDS_SHOWN, default 5, per file and rule, then a count), and
# a closing count line. Exit 0 when no record breaks a rule, 1 when one
# does, 2 on bad input (a file that is not JSON).
set -u
shown=${FLIPBED_RECORDS_SHOWN:-5}
[ $# -gt 0 ] || { echo "usage: $0 CASES.jsonl|case.json|run.json..." >&2; exit 2; }

# One line per violation of the records on stdin (one record a line):
# LINE<TAB>CASE<TAB>RULE<TAB>WHAT.
rules='
def kfunc: test("(^|[^A-Za-z0-9_])(__)?(ext4|jbd2|ext4fs)_[A-Za-z0-9_]+");
def events: if .signals.errno.source == "fanotify"
	then [(.fanotify.events // [])[] | (.count // 1)] | add // 0 else 0 end;
def ran: .verdict != "skip";
foreach inputs as $r (0; . + 1; . as $n | $r |
	(.case // "?") as $c |
	(if ran and ((.signals | type) != "object" or (.acknowledged | type) != "array") then
		[$n, $c, "signals", "record predates the two-signal classifier: regenerate (no "
		 + ([(if (.signals | type) != "object" then "signals" else empty end),
		     (if (.acknowledged | type) != "array" then "acknowledged" else empty end)]
		    | join(", ")) + ")"]
	 else empty end),
	(if ran and events > 0 and (.signals | type) == "object"
	    and .outcome.detect != .signals.errno.class
	    and ((.signals.conflict | type) != "string" or (.signals.conflict | kfunc | not)
		 or (.signals.conflict | test(": unexplained$"))) then
		[$n, $c, "fanotify-errno", "fanotify saw \(events) event(s): detect \(.outcome.detect), errno class \(.signals.errno.class // "null"), conflict \(.signals.conflict | tojson) names no kernel function"]
	 else empty end),
	(if .outcome.data == "intact" and (.acknowledged | type) == "array" then
		(.acknowledged[] | select((.result == "lost" or .result == "changed")
					   and (.durable // "none") != "none") |
		 [$n, $c, "acknowledged", "data intact, but \(.path) made durable (\(.durable)) reads back \(.result)"])
	 else empty end),
	(if .outcome.undetected == "unexplained" and .verdict == "pass"
	    and (.expect.undetected // "") != "unexplained" then
		[$n, $c, "unexplained", "undetected unexplained, verdict pass"]
	 else empty end)
) | @tsv'

bad=0 total=0
out=$(mktemp) || exit 2
plain=$(mktemp) || exit 2
trap 'rm -f "$out" "$plain"' EXIT
for f in "$@"; do
	src=$f
	case $f in
	*.jsonl.xz)
		xz -dc "$f" > "$plain" 2> /dev/null && jq -c . "$plain" > /dev/null 2>&1 ||
			{ echo "$f: not xz-compressed JSON lines" >&2; exit 2; }
		src=$plain
		n=$(grep -c . "$plain") ;;
	*run.json)
		v=$(jq -r '.flipbed // ""' "$f") || { echo "$f: not JSON" >&2; exit 2; }
		case $v in
		*-dirty) printf '%s:1: (run): dirty-build: records made by flipbed %s, a tree no commit holds: regenerate from a clean tree\n' "$f" "$v" >> "$out" ;;
		esac
		continue ;;
	*.jsonl) jq -c . "$f" > /dev/null 2>&1 || { echo "$f: not JSON lines" >&2; exit 2; }
		n=$(grep -c . "$f") ;;
	*) jq -e 'type == "object"' "$f" > /dev/null 2>&1 || { echo "$f: not a JSON object" >&2; exit 2; }
		n=1 ;;
	esac
	total=$((total + n))
	jq -cn "$rules" < "$src" | jq -r . |
		awk -F'\t' -v f="$f" '{ printf "%s:%s: %s: %s: %s\n", f, $1, $2, $3, $4 }' >> "$out"
done
# At most $shown lines per file and rule, then how many more.
awk -v shown="$shown" '{
	split($0, p, ": "); file = p[1]; sub(/:[0-9]+$/, "", file); key = file ": " p[3]
	n[key]++; if (n[key] <= shown) print; else more[key]++
} END { for (k in more) printf "%s: ... and %d more\n", k, more[k] }' "$out"
bad=$(wc -l < "$out")
echo "check-records: $total records in $# files; $bad violations"
[ "$bad" -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: MIT
# Where a run's CPU went, phase by phase, from its records' "cpu" objects
# (harness/RESULTS.md), for make bench-matrix and make bench-campaign:
#
#   harness/bench-profile.sh RUNDIR [TOTAL_CPU WALL]
#
# prints, per phase, the CPU seconds summed over the cases, the
# milliseconds per case and the share of all the CPU the phases account
# for: the guest (QEMU booting, QEMU running the cases) and the host
# (nbdkit serving the disk with the plugin's faults, the image copy, each
# e2fsck run: the journal replay, -fn, -fy, -fn after -fy, and the data
# oracle's reads of the image). TOTAL_CPU, the CPU time of the whole run
# (flipbed and every process it waited for), adds the line "flipbed
# itself" (what is left: classification, records, reports, scheduling),
# and WALL the run's CPU use per second of wall time. Then the median
# wall time of a case's phases (its "durations"). Exit 2 when RUNDIR has
# no record with a "cpu" object (a run made before flipbed recorded it).
set -eu
[ $# = 1 ] || [ $# = 3 ] || { echo "usage: harness/bench-profile.sh RUNDIR [TOTAL_CPU WALL]" >&2; exit 2; }
run=$1
total=${2:-}
wall=${3:-}
cases=$run/cases.jsonl
[ -r "$cases" ] || { echo "bench-profile: $cases: no such file" >&2; exit 2; }
n=$(jq -s '[.[] | select(.cpu)] | length' "$cases")
[ "$n" -gt 0 ] || { echo "bench-profile: $cases: no record carries \"cpu\"" >&2; exit 2; }

jq -rs --arg total "$total" --arg wall "$wall" '
	[.[] | select(.cpu)] as $r | ($r | length) as $n |
	def sum(f): [$r[] | (f // 0)] | add;
	[["guest: QEMU booting", sum(.cpu.qemu_boot)],
	 ["guest: QEMU running the cases", sum(.cpu.qemu)],
	 ["host: nbdkit and the plugin", sum(.cpu.nbdkit)],
	 ["host: image copy", sum(.cpu.image)],
	 ["host: e2fsck journal replay", sum(.cpu.fsck.replay)],
	 ["host: e2fsck -fn", sum(.cpu.fsck.fn)],
	 ["host: e2fsck -fy", sum(.cpu.fsck.fy)],
	 ["host: e2fsck -fn after -fy", sum(.cpu.fsck.fn2)],
	 ["host: data oracle", sum(.cpu.data)]] as $p |
	($p | map(.[1]) | add) as $phases |
	(if $total != "" then ($total | tonumber) else null end) as $t |
	(if $t != null and $t > $phases then $p + [["host: flipbed itself (the rest)", $t - $phases]] else $p end) as $rows |
	(if $t != null and $t > $phases then $t else $phases end) as $all |
	def fmt(x; d): (x * pow(10; d) | round) / pow(10; d) | tostring;
	def pad(s; w): s + (" " * ([w - (s | length), 0] | max));
	def lpad(s; w): (" " * ([w - (s | length), 0] | max)) + s;
	"CPU by phase, \($n) cases:",
	"  " + pad("phase"; 34) + lpad("CPU s"; 9) + lpad("ms/case"; 10) + lpad("share"; 8),
	($rows[] | "  " + pad(.[0]; 34) + lpad(fmt(.[1]; 2); 9) + lpad(fmt(.[1] * 1000 / $n; 1); 10) +
		lpad(fmt(.[1] * 100 / $all; 1) + "%"; 8)),
	"  " + pad("all"; 34) + lpad(fmt($all; 2); 9) + lpad(fmt($all * 1000 / $n; 1); 10),
	"  host oracle (e2fsck runs, data oracle): " +
		fmt((sum(.cpu.fsck.replay) + sum(.cpu.fsck.fn) + sum(.cpu.fsck.fy) + sum(.cpu.fsck.fn2) + sum(.cpu.data)) * 1000 / $n; 1) +
		" ms/case; guest (QEMU): " + fmt((sum(.cpu.qemu_boot) + sum(.cpu.qemu)) * 1000 / $n; 1) + " ms/case",
	(if $wall != "" then "  CPU per second of wall time: " + fmt($all / ($wall | tonumber); 2) else empty end),
	"median wall time of a case (durations): " +
		([ "image", "boot", "workload", "fsck", "total" ] | map(. as $k |
			($r | map(.durations[$k] // 0) | sort | .[($n / 2 | floor)]) as $m |
			"\($k) \(fmt($m; 3)) s") | join(", "))
' "$cases"

#!/bin/sh
# SPDX-License-Identifier: MIT
# Scenario variables: the workloads written once in units of the fixture's
# cluster size (bigalloc/workload.scn) and inline limit (inline/sizes.scn)
# expand, fixture by fixture, to exactly the steps of the five files they
# replaced (the sha256 of their `step = ` lines at commit d0ad1e2), and
# --set vars.NAME reaches the variables built on it. No VM. Groups: quick.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_built "$FLIPBED" build/bin/flipbed

# steps FILE FIXTURE [--set ...]: the expanded steps of one case, on stock
steps() {
	_f=$1 _x=$2
	shift 2
	"$FLIPBED" run "$top/scenarios/$_f" --kernel stock --set "scenario.fixture=$_x" "$@" \
		--list --verbose | sed -n '/^\[workload\]$/,/^$/p' | grep '^step = '
}

"$FLIPBED" run "$top/scenarios/inline/sizes.scn" --kernel stock --list --verbose |
	grep -q '^\[workload\]$' ||
	skip "flipbed run --list --verbose does not print the expanded scenario (harness/cmd/run_cmd.c)"

while read -r file fixture n sum; do
	got=$(steps "$file" "$fixture")
	count=$(printf '%s\n' "$got" | grep -c '^step = ')
	hash=$(printf '%s\n' "$got" | sha256sum | cut -d' ' -f1)
	if [ "$count" = "$n" ] && [ "$hash" = "$sum" ]; then
		ok "$file on $fixture: the $n steps of the file it replaced"
	else
		check_fail "$file on $fixture: $count steps, sha256 $hash; expected $n, $sum"
	fi
done <<'LIST'
bigalloc/workload.scn bigalloc-16k 141 e505b3a4ad3daf496febed75f6a9131d8a59f37431cebf50f073bc951ab810e2
bigalloc/workload.scn bigalloc-64k 141 774454661370152582e83ad060da68f3148bd67cf128a7ae831e8397c93037e9
bigalloc/workload.scn bigalloc-1m 135 0d0fd0e9c938f3918c44f22fea331ce4b55b98cfeb97626c73d0671016a225ce
inline/sizes.scn inline-256 157 0aca2944cac8b0b08a9580978138734bfd5c344a2e0b6805338a2686691314dd
inline/sizes.scn inline-1024 181 4225467a4d1ae1360ff6e4b6cdc308d4eed73ac07043d28b2d77d1222aabefb1
LIST

# cluster = cluster_kib*1024 is defined after the fixture's cluster_kib
if steps bigalloc/workload.scn bigalloc-16k --set vars.cluster_kib=32 |
	grep -qx 'step = write /w/s32767 32767'; then
	ok "--set vars.cluster_kib=32 reaches cluster"
else
	check_fail "--set vars.cluster_kib=32 did not give 'write /w/s32767 32767'"
fi
finish

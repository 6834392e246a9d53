#!/bin/sh
# SPDX-License-Identifier: MIT
# The regression matrix (scenarios/matrix/ci.mat) on its four kernels (stock
# and patched, 6.1 and 6.12), booted for real: every case must meet its
# expectation (flipbed exits 0), and every object type the corruptor knows
# must have at least one case on each kernel ("every object type gets a
# case" is checked, not assumed). Groups: ci.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_flipbed
require_tools jq
kernels="stock patched stock-6.12 patched-6.12"
require_kernel $kernels
flipbed=$FLIPBED
out=$top/build/tests/matrix-ci
rm -rf "$out"
"$flipbed" matrix ci --jobs "$(nproc)" --out "$out" --ktap
rc=$?
echo "flipbed matrix ci: exit $rc (results: $out)"
missing=0
types=$("$flipbed" run "$here/scenario-errors/03-unknown-type.scn" --list 2>&1 |
	sed -n 's/.*accepted: none, range, //p' | tr -d ',')
# the corruptor knows 22 types: an empty or short list would check nothing
if [ "$(echo $types | wc -w)" -lt 22 ]; then
	echo "cannot read the corruptor's type list (got: '$types')"
	missing=1
fi
# each record's kernel and target type, read by name: a record is JSON
# with sorted keys, so no field has a fixed place in its line
jq -r '"\(.kernel) \(.target.type)"' "$out/cases.jsonl" | sort -u > "$out/types" ||
	{ echo "cannot read $out/cases.jsonl"; missing=1; }
for t in $types; do
	for k in $kernels; do
		if ! grep -qx "$k $t" "$out/types"; then
			echo "no case of type $t on kernel $k"
			missing=1
		fi
	done
done
[ $rc -eq 0 ] && [ $missing -eq 0 ]

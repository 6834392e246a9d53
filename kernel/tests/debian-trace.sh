#!/bin/sh
# SPDX-License-Identifier: MIT
# A case whose kernel log holds a WARNING gets its call trace with
# file:line per frame when flipbed has the kernel's debug info
# (harness/kernel_trace.h): scenarios/inline/da-truncate.scn on debian-6.1
# hits 6.1's WARNING in ext4_da_update_reserve_space. The RIP frame must
# decode to the very file:line the WARNING line itself names, every frame
# must get a source line, and flipbed show prints them; on stock, which has
# no debug info, the case has no trace.txt. Needs `make kernels-debian-dbg`
# (the -dbg package, about 1 GB to fetch), which make check does not
# fetch: without it the test is skipped, in CI too.
# Groups: debian kernel.
. "$(dirname "$0")/lib.sh"
LC_ALL=C
export LC_ALL
require_tools mkfs.ext4 nbdkit qemu-system-x86_64 nm addr2line
require_built "$flipbed" build/bin/flipbed
require_built "$B/kernel/debian-6.1/bzImage" kernel-debian-6.1
[ -r "$B/kernel/debian-6.1/dbg/vmlinux" ] ||
	skip_anywhere "build/kernel/debian-6.1/dbg not fetched (make kernels-debian-dbg)"

scn=$top/scenarios/inline/da-truncate.scn
case=inline/da-truncate@debian-6.1
"$flipbed" run "$scn" --kernel debian-6.1 --jobs 1 --out "$T/run" > "$T/run.log" 2>&1 ||
	{ tail -n 10 "$T/run.log" | sed 's/^/    /'; check_fail "flipbed run exited $?"; }
dir=$T/run/cases/inline_da-truncate@debian-6.1
warn=$(grep -o 'WARNING: .* at fs/ext4/[a-z_]*\.c:[0-9]*' "$dir/dmesg.txt" | head -n 1)
[ -n "$warn" ] || fail "no WARNING at fs/ext4/FILE:LINE in the case's kernel log"
where=${warn##* at }
[ -s "$dir/trace.txt" ] || fail "no trace.txt in the case"
# the first frame is the RIP line's: the function the WARNING fired in
first=$(sed -n 2p "$dir/trace.txt")
case $first in
*" $where") ok "the RIP frame decodes to the WARNING's own $where ($first)" ;;
*) check_fail "the RIP frame decodes to '$first', the WARNING says $where" ;;
esac
frames=$(grep -c '^[^ ]' "$dir/trace.txt")
undecoded=$(grep -c 'no debug info' "$dir/trace.txt")
[ "$frames" -ge 5 ] && [ "$undecoded" -eq 0 ] &&
	ok "$frames frames, each with a source line" ||
	{ sed 's/^/    /' "$dir/trace.txt"; check_fail "$frames frames, $undecoded without a source line"; }
"$flipbed" show "$case" --run "$T/run" > "$T/show" 2>&1
grep -q "^call traces, file:line per frame" "$T/show" && grep -qF -- "$first" "$T/show" &&
	ok "flipbed show prints the decoded trace" ||
	check_fail "flipbed show does not print the decoded trace"

# stock: the same WARNING, no debug info, no trace.txt
if [ -r "$B/kernel/stock/vmlinux" ]; then
	"$flipbed" run "$scn" --kernel stock --jobs 1 --out "$T/stock" > "$T/stock.log" 2>&1
	grep -q 'WARNING: ' "$T/stock/cases/inline_da-truncate@stock/dmesg.txt" 2>/dev/null ||
		check_fail "stock: no WARNING in the case's kernel log"
	[ -e "$T/stock/cases/inline_da-truncate@stock/trace.txt" ] &&
		check_fail "stock has no debug info, and its case has a trace.txt" ||
		ok "stock, without debug info: no trace.txt"
fi
finish

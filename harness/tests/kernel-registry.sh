#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel registry (kernel/kernels.ini, read from FLIPBED_KERNELS_INI
# here): flipbed and kernel/build.sh know the same kernels; a variant takes
# the scenario role of the kernel it is a variant of (a scenario's
# `kernels =` and its [expect:NAME] sections), and a section naming the
# variant itself wins over its kernel's, wherever it is in the file; an
# unknown name is refused with the known ones. No VM. Groups: quick.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_built "$FLIPBED" build/bin/flipbed

cat > "$T/kernels.ini" <<'EOF'
[stock]
source = debian:linux-source-6.1
config = flipbed.config
image = vmlinux
memory = 256

[patched]
source = debian:linux-source-6.1
patches = kernel/patches
config = flipbed.config
image = vmlinux
memory = 256
csum-lines = yes

[newer]
variant-of = stock
source = debian:linux-source-6.12

[newest]
variant-of = newer
memory = 512
EOF
export FLIPBED_KERNELS_INI=$T/kernels.ini

names=$("$top/kernel/build.sh" --list | paste -sd' ')
[ "$names" = "stock patched newer newest" ] ||
	check_fail "kernel/build.sh --list: '$names', expected 'stock patched newer newest'"
"$top/kernel/build.sh" --inputs newest | grep -qx /usr/src/linux-source-6.12.tar.xz ||
	check_fail "kernel/build.sh --inputs newest: no linux-source-6.12 tarball (variant-of newer)"
"$top/kernel/build.sh" bogus > /dev/null 2> "$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "unknown kernel 'bogus'" "$T/err" &&
	grep -q "one of: stock patched newer newest" "$T/err" ||
	check_fail "kernel/build.sh bogus: exit $rc, $(cat "$T/err")"

mkdir -p "$T/scenarios/reg"
cp -r "$top/scenarios/fixtures" "$T/scenarios/"
scn=$T/scenarios/reg/roles.scn
cat > "$scn" <<'EOF'
[scenario]
shows = which expectations a variant takes
groups = csum
fixture = base
kernels = stock

[target]
type = inode
path = /a
region = covered
seed = 1

[fault]
timing = rest
arm = boot

[workload]
step = mount
step = read /a

[expect:newest]
reaction = panic

[expect:stock]
reaction = remount-ro

[expect]
detect = csum
reaction = none
data = intact
EOF

# reaction KERNEL: the reaction the case on KERNEL expects
reaction() {
	"$FLIPBED" run "$scn" --kernel "$1" --list --verbose |
		sed -n '/^\[expect:/,/^$/s/^reaction = //p'
}
for want in stock:remount-ro newer:remount-ro newest:panic patched:none; do
	k=${want%%:*} r=${want#*:}
	got=$(reaction "$k")
	if [ "$got" = "$r" ]; then
		ok "$k expects reaction $r"
	else
		check_fail "$k expects reaction '$got', expected $r"
	fi
done

printf '[matrix]\nscenarios = %s\nkernels = newest patched\n' "$scn" > "$T/m.mat"
cases=$("$FLIPBED" matrix "$T/m.mat" --list | cut -f1 | paste -sd' ')
[ "$cases" = "reg/roles@newest" ] ||
	check_fail "matrix of newest and patched over a stock scenario: '$cases', expected reg/roles@newest"

"$FLIPBED" run "$scn" --kernel stock-6.1 --list > /dev/null 2> "$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "accepted: stock, patched, newer, newest" "$T/err" ||
	check_fail "--kernel stock-6.1: exit $rc, $(cat "$T/err")"
finish

#!/bin/sh
# SPDX-License-Identifier: MIT
# Infra failures are reported as such (exit 3, a line naming the failing
# program and its log), never as a kernel outcome, and leave nothing
# running: QEMU refusing a kernel that is not one, and nbdkit refusing a
# plugin that is not one. flipbed is copied into a build directory of its
# own (it finds kernels, initramfs and plugin beside its bin/). Groups: quick.
. "$(dirname "$0")/lib.sh"
require_flipbed
img=$T/img
mkimage "$img"
fake=$T/build
mkdir -p "$fake/bin" "$fake/kernel/stock" "$fake/guest" "$fake/lib"
cp "$FLIPBED" "$fake/bin/flipbed"
cp "$B/guest/initramfs.cpio.gz" "$fake/guest/"
echo "not a kernel" > "$fake/kernel/stock/vmlinux"

echo "=== QEMU cannot load the kernel"
"$fake/bin/flipbed" boot --kernel stock --image "$img" --step mount > "$T/log" 2> "$T/err"
rc=$?
cat "$T/log" "$T/err"
[ $rc -eq 3 ] || fail "bad kernel: flipbed boot exited $rc, expected 3"
grep -q '^flipbed: guest end: infra: qemu exited with status 1' "$T/log" ||
	fail "bad kernel: no 'guest end: infra: qemu exited ...' line"
grep -q 'logs kept in' "$T/err" || fail "bad kernel: the kept logs are not named"
no_leftovers

echo "=== nbdkit cannot load the plugin"
echo "not a plugin" > "$fake/lib/nbdkit-flipbed-plugin.so"
"$fake/bin/flipbed" boot --kernel stock --image "$img" --step mount > "$T/log" 2> "$T/err"
rc=$?
cat "$T/log" "$T/err"
[ $rc -eq 3 ] || fail "bad plugin: flipbed boot exited $rc, expected 3"
grep -q "^flipbed boot: nbdkit exited with status 1: nbdkit: error: cannot open plugin" "$T/err" ||
	fail "bad plugin: no 'nbdkit exited ...: nbdkit: error: cannot open plugin' line"
no_leftovers
echo "ok"

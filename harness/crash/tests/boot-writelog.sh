#!/bin/sh
# SPDX-License-Identifier: MIT
# flipbed boot --writelog: a booted kernel's writes, recorded by the plugin,
# replayed to the end onto the image as it was before the boot give the
# image the boot left, byte for byte; the log has the flushes of the
# workload's fsyncs; replayed to flush 0 it gives the image back unchanged.
# Groups: crash
. "$(dirname "$0")/../../../tests/lib.sh"
FLIPBED=${FLIPBED:-$B/bin/flipbed}
REPLAY=$B/bin/flipbed-replay
require_built "$FLIPBED" build/bin/flipbed
require_built "$REPLAY" build/bin/flipbed-replay
require_built "$B/lib/nbdkit-flipbed-plugin.so" build/lib/nbdkit-flipbed-plugin.so
require_built "$B/guest/initramfs.cpio.gz" build/guest/initramfs.cpio.gz
require_kernel patched
require_tools qemu-system-x86_64 nbdkit mkfs.ext4 cmp

img=$T/img
mkfs.ext4 -q -F -O metadata_csum,inline_data "$img" 64M > /dev/null || fail "mkfs.ext4"
cp "$img" "$T/start"
"$FLIPBED" boot --kernel patched --image "$img" --writelog "$T/log" \
	--step mount --step 'write /a 70000' --step 'fsync /a' --step 'mkdir /d' \
	--step 'write /d/small 40' --step 'fsync /d' --step 'rename /a /d/b' \
	--step umount > "$T/boot.log" 2>&1 || { cat "$T/boot.log"; fail "flipbed boot exited $?"; }
ok "booted with --writelog: $(sed -n 's/^flipbed: times .* steps \([0-9.]*\) .*/steps \1 s/p' "$T/boot.log")"

"$REPLAY" --list "$T/log" > "$T/points" || fail "flipbed-replay --list exited $?"
flushes=$(grep -c . "$T/points")
# two fsyncs, the umount's, and the journal's commits: at least three
[ "$flushes" -ge 3 ] || { cat "$T/points"; fail "$flushes flush points, expected at least 3"; }
ok "$flushes flush points in the log"

cmp -s "$T/start" "$img" && fail "the boot changed nothing on the image"
"$REPLAY" "$T/log" "$T/start" --to-end -o "$T/end" || fail "flipbed-replay --to-end exited $?"
cmp "$T/end" "$img" || fail "the log replayed to its end is not the image the boot left"
ok "replayed to the end: the image the boot left, byte for byte"
"$REPLAY" "$T/log" "$T/start" --to-flush 0 -o "$T/zero" || fail "flipbed-replay --to-flush 0 exited $?"
cmp "$T/zero" "$T/start" || fail "flush point 0 is not the image before the boot"
ok "flush point 0: the image before the boot"
finish

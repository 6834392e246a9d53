# SPDX-License-Identifier: MIT
# Shared by harness/tests/*.sh (sourced, not run), on top of tests/lib.sh
# (fail, skip, require_*, the private TMPDIR $T): flipbed, images, and the
# leftover check. flipbed makes its private directories in $T, so that
# path appears in the command line of every QEMU and nbdkit the test
# started and finds any that outlived it. FLIPBED=PATH tests another
# flipbed binary.

. "$(dirname "$0")/../../tests/lib.sh"
FLIPBED=${FLIPBED:-$B/bin/flipbed}

# The pids of processes whose command line names our TMPDIR.
leftovers() { pgrep -f -- "$T" || true; }

cleanup() {
	pids=$(leftovers)
	[ -n "$pids" ] && kill -9 $pids 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# Fail when a process of this test is still running (after a grace of 2 s
# for the kernel to deliver PDEATHSIG and reap).
no_leftovers() {
	i=0
	while [ -n "$(leftovers)" ] && [ $i -lt 20 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	pids=$(leftovers)
	[ -z "$pids" ] || { ps -o pid,args -p "$(echo $pids | tr ' ' ,)"; fail "processes left behind: $pids"; }
}

require_flipbed() {
	require_built "$FLIPBED" build/bin/flipbed
	require_built "$B/guest/initramfs.cpio.gz" build/guest/initramfs.cpio.gz
	require_tools qemu-system-x86_64 nbdkit mkfs.ext4 debugfs e2fsck pgrep
}

# mkimage FILE: a 64 MiB metadata_csum,inline_data image.
mkimage() {
	rm -f "$1"
	mkfs.ext4 -q -F -O metadata_csum,inline_data "$1" 64M > /dev/null || fail "mkfs.ext4 $1"
}

# populate FILE VARIANT: /a (5000 bytes) and /d/small (40 bytes, inline),
# written by the guest.
populate() {
	"$FLIPBED" boot --kernel "$2" --image "$1" --step mount --step 'write /a 5000' \
		--step 'mkdir /d' --step 'write /d/small 40' --step umount ||
		fail "flipbed boot exited $? while populating $1"
}

# The byte offset of inode PATH's on-disk copy in image FILE.
inode_offset() {
	bs=$(block_size "$1")
	loc=$(debugfs -R "imap $2" "$1" 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	[ -n "$loc" ] && [ -n "$bs" ] || return 1
	set -- $loc
	echo $(($1 * bs + $2))
}

block_size() {
	dumpe2fs -h "$1" 2>/dev/null | awk '/^Block size:/ { print $3 }'
}

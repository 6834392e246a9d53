# Shared by harness/tests/*.sh (sourced, not run): paths, skips, images, and
# the leftover check. Every test gets a private TMPDIR; flipbed makes its
# temporary directory there, so that path appears in the command line of
# every QEMU and nbdkit the test started and finds any that outlived it.
# FLIPBED=PATH tests another flipbed binary.

top=$(cd "$(dirname "$0")/../.." && pwd)
B=$top/build
FLIPBED=${FLIPBED:-$B/bin/flipbed}

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

T=$(mktemp -d /tmp/flipbed-test.XXXXXX) || exit 1
export TMPDIR=$T

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

need_tools() {
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip "$t not installed (make deps)"
	done
}

need_flipbed() {
	[ -x "$FLIPBED" ] || skip "$FLIPBED not built (make build/bin/flipbed)"
	[ -r "$B/guest/initramfs.cpio.gz" ] ||
		skip "$B/guest/initramfs.cpio.gz not built (make build/guest/initramfs.cpio.gz)"
	need_tools qemu-system-x86_64 nbdkit mkfs.ext4 debugfs e2fsck pgrep
}

need_kernel() {
	[ -r "$B/kernel/$1/vmlinux" ] || skip "kernel variant $1 not built (make kernels)"
}

# mkimage FILE: the 64 MiB metadata_csum,inline_data image of issue 2.
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

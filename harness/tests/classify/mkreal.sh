#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerate the transcripts of the golden files that come from real boots:
# build the image, corrupt it with debugfs, boot it with `flipbed boot
# --console`, and turn its output into transcript.log's format
# (harness/RESULTS.md: "C " console, "A " agent, "H exit KIND" host lines).
# The header of each golden file (the expected outcome, written by a person
# who read the log) is kept; only the transcript after the blank line is
# replaced. With no such file yet the header is "# detect: ?" until edited.
#
# Usage: harness/tests/classify/mkreal.sh [NAME...]   (default: every case)
# Needs build/bin/flipbed and the kernel variant the case names.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
flipbed=$top/build/bin/flipbed
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The image every case starts from: inline /f (12 bytes), /frag with a
# depth-1 extent tree (50 one-block extents), /d2 with a directory block.
base_image() {
	mkfs.ext4 -q -F -O metadata_csum,inline_data -I 256 -b 4096 "$1" 64M
	printf 'hello world\n' > "$work/small"
	head -c 409600 /dev/zero | tr '\0' x > "$work/frag"
	{
		echo "write $work/small f"
		echo "write $work/frag frag"
		i=1; while [ $i -lt 100 ]; do echo "punch /frag $i $i"; i=$((i + 2)); done
		echo "mkdir d2"
		i=0; while [ $i -lt 40 ]; do
			echo "write $work/small d2/file-with-a-long-name-$i"; i=$((i + 1))
		done
	} > "$work/cmds"
	debugfs -w -f "$work/cmds" "$1" > /dev/null 2>&1
}

# debugfs -R CMD IMG, quietly
dbg() { debugfs -R "$1" "$2" 2>/dev/null; }
extent_block() { dbg 'stat /frag' "$1" | sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p'; }
dir_block() { dbg 'blocks /d2' "$1" | awk '{print $1}'; }
data_block() { dbg 'stat /frag' "$1" | sed -n 's/.*, (0):\([0-9]*\).*/\1/p'; }
probe="may setxattr / user.flipbed-probe 1"	# harness/classify/probe.h FB_PROBE_STEP
rprobe="may getxattr / user.flipbed-probe"	# FB_PROBE_READ_STEP

# Boot IMG with KERNEL, the remaining arguments are flipbed boot's; the
# transcript goes to stdout.
boot() {
	img=$1 kernel=$2
	shift 2
	"$flipbed" boot --kernel "$kernel" --image "$img" --console "$@" \
		> "$work/out" 2>&1 || true
	awk '
	/^console / { print "C " substr($0, 9); next }
	/^flipbed: guest end: / {
		split($0, w, ": "); kind = w[3]
		if (kind == "infra") kind = "qemu-error " w[4]
		# the timeout keeps its reason: the silence before it (classify.c)
		if (kind == "timeout") kind = "timeout " substr($0, index($0, "timeout: ") + 9)
		print "H exit " kind; next }
	/^flipbed: / { next }
	{ print "A " $0 }' "$work/out"
}

case_body() {
	img=$work/img
	base_image "$img" > /dev/null
	case $1 in
	stock-inode-csum-ro)
		debugfs -w -R 'set_inode_field /f checksum 0' "$img" 2>/dev/null
		boot "$img" stock --step mount --step 'read /f' --step "$probe" ;;
	stock-gd-csum-mount)
		debugfs -w -R 'set_bg 0 checksum 0' "$img" 2>/dev/null
		boot "$img" stock --step mount --step 'read /f' --step "$probe" ;;
	stock-extent-csum)
		debugfs -w -R "zap_block -o 4092 -l 4 -p 0x55 $(extent_block "$img")" "$img" 2>/dev/null
		boot "$img" stock --step mount --step 'read /frag' --step "$probe" ;;
	stock-extent-magic)
		debugfs -w -R "zap_block -o 0 -l 2 -p 0x55 $(extent_block "$img")" "$img" 2>/dev/null
		boot "$img" stock --step mount --step 'read /frag' --step "$probe" ;;
	stock-reseal-extent-root)
		# debugfs recomputes the inode checksum: only the header check can tell
		debugfs -w -R 'set_inode_field /frag block[0] 0' "$img" 2>/dev/null
		boot "$img" stock --step mount --step 'read /frag' --step "$probe" ;;
	stock-dir-csum)
		debugfs -w -R "zap_block -o 4092 -l 4 -p 0x55 $(dir_block "$img")" "$img" 2>/dev/null
		boot "$img" stock --step mount --step 'ls /d2' --step "$probe" ;;
	stock-io-eio)
		boot "$img" stock --rule "on=read at=$(($(data_block "$img") * 4096)) len=4096 eio" \
			--step mount --step 'read /frag' --step "$probe" ;;
	stock-panic)
		debugfs -w -R 'set_inode_field /f checksum 0' "$img" 2>/dev/null
		boot "$img" stock --step 'mount errors=panic' --step 'read /f' --step "$probe" ;;
	stock-error-continue)
		debugfs -w -R 'set_inode_field /f checksum 0' "$img" 2>/dev/null
		boot "$img" stock --step 'mount errors=continue' --step 'read /f' --step "$probe" ;;
	stock-timeout)
		boot "$img" stock --timeout 3 --step mount --step 'sleep 30' --step "$probe" ;;
	patched-inode-csum-ro)
		debugfs -w -R 'set_inode_field /f checksum 0' "$img" 2>/dev/null
		boot "$img" patched --step mount --step 'read /f' --step "$probe" ;;
	patched-gd-csum-mount)
		debugfs -w -R 'set_bg 0 checksum 0' "$img" 2>/dev/null
		boot "$img" patched --step mount --step 'read /f' --step "$probe" ;;
	patched-recovered)
		# one read of /frag's extent leaf returns a flipped bit (count=1):
		# csum_retry's re-read gets the good block
		boot "$img" patched \
			--rule-at armed "on=read at=$(($(extent_block "$img") * 4096 + 12)) len=1 flip=3 count=1" \
			--step 'mount csum_retry' --step 'wait armed' --step drop-caches \
			--step 'read /frag' --step "$probe" ;;
	stock612-inode-csum-shutdown|patched612-inode-csum-ro)
		# /frag is read before and after the error: on 6.12's shutdown
		# the second read fails with EIO, as both probes do
		k=stock-6.12
		[ "$1" = patched612-inode-csum-ro ] && k=patched-6.12
		debugfs -w -R 'set_inode_field /f checksum 0' "$img" 2>/dev/null
		boot "$img" $k --step mount --step 'read /frag' --step 'may read /f' \
			--step 'may read /frag' --step "$probe" --step "$rprobe" ;;
	stock612-error-continue)
		debugfs -w -R 'set_inode_field /f checksum 0' "$img" 2>/dev/null
		boot "$img" stock-6.12 --step 'mount errors=continue' --step 'may read /f' \
			--step "$probe" --step "$rprobe" ;;
	stock-clean)
		boot "$img" stock --step mount --step 'write /g 5000' --step 'read /g' \
			--step 'ls /d2' --step "$probe" ;;
	*)
		echo "mkreal.sh: unknown case '$1'; known: $(sed -n 's/^\t\([a-z-]*\))$/\1/p' "$0" | tr '\n' ' ')" >&2
		exit 2 ;;
	esac
}

[ -x "$flipbed" ] || { echo "mkreal.sh: $flipbed not built (make)" >&2; exit 2; }
[ $# -gt 0 ] || set -- $(sed -n 's/^\t\([a-z-]*\))$/\1/p' "$0")
for name; do
	gold=$here/$name.log
	if [ -e "$gold" ]; then
		sed '/^$/q' "$gold" > "$work/head"
	else
		printf '# detect: ?\n# reaction: ?\n# warning: ?\n\n' > "$work/head"
	fi
	case_body "$name" > "$work/body"
	cat "$work/head" "$work/body" > "$gold"
	echo "$gold"
done

#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the fuzzer's seeds to corruptor/tests/fuzz-corpus/ (run it from
# the top of the tree after changing it; the seeds are committed). Each is
# a tiny image (1 KiB blocks, 16 inodes, no lost+found) cut after its last
# non-zero block, free blocks zeroed first; the fuzz target reads the rest
# as zeros. Together they hold every mapped type but mmp, orphan-block
# and dx-node:
#   seed-inline   256-byte inodes, inline data, an xattr block, an extent leaf
#   seed-htree    128-byte inodes, a 90-entry htree (dx-root, 4 leaves)
#   seed-journal  a committed transaction: descriptor, 2 data blocks,
#                 commit, revoke, commit (jbd2 csum v3)
set -eu
out=corruptor/tests/fuzz-corpus
W=$(mktemp -d /tmp/flipbed-fuzz-seeds.XXXXXX)
trap 'rm -rf "$W"' EXIT
export E2FSPROGS_FAKE_TIME=1700000000 MKE2FS_CONFIG=/etc/mke2fs.conf
mkfs="mkfs.ext4 -q -F -b 1024 -N 16 -O ^resize_inode,^flex_bg,metadata_csum"

# seed IMG NAME: zero the free blocks, cut the trailing zeros
seed() {
	for r in $(dumpe2fs "$1" 2>/dev/null | sed -n 's/^  Free blocks: //p' |
		   tr -d ' ' | tr ',' ' '); do
		a=${r%-*} b=${r#*-}
		dd if=/dev/zero of="$1" bs=1024 seek=$a count=$((b - a + 1)) \
			conv=notrunc status=none
	done
	perl -e 'local $/; my $d = <STDIN>; $d =~ s/\0+\z//;
		print substr($d . ("\0" x 1024), 0,
			     int((length($d) + 1023) / 1024) * 1024)' \
		< "$1" > "$out/$2"
	echo "$out/$2: $(wc -c < "$out/$2") bytes"
}

mkdir -p "$out"
echo hi > "$W/small"
perl -e 'print(("y" . "\0" x 1023) . ("\0" x 1024)) for 1..5' > "$W/frag"
head -c 600 /dev/zero | tr '\0' v > "$W/val"
$mkfs -I 256 -O ^has_journal,inline_data "$W/a.img" 100K
debugfs -w -f - "$W/a.img" >/dev/null 2>&1 <<-EOT
	rmdir lost+found
	write $W/frag frag
	write $W/small a
	mkdir i
	write $W/small i/f
	ea_set -f $W/val a user.big
EOT
seed "$W/a.img" seed-inline

{ echo "rmdir lost+found"; echo "mkdir d"; echo "write $W/small s"
  for k in 1 2 3 4; do echo "expand_dir d"; done
  for i in $(seq 1 90); do echo "ln s d/a-rather-long-entry-name-$i"; done
} > "$W/cmds"
$mkfs -I 128 -O ^has_journal "$W/b.img" 100K 2>/dev/null
debugfs -w -f "$W/cmds" "$W/b.img" >/dev/null 2>&1
e2fsck -fyD "$W/b.img" >/dev/null 2>&1 || true
debugfs -w -R "rmdir lost+found" "$W/b.img" >/dev/null 2>&1
seed "$W/b.img" seed-htree

head -c 2048 /dev/urandom > "$W/jdata"
$mkfs -I 128 -J size=1 "$W/c.img" 3M 2>/dev/null
debugfs -w -f - "$W/c.img" >/dev/null 2>&1 <<-EOT
	rmdir lost+found
	jo -c
	jw -b 40,41 $W/jdata
	jw -r 42
	jc
EOT
seed "$W/c.img" seed-journal

#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes results/baseline/kernels.md on stdout: the committed ci records
# (results/baseline/ci/cases.jsonl) split into the 6.1 kernels and the
# 6.12 kernels, compared case by case with `flipbed diff --by kernel`,
# and why each kind of change happens, from the kernels' code. Run from
# the top of the tree: tests/baselines/kernels-md.sh FLIPBED SCRATCHDIR.
# `make check-baselines` regenerates the file this way and compares it.
set -eu
flipbed=${1:?usage: $0 FLIPBED SCRATCHDIR}
t=${2:?usage: $0 FLIPBED SCRATCHDIR}
cases=results/baseline/ci/cases.jsonl
mkdir -p "$t/ci-61" "$t/ci-612"
jq -c 'select(.kernel == "stock" or .kernel == "patched")' "$cases" > "$t/ci-61/cases.jsonl"
jq -c 'select(.kernel == "stock-6.12" or .kernel == "patched-6.12")' "$cases" > "$t/ci-612/cases.jsonl"
# diff exits 1 when cases changed, which they do
rc=0
"$flipbed" diff "$t/ci-61" "$t/ci-612" --by kernel > "$t/diff" 2> "$t/count" || rc=$?
[ $rc -le 1 ] || { cat "$t/count" >&2; exit 2; }
count=$(sed -n 's/^flipbed diff: \([0-9]* pairs across kernels compared, [0-9]* changed; [0-9]* infra or skipped\).*/\1/p' "$t/count")
version=$(jq -r .flipbed results/baseline/ci/run.json)

# the changes of one kind: the diff's lines that match the pattern
lines() { grep -E -- "$1" "$t/diff" | sed 's/^[^ ]* -> \([^ ]*\): /- `\1`: /' || true; }
n() { grep -cE -- "$1" "$t/diff" || true; }

cat <<EOF
# Linux 6.1 and 6.12 on the ci matrix, case by case

What changed between Debian's 6.1 kernels (\`stock\`, \`patched\`) and its
6.12 kernels (\`stock-6.12\`, \`patched-6.12\`, kernel/README.md) on the
same cases, from the committed ci records (\`results/baseline/ci\`, made by
flipbed $version): the records split by kernel into two runs, then

    build/bin/flipbed diff RUN-6.1 RUN-6.12 --by kernel

which pairs each 6.12 case with the same case on the kernel it is a
variant of (\`stock-6.12\` with \`stock\`, \`patched-6.12\` with
\`patched\`, kernel/kernels.ini) and lists those whose outcome
(detect/reaction/fsck/data) differs: $count. This file is written by
\`tests/baselines/kernels-md.sh\`, and \`make check-baselines\` writes it
again from the records and compares.

## stock-6.12: the error shuts the filesystem down ($(n '@stock-6.12: [a-z]*/[a-z-]*/.* -> [a-z]*/shutdown/') cases)

Under errors=remount-ro, 6.12's ext4_handle_error sets
EXT4_FLAGS_SHUTDOWN instead of SB_RDONLY (upstream d3476f3dad4a): the
write probe fails with EIO in ext4_journal_check_start, the read probe in
ext4_xattr_get, and the mount stays \`rw\` (harness/RESULTS.md, reaction
\`shutdown\`). What detected the fault is the same as on 6.1 unless the
line says otherwise. Without a journal
(\`inode/nojournal-write-after-error\`), 6.1's stock let the write after
the error through (error-continue: results/baseline/findings/nojournal-remount-ro.md);
stock-6.12 shuts down as it does with a journal. patched-6.12 (0004,
EXT4_FLAGS_EMERGENCY_RO) remounts read-only as the 6.1 kernels do.

$(lines '@stock-6.12: [a-z]*/[a-z-]*/.* -> [a-z]*/shutdown/')

## journal/commit-flip: 6.12 replays a commit block that fails its checksum

6.12's do_one_pass gives a commit block that fails
jbd2_commit_block_csum_verify() a second chance:
jbd2_commit_block_csum_verify_partial() checks the commit header alone,
and when that holds takes the block for a torn commit write, prints "JBD2:
Find incomplete commit block" and replays the transaction. 6.1 refuses the
journal (j_failed_commit, jbd2_journal_load: mount-refused). The notice is
the checksum failure, so detect stays \`csum\`; the mount goes on.

$(lines '^journal/commit-flip')

## data/open-fd-*: a file opened before the error

A program writes through a descriptor it opened before the error. On
6.12 the shutdown refuses that write with EIO (ext4_file_write_iter's
ext4_forced_shutdown check), so nothing past the fsync before the error
is acknowledged (data intact), where 6.1's stock accepts it and loses it
at the umount (data lost). The mount that met the error is unmounted by
the workload before the probes, and an EIO is no read-only state:
reaction none, where 6.1 shows EROFS (remount-ro).

$(lines '^data/open-fd')

## Other changes

\`inline/da-truncate\`: 6.12 does not have the delalloc accounting bug that
6.1's 0009 fixes (mainline's v6.12 delalloc rework): e2fsck is clean.

$(lines '^inline/da-truncate')
$(grep -vE '@stock-6.12: [a-z]*/[a-z-]*/.* -> [a-z]*/shutdown/|^journal/commit-flip|^data/open-fd|^inline/da-truncate' "$t/diff" | sed 's/^[^ ]* -> \([^ ]*\): /- `\1`: /')

## Unchanged: what FAN_FS_ERROR says for a bitmap checksum failure

On a stock kernel, 6.1 and 6.12 alike, a FAN_FS_ERROR listener cannot tell
a bitmap checksum failure from other corruption: ext4_validate_block_bitmap
(fs/ext4/balloc.c) and ext4_validate_inode_bitmap (fs/ext4/ialloc.c)
report it through ext4_error(), which passes no error code, and
__ext4_error() (fs/ext4/super.c) then sends the event EFSCORRUPTED
(EUCLEAN), the errno of a failed sanity check, where the inode, directory
and extent checksum failures send EFSBADCRC (EBADMSG). Each such record
holds the conflict (\`signals.conflict\`). Patch 0007 (kernel/patches/ and
kernel/patches-6.12/) passes EFSBADCRC instead.
EOF

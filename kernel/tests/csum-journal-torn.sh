#!/bin/sh
# SPDX-License-Identifier: MIT
# Groups: csum journal crash
# A journal block that a power cut tore is not a checksum failure. A crash
# in the middle of a write can leave a block's first sectors new and the
# rest as it was; jbd2 and ext4's fast-commit replay take such a block for
# the end of the log, on purpose, and the patched kernels must say nothing
# about its checksum: no csum-error line, every count 0 (ext4's
# csum_errors/, the journal's in /proc/fs/jbd2/vda-8/info).
#
# Two workloads, recorded with the plugin's write log (flipbed boot
# --writelog) and ending in a power cut, on each patched kernel:
#  - revoke: files in a directory (one with an xattr block), sync, all
#    deleted, sync, one more fsync()ed file; the journal gets descriptor,
#    revoke and commit blocks. Its log area first holds stale bytes (as
#    a lazily initialised journal on a used disk does): a torn commit
#    block then mixes its new header with old bytes.
#  - fast commit (mkfs -O fast_commit): rounds of four creates and an
#    fsync: a full commit, two fast commits, sync, two fast commits that
#    overwrite the first two. A torn fast commit then shows the old fast
#    commit's tags and tail after its first sector.
# The tears: each write of a descriptor, revoke or commit block (revoke
# workload) and of a fast-commit block (fast-commit workload; its jbd2
# blocks are the same kinds again) in the log, cut after its first
# 512-byte sector, on top of every write before it (what a drive that
# stored them in order holds). One sector keeps the block's header whole
# (magic, type and sequence are its first 12 bytes; a fast commit's first
# tags), so recovery takes it for its transaction's, and loses the end,
# which holds the jbd2 block tail's checksum and the fast-commit tail
# (four creates, each a dentry, an inode and a range, push it past the
# first sector): the cut that reaches every check.
# A cut after more sectors leaves a jbd2 block failing the same way (its
# checksum is in the last sector); one that keeps a fast commit's tail
# leaves that fast commit whole.
# What each kernel must do with them (fs/jbd2/recovery.c, do_one_pass()):
#  - a torn descriptor or revoke block fails its checksum in the scan
#    pass; no commit block of its transaction follows (jbd2 writes it only
#    after the transaction's other blocks reached the log), so the scan
#    ends the log there: quiet (the patched jbd2_commit_follows() finds no
#    commit);
#  - a torn commit block: 6.12 recomputes its checksum over the header
#    alone (jbd2_commit_block_csum_verify_partial()), takes it for
#    "incomplete" and replays the transaction: quiet, since no later
#    commit block verifies after it. 6.1 has no such check: the checksum
#    fails, do_one_pass() sets j_failed_commit and jbd2_journal_load()
#    refuses the journal (EUCLEAN) on stock as on patched; the line names
#    that commit block, the failure the mount was refused for;
#  - a torn fast commit: ext4_fc_replay_scan() stops at the tail that
#    fails, the end of the area; quiet, since no whole fast commit follows
#    (the patched ext4_fc_next_is_valid()). When no fast commit before it
#    verified, replay returns an error and the mount fails (6.1: EIO;
#    6.12: ECANCELED or EBADMSG, replay's own), on stock as on patched:
#    printed, not judged here.
# Then flipbed crash on scenarios/crash/journal-revoke.scn and
# fast-commit.scn, 8 flush points each spread over the sweep: a flush
# point never holds a torn block (the write log stores whole
# requests), so these add the crash oracle (recovery, e2fsck, the files)
# for the two workloads and the check that an uncommitted transaction at
# the end of the log is quiet; the tears above are what reach the
# reports. No point may fail, and no transcript may hold a csum-error
# line. And the finding these reports exist for must still be detected:
# a descriptor tag that lost JBD2_FLAG_LAST_TAG
# (scenarios/findings/journal-descriptor-tag-flags.scn,
# its commit block within the descriptor's reach).
. "$(dirname "$0")/lib.sh"
kt_require patched patched-6.12
require_built "$B/lib/nbdkit-flipbed-plugin.so" build/lib/nbdkit-flipbed-plugin.so
require_built "$B/guest/initramfs.cpio.gz" build/guest/initramfs.cpio.gz

# torn.py list LOG IMAGE: "SEQ KIND BLOCK PREFIX" for every journal block
# a write record of LOG stores (KIND descriptor, revoke, commit or
# fast-commit; PREFIX the record's bytes up to the block's first sector);
# torn.py make LOG IMAGE OUT SEQ PREFIX: IMAGE with every record before
# SEQ and the first PREFIX bytes of record SEQ (the format:
# nbd-plugins/flipbed/flipbed-replay.pod)
cat > "$T/torn.py" <<'EOF'
import shutil, struct, subprocess, sys

def records(log):
    f = open(log, 'rb')
    f.seek(64)
    while True:
        h = f.read(48)
        if len(h) < 48:
            return
        size, typ, flags, seq, ns, off, length = struct.unpack_from('<IHHQQQQ', h)
        data = f.read(length) if typ == 1 else None
        yield seq, typ, off, length, data

def journal(img):
    out = subprocess.run(['debugfs', '-R', 'blocks <8>', img],
                         capture_output=True, text=True).stdout.split()
    blocks = [int(x) for x in out]
    f = open(img, 'rb')
    f.seek(blocks[0] * 4096)
    jsb = f.read(1024)
    maxlen, = struct.unpack_from('>I', jsb, 0x10)
    nfc, = struct.unpack_from('>I', jsb, 0x54)	# s_num_fc_blks
    return {pb: i for i, pb in enumerate(blocks)}, maxlen - nfc

def kind(d, logical, fc_first):
    if logical >= fc_first:
        return 'fast-commit'
    magic, btype = struct.unpack_from('>II', d, 0)
    if magic != 0xc03b3998:
        return None
    return {1: 'descriptor', 2: 'commit', 5: 'revoke'}.get(btype)

if sys.argv[1] == 'list':
    jmap, fc_first = journal(sys.argv[3])
    for seq, typ, off, length, data in records(sys.argv[2]):
        for b in range(length // 4096 if typ == 1 else 0):
            pb = off // 4096 + b
            k = pb in jmap and kind(data[b * 4096:], jmap[pb], fc_first)
            if k:
                print(seq, k, pb, b * 4096 + 512)
else:
    log, img, out, cut, prefix = sys.argv[2:7]
    shutil.copyfile(img, out)
    f = open(out, 'r+b')
    for seq, typ, off, length, data in records(log):
        if seq > int(cut):
            break
        if seq == int(cut):
            data = data[:int(prefix)]
        if typ == 1:
            f.seek(off)
            f.write(data)
        elif typ in (2, 3):
            f.seek(off)
            f.write(bytes(length))
EOF

# stale IMG: every journal block after the journal superblock holds
# pseudo-random bytes, as a journal left uninitialised on a used disk
stale() {
	python3 -c "
import random, subprocess, sys
img = sys.argv[1]
blocks = subprocess.run(['debugfs', '-R', 'blocks <8>', img],
                        capture_output=True, text=True).stdout.split()
r = random.Random(1)
f = open(img, 'r+b')
for pb in blocks[1:]:
    f.seek(int(pb) * 4096)
    f.write(r.randbytes(4096))" "$1"
}

# rounds: four creates and an fsync, for each letter given
rounds() {
	for r in "$@"; do
		for i in 1 2 3 4; do echo "--step"; echo "write /$r$i 100"; done
		echo "--step"; echo "fsync /${r}4"
	done
}

# tears NAME VARIANT KIND...: boot VARIANT on every torn image of a block
# of one of the KINDs in the recording $T/NAME-VARIANT.{log,start} (not
# name nor variant: kt_boot sets those); judge the csum-error lines and
# the counts
tears() {
	wl=$1 kv=$2
	shift 2
	python3 "$T/torn.py" list "$T/$wl-$kv.log" "$T/$wl-$kv.start" > "$T/$wl-$kv.all"
	for k in "$@"; do
		grep " $k " "$T/$wl-$kv.all" ||
			fail "$kv: $wl: the workload wrote no $k block: $(tr '\n' ';' < "$T/$wl-$kv.all")"
	done > "$T/$wl-$kv.tears"
	while read -r seq k pb prefix; do
		c=$wl-$kv-$seq-$pb
		python3 "$T/torn.py" make "$T/$wl-$kv.log" "$T/$wl-$kv.start" "$T/$c.torn" \
			"$seq" "$prefix" || fail "torn.py make $seq $prefix"
		kt_boot "$c" "$kv" "$T/$c.torn" --step "may mount" \
			--step "may cat /sys/fs/ext4/vda/csum_errors" \
			--step "may cat /proc/fs/jbd2/vda-8/info" --step "may umount" \
			</dev/null >/dev/null
		mnt=$(sed -n 's/^step 1 may mount -> \([a-z]*[ A-Z]*\).*/\1/p' "$T/$c.out" | sed 's/ *$//')
		lines=$(grep -o 'csum-error.*' "$T/$c.out" | sed 's/ *$//')
		counts=$( { sed -n 's/^out 2 \([a-z_]*\) \([1-9][0-9]*\)$/\1=\2/p' "$T/$c.out"
			sed -n 's/^out 3 *\([1-9][0-9]*\) \(journal-[a-z]*\)$/\2=\1/p' "$T/$c.out"; } | tr '\n' ' ')
		what="$kv: $wl: torn $k (block $pb): mount $mnt"
		if [ "$wl-$k-$kv" = revoke-commit-patched ]; then
			# over stale bytes 6.1 refuses the torn commit (above)
			want="csum-error (device vda): type=journal-commit ino=8 block=$pb group=-"
			[ "$mnt" = "err EUCLEAN" ] && [ "$lines" = "$want" ] &&
				ok "$what, the line names the torn commit, as 6.1 refuses it" ||
				check_fail "$what, lines '$lines': expected EUCLEAN and '$want'"
		else
			[ -z "$lines" ] && [ -z "$counts" ] && ok "$what, no csum-error line, counts 0" ||
			check_fail "$what: '$lines' ${counts:+counts $counts}"
		fi
		rm -f "$T/$c.torn" "$T/$c.img"
	done < "$T/$wl-$kv.tears"
}

for v in patched patched-6.12; do
	start=$T/revoke-$v.start
	mkfs.ext4 -q -F -b 4096 -I 256 -O metadata_csum "$start" 64M || fail "mkfs.ext4"
	stale "$start"
	cp "$start" "$T/revoke-$v.img"
	"$flipbed" boot --kernel $v --image "$T/revoke-$v.img" --writelog "$T/revoke-$v.log" \
		--step mount --step "mkdir /d" --step "write /d/f1 3000" \
		--step "write /d/f2 3000" --step "write /d/f3 3000" \
		--step "setxattr /d/f1 user.big 3000" --step "write /keep 5000" --step sync \
		--step "rm /d/f1" --step "rm /d/f2" --step "rm /d/f3" --step "rm /d" --step sync \
		--step "write /late 2000" --step "fsync /late" --step crash \
		> "$T/revoke-$v.rec" 2>&1 || { cat "$T/revoke-$v.rec"; fail "$v: recording the revoke workload"; }
	tears revoke $v descriptor revoke commit

	start=$T/fc-$v.start
	mkfs.ext4 -q -F -b 4096 -I 256 -O metadata_csum,fast_commit "$start" 64M || fail "mkfs.ext4"
	cp "$start" "$T/fc-$v.img"
	# shellcheck disable=SC2046 # rounds prints one argument a line
	(IFS='
'; "$flipbed" boot --kernel $v --image "$T/fc-$v.img" --writelog "$T/fc-$v.log" \
		--step mount $(rounds a b c) --step sync $(rounds d e) --step crash) \
		> "$T/fc-$v.rec" 2>&1 || { cat "$T/fc-$v.rec"; fail "$v: recording the fast-commit workload"; }
	tears fc $v fast-commit
done

for s in journal-revoke fast-commit; do
	for v in patched patched-6.12; do
		out=$T/crash-$s-$v
		"$flipbed" crash "$top/scenarios/crash/$s.scn" --points 8 --jobs 1 --kernel $v \
			--out "$out" > "$out.log" 2>&1
		rc=$?
		n=$(grep -c . "$out/cases.jsonl" 2>/dev/null)
		[ $rc = 0 ] && ok "$v: flipbed crash $s: $n of its flush points, every one passed" ||
			check_fail "$v: flipbed crash $s exited $rc: $(tail -n 5 "$out.log" | tr '\n' ' ')"
		bad=$(grep -l 'csum-error' "$out"/cases/*/transcript.txt 2>/dev/null | wc -l)
		[ "$n" -gt 0 ] && [ "$bad" = 0 ] && ok "$v: flipbed crash $s: no csum-error line at any point" ||
			check_fail "$v: flipbed crash $s: $bad of $n points printed a csum-error line"
	done
done

for v in patched patched-6.12; do
	"$flipbed" run "$top/scenarios/findings/journal-descriptor-tag-flags.scn" --kernel $v \
		--out "$T/finding-$v" > "$T/finding-$v.log" 2>&1 &&
		ok "$v: journal-descriptor-tag-flags still detected (csum), as its scenario expects" ||
		check_fail "$v: journal-descriptor-tag-flags: $(tail -n 5 "$T/finding-$v.log" | tr '\n' ' ')"
done
kt_done

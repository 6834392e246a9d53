// SPDX-License-Identifier: MIT
/*
 * The fsck verdict (fsck_check.h): e2fsck -fn, -fy, -fn on the image a
 * case left, after the journal's replay when the kernel left one pending.
 *
 * A case often ends with its filesystem mounted: the guest reboots, or a
 * batch freezes the disk, with the last transactions in the journal and
 * only some of their blocks written in place, as far as writeback had got.
 * e2fsck -fn skips the replay ("skipping journal recovery because doing a
 * read-only filesystem check") and judges those blocks: a state no mount
 * ever sees, which depends on when writeback ran, so the same case could
 * be clean in one run and repaired in the next. The next mount, and
 * e2fsck -fy, replay first; so does this check, with e2fsck -y -E
 * journal_only, and anything that run prints beyond the replay (a journal
 * it cannot use, a superblock it has to take from a backup) is a problem
 * of the image as the kernel left it.
 */
#include <ext2fs/ext2fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "boot/proc.h"
#include "judge/fsck.h"
#include "judge/fsck_check.h"
#include "judge/limits.h"
#include "util.h"

/*
 * One e2fsck run on IMAGE with the options OPTS (at most 3), its output
 * appended to OUT: its exit status, -1 when it could not run, -2 when it
 * ran past fb_oracle_seconds() and was killed (a corrupted image is
 * hostile input to e2fsck too), in at most fb_oracle_mib() MiB of address
 * space: a superblock whose block count a flip raised by 2^42 had e2fsck
 * allocate 8 GiB and spend 40 s per run before it gave up, the same
 * "superblock is corrupt" it prints at once within the bound.
 */
static int run_fsck(const char *image, const char *out, const char *const opts[],
		    json_t *cpu, const char *name)
{
	double used = 0;
	int rc;

	char *argv[6] = { "e2fsck" };
	char shown[64] = "e2fsck";
	int n = 1;

	for (; *opts && n < 4; opts++, n++) {
		argv[n] = (char *)*opts;
		snprintf(shown + strlen(shown), sizeof(shown) - strlen(shown), " %s", *opts);
	}
	argv[n] = (char *)image;
	/* the oracle (fsck.c) reads the runs by their "$ e2fsck OPTS IMAGE" lines */
	snprintf(shown + strlen(shown), sizeof(shown) - strlen(shown), " IMAGE");
	rc = fb_proc_run_logged(argv, shown, out, fb_oracle_seconds(), fb_oracle_mib(), &used);
	if (cpu)
		json_object_set_new(cpu, name, json_real(used));
	return rc;
}

/*
 * The problem lines (fsck.h) in OUT from byte FROM on, the output of the
 * run just made; the first few go to PROBLEMS when it is not NULL.
 * Bounded: e2fsck's output is read up to 1 MiB.
 */
static int problems_since(const char *out, off_t from, json_t *problems)
{
	char lines[8][FB_FSCK_LINE];
	size_t len;
	char *text = fb_slurp(out, &len);
	int n = 0;

	if (!text)
		return 0;
	if ((size_t)from < len) {
		size_t cap = len - from < (1 << 20) ? len - from : (1 << 20);

		n = fb_fsck_problems(text + from, cap, lines, 8);
		for (int i = 0; problems && i < n && i < 8 && json_array_size(problems) < 8; i++)
			json_array_append_new(problems, json_string(lines[i]));
	}
	free(text);
	return n;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_size;
}

/*
 * Whether IMAGE's primary superblock, read alone and with a valid
 * checksum, says the journal awaits its replay. A superblock that fails
 * its checks is left to e2fsck -fn: a replay would make e2fsck take a
 * backup superblock and write it over the primary, a repair.
 */
static bool journal_pending(const char *image)
{
	ext2_filsys fs;
	bool pending;

	if (ext2fs_open2(image, NULL, EXT2_FLAG_SUPER_ONLY | EXT2_FLAG_64BITS, 0, 0,
			 unix_io_manager, &fs))
		return false;
	pending = ext2fs_has_feature_journal(fs->super) &&
		  ext2fs_has_feature_journal_needs_recovery(fs->super);
	ext2fs_close_free(&fs);
	return pending;
}

/*
 * Whether IMAGE has orphans to release (the orphan list, or an orphan file
 * marked in use): e2fsck -fn leaves them and may still exit 0, -fy
 * releases them (truncating or freeing inodes), which can change what the
 * data oracle reads afterwards. Unknown (not openable) counts as yes.
 */
static bool orphans_pending(const char *image)
{
	ext2_filsys fs;
	bool pending;

	/* the superblock alone holds both: no group descriptor is read */
	if (ext2fs_open2(image, NULL, EXT2_FLAG_SUPER_ONLY | EXT2_FLAG_64BITS |
			 EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0, unix_io_manager, &fs))
		return true;
	pending = fs->super->s_last_orphan || ext2fs_has_feature_orphan_present(fs->super);
	ext2fs_close_free(&fs);
	return pending;
}

enum fb_fsck fb_fsck_check(const char *image, const char *out, json_t *codes,
			   json_t *problems, json_t *cpu, char *why, size_t len)
{
	static const char *const replay_opts[] = { "-y", "-E", "journal_only", NULL };
	static const char *const fn[] = { "-fn", NULL }, *const fy[] = { "-fy", NULL };
	int replay = 0, replay_problems = 0, first, first_problems, fix, second, second_problems;
	off_t at;

	*why = '\0';
	if (journal_pending(image)) {
		at = file_size(out);
		replay = run_fsck(image, out, replay_opts, cpu, "replay");
		if (replay == -2) {
			snprintf(why, len, "e2fsck -E journal_only ran past %d s", fb_oracle_seconds());
			return FB_FSCK_NOT_RUN;
		}
		if (replay < 0)
			return FB_FSCK_NOT_RUN;
		json_object_set_new(codes, "replay", json_integer(replay));
		replay_problems = problems_since(out, at, problems) + (replay > 1);
	}
	at = file_size(out);
	first = run_fsck(image, out, fn, cpu, "fn");
	first_problems = first < 0 ? 0 : problems_since(out, at, problems);
	/*
	 * Clean at once: -fy would find nothing to repair and the second -fn
	 * nothing left, so neither can change the verdict, nor the image the
	 * data oracle reads next unless orphans wait for -fy to release them;
	 * otherwise they are not run (CODES has no "fy" nor "fn2").
	 */
	if (first == 0 && !first_problems && !replay_problems && !orphans_pending(image)) {
		json_object_set_new(codes, "fn", json_integer(first));
		return FB_FSCK_CLEAN;
	}
	fix = first == -2 ? -2 : run_fsck(image, out, fy, cpu, "fy");
	at = file_size(out);
	second = fix == -2 ? -2 : run_fsck(image, out, fn, cpu, "fn2");
	second_problems = second < 0 ? 0 : problems_since(out, at, NULL);

	if (first == -2 || fix == -2 || second == -2) {
		snprintf(why, len, "e2fsck %s ran past %d s", first == -2 ? "-fn" : fix == -2 ?
			 "-fy" : "-fn (after -fy)", fb_oracle_seconds());
		return FB_FSCK_NOT_RUN;
	}
	json_object_set_new(codes, "fn", json_integer(first));
	json_object_set_new(codes, "fy", json_integer(fix));
	json_object_set_new(codes, "fn2", json_integer(second));
	/*
	 * -1: e2fsck could not be run at all. Otherwise any status but 0 says
	 * the filesystem is not clean, 8 included: e2fsck ran and could not
	 * even open it (a primary superblock with no usable backup). The
	 * replay's own status is 0 or 1 (it wrote the journal's blocks) when
	 * all went well.
	 */
	if (first < 0 || second < 0) {
		/* no verdict on the image: the case is infra, fsck.txt says why */
		snprintf(why, len, "e2fsck %s did not exit: it could not run or was killed by a signal (fsck.txt)",
			 first < 0 ? "-fn" : "-fn (after -fy)");
		return FB_FSCK_NOT_RUN;
	}
	if (first == 0 && !first_problems && !replay_problems)
		return FB_FSCK_CLEAN;
	return second == 0 && !second_problems ? FB_FSCK_REPAIRED : FB_FSCK_UNREPAIRED;
}

/* SPDX-License-Identifier: MIT */
/*
 * Cutting a case's transcript at the agent's `mark WORD` step, so that the
 * boot's two passes (the workload, then the next mount) are classified
 * each on its own, and a batch's boot into its cases (split.c says how
 * each kind of line is placed).
 */
#ifndef FLIPBED_SPLIT_H
#define FLIPBED_SPLIT_H

#include <stddef.h>

/*
 * Split TEXT at the mark WORD. *ret_first gets the lines before it (all of
 * TEXT when there is no mark), *ret_second those after it, or NULL when
 * the mark is not in TEXT (the guest never got there). Both are
 * NUL-terminated and the caller frees them. Returns 0, or -1 (no memory).
 */
int fb_transcript_split(const char *text, size_t len, const char *word,
			char **ret_first, size_t *ret_flen,
			char **ret_second, size_t *ret_slen);

/*
 * Cut the transcript of a batch's boot at the marks WORDS[0..N-1], in the
 * order they come (the agent's "flipbed-mark case-SERIAL" at the start of
 * each case, "flipbed-mark release-SERIAL" where it unmounts what a case
 * left): PARTS[0] gets the boot before the first mark ("A ready"
 * included), PARTS[K+1] the lines after mark K and before the next mark
 * found; a missing mark's part is "". Lines are placed as
 * fb_transcript_split() places them. Each part is NUL-terminated, LENS its
 * length; the caller frees them. Returns 0, or -1 (no memory).
 */
int fb_transcript_cut(const char *text, size_t len, const char *const *words, int n,
		      char **parts, size_t *lens);

#endif

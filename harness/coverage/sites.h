/* SPDX-License-Identifier: MIT */
/*
 * The checksum verification sites of a kernel's fs/ext4 and fs/jbd2, read
 * from the source the kernel was built from (build/kernel/NAME/gcov/src/),
 * never from a list kept by hand.
 *
 * A verifier is a function whose name says it verifies a checksum (it
 * contains "csum_verify" or "verify_csum"), or one that returns a check's
 * result (a return statement holding a verifier's call or a stored-checksum
 * comparison), to a fixed point over all the files. A site is, in any
 * function that is not itself a verifier:
 *   - a call of a verifier;
 *   - a comparison (== or !=) with a stored checksum: an operand that reads
 *     a member named ...checksum, ..._crc or ...csum (the journal
 *     superblock's, the fast-commit tail's), the other operand not a
 *     constant.
 * A report call in the branch is a call of a function whose name says it
 * reports (it contains "error" or "warn" in either case, or is ext4_msg, printk, pr_err,
 * pr_warn, pr_notice or pr_info): the line that tells the kernel did say
 * something from there, whatever it said.
 * Its failure branch is the statement the code runs when the check fails:
 * the if's body when a failure makes the condition's part true (a negated
 * call, "!="), else the else branch or the statement after the if; a
 * result kept in a variable, the branch of the first if that tests the
 * variable for success or failure. A check whose result is otherwise kept
 * has no failure branch at the site,
 * nor has one whose branch starts on the check's own line (a line count
 * cannot tell the branch from the test); the table says which.
 */
#ifndef FLIPBED_COVERAGE_SITES_H
#define FLIPBED_COVERAGE_SITES_H

#include <stdbool.h>
#include <stddef.h>

enum fb_site_fail {
	FB_FAIL_THEN,		/* the if's body */
	FB_FAIL_ELSE,		/* its else branch */
	FB_FAIL_AFTER,		/* the statement after the if */
	FB_FAIL_NONE,		/* no branch at the site: see why */
};

struct fb_site {
	char file[48];		/* "fs/ext4/inode.c" */
	int line;		/* the call's name, or the comparison's operator */
	char func[64];		/* the function it is in */
	char check[96];		/* the verifier, or the comparison's text */
	enum fb_site_fail how;
	int fail_line;		/* the failure branch's first line, 0 for NONE */
	int fail_end;		/* its last line (the branch is one statement) */
	bool joined;		/* the condition tests more than the checksum */
	int report[8];		/* the branch's lines that call a report function */
	int nreport;
	char why[112];		/* FB_FAIL_NONE: why there is no branch */
};

/*
 * The sites of the .c files of SRC/fs/ext4 and SRC/fs/jbd2, sorted by file
 * and line: 0 with
 * *RET (malloc'ed) and *N, or -1 with WHY.
 */
int fb_sites_scan(const char *src, struct fb_site **ret, size_t *n, char *why, size_t len);

/*
 * The sites of one file's TEXT (FILE its name in the table), appended to
 * *SITES (*N of *CAP, grown with realloc).
 */
void fb_sites_of_text(const char *file, const char *text, struct fb_site **sites,
		      size_t *n, size_t *cap);

/* Whether NAME names a verifier ("csum_verify" or "verify_csum" in it). */
bool fb_site_is_verifier_name(const char *name);

/* "then", "else", "after", "none". */
const char *fb_site_fail_name(enum fb_site_fail how);

#endif

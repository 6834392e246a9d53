// SPDX-License-Identifier: MIT
/*
 * Cutting a transcript in two at a mark (split.h): the case's own boot
 * before the agent's `mark WORD` step, and what followed it (the next-mount
 * pass), each then classified on its own.
 *
 * The agent's stream ("A " lines) is in order: everything before the first
 * A line of the mark (its kmsg line "flipbed-mark WORD", or the step's
 * result when the kmsg line is missing) is the first part. The console
 * ("C " lines) arrives on its own channel: a console line goes where the
 * agent's kmsg line of the same message is, and one without (the agent
 * stopped or died first) by its printk time: before the mark's time,
 * first part. Host lines
 * ("H ") before the mark go to the first part; the boot's end ("H exit")
 * and everything after the mark to the second. "A ready" goes to both,
 * so that neither part reads as a guest that never came up.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/split.h"

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* The printk time of a console line "C [  1.234567] ...", or -1. */
static long long console_usec(const char *line, size_t len)
{
	const char *p = line + 2, *end = line + len;
	long long sec = 0, frac = 0;
	int digits = 0;

	if (len < 4 || p[0] != '[')
		return -1;
	for (p++; p < end && *p == ' '; p++)
		;
	for (; p < end && *p >= '0' && *p <= '9' && sec < 1000000000LL; p++, digits++)
		sec = sec * 10 + (*p - '0');
	if (!digits || p >= end || *p++ != '.')
		return -1;
	for (digits = 0; p < end && *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
		frac = frac * 10 + (*p - '0');
	if (digits != 6 || p >= end || *p != ']')
		return -1;
	return sec * 1000000 + frac;
}

/*
 * The agent's kmsg line of console line LINE ("C [   T] TEXT"): the first
 * "A kmsg SEQ LEVEL USEC TEXT" with the same time and text, or NULL (the
 * agent had stopped, or died, or the text was escaped). Its place in the
 * agent's stream places the console line exactly: printk's clock ticks
 * in jiffies under TCG, so a line and a mark often share a time.
 */
static const char *twin(const char *text, const char *end, const char *line, size_t len)
{
	long long us = console_usec(line, len);
	const char *ct = memchr(line, ']', len), *p;
	size_t ctl;

	if (us < 0 || !ct || ct + 2 > line + len)
		return NULL;
	ct += 2;
	ctl = line + len - ct;
	for (p = text; p < end;) {
		const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end, *q = p + 7;

		if (starts(p, e - p, "A kmsg ")) {
			/* past SEQ and LEVEL to USEC, then TEXT */
			for (int i = 0; i < 2 && q < e; i++) {
				q = memchr(q, ' ', e - q);
				q = q ? q + 1 : e;
			}
			if (q < e && strtoll(q, NULL, 10) == us) {
				q = memchr(q, ' ', e - q);
				if (q && (size_t)(e - q - 1) == ctl && !memcmp(q + 1, ct, ctl))
					return p;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

/* Whether LINE is the mark: its kmsg line (*usec set) or its step result. */
static bool is_mark(const char *line, size_t len, const char *word, long long *usec)
{
	char text[96];
	const char *p, *end = line + len;
	size_t n;
	int i;

	n = (size_t)snprintf(text, sizeof(text), "flipbed-mark %s", word);
	if (starts(line, len, "A kmsg ") && len > n &&
	    !memcmp(end - n, text, n) && end[-n - 1] == ' ') {
		/* "A kmsg SEQ LEVEL USEC TEXT": the third number */
		p = line + 7;
		for (i = 0; i < 2 && p < end; i++) {
			p = memchr(p, ' ', end - p);
			p = p ? p + 1 : end;
		}
		*usec = p < end ? strtoll(p, NULL, 10) : -1;
		return true;
	}
	n = (size_t)snprintf(text, sizeof(text), " mark %s -> ", word);
	if (starts(line, len, "A step ") && len > n) {
		for (p = line; p + n <= end; p++)
			if (!memcmp(p, text, n))
				return true;
	}
	return false;
}

static int append(char **buf, size_t *len, size_t *cap, const char *line, size_t n)
{
	if (*len + n + 2 > *cap) {
		size_t c = (*cap ? *cap * 2 : 4096) + n + 2;
		char *b = realloc(*buf, c);

		if (!b)
			return -1;
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *len, line, n);
	(*buf)[*len + n] = '\n';
	*len += n + 1;
	(*buf)[*len] = '\0';
	return 0;
}

int fb_transcript_split(const char *text, size_t len, const char *word,
			char **ret_first, size_t *ret_flen,
			char **ret_second, size_t *ret_slen)
{
	const char *p = text, *end = text + len, *mark = NULL;
	char *b[2] = { NULL, NULL };
	size_t l[2] = { 0, 0 }, cap[2] = { 0, 0 };
	long long mark_usec = -1;
	int rc = 0;

	/* the mark's position in the agent's stream, and its time */
	while (p < end && !mark) {
		const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end;

		if (is_mark(p, e - p, word, &mark_usec))
			mark = p;
		p = nl ? nl + 1 : end;
	}
	/* a step result comes after its kmsg lines: take the time from one */
	if (mark && mark_usec < 0) {
		for (p = mark; p < end;) {
			const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end;

			if (starts(p, e - p, "A kmsg ") && is_mark(p, e - p, word, &mark_usec))
				break;
			p = nl ? nl + 1 : end;
		}
	}
	for (p = text; p < end && rc == 0;) {
		const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end;
		size_t n = e - p;
		int part = 0;

		if (!mark) {
			part = 0;
		} else if (starts(p, n, "C ")) {
			long long us = console_usec(p, n);
			const char *tw = twin(text, end, p, n);

			part = tw ? tw >= mark :
			       mark_usec >= 0 && us >= 0 ? us >= mark_usec : p >= mark;
		} else if (starts(p, n, "A ready")) {
			rc = append(&b[1], &l[1], &cap[1], p, n);
			part = 0;
		} else if (starts(p, n, "H exit")) {
			part = 1;
		} else {
			part = p >= mark;
		}
		if (rc == 0)
			rc = append(&b[part], &l[part], &cap[part], p, n);
		p = nl ? nl + 1 : end;
	}
	if (rc) {
		free(b[0]);
		free(b[1]);
		return -1;
	}
	if (!b[0] && append(&b[0], &l[0], &cap[0], "", 0)) {
		free(b[1]);
		return -1;
	}
	*ret_first = b[0];
	*ret_flen = l[0];
	*ret_second = mark ? b[1] : NULL;
	*ret_slen = mark ? l[1] : 0;
	if (!mark)
		free(b[1]);
	return 0;
}

/*
 * The batch's cut (split.h): every line goes to the part after the last
 * mark before it, by its place in the agent's stream, or for a console
 * line with a printk time by that time, as fb_transcript_split() cuts at
 * one mark.
 */
int fb_transcript_cut(const char *text, size_t len, const char *const *words, int n,
		      char **parts, size_t *lens)
{
	const char *end = text + len, *p;
	const char **pos = calloc(n ? n : 1, sizeof(*pos));
	long long *usec = calloc(n ? n : 1, sizeof(*usec));
	size_t *cap = calloc(n + 1, sizeof(*cap));
	const char *from = text;
	int rc = pos && usec && cap ? 0 : -1;

	for (int k = 0; k <= n; k++) {
		parts[k] = NULL;
		lens[k] = 0;
	}
	/* each mark in turn, after the last one found; a missing one is skipped */
	for (int k = 0; rc == 0 && k < n; k++) {
		usec[k] = -1;
		for (p = from; p < end && !pos[k];) {
			const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end;

			if (starts(p, e - p, "A kmsg ") && is_mark(p, e - p, words[k], &usec[k])) {
				pos[k] = p;
				from = nl ? nl + 1 : end;
			}
			p = nl ? nl + 1 : end;
		}
	}
	for (p = text; rc == 0 && p < end;) {
		const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end;
		size_t ln = e - p;
		long long us = starts(p, ln, "C ") ? console_usec(p, ln) : -1;
		const char *at = us >= 0 ? twin(text, end, p, ln) : NULL;
		int part = 0;

		/* the part after the last mark before the line (its twin's place) */
		if (at)
			us = -1;
		else
			at = p;
		if (!starts(p, ln, "A ready"))
			for (int k = 0; k < n; k++)
				if (pos[k] && (us >= 0 && usec[k] >= 0 ? us >= usec[k] : at >= pos[k]))
					part = k + 1;
		rc = append(&parts[part], &lens[part], &cap[part], p, ln);
		p = nl ? nl + 1 : end;
	}
	for (int k = 0; rc == 0 && k <= n; k++)
		if (!parts[k])
			rc = append(&parts[k], &lens[k], &cap[k], "", 0);
	if (rc) {
		for (int k = 0; k <= n; k++) {
			free(parts[k]);
			parts[k] = NULL;
		}
	}
	free(pos);
	free(usec);
	free(cap);
	return rc;
}

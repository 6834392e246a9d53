// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the classifier on a console transcript. The input is a
 * transcript.log ("C " console, "A " agent, "H " host lines), classified
 * as runcase does (fb_classify), turned into dmesg.txt and its excerpt
 * (fb_dmesg_text, fb_transcript_excerpt), and the dmesg text read back as
 * the reports and the campaign read it: its excerpt (fb_dmesg_excerpt), its
 * report title (fb_klog_title) and each line's marks; its csum-error lines
 * are attributed (fb_attrib_check) as runcase does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify/attrib.h"
#include "classify/classify.h"
#include "classify/klog.h"
#include "report/report_int.h"

/* What the reports, the campaign and the attribution do with a dmesg.txt. */
static void read_dmesg(const char *text)
{
	static const struct fb_csum_object want = { "inode", 12, 41, 0 };
	unsigned kept, total;
	char title[256], detail[512], *excerpt = fb_dmesg_excerpt(text, &kept, &total);

	free(excerpt);
	fb_klog_title(text, title, sizeof(title));
	fb_attrib_check(text, strlen(text), &want, detail, sizeof(detail));
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		fb_klog_report_start(p, len);
		fb_klog_notable(p, len);
		p += len + !!nl;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;
	struct fb_outcome out;
	char *text, *copy;

	/* the exact bytes, no NUL after them: the classifier takes a range */
	fb_classify(t, size, &out);
	if (!fb_dmesg_text(t, size, &text)) {
		read_dmesg(text);
		free(text);
	}
	if (!fb_transcript_excerpt(t, size, &text))
		free(text);
	/* the input itself as a dmesg.txt */
	copy = malloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = '\0';
	read_dmesg(copy);
	free(copy);
	return 0;
}

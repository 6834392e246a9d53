// SPDX-License-Identifier: MIT
/*
 * The order property over recorded cases (classify/order.h): a case's
 * violation from its record, and `flipbed report --order RUN...`, every
 * violation of the runs listed by the function that logged first.
 *
 * A record carries "order_violation" (null, or the violation) since the
 * property was judged as the case ran. A record made before it still
 * tells part of the story, under the same conditions (a kernel with
 * csum-lines = yes, "expect_computed" set: the fault breaks a checksum,
 * fired and was read): the first FAN_FS_ERROR event's errno (its "events"
 * are in order), and the message signal, which names the first line of
 * the first class present: a class other than csum there means no
 * csum-error line came at all, and that line came first. The function
 * is then the message's, or the one the conflict's explanation names
 * (klog.c's table); an error line before a csum-error line that sent no
 * event of another errno is not in such a record.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "classify/order.h"
#include "kernels.h"
#include "report/report_int.h"

/* The function the conflict sentence's explanation begins with, into BUF. */
static void conflict_function(const char *conflict, char *buf, size_t len)
{
	const char *p = conflict ? strstr(conflict, "): ") : NULL;
	size_t n = 0;

	buf[0] = '\0';
	if (!p || !strncmp(p + 3, "unexplained", 11))
		return;
	for (p += 3; (isalnum((unsigned char)p[n]) || p[n] == '_') && n + 1 < len; n++)
		buf[n] = p[n];
	buf[n] = '\0';
}

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

/* What a record made before "order_violation" tells; false when nothing. */
static bool derive(const struct fb_case *c, struct fb_order_violation *v)
{
	const struct fb_kernel *k = fb_kernel_find(c->kernel);
	json_t *events = fb_case_get(c, "fanotify.events");
	const char *first = json_string_value(json_object_get(json_array_get(events, 0), "errno"));
	const char *cls = fb_case_str(c, "signals.message.class");

	if (!k || !k->csum_lines || !json_is_object(fb_case_get(c, "expect_computed")))
		return false;
	if (first && strcmp(first, "EBADMSG"))
		copy(v->fanotify, sizeof(v->fanotify), first);
	if (cls && strcmp(cls, "csum") && strcmp(cls, "none")) {
		copy(v->first_line, sizeof(v->first_line), fb_case_str(c, "signals.message.line"));
		copy(v->function, sizeof(v->function), fb_case_str(c, "signals.message.function"));
	} else if (v->fanotify[0]) {
		conflict_function(fb_case_str(c, "signals.conflict"), v->function,
				  sizeof(v->function));
	}
	return v->first_line[0] || v->fanotify[0];
}

bool fb_case_order_violation(const struct fb_case *c, struct fb_order_violation *v)
{
	json_t *o = fb_case_get(c, "order_violation");

	memset(v, 0, sizeof(*v));
	if (!c->has_outcome || c->verdict == FB_VERDICT_INFRA)
		return false;
	if (!o)
		return derive(c, v);
	if (!json_is_object(o))
		return false;
	copy(v->first_line, sizeof(v->first_line), fb_case_str(c, "order_violation.first_line"));
	copy(v->function, sizeof(v->function), fb_case_str(c, "order_violation.function"));
	copy(v->fanotify, sizeof(v->fanotify), fb_case_str(c, "order_violation.fanotify"));
	return true;
}

struct tally {
	char kernel[64], function[64];
	size_t n;
	const char *first;	/* its lowest-named case */
};

static int by_kernel_count(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	int k = strcmp(x->kernel, y->kernel);

	return k ? k : x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->function, y->function);
}

int fb_report_order(const struct fb_run *runs, size_t nruns, FILE *out)
{
	struct tally *t = NULL;
	size_t nt = 0, total = 0;
	char why[640];

	for (size_t r = 0; r < nruns; r++) {
		for (size_t i = 0; i < runs[r].n; i++) {
			const struct fb_case *c = &runs[r].cases[i];
			struct fb_order_violation v;
			const char *fn;
			size_t j;

			if (!fb_case_order_violation(c, &v))
				continue;
			fb_order_describe(&v, why, sizeof(why));
			fprintf(out, "%s\t%s\t%s\t%s\n", c->name, c->kernel,
				fb_case_str(c, "target.type") ? fb_case_str(c, "target.type") : "?",
				why);
			fn = v.function[0] ? v.function : "?";
			for (j = 0; j < nt; j++)
				if (!strcmp(t[j].kernel, c->kernel) && !strcmp(t[j].function, fn))
					break;
			if (j == nt) {
				t = xrealloc(t, (nt + 1) * sizeof(*t));
				memset(&t[nt], 0, sizeof(*t));
				copy(t[nt].kernel, sizeof(t[nt].kernel), c->kernel);
				copy(t[nt].function, sizeof(t[nt].function), fn);
				t[nt++].first = c->name;
			}
			t[j].n++;
			total++;
		}
	}
	qsort(t, nt, sizeof(*t), by_kernel_count);
	fprintf(out, "# %zu violation%s of the order property\n", total, total == 1 ? "" : "s");
	for (size_t j = 0; j < nt; j++)
		fprintf(out, "# %s\t%s\t%zu (first: %s)\n", t[j].kernel, t[j].function, t[j].n,
			t[j].first);
	free(t);
	return total ? 1 : 0;
}

// SPDX-License-Identifier: MIT
/*
 * What a guided campaign learns from the coverage of its cases, and the
 * weights it draws the next cases with (campaign.h, struct
 * fb_guide_state). syzkaller's idea applied to fault placement: prefer
 * the choices whose cases reached failure branches few cases reach.
 */
#include <stdlib.h>
#include <string.h>

#include "campaign/campaign.h"
#include "util.h"

void fb_guide_init(struct fb_guide_state *s, int nsites)
{
	memset(s, 0, sizeof(*s));
	s->nsites = nsites;
	s->hits = xcalloc(nsites ? nsites : 1, sizeof(*s->hits));
}

void fb_guide_free(struct fb_guide_state *s)
{
	free(s->hits);
	s->hits = NULL;
}

void fb_guide_learn(struct fb_guide_state *s, const struct fb_campaign_draw *d,
		    const bool *failed)
{
	double score = 0;

	for (int i = 0; i < s->nsites; i++) {
		if (!failed[i])
			continue;
		score += 1.0 / (1 + s->hits[i]);
		s->reached += !s->hits[i];
		s->hits[i]++;
	}
	for (int dim = 0; dim < FB_GUIDE__DIMS; dim++) {
		int v = d->v[dim];

		if (v < 0 || v >= FB_GUIDE_MAX)
			continue;
		s->uses[dim][v]++;
		s->score[dim][v] += score;
	}
	s->ncases++;
}

void fb_guide_weights(const struct fb_guide_state *s, struct fb_guide *g)
{
	for (int dim = 0; dim < FB_GUIDE__DIMS; dim++)
		for (int v = 0; v < FB_GUIDE_MAX; v++)
			g->w[dim][v] = 0.05 + (s->score[dim][v] + 1) / (s->uses[dim][v] + 1);
}

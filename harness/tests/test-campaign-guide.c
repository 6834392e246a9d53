// SPDX-License-Identifier: MIT
/*
 * Unit tests of what a guided campaign learns (campaign_guide.c): a value
 * whose cases reach a failure branch no case had reached outweighs one
 * whose cases reach only a common branch, and one whose cases reach none;
 * a value never drawn outweighs one drawn without reward; no weight falls
 * to zero; a branch counts as new once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "campaign/campaign.h"

static struct fb_campaign_draw draw(int type)
{
	struct fb_campaign_draw d = { { type, 0, 0, 1 } };

	return d;
}

static void test_rare_over_common(void **state)
{
	struct fb_guide_state s;
	struct fb_guide g;
	bool common[3] = { true, false, false }, rare[3] = { true, false, true },
	     none[3] = { false, false, false };

	fb_guide_init(&s, 3);
	/* type 1 reaches the common branch 0 ten times; type 2 reaches branch 2 once */
	for (int i = 0; i < 10; i++) {
		struct fb_campaign_draw d = draw(1);

		fb_guide_learn(&s, &d, common);
	}
	struct fb_campaign_draw d2 = draw(2), d3 = draw(3);

	fb_guide_learn(&s, &d2, rare);
	for (int i = 0; i < 5; i++)
		fb_guide_learn(&s, &d3, none);
	assert_int_equal(s.reached, 2);
	assert_int_equal(s.ncases, 16);
	assert_int_equal(s.hits[0], 11);
	assert_int_equal(s.hits[2], 1);
	fb_guide_weights(&s, &g);
	assert_true(g.w[FB_GUIDE_TYPE][2] > g.w[FB_GUIDE_TYPE][1]);
	assert_true(g.w[FB_GUIDE_TYPE][1] > g.w[FB_GUIDE_TYPE][3]);
	/* never drawn: the optimistic start, above those drawn without a new branch */
	assert_true(g.w[FB_GUIDE_TYPE][7] > g.w[FB_GUIDE_TYPE][1]);
	assert_true(g.w[FB_GUIDE_TYPE][7] > g.w[FB_GUIDE_TYPE][3]);
	/* nothing starves */
	assert_true(g.w[FB_GUIDE_TYPE][3] >= 0.05);
	/* the shared region value learned from all 16 cases */
	assert_int_equal((int)s.uses[FB_GUIDE_REGION][1], 16);
	fb_guide_free(&s);
}

static void test_new_branch_scores_one(void **state)
{
	struct fb_guide_state s;
	bool b[2] = { true, true };
	struct fb_campaign_draw d = draw(4);

	fb_guide_init(&s, 2);
	fb_guide_learn(&s, &d, b);
	assert_float_equal(s.score[FB_GUIDE_TYPE][4], 2.0, 1e-9);
	fb_guide_learn(&s, &d, b);
	/* the second time each branch scores 1/2 */
	assert_float_equal(s.score[FB_GUIDE_TYPE][4], 3.0, 1e-9);
	assert_int_equal(s.reached, 2);
	fb_guide_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rare_over_common),
		cmocka_unit_test(test_new_branch_scores_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

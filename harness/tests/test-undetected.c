// SPDX-License-Identifier: MIT
/*
 * The cause of an undetected fault (run/undetected.h) from fault-log and
 * witness records as the plugin writes them, one test per cause.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "run/undetected.h"

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	assert_non_null(j);
	return j;
}

static enum fb_undetected cause(const char *target, bool breaks, const char *faults,
				const char *witness)
{
	json_t *t = parse(target), *f = parse(faults), *w = parse(witness);
	enum fb_undetected u = fb_undetected_cause(t, breaks, f, w);

	json_decref(t);
	json_decref(f);
	json_decref(w);
	return u;
}

#define INODE "{\"type\":\"inode\",\"reseal\":false}"
#define REST "[{\"seq\":1,\"op\":\"rest\",\"action\":\"flip\"}]"
#define READ_AT(s) "{\"seq\":" #s ",\"witness\":\"read\",\"fault\":1,\"op\":\"read\"}"
#define OVER_AT(s) "{\"seq\":" #s ",\"witness\":\"overwrite\",\"fault\":1,\"op\":\"write\"}"

static void test_causes(void **state)
{
	(void)state;
	/* no fault at all: nothing to explain */
	assert_int_equal(cause(INODE, true, "[]", "[]"), FB_UNDET_NA);
	/* the witness first */
	assert_int_equal(cause(INODE, true, REST, "[]"), FB_UNDET_NEVER_READ);
	assert_int_equal(cause(INODE, true, REST, "[" OVER_AT(2) "]"), FB_UNDET_OVERWRITTEN);
	assert_int_equal(cause(INODE, true, REST, "[" OVER_AT(2) "," READ_AT(3) "]"),
			 FB_UNDET_OVERWRITTEN);
	/* read first: then what the object and the fault are */
	assert_int_equal(cause(INODE, true, REST, "[" READ_AT(2) "," OVER_AT(3) "]"),
			 FB_UNDET_UNEXPLAINED);
	assert_int_equal(cause("{\"type\":\"data\"}", false, REST, "[" READ_AT(2) "]"),
			 FB_UNDET_DATA_BLOCK);
	assert_int_equal(cause("{\"type\":\"superblock-backup\"}", true, REST, "[" READ_AT(2) "]"),
			 FB_UNDET_REDUNDANT_COPY);
	assert_int_equal(cause("{\"type\":\"inode\",\"reseal\":true}", false, REST,
			       "[" READ_AT(2) "]"), FB_UNDET_RESEALED);
	assert_int_equal(cause(INODE, false, REST, "[" READ_AT(2) "]"), FB_UNDET_NOT_COVERED);
	/* a fault applied in a read (or an EIO there) was read by definition */
	assert_int_equal(cause(INODE, true, "[{\"seq\":1,\"op\":\"read\",\"action\":\"flip\"}]", "[]"),
			 FB_UNDET_UNEXPLAINED);
	assert_int_equal(cause(INODE, true, "[{\"seq\":1,\"op\":\"read\",\"action\":\"eio\"}]", "[]"),
			 FB_UNDET_UNEXPLAINED);
	/* another fault's witness says nothing about this one */
	assert_int_equal(cause(INODE, true, REST,
			       "[{\"seq\":2,\"witness\":\"read\",\"fault\":9,\"op\":\"read\"}]"),
			 FB_UNDET_NEVER_READ);
	/* malformed records (guest-independent, but a hand-edited log) */
	assert_int_equal(cause(INODE, true, "[{\"op\":7}]", "[{\"witness\":3}]"),
			 FB_UNDET_NEVER_READ);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_causes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

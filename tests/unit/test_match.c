/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for wildcard and pattern-list matching.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "match.h"

/* '*' and '?' behave as in OpenSSH. */
static void
test_wildcards(void **state)
{
	(void)state;
	assert_true(match_pattern("host", "host"));
	assert_false(match_pattern("host", "hos"));
	assert_true(match_pattern("host", "h*"));
	assert_true(match_pattern("host", "*t"));
	assert_true(match_pattern("host", "h?st"));
	assert_false(match_pattern("hst", "h?st"));
	assert_true(match_pattern("", "*"));
	assert_false(match_pattern("", "?"));
	assert_true(match_pattern("a.b.c", "*.*.c"));
	assert_true(match_pattern("aaab", "*a*b"));
	assert_false(match_pattern("aaac", "*a*b"));
	assert_true(match_pattern("[h]:22", "[h]:*"));
}

/* Lists: any positive match, unless a negated one matches. */
static void
test_lists(void **state)
{
	(void)state;
	assert_int_equal(match_pattern_list("web1", "db*,web*", 0), 1);
	assert_int_equal(match_pattern_list("mail", "db*,web*", 0), 0);
	assert_int_equal(match_pattern_list("web1", "*,!web1", 0), -1);
	assert_int_equal(match_pattern_list("web2", "*,!web1", 0), 1);
	assert_int_equal(match_pattern_list("WEB1", "web*", 1), 1);
	assert_int_equal(match_pattern_list("WEB1", "web*", 0), 0);
	assert_int_equal(match_pattern_list("x", ",,", 0), 0);
	assert_int_equal(match_pattern_list("x", "!", 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wildcards),
		cmocka_unit_test(test_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the bounded number parser.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "num.h"

/* Parse s whole with flags and max; the value, or UINT64_MAX for a refusal. */
static uint64_t
parse(const char *s, int flags, uint64_t max)
{
	uint64_t	v = 12345;

	if (num_parse_str(s, flags, max, &v) != 0) {
		assert_int_equal(v, 12345);	/* untouched */
		return UINT64_MAX;
	}
	return v;
}

/* Plain decimals within the bound. */
static void
test_decimal(void **state)
{
	uint64_t	v = 0;

	(void)state;
	assert_int_equal(parse("0", 0, 10), 0);
	assert_int_equal(parse("7", 0, 10), 7);
	assert_int_equal(parse("10", 0, 10), 10);
	assert_int_equal(parse("007", 0, 10), 7);
	assert_int_equal(parse("65535", 0, 65535), 65535);
	assert_int_equal(num_parse_str("18446744073709551615", 0,
	    UINT64_MAX - 1, &v), CLAW_ERR_INVAL);	/* over the bound */
	assert_int_equal(num_parse_str("18446744073709551615", 0,
	    UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse("18446744073709551614", 0, UINT64_MAX - 1),
	    UINT64_MAX - 1);
}

/* Anything but digits, and anything over the bound, is refused. */
static void
test_refused(void **state)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "+1", "-1", "0x10", "1e3", "1.0", "١",
		"99999999999999999999999", "18446744073709551616",
	};
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(parse(bad[i], 0, UINT64_MAX), UINT64_MAX);
	assert_int_equal(parse("11", 0, 10), UINT64_MAX);
	assert_int_equal(parse("65536", 0, 65535), UINT64_MAX);
	assert_int_equal(num_parse_str(NULL, 0, 10, NULL), CLAW_ERR_INVAL);
}

/* Octal and canonical forms. */
static void
test_flags(void **state)
{
	(void)state;
	assert_int_equal(parse("0755", NUM_OCTAL, 07777), 0755);
	assert_int_equal(parse("7777", NUM_OCTAL, 07777), 07777);
	assert_int_equal(parse("10000", NUM_OCTAL, 07777), UINT64_MAX);
	assert_int_equal(parse("8", NUM_OCTAL, 07777), UINT64_MAX);
	assert_int_equal(parse("0", NUM_CANONICAL, 10), 0);
	assert_int_equal(parse("01", NUM_CANONICAL, 10), UINT64_MAX);
	assert_int_equal(parse("00", NUM_CANONICAL, 10), UINT64_MAX);
}

/* The length bounds the read: bytes after it are not looked at. */
static void
test_length(void **state)
{
	const char	buf[] = { '4', '2', 'x' };
	uint64_t	v = 0;

	(void)state;
	assert_int_equal(num_parse(buf, 2, 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(num_parse(buf, 3, 0, 100, &v), CLAW_ERR_INVAL);
	assert_int_equal(num_parse(buf, 0, 0, 100, &v), CLAW_ERR_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

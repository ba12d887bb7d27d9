/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the error space: every code has its own text, and -1
 * (what a yes/no helper returns) is no code at all.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"

/* Each code from -2 to the last names itself; -1 and strangers do not. */
static void
test_texts(void **state)
{
	int	e, f;

	(void)state;
	assert_string_equal(claw_strerror(0), "success");
	assert_string_equal(claw_strerror(-1), "unknown error");
	assert_string_equal(claw_strerror(1), "unknown error");
	assert_string_equal(claw_strerror(CLAW_ERR_LAST), "unknown error");
	assert_string_equal(claw_strerror(CLAW_ERR_NOMEM), "out of memory");
	for (e = -2; e > CLAW_ERR_LAST; e--) {
		assert_string_not_equal(claw_strerror(e), "unknown error");
		for (f = e - 1; f > CLAW_ERR_LAST; f--)
			assert_string_not_equal(claw_strerror(e),
			    claw_strerror(f));
	}
}

/* errno maps in; ENOMEM is out of memory, not -1. */
static void
test_errno(void **state)
{
	char	*cause = NULL;

	(void)state;
	assert_int_equal(claw_err_from_errno(ENOMEM), CLAW_ERR_NOMEM);
	assert_int_not_equal(CLAW_ERR_NOMEM, -1);
	assert_int_equal(claw_err_from_errno(ENOENT), CLAW_ERR_NOTFOUND);
	assert_int_equal(claw_err_from_errno(0), CLAW_OK);
	assert_int_equal(claw_fail(&cause, CLAW_ERR_IO, "x %d", 1),
	    CLAW_ERR_IO);
	assert_string_equal(cause, "x 1");
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_texts),
		cmocka_unit_test(test_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for enum name tables, and that every reader of a sandbox
 * enum takes the same names.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "contain.h"
#include "names.h"
#include "sandbox.h"

static const char *const colour_v[] = { [0] = "red", [2] = "blue" };
static const struct names colours = NAMES_OF(colour_v);

/* Names map to their index; gaps and strangers to -1. */
static void
test_find_get(void **state)
{
	(void)state;
	assert_int_equal(names_find(&colours, "red"), 0);
	assert_int_equal(names_find(&colours, "blue"), 2);
	assert_int_equal(names_find(&colours, "green"), -1);
	assert_int_equal(names_find(&colours, ""), -1);
	assert_int_equal(names_find(&colours, NULL), -1);
	assert_int_equal(names_find(&colours, "RED"), -1);
	assert_string_equal(names_get(&colours, 0), "red");
	assert_string_equal(names_get(&colours, 1), "unknown");
	assert_string_equal(names_get(&colours, 3), "unknown");
	assert_string_equal(names_get(&colours, -1), "unknown");
}

/* Lists read as English, with or without quotes, skipping gaps. */
static void
test_list(void **state)
{
	static const char *const one_v[] = { "only" };
	static const struct names one = NAMES_OF(one_v);
	char	*s;

	(void)state;
	s = names_list(&colours, 0);
	assert_string_equal(s, "red or blue");
	free(s);
	s = names_list(&contain_runtime_names, 1);
	assert_string_equal(s, "\"none\", \"bwrap\", \"docker\" or \"podman\"");
	free(s);
	s = names_list(&one, 1);
	assert_string_equal(s, "\"only\"");
	free(s);
}

/* Each enum's parser and namer agree with its table, both ways. */
static void
test_tables_round_trip(void **state)
{
	enum contain_runtime	r;
	enum contain_network	n;
	enum sandbox_workdir	w;
	enum sandbox_access	a;
	size_t			i;

	(void)state;
	for (i = 0; i < contain_runtime_names.n; i++) {
		assert_int_equal(contain_runtime_parse(
		    contain_runtime_names.v[i], &r), 0);
		assert_int_equal((size_t)r, i);
		assert_string_equal(contain_runtime_name(r),
		    contain_runtime_names.v[i]);
	}
	assert_int_equal(contain_runtime_names.n, 4);
	for (i = 0; i < contain_network_names.n; i++) {
		assert_int_equal(contain_network_parse(
		    contain_network_names.v[i], &n), 0);
		assert_int_equal((size_t)n, i);
	}
	assert_int_equal(sandbox_workdir_parse("/workspace", &w), 0);
	assert_int_equal(w, SANDBOX_WORKDIR_WORKSPACE);
	assert_int_equal(sandbox_workdir_parse("local", &w), 0);
	assert_int_equal(w, SANDBOX_WORKDIR_LOCAL);
	assert_string_equal(sandbox_workdir_name(SANDBOX_WORKDIR_LOCAL),
	    "local");
	assert_int_equal(sandbox_access_parse("none", &a), 0);
	assert_int_equal(a, SANDBOX_ACCESS_NONE);
	assert_int_not_equal(sandbox_access_parse(NULL, &a), 0);
	assert_string_equal(sandbox_access_name((enum sandbox_access)7),
	    "unknown");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_get),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_tables_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

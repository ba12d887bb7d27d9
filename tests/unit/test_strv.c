/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for strv: sorting with duplicates dropped (owned or not),
 * membership on empty and full sets, and the ancestor lookup that change
 * sets rely on (prefixes that are not directories do not count).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "strv.h"
#include "xmalloc.h"

/* Owned duplicates are freed (valgrind/ASan would see a leak or a double
 * free otherwise); the order is strcmp's. */
static void
test_uniq_owned(void **state)
{
	char	*v[] = { xstrdup("b"), xstrdup("a/b"), xstrdup("b"),
		    xstrdup("a"), xstrdup("a-b"), xstrdup("a") };
	size_t	 n = 6, i;

	(void)state;
	strv_uniq(v, &n, 1);
	assert_int_equal(n, 4);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "a-b");
	assert_string_equal(v[2], "a/b");
	assert_string_equal(v[3], "b");
	for (i = 0; i < n; i++)
		free(v[i]);
}

/* Borrowed strings are left alone; an empty array is fine. */
static void
test_uniq_borrowed(void **state)
{
	char	 a[] = "x", b[] = "x", c[] = "w";
	char	*v[] = { a, b, c };
	size_t	 n = 3, zero = 0;

	(void)state;
	strv_uniq(v, &n, 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], "w");
	assert_string_equal(v[1], "x");
	strv_uniq(NULL, &zero, 1);
	assert_int_equal(zero, 0);
}

/* Membership, including the empty set with a NULL array. */
static void
test_has(void **state)
{
	char	 a[] = "a", ab[] = "a/b", c[] = "c";
	char	*v[] = { a, ab, c };

	(void)state;
	assert_true(strv_has(v, 3, "a/b"));
	assert_false(strv_has(v, 3, "b"));
	assert_false(strv_has(NULL, 0, "a"));
}

/* Ancestors are whole components: "a" is one of "a/b/c", not of "ab/c". */
static void
test_has_ancestor(void **state)
{
	char	 a[] = "a", de[] = "d/e";
	char	*v[] = { a, de };

	(void)state;
	assert_true(strv_has_ancestor(v, 2, "a/b/c", 0));
	assert_true(strv_has_ancestor(v, 2, "d/e/f", 0));
	assert_false(strv_has_ancestor(v, 2, "ab/c", 0));
	assert_false(strv_has_ancestor(v, 2, "d/ef", 0));
	assert_false(strv_has_ancestor(v, 2, "a", 0));
	assert_true(strv_has_ancestor(v, 2, "a", 1));
	assert_false(strv_has_ancestor(v, 2, "d", 1));
	assert_false(strv_has_ancestor(NULL, 0, "a/b", 1));
}

/*
 * A set too large to compare one by one is searched per ancestor: the
 * same answers, with names sorting between "a" and "a/" in the set.
 */
static void
test_has_ancestor_large(void **state)
{
	char	 buf[40][16], *v[40];
	size_t	 i, n = 0;

	(void)state;
	for (i = 0; i < 30; i++) {
		snprintf(buf[n], sizeof(buf[n]), "m%02zu", i);
		v[n] = buf[n];
		n++;
	}
	strcpy(buf[n], "a");
	v[n] = buf[n], n++;
	strcpy(buf[n], "a b");
	v[n] = buf[n], n++;
	strcpy(buf[n], "a-x/y");
	v[n] = buf[n], n++;
	strcpy(buf[n], "z/q");
	v[n] = buf[n], n++;
	strv_uniq(v, &n, 0);
	assert_true(n > 16);
	assert_true(strv_has_ancestor(v, n, "a/b/c", 0));
	assert_true(strv_has_ancestor(v, n, "a-x/y/z", 0));
	assert_false(strv_has_ancestor(v, n, "a-x/z", 0));
	assert_false(strv_has_ancestor(v, n, "a b", 0));
	assert_true(strv_has_ancestor(v, n, "a b", 1));
	assert_false(strv_has_ancestor(v, n, "ab/c", 0));
	assert_true(strv_has_ancestor(v, n, "m07/x", 0));
	assert_false(strv_has_ancestor(v, n, "m7/x", 0));
	assert_false(strv_has_ancestor(v, n, "z", 1));
	assert_true(strv_has_ancestor(v, n, "z/q/r", 0));
}

/*
 * Descendants: whole components again, and found past names that sort
 * between "a" and "a/" ("a b", "a-x", "a.txt").
 */
static void
test_has_descendant(void **state)
{
	char	 a[] = "a", asp[] = "a b", ad[] = "a-x", at[] = "a.txt";
	char	 ab[] = "a/b", ab2[] = "ab/c", z[] = "z";
	char	*v[] = { a, asp, ad, at, ab, ab2, z };

	(void)state;
	assert_true(strv_has_descendant(v, 7, "a"));
	assert_false(strv_has_descendant(v, 7, "a/b"));
	assert_false(strv_has_descendant(v, 7, "ab/c"));
	assert_true(strv_has_descendant(v, 7, "ab"));
	assert_false(strv_has_descendant(v, 7, "a b"));
	assert_false(strv_has_descendant(v, 7, "z"));
	assert_false(strv_has_descendant(v + 1, 3, "a"));
	assert_false(strv_has_descendant(NULL, 0, "a"));
}

/*
 * Tops: a path below a kept one goes, even with names between them in
 * sort order; siblings that only share a prefix stay.
 */
static void
test_tops(void **state)
{
	char	 a[] = "a", asp[] = "a b", ab[] = "a/b", abc[] = "a/b/c";
	char	 b[] = "b", bc[] = "b.c", bcd[] = "b.c/d";
	char	*v[] = { a, asp, ab, abc, b, bc, bcd };
	size_t	 n = 7;

	(void)state;
	strv_tops(v, &n);
	assert_int_equal(n, 4);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "a b");
	assert_string_equal(v[2], "b");
	assert_string_equal(v[3], "b.c");
	n = 0;
	strv_tops(v, &n);
	assert_int_equal(n, 0);
}

/* strv_free takes NULL, an empty array and one of three (ASan: no leak). */
static void
test_strv_free(void **state)
{
	char	**v;

	(void)state;
	strv_free(NULL);
	strv_free(xcalloc(1, sizeof *v));
	v = xcalloc(4, sizeof *v);
	v[0] = xstrdup("a");
	v[1] = xstrdup("");
	v[2] = xstrdup("c");
	strv_free(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strv_free),
		cmocka_unit_test(test_uniq_owned),
		cmocka_unit_test(test_uniq_borrowed),
		cmocka_unit_test(test_has),
		cmocka_unit_test(test_has_ancestor),
		cmocka_unit_test(test_has_ancestor_large),
		cmocka_unit_test(test_has_descendant),
		cmocka_unit_test(test_tops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the edit tool's replacement and the file tools' path
 * normalisation.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "fsedit.h"
#include "fstore.h"

/* Replace in text; return the result (or NULL) and the cause. */
static char *
edit(const char *text, const char *old, const char *new, int all,
    size_t *count, char **cause)
{
	char	*out = NULL;
	size_t	 len;

	*cause = NULL;
	if (fsedit_replace("f", text, strlen(text), old, strlen(old), new,
	    strlen(new), all, &out, &len, count, cause) != 0)
		return NULL;
	assert_int_equal(len, strlen(out));
	return out;
}

/* One occurrence is replaced; the rest of the text is kept. */
static void
test_edit_once(void **state)
{
	char	*out, *cause;
	size_t	 n;

	(void)state;
	out = edit("alpha beta gamma", "beta", "BETA!", 0, &n, &cause);
	assert_string_equal(out, "alpha BETA! gamma");
	assert_int_equal(n, 1);
	free(out);
	out = edit("x", "x", "", 0, &n, &cause);
	assert_string_equal(out, "");
	free(out);
}

/* Several occurrences need --all; overlapping ones count once. */
static void
test_edit_all(void **state)
{
	char	*out, *cause;
	size_t	 n;

	(void)state;
	assert_null(edit("a a a", "a", "b", 0, &n, &cause));
	assert_non_null(strstr(cause, "occurs 3 times"));
	free(cause);
	out = edit("a a a", "a", "bb", 1, &n, &cause);
	assert_string_equal(out, "bb bb bb");
	assert_int_equal(n, 3);
	free(out);
	out = edit("aaaa", "aa", "b", 1, &n, &cause);
	assert_string_equal(out, "bb");
	assert_int_equal(n, 2);
	free(out);
}

/* Absent and empty old texts fail, naming the file. */
static void
test_edit_fail(void **state)
{
	char	*cause;
	size_t	 n;

	(void)state;
	assert_null(edit("abc", "x", "y", 0, &n, &cause));
	assert_string_equal(cause, "f: the text to replace was not found");
	free(cause);
	assert_null(edit("abc", "", "y", 1, &n, &cause));
	assert_non_null(strstr(cause, "empty"));
	free(cause);
}

/* Binary content with NUL bytes is handled byte for byte. */
static void
test_edit_binary(void **state)
{
	const char	 text[] = { 'a', '\0', 'b', '\0', 'c' };
	char		*out = NULL, *cause = NULL;
	size_t		 len, n;

	(void)state;
	assert_int_equal(fsedit_replace("f", text, sizeof text, "\0b", 2,
	    "Z", 1, 0, &out, &len, &n, &cause), 0);
	assert_int_equal(len, 4);
	assert_memory_equal(out, "aZ\0c", 4);
	free(out);
}

/* Check that user path p normalises to want (NULL: refused). */
static void
path_is(const char *p, const char *want)
{
	char	*out = NULL, *cause = NULL;
	int	 r = fstore_path(p, &out, &cause);

	if (want == NULL) {
		assert_int_not_equal(r, 0);
		assert_non_null(cause);
		free(cause);
		return;
	}
	assert_int_equal(r, 0);
	assert_string_equal(out, want);
	free(out);
}

/* /workspace paths, "./" and slashes are tidied; escapes refused. */
static void
test_paths(void **state)
{
	(void)state;
	path_is("a/b", "a/b");
	path_is("./a//b/", "a/b");
	path_is("/workspace/a/b", "a/b");
	path_is("/workspace", "");
	path_is(".", "");
	path_is("/workspacex/a", NULL);
	path_is("/etc/passwd", NULL);
	path_is("../x", NULL);
	path_is("a/../../x", NULL);
	path_is("a/..", NULL);
	path_is("a\nb", NULL);
	path_is("", NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_once),
		cmocka_unit_test(test_edit_all),
		cmocka_unit_test(test_edit_fail),
		cmocka_unit_test(test_edit_binary),
		cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

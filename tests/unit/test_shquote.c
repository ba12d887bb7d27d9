/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for POSIX sh quoting: hostile strings round-trip through a
 * real /bin/sh byte for byte.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "shquote.h"
#include "xmalloc.h"

static const char *const hostile[] = {
	"", "plain", "a b", "it's", "''", "'", "\"dq\"", "$HOME", "${x}",
	"`id`", "$(id)", "x\ny", "\n", "-n", "--", "-e \\t", "*", "?", "[a]",
	"~", "~root", "a;b", "a&&b", "a|b", "a>b", "<", "#comment", "\t",
	"\\", "\\'", "'\\''", "!", "é ü", "\x01\x7f", "a=b", "%s%n",
};

/* Run "printf '%s\0' WORD" through sh and return what came back. */
static char *
sh_roundtrip(const char *word, size_t *len)
{
	struct buf	 cmd = BUF_INIT, out = BUF_INIT;
	char		 chunk[256];
	FILE		*f;
	size_t		 n;

	buf_append_str(&cmd, "printf '%s\\0' ");
	shquote_append(&cmd, word);
	f = popen(cmd.data, "r");
	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&out, chunk, n);
	assert_int_equal(pclose(f), 0);
	buf_free(&cmd);
	*len = out.len;
	return buf_detach(&out);
}

/* Each hostile string comes back from sh exactly, as one word. */
static void
test_roundtrip(void **state)
{
	size_t	 i, len;
	char	*got;

	(void)state;
	for (i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		got = sh_roundtrip(hostile[i], &len);
		assert_int_equal(len, strlen(hostile[i]) + 1);
		assert_memory_equal(got, hostile[i], len);
		free(got);
	}
}

/* The quoted form of simple cases is what we document. */
static void
test_forms(void **state)
{
	char	*q;

	(void)state;
	q = shquote("");
	assert_string_equal(q, "''");
	free(q);
	q = shquote("it's");
	assert_string_equal(q, "'it'\\''s'");
	free(q);
	q = shquote("a b");
	assert_string_equal(q, "'a b'");
	free(q);
}

/* An argv becomes space-separated words that sh splits back apart. */
static void
test_argv(void **state)
{
	char		 a0[] = "printf", a1[] = "%s|", a2[] = "a b", a3[] = "";
	char		 a4[] = "'q'";
	char *const	 argv[] = { a0, a1, a2, a3, a4 };
	struct buf	 b = BUF_INIT, out = BUF_INIT;
	char		 chunk[128];
	FILE		*f;
	size_t		 n;

	(void)state;
	shquote_append_argv(&b, 5, argv);
	f = popen(b.data, "r");
	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&out, chunk, n);
	assert_int_equal(pclose(f), 0);
	assert_string_equal(out.data, "a b||'q'|");
	buf_free(&b);
	buf_free(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_argv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the bounded line reader: empty input, a last line with
 * and without its newline, the length cap at and past its bound, NUL and
 * CR as ordinary bytes, every split point of a reply, and the word,
 * number and byte getters that parse a line.
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
#include "lines.h"
#include "num.h"
#include "xmalloc.h"

/* Take a line of at most max and check it is want (NUL-free here). */
static void
take(struct lines *l, size_t max, const char *want)
{
	const char	*s;
	size_t		 n;

	assert_int_equal(lines_next(l, max, &s, &n), 0);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(s, want, n);
}

/* Check that a getter failed with err and moved nothing. */
static void
refused(struct lines *l, size_t max, int err)
{
	const char	*s = NULL, *at = l->p;
	size_t		 n = 7;

	assert_int_equal(lines_next(l, max, &s, &n), err);
	assert_null(s);
	assert_int_equal(n, 7);
	assert_ptr_equal(l->p, at);
}

/* Nothing, NULL included, holds no line. */
static void
test_empty(void **state)
{
	struct lines	l;

	(void)state;
	lines_init(&l, NULL, 0);
	assert_int_equal(lines_left(&l), 0);
	refused(&l, 100, CLAW_ERR_NOTFOUND);
	lines_init(&l, "", 0);
	refused(&l, 100, CLAW_ERR_NOTFOUND);
	lines_init(&l, "\n\n", 2);
	take(&l, 0, "");
	take(&l, 0, "");
	refused(&l, 0, CLAW_ERR_NOTFOUND);
}

/* A last line without its newline: refused, or taken when loose. */
static void
test_unterminated(void **state)
{
	struct lines	 l;
	const char	*s;
	size_t		 n;

	(void)state;
	lines_init(&l, "one\ntwo", 7);
	take(&l, 100, "one");
	refused(&l, 100, CLAW_ERR_PARSE);
	assert_int_equal(lines_left(&l), 3);
	assert_int_equal(lines_next_loose(&l, 100, &s, &n), 0);
	assert_int_equal(n, 3);
	assert_memory_equal(s, "two", 3);
	assert_int_equal(lines_left(&l), 0);
	assert_int_equal(lines_next_loose(&l, 100, &s, &n),
	    CLAW_ERR_NOTFOUND);

	/* The length bounds the read: the newline after it is not seen. */
	lines_init(&l, "abc\n", 3);
	refused(&l, 100, CLAW_ERR_PARSE);
}

/* A line of max bytes is taken; one byte more is refused, loose or not. */
static void
test_overlong(void **state)
{
	struct lines	 l;
	const char	*s;
	size_t		 n;

	(void)state;
	lines_init(&l, "abcd\nabcde\n", 11);
	take(&l, 4, "abcd");
	refused(&l, 4, CLAW_ERR_RANGE);
	assert_int_equal(lines_next_loose(&l, 4, &s, &n), CLAW_ERR_RANGE);
	take(&l, 5, "abcde");

	/* Unterminated and over max: the cap speaks first. */
	lines_init(&l, "abcdef", 6);
	refused(&l, 4, CLAW_ERR_RANGE);
	assert_int_equal(lines_next_loose(&l, 4, &s, &n), CLAW_ERR_RANGE);
	refused(&l, 6, CLAW_ERR_PARSE);
	assert_int_equal(lines_next_loose(&l, 6, &s, &n), 0);
	assert_int_equal(n, 6);

	/* No cap at all: SIZE_MAX does not wrap. */
	lines_init(&l, "xyz", 3);
	refused(&l, SIZE_MAX, CLAW_ERR_PARSE);
	assert_int_equal(lines_next_loose(&l, SIZE_MAX, &s, &n), 0);
}

/* NUL and CR are bytes of the line like any other. */
static void
test_nul_cr(void **state)
{
	static const char	 text[] = "a\0b\r\nc\r\r\n";
	struct lines		 l;
	const char		*s;
	size_t			 n;

	(void)state;
	lines_init(&l, text, sizeof text - 1);
	assert_int_equal(lines_next(&l, 100, &s, &n), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(s, "a\0b\r", 4);
	assert_int_equal(lines_next(&l, 100, &s, &n), 0);
	assert_int_equal(n, 3);
	assert_memory_equal(s, "c\r\r", 3);
	assert_int_equal(lines_left(&l), 0);
}

/*
 * Cut a reply at every point, into a buffer of exactly that size (so ASan
 * sees a read past it): the whole lines before the cut come out, then
 * the rest is refused as unterminated, or taken whole when loose.
 */
static void
test_every_split(void **state)
{
	static const char	 text[] = "clawssh-now 1\n\nx y z\nlast\n";
	const size_t		 len = sizeof text - 1;
	struct lines		 l;
	const char		*s;
	char			*cut;
	size_t			 i, n, got, whole, nl;

	(void)state;
	for (i = 0; i <= len; i++) {
		cut = xmalloc(i + 1);
		memcpy(cut, text, i);
		lines_init(&l, cut, i);
		got = 0;
		while (lines_next(&l, 16, &s, &n) == 0) {
			assert_memory_equal(s, text + got, n);
			assert_int_equal(text[got + n], '\n');
			got += n + 1;
		}
		for (whole = 0, nl = 0; nl < i; nl++) {
			if (text[nl] == '\n')
				whole = nl + 1;
		}
		assert_int_equal(got, whole);
		assert_int_equal(lines_left(&l), i - whole);
		if (i != whole) {
			refused(&l, 16, CLAW_ERR_PARSE);
			assert_int_equal(lines_next_loose(&l, 16, &s, &n), 0);
			assert_int_equal(n, i - whole);
		}
		refused(&l, 16, CLAW_ERR_NOTFOUND);
		free(cut);
	}
}

/* A byte at a time: each one-byte buffer is a line only if it is "\n". */
static void
test_byte_at_a_time(void **state)
{
	static const char	 text[] = "a\n\nb";
	struct lines		 l;
	const char		*s;
	char			*one;
	size_t			 i, n;

	(void)state;
	for (i = 0; i < sizeof text - 1; i++) {
		one = xmalloc(1);
		*one = text[i];
		lines_init(&l, one, 1);
		if (text[i] == '\n') {
			take(&l, 0, "");
		} else {
			refused(&l, 1, CLAW_ERR_PARSE);
			refused(&l, 0, CLAW_ERR_RANGE);
			assert_int_equal(lines_next_loose(&l, 1, &s, &n), 0);
			assert_int_equal(n, 1);
		}
		free(one);
	}
}

/* Words: single spaces between, none leading, none trailing. */
static void
test_words(void **state)
{
	struct lines	 l;
	const char	*w, *rest;
	size_t		 n;

	(void)state;
	lines_init(&l, "clawssh-out 12 34", 17);
	assert_int_equal(lines_expect(&l, "clawssh-ou"), CLAW_ERR_PARSE);
	assert_int_equal(lines_expect(&l, "clawssh-outs"), CLAW_ERR_PARSE);
	assert_int_equal(lines_expect(&l, "clawssh-out"), 0);
	assert_int_equal(lines_word(&l, &w, &n), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(w, "12", 2);
	assert_int_equal(lines_word(&l, &w, &n), 0);
	assert_memory_equal(w, "34", 2);
	assert_int_equal(lines_left(&l), 0);
	assert_int_equal(lines_word(&l, &w, &n), CLAW_ERR_PARSE);

	lines_init(&l, "a  b", 4);		/* two spaces: an empty word */
	assert_int_equal(lines_expect(&l, "a"), 0);
	assert_int_equal(lines_word(&l, &w, &n), CLAW_ERR_PARSE);
	lines_init(&l, " a", 2);		/* leading space */
	assert_int_equal(lines_word(&l, &w, &n), CLAW_ERR_PARSE);
	lines_init(&l, "a ", 2);		/* the trailing space stays */
	assert_int_equal(lines_expect(&l, "a"), 0);
	assert_int_equal(lines_left(&l), 1);
	assert_int_equal(lines_word(&l, &w, &n), CLAW_ERR_PARSE);

	/* What follows the words is there to take as it is. */
	lines_init(&l, "x  two  spaces", 14);
	assert_int_equal(lines_expect(&l, "x"), 0);
	assert_int_equal(lines_bytes(&l, lines_left(&l), &rest), 0);
	assert_memory_equal(rest, " two  spaces", 12);

	/* The length bounds a word too. */
	lines_init(&l, "abc def", 2);
	assert_int_equal(lines_word(&l, &w, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(lines_left(&l), 0);
}

/* Numbers: num_parse's rules; a refusal takes nothing. */
static void
test_numbers(void **state)
{
	struct lines	 l;
	uint64_t	 v = 99;

	(void)state;
	lines_init(&l, "644 12 +1 18446744073709551615", 30);
	assert_int_equal(lines_number(&l, NUM_OCTAL, 07777, &v), 0);
	assert_int_equal(v, 0644);
	assert_int_equal(lines_number(&l, 0, 11, &v), CLAW_ERR_PARSE);
	assert_int_equal(v, 0644);
	assert_int_equal(lines_number(&l, 0, 12, &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(lines_number(&l, 0, UINT64_MAX, &v), CLAW_ERR_PARSE);
	assert_int_equal(lines_expect(&l, "+1"), 0);
	assert_int_equal(lines_number(&l, 0, UINT64_MAX - 1, &v),
	    CLAW_ERR_PARSE);
	assert_int_equal(lines_number(&l, 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);

	lines_init(&l, "1\0002", 3);	/* a NUL is no digit */
	assert_int_equal(lines_number(&l, 0, 100, &v), CLAW_ERR_PARSE);
}

/* Raw bytes: exactly n, or none. */
static void
test_bytes(void **state)
{
	struct lines	 l;
	const char	*p = NULL;

	(void)state;
	lines_init(&l, "hdr\nabc", 7);
	take(&l, 10, "hdr");
	assert_int_equal(lines_bytes(&l, 4, &p), CLAW_ERR_RANGE);
	assert_null(p);
	assert_int_equal(lines_bytes(&l, 2, &p), 0);
	assert_memory_equal(p, "ab", 2);
	assert_int_equal(lines_bytes(&l, 0, &p), 0);
	assert_int_equal(lines_bytes(&l, 1, &p), 0);
	assert_int_equal(*p, 'c');
	assert_int_equal(lines_left(&l), 0);
	assert_int_equal(lines_bytes(&l, 1, &p), CLAW_ERR_RANGE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_unterminated),
		cmocka_unit_test(test_overlong),
		cmocka_unit_test(test_nul_cr),
		cmocka_unit_test(test_every_split),
		cmocka_unit_test(test_byte_at_a_time),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the pure parts of the process tool: handle and name
 * checks, the host's state lines (hostile input), and UTF-8 cleaning.
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

#include "buf.h"
#include "error.h"
#include "process.h"

/* Handles are "p" and exactly 8 lowercase hex digits. */
static void
test_handle(void **state)
{
	(void)state;
	assert_true(process_handle_ok("p0123abcd"));
	assert_true(process_handle_ok("pffffffff"));
	assert_false(process_handle_ok("p0123ABCD"));
	assert_false(process_handle_ok("p0123abc"));
	assert_false(process_handle_ok("p0123abcde"));
	assert_false(process_handle_ok("q0123abcd"));
	assert_false(process_handle_ok("../x"));
	assert_false(process_handle_ok("p0123abc/"));
	assert_false(process_handle_ok(""));
	assert_false(process_handle_ok(NULL));
}

/* Names are short tokens with no spaces or shell characters. */
static void
test_name(void **state)
{
	char	long_name[PROCESS_NAME_MAX + 2];

	(void)state;
	assert_true(process_name_ok("web-server_1.0"));
	assert_false(process_name_ok(""));
	assert_false(process_name_ok("-"));
	assert_false(process_name_ok("a b"));
	assert_false(process_name_ok("a/b"));
	assert_false(process_name_ok("$(x)"));
	memset(long_name, 'a', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = '\0';
	assert_false(process_name_ok(long_name));
	long_name[PROCESS_NAME_MAX] = '\0';
	assert_true(process_name_ok(long_name));
}

/* Parse a NUL-terminated line; returns the result. */
static int
parse(const char *line, struct process_state *st)
{
	return process_parse_state(line, strlen(line), st);
}

/* Good state lines in each state. */
static void
test_parse_good(void **state)
{
	struct process_state	st;

	(void)state;
	memset(&st, 0, sizeof st);
	assert_int_equal(parse("clawssh-proc p0000abcd web running - "
	    "1700000000 sh -c 'echo hi'", &st), 0);
	assert_string_equal(st.handle, "p0000abcd");
	assert_string_equal(st.name, "web");
	assert_int_equal(st.run, PROCESS_RUNNING);
	assert_int_equal(st.exit_status, -1);
	assert_int_equal(st.started, 1700000000);
	assert_string_equal(st.command, "sh -c 'echo hi'");
	process_state_clear(&st);

	assert_int_equal(parse("clawssh-proc p0000abcd - exited 3 5 x",
	    &st), 0);
	assert_string_equal(st.name, "");
	assert_int_equal(st.run, PROCESS_EXITED);
	assert_int_equal(st.exit_status, 3);
	process_state_clear(&st);

	assert_int_equal(parse("clawssh-proc p0000abcd - killed 143 5 x",
	    &st), 0);
	assert_int_equal(st.run, PROCESS_KILLED);
	assert_int_equal(st.exit_status, 143);
	process_state_clear(&st);

	/* Control characters in the command are made printable. */
	assert_int_equal(parse("clawssh-proc p0000abcd - lost - 5 a\033b",
	    &st), 0);
	assert_int_equal(st.run, PROCESS_LOST);
	assert_string_equal(st.command, "a?b");
	process_state_clear(&st);

	/* CMD is all after START's one space, spaces included, or empty. */
	assert_int_equal(parse("clawssh-proc p0000abcd - lost - 5  x ",
	    &st), 0);
	assert_string_equal(st.command, " x ");
	process_state_clear(&st);
	assert_int_equal(parse("clawssh-proc p0000abcd - lost - 5 ", &st), 0);
	assert_string_equal(st.command, "");
	process_state_clear(&st);
	assert_int_equal(parse("clawssh-proc p0000abcd - lost - 5", &st), 0);
	assert_string_equal(st.command, "");
	process_state_clear(&st);
}

/* Anything malformed is refused, and *st is left alone. */
static void
test_parse_hostile(void **state)
{
	static const char *const bad[] = {
		"",
		"clawssh-proc",
		"clawssh-proc ../etc/pw - running - 5 x",
		"clawssh-proc p0000abcd - running 0 5 x",
		"clawssh-proc p0000abcd - exited - 5 x",
		"clawssh-proc p0000abcd - exited 256 5 x",
		"clawssh-proc p0000abcd - exited -1 5 x",
		"clawssh-proc p0000abcd - exited garbage 5 x",
		"clawssh-proc p0000abcd - exited 99999999999999999999 5 x",
		"clawssh-proc p0000abcd - sleeping - 5 x",
		"clawssh-proc p0000abcd - running - -5 x",
		"clawssh-proc p0000abcd - running - 12x x",
		"clawssh-proc p0000abcd a;b running - 5 x",
		"clawssh-proc p0000abcd  running - 5 x",
		"clawssh-prod p0000abcd - running - 5 x",
	};
	struct process_state	st;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&st, 0x5a, sizeof st);
		assert_int_equal(parse(bad[i], &st), CLAW_ERR_PARSE);
		assert_int_equal(st.handle[0], 0x5a);
	}
	/* An embedded NUL is refused. */
	assert_int_equal(process_parse_state("clawssh-proc p0000abcd - "
	    "running - 5 a\0b", sizeof("clawssh-proc p0000abcd - "
	    "running - 5 a\0b") - 1, &st), CLAW_ERR_PARSE);
}

/* A very long command is truncated; a too-long line is refused. */
static void
test_parse_long(void **state)
{
	struct process_state	 st;
	char			*line;
	size_t			 n;

	(void)state;
	n = PROCESS_CMD_MAX + 2000;
	line = calloc(1, n + 64);
	assert_non_null(line);
	strcpy(line, "clawssh-proc p0000abcd - running - 5 ");
	memset(line + strlen(line), 'x', PROCESS_CMD_MAX + 10);
	memset(&st, 0, sizeof st);
	assert_int_equal(parse(line, &st), 0);
	assert_int_equal(strlen(st.command), PROCESS_CMD_MAX);
	process_state_clear(&st);
	memset(line + strlen(line), 'x', 1000);
	assert_int_equal(parse(line, &st), CLAW_ERR_PARSE);
	free(line);
}

/* Invalid UTF-8 and NULs become U+FFFD; valid text passes unchanged. */
static void
test_utf8(void **state)
{
	struct buf	b = BUF_INIT;

	(void)state;
	process_utf8_clean(&b, "h\xc3\xa9llo \xe2\x82\xac", 10);
	assert_string_equal(b.data, "h\xc3\xa9llo \xe2\x82\xac");
	buf_reset(&b);
	process_utf8_clean(&b, "a\xff" "b", 3);
	assert_string_equal(b.data, "a\xef\xbf\xbd" "b");
	buf_reset(&b);
	process_utf8_clean(&b, "a\0b", 3);
	assert_string_equal(b.data, "a\xef\xbf\xbd" "b");
	buf_reset(&b);
	/* Overlong, surrogate, truncated. */
	process_utf8_clean(&b, "\xc0\xaf\xed\xa0\x80\xe2\x82", 7);
	assert_int_equal(b.len, 7 * 3);
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handle),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_hostile),
		cmocka_unit_test(test_parse_long),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

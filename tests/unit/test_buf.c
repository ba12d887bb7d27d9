/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the growable buffer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"

/* Appends grow the buffer and keep it terminated. */
static void
test_append(void **state)
{
	struct buf	b = BUF_INIT;
	int		i;

	(void)state;
	for (i = 0; i < 1000; i++)
		buf_append(&b, "xy", 2);
	assert_int_equal(b.len, 2000);
	assert_int_equal(b.data[2000], '\0');
	buf_appendf(&b, "%d-%s", 42, "z");
	assert_int_equal(b.len, 2004);
	assert_string_equal(b.data + 2000, "42-z");
	buf_free(&b);
	assert_null(b.data);
}

/* Consume drops a prefix; detach hands over the string. */
static void
test_consume_detach(void **state)
{
	struct buf	 b = BUF_INIT;
	char		*s;

	(void)state;
	buf_append_str(&b, "hello world");
	buf_consume(&b, 6);
	assert_string_equal(b.data, "world");
	buf_consume(&b, 100);
	assert_int_equal(b.len, 0);
	buf_append_str(&b, "again");
	s = buf_detach(&b);
	assert_string_equal(s, "again");
	assert_null(b.data);
	free(s);
	s = buf_detach(&b);
	assert_string_equal(s, "");
	free(s);
}

/*
 * A length past what memory can hold fails as an allocation does, an
 * abort (under ASan, its report): it once made buf_reserve double its
 * capacity round to 0 for ever.
 */
static void
test_huge(void **state)
{
	static const char	x[8];
	struct buf		b = BUF_INIT;
	pid_t			pid;
	int			status;

	(void)state;
	buf_append(&b, "abc", 3);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		buf_append(&b, x, SIZE_MAX - 2);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		buf_append(&b, x, SIZE_MAX / 2 + 1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_consume_detach),
		cmocka_unit_test(test_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

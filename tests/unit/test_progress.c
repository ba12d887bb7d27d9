/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the transfer progress line's text.
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

#include <cmocka.h>

#include "progress.h"

#define MIB	(1024ULL * 1024)

/* A known total: bytes of total, percent, rate, time left. */
static void
test_known_total(void **state)
{
	char	line[256];

	(void)state;
	progress_format(line, sizeof line, "sent", 3, 25 * MIB, 100 * MIB,
	    5000, 0);
	assert_string_equal(line, "clawssh: sent 3 files, 25.0 of 100.0 MiB, "
	    "25%, 5.0 MiB/s, 0:15 left");
	progress_format(line, sizeof line, "received", 1, 1 * MIB,
	    7201 * MIB, 1000, 0);
	assert_string_equal(line, "clawssh: received 1 files, 1.0 of 7201.0 "
	    "MiB, 0%, 1.0 MiB/s, 2:00:00 left");
}

/* The total is an estimate: 99% at most, and never no time left. */
static void
test_estimate_capped(void **state)
{
	char	line[256];

	(void)state;
	progress_format(line, sizeof line, "sent", 2, 120 * MIB, 100 * MIB,
	    1000, 0);
	assert_string_equal(line, "clawssh: sent 2 files, 120.0 of 100.0 MiB, "
	    "99%, 120.0 MiB/s, 0:01 left");
}

/* Done: 100% and the time taken. */
static void
test_done(void **state)
{
	char	line[256];

	(void)state;
	progress_format(line, sizeof line, "sent", 4, 10 * MIB, 12 * MIB,
	    65000, 1);
	assert_string_equal(line, "clawssh: sent 4 files, 10.0 MiB, 100%, "
	    "0.2 MiB/s, 1:05");
	progress_format(line, sizeof line, "sent", 4, 10 * MIB, 0, 0, 1);
	assert_string_equal(line, "clawssh: sent 4 files, 10.0 MiB, 100%, "
	    "10000.0 MiB/s, 0:00");
}

/* An unknown total: bytes and rate only. */
static void
test_unknown_total(void **state)
{
	char	line[256];

	(void)state;
	progress_format(line, sizeof line, "received", 7, 3 * MIB, 0, 2000,
	    0);
	assert_string_equal(line, "clawssh: received 7 files, 3.0 MiB, "
	    "1.5 MiB/s");
}

/* A short buffer is cut, not overrun. */
static void
test_short_buffer(void **state)
{
	char	line[12];

	(void)state;
	progress_format(line, sizeof line, "sent", 1, MIB, 2 * MIB, 1000, 0);
	assert_string_equal(line, "clawssh: se");
}

/* Off a terminal nothing is printed (stderr here is not one). */
static void
test_not_a_tty(void **state)
{
	struct progress	p;

	(void)state;
	setenv("CLAWSSH_PROGRESS_MS", "0", 1);
	progress_init(&p, "sent", 100);
	assert_int_equal(p.after, 0);
	progress_add(&p, 50, 1);
	progress_end(&p, 1);
	assert_int_equal(p.bytes, 50);
	assert_int_equal(p.shown, 0);
	setenv("CLAWSSH_PROGRESS_MS", "x1", 1);
	progress_init(&p, "sent", 0);
	assert_int_equal(p.after, PROGRESS_AFTER_MS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_total),
		cmocka_unit_test(test_estimate_capped),
		cmocka_unit_test(test_done),
		cmocka_unit_test(test_unknown_total),
		cmocka_unit_test(test_short_buffer),
		cmocka_unit_test(test_not_a_tty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

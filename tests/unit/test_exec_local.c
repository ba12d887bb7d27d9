/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for exec (the wrapper, the poll loop, stdin, timeouts,
 * statuses, big output) over the local transport: the same code paths a
 * command through sshd takes, with /bin/sh on this machine and no sshd.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "chan.h"
#include "clock.h"
#include "error.h"
#include "exec.h"
#include "transport.h"

#define CAP	(8 * 1024 * 1024)

/* A local transport per test. */
static int
setup(void **state)
{
	char	*cause = NULL;

	signal(SIGPIPE, SIG_IGN);
	*state = transport_local("local", &cause);
	assert_non_null(*state);
	return 0;
}

static int
teardown(void **state)
{
	transport_free(*state);
	return 0;
}

/* Run argv with in on stdin, collecting both streams; the status. */
static int
run(struct transport *t, const char *const *args, int argc, const char *in,
    int timeout, struct buf *out, struct buf *err)
{
	struct exec_opts	o;
	char			*cause = NULL, *argv[8];
	int			 status = -1, rc, i;

	assert_true(argc <= 8);
	for (i = 0; i < argc; i++)
		argv[i] = strdup(args[i]);
	memset(&o, 0, sizeof o);
	o.argc = argc;
	o.argv = argv;
	o.in_data = in;
	o.in_len = in != NULL ? strlen(in) : 0;
	o.in_fd = -1;
	o.timeout = timeout;
	o.tty_fd = -1;
	o.out.fd = o.err.fd = -1;
	o.out.buf = out;
	o.err.buf = err;
	o.out.max = o.err.max = CAP;
	rc = exec_run(t, &o, &status, &cause);
	if (rc != 0)
		print_error("exec_run: %s\n", cause);
	assert_int_equal(rc, 0);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	return status;
}

/* Streams apart, the exit status as the command gave it. */
static void
test_streams_status(void **state)
{
	const char *const argv[] = { "sh", "-c",
	    "echo out; echo err >&2; exit 3" };
	struct buf	out = BUF_INIT, err = BUF_INIT;

	assert_int_equal(run(*state, argv, 3, NULL, 0, &out, &err), 3);
	assert_int_equal(out.len, 4);
	assert_memory_equal(out.data, "out\n", 4);
	assert_int_equal(err.len, 4);
	assert_memory_equal(err.data, "err\n", 4);
	buf_free(&out);
	buf_free(&err);
}

/* Arguments reach the command as they are: no second shell parse. */
static void
test_argv_quoting(void **state)
{
	const char *const argv[] = { "printf", "%s|", "a b", "$HOME", "'\"",
	    "" };
	struct buf	out = BUF_INIT, err = BUF_INIT;

	assert_int_equal(run(*state, argv, 6, NULL, 0, &out, &err), 0);
	buf_append(&out, "", 1);
	assert_string_equal(out.data, "a b|$HOME|'\"||");
	buf_free(&out);
	buf_free(&err);
}

/* stdin arrives whole, then EOF. */
static void
test_stdin(void **state)
{
	const char *const argv[] = { "sh", "-c", "cat; echo done" };
	struct buf	out = BUF_INIT, err = BUF_INIT;

	assert_int_equal(run(*state, argv, 3, "hello\n", 0, &out, &err), 0);
	buf_append(&out, "", 1);
	assert_string_equal(out.data, "hello\ndone\n");
	buf_free(&out);
	buf_free(&err);
}

/* A signal's death reads as 128 + N. */
static void
test_signal_status(void **state)
{
	const char *const argv[] = { "sh", "-c", "kill -TERM $$" };
	struct buf	out = BUF_INIT, err = BUF_INIT;

	assert_int_equal(run(*state, argv, 3, NULL, 0, &out, &err),
	    128 + SIGTERM);
	buf_free(&out);
	buf_free(&err);
}

/* --timeout stops the command group and says 124. */
static void
test_timeout(void **state)
{
	const char *const argv[] = { "sh", "-c", "sleep 30 & sleep 30; wait" };
	struct buf	out = BUF_INIT, err = BUF_INIT;

	assert_int_equal(run(*state, argv, 3, NULL, 1, &out, &err),
	    EXEC_STATUS_TIMEOUT);
	buf_free(&out);
	buf_free(&err);
}

/* Four MiB each way through the loop, in order, nothing lost. */
static void
test_big_output(void **state)
{
	const char *const argv[] = { "sh", "-c",
	    "head -c 4194304 /dev/zero | tr '\\0' a; "
	    "head -c 4194304 /dev/zero | tr '\\0' b >&2" };
	struct buf	out = BUF_INIT, err = BUF_INIT;
	size_t		i;

	assert_int_equal(run(*state, argv, 3, NULL, 0, &out, &err), 0);
	assert_int_equal(out.len, 4194304);
	assert_int_equal(err.len, 4194304);
	for (i = 0; i < out.len; i++)
		if (out.data[i] != 'a' || err.data[i] != 'b')
			fail_msg("byte %zu wrong", i);
	buf_free(&out);
	buf_free(&err);
}

/* A script with capped capture, as the host scripts run. */
static void
test_script_cap(void **state)
{
	struct buf	out = BUF_INIT, err = BUF_INIT;
	char		*cause = NULL;
	int		 status = -1;

	assert_int_equal(exec_script(*state, "cat; seq 1 10", "in\n", 3,
	    100, &out, &err, &status, &cause), 0);
	assert_int_equal(status, 0);
	assert_int_equal(out.len, 24);
	assert_memory_equal(out.data, "in\n1\n2\n", 7);
	buf_reset(&out);
	/* Over the cap: stopped, and said so, not cut silently. */
	assert_int_equal(exec_script(*state, "seq 1 100000", NULL, 0, 100,
	    &out, &err, &status, &cause), CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "larger than expected"));
	free(cause);
	buf_free(&out);
	buf_free(&err);
}

/* Several channels at once on one transport, each whole. */
static void
test_parallel_channels(void **state)
{
	struct chan	*c[3];
	char		 buf[64], *cause = NULL;
	size_t		 got[3] = { 0, 0, 0 };
	int		 i, done = 0, st;
	char		*sig;
	ssize_t		 n;

	for (i = 0; i < 3; i++) {
		c[i] = chan_exec(*state, "sleep 0.2; echo 0123456789", NULL,
		    CLOCK_NEVER, &cause);
		assert_non_null(c[i]);
	}
	while (done < 3) {
		assert_int_equal(transport_wait(*state, CLOCK_NEVER), 0);
		for (i = 0; i < 3; i++) {
			if (c[i] == NULL)
				continue;
			while ((n = chan_read(c[i], 0, buf, sizeof buf,
			    &cause)) > 0)
				got[i] += (size_t)n;
			assert_true(n >= 0);
			while ((n = chan_read(c[i], 1, buf, sizeof buf,
			    &cause)) > 0)
				;
			assert_true(n >= 0);
			if (chan_eof(c[i]) && chan_wait_closed(c[i],
			    &cause) == 0) {
				chan_exit(c[i], &st, &sig);
				assert_int_equal(st, 0);
				assert_null(sig);
				chan_free(c[i]);
				c[i] = NULL;
				done++;
			}
		}
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(got[i], 11);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_streams_status, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_argv_quoting, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_stdin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_status, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big_output, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_script_cap, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_parallel_channels, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for background processes (the supervisor scripts, stdin,
 * wait, poll, list, kill) over the local transport; no sshd.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

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
#include "process.h"
#include "tmpdir.h"
#include "transport.h"

struct fx {
	char			 top[64];
	char			 sbx[128];
	char			 ws[128];
	struct transport	*t;
};

static int
setup(void **state)
{
	struct fx	*f = calloc(1, sizeof *f);
	char		*cause = NULL;

	signal(SIGPIPE, SIG_IGN);
	snprintf(f->top, sizeof f->top, "/tmp/test_process_local.XXXXXX");
	assert_non_null(mkdtemp(f->top));
	snprintf(f->sbx, sizeof f->sbx, "%s/sbx", f->top);
	snprintf(f->ws, sizeof f->ws, "%s/sbx/workspace", f->top);
	assert_int_equal(mkdir(f->sbx, 0700), 0);
	assert_int_equal(mkdir(f->ws, 0755), 0);
	assert_non_null(f->t = transport_local("local", &cause));
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx	*f = *state;

	transport_free(f->t);
	tmpdir_remove(f->top);
	free(f);
	return 0;
}

/* Start sh -c script in the background; its handle. */
static char *
start(struct fx *f, const char *script, const char *name)
{
	char	*argv[3], *handle = NULL, *cause = NULL;

	argv[0] = strdup("sh");
	argv[1] = strdup("-c");
	argv[2] = strdup(script);
	if (process_start(f->t, f->sbx, f->ws, NULL, 3, argv, NULL, NULL, 0,
	    name, 0, &handle, &cause) != 0)
		fail_msg("start: %s", cause);
	free(argv[0]);
	free(argv[1]);
	free(argv[2]);
	assert_true(process_handle_ok(handle));
	return handle;
}

/* stdin, its output and its exit status, in the workspace. */
static void
test_run_to_exit(void **state)
{
	struct fx		*f = *state;
	struct process_state	 st;
	struct buf		 out = BUF_INIT;
	char			*h, *cause = NULL;

	h = start(f, "pwd; read x; echo \"got $x\"; exit 3", "reader");
	assert_int_equal(process_write(f->t, f->sbx, h, "yo\n", 3, -1, 1,
	    &cause), 0);
	memset(&st, 0, sizeof st);
	if (process_wait(f->t, f->sbx, h, 20000, &st, &cause) != 0)
		fail_msg("wait: %s", cause);
	assert_int_equal(st.run, PROCESS_EXITED);
	assert_int_equal(st.exit_status, 3);
	assert_string_equal(st.name, "reader");
	process_state_clear(&st);
	assert_int_equal(process_poll(f->t, f->sbx, h, &st, &out, &cause), 0);
	buf_append(&out, "", 1);
	assert_non_null(strstr(out.data, "/sbx/workspace\n"));
	assert_non_null(strstr(out.data, "got yo\n"));
	process_state_clear(&st);
	buf_free(&out);
	free(h);
}

/* A running process is listed, killed, and says so. */
static void
test_list_kill(void **state)
{
	struct fx		*f = *state;
	struct process_state	*list = NULL, st;
	size_t			 n = 0, i;
	char			*h, *cause = NULL;
	int			 was = 0, found = 0;

	h = start(f, "sleep 60", NULL);
	assert_int_equal(process_list(f->t, f->sbx, &list, &n, &cause), 0);
	for (i = 0; i < n; i++)
		if (strcmp(list[i].handle, h) == 0) {
			found = 1;
			assert_int_equal(list[i].run, PROCESS_RUNNING);
		}
	assert_true(found);
	process_list_free(list, n);
	assert_int_equal(process_kill(f->t, f->sbx, h, "TERM", &was, &cause),
	    0);
	assert_true(was);
	memset(&st, 0, sizeof st);
	assert_int_equal(process_wait(f->t, f->sbx, h, 20000, &st, &cause),
	    0);
	assert_int_equal(st.run, PROCESS_KILLED);
	process_state_clear(&st);
	/* an unknown handle is an error, not a crash */
	assert_int_not_equal(process_kill(f->t, f->sbx, "p00000000", "TERM",
	    &was, &cause), 0);
	free(cause);
	free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_to_exit, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_list_kill, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

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
#include "local_fixture.h"
#include "process.h"
#include "transport.h"

struct fx {
	struct local_fx		 lx;
	char			 ws[160];
};

static int
setup(void **state)
{
	struct fx	*f = calloc(1, sizeof *f);

	local_fx_init(&f->lx, "test_process_local", "sbx", NULL);
	snprintf(f->ws, sizeof f->ws, "%s/workspace", f->lx.a);
	assert_int_equal(mkdir(f->ws, 0755), 0);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx	*f = *state;

	local_fx_free(&f->lx);
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
	if (process_start(f->lx.t, f->lx.a, f->ws, NULL, 3, argv, NULL, NULL, 0,
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
	assert_int_equal(process_write(f->lx.t, f->lx.a, h, "yo\n", 3, -1, 1,
	    &cause), 0);
	memset(&st, 0, sizeof st);
	if (process_wait(f->lx.t, f->lx.a, h, 20000, &st, &cause) != 0)
		fail_msg("wait: %s", cause);
	assert_int_equal(st.run, PROCESS_EXITED);
	assert_int_equal(st.exit_status, 3);
	assert_string_equal(st.name, "reader");
	process_state_clear(&st);
	assert_int_equal(process_poll(f->lx.t, f->lx.a, h, &st, &out, &cause),
	    0);
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
	assert_int_equal(process_list(f->lx.t, f->lx.a, &list, &n, &cause), 0);
	for (i = 0; i < n; i++)
		if (strcmp(list[i].handle, h) == 0) {
			found = 1;
			assert_int_equal(list[i].run, PROCESS_RUNNING);
		}
	assert_true(found);
	process_list_free(list, n);
	assert_int_equal(process_kill(f->lx.t, f->lx.a, h, "TERM", &was,
	    &cause),
	    0);
	assert_true(was);
	memset(&st, 0, sizeof st);
	assert_int_equal(process_wait(f->lx.t, f->lx.a, h, 20000, &st, &cause),
	    0);
	assert_int_equal(st.run, PROCESS_KILLED);
	process_state_clear(&st);
	/* an unknown handle is an error, not a crash */
	assert_int_not_equal(process_kill(f->lx.t, f->lx.a, "p00000000", "TERM",
	    &was, &cause), 0);
	free(cause);
	free(h);
}

/*
 * Every case under each shell a host may have as its sh (the process
 * tool's scripts, src/host/process_*.sh, are run by the session's sh).
 * Not busybox sh: it runs its own applets first, and its split has no
 * --filter, so the process tool needs GNU coreutils (docs/process.md,
 * "Limits").
 */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_to_exit, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_list_kill, setup,
		    teardown),
	};

	return local_each_shell("process_local", tests,
	    sizeof tests / sizeof tests[0]);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for where a host-side step runs (hostws.h): a joined hostws
 * keeps and copies its route; without the daemon's transport a joined
 * step still runs as its script (here over the local transport, in the
 * "host" directory), with its stdin, stdout and status; no sshd.
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

#include "buf.h"
#include "hostws.h"
#include "local_fixture.h"
#include "transport.h"

/* A fresh hostws knows no route; join sets it, copy and clear keep up. */
static void
test_join_copy_clear(void **state)
{
	struct hostws	h, c;

	(void)state;
	memset(&h, 0xa5, sizeof h);	/* init owes nothing to what was */
	hostws_init(&h, "/srv/ws", NULL);
	assert_null(h.agent);
	assert_null(h.workdir);
	hostws_copy(&c, &h);
	assert_null(c.agent);
	hostws_clear(&c);
	hostws_join(&h, "/a/agent", "/r/run", "0123456789abcdef",
	    "/workspace");
	hostws_copy(&c, &h);
	assert_string_equal(c.dir, "/srv/ws");
	assert_null(c.jail);
	assert_string_equal(c.agent, "/a/agent");
	assert_string_equal(c.rundir, "/r/run");
	assert_string_equal(c.token, "0123456789abcdef");
	assert_string_equal(c.workdir, "/workspace");
	assert_ptr_not_equal(c.agent, h.agent);
	hostws_clear(&h);
	assert_null(h.dir);
	assert_null(h.agent);
	hostws_clear(&c);
	hostws_clear(&c);	/* twice is fine */
}

/*
 * Joined, but over a transport that is not the daemon's: the step runs
 * as its script, in the workspace, its stdin in and its output out.
 */
static void
test_run_without_daemon(void **state)
{
	struct local_fx	lx;
	struct hostws	h;
	struct buf	out = BUF_INIT, err = BUF_INIT;
	char		*cause = NULL, want[160];
	int		status = -1;

	(void)state;
	local_fx_init(&lx, "test_hostws", NULL, "host");
	hostws_init(&h, lx.b, NULL);
	hostws_join(&h, "/nonexistent/agent", "/nonexistent/run",
	    "0123456789abcdef", "/workspace");
	assert_null(transport_mux(lx.t));
	assert_int_equal(hostws_capture(lx.t, &h, "cat > got; pwd; exit 3",
	    "in\n", 3, 4096, &out, &err, &status, &cause), 0);
	assert_int_equal(status, 3);
	buf_append(&out, "", 1);
	snprintf(want, sizeof want, "%s\n", lx.b);
	assert_string_equal(out.data, want);
	assert_true(local_holds(lx.b, "got", "in\n"));
	buf_free(&out);
	buf_free(&err);
	hostws_clear(&h);
	local_fx_free(&lx);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_join_copy_clear),
		cmocka_unit_test(test_run_without_daemon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

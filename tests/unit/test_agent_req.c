/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the daemon's contained-exec request (src/ssh/agent_req.c):
 * the EXEC frame it builds is the one clawssh-agent serve reads (argv,
 * env as NAME=VALUE, cwd, FRAME_EXEC_BASEENV, the holder's RUNDIR and
 * spec), and what cannot be sent is refused rather than cut.
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

#include "agent_req.h"
#include "buf.h"
#include "error.h"
#include "frame.h"
#include "msg.h"
#include "remote_cmd.h"

static const struct exec_agent req = {
	"/home/u/.cache/clawssh/agent/clawssh-agent-x",
	"/srv/claw/c1/run", "0123456789abcdef", "/workspace/sub", 0
};

/* A request round-trips through serve's parsers. */
static void
test_round_trip(void **state)
{
	char		 a0[] = "sh", a1[] = "-c", a2[] = "echo \"$A\"";
	char		 n0[] = "A", v0[] = "b c", n1[] = "NL", v1[] = "x\ny";
	char		*argv[] = { a0, a1, a2, NULL };
	struct claw_env	 env[2] = { { n0, v0 }, { n1, v1 } };
	struct buf	 out = BUF_INIT;
	struct frame	 f;
	struct msg_exec	 m;
	char		*dir, *spec;

	(void)state;
	assert_int_equal(agent_req_frame(&req, 3, argv, env, 2, &out), 0);
	assert_int_equal(frame_parse(out.data, out.len, &f), 1);
	assert_int_equal(f.type, FRAME_EXEC);
	assert_int_equal(msg_exec_get_relayed(&f, &m), 0);
	assert_string_equal(m.argv[0], "sh");
	assert_string_equal(m.argv[2], "echo \"$A\"");
	assert_null(m.argv[3]);
	assert_string_equal(m.env[0], "A=b c");
	assert_string_equal(m.env[1], "NL=x\ny");
	assert_null(m.env[2]);
	assert_string_equal(m.cwd, "/workspace/sub");
	assert_int_equal(m.flags, FRAME_EXEC_BASEENV);
	assert_int_equal(m.nfds, 0);
	msg_exec_free(&m);
	assert_int_equal(msg_exec_target_get(&f, &dir, &spec), 0);
	assert_string_equal(dir, "/srv/claw/c1/run");
	assert_string_equal(spec, "0123456789abcdef");
	free(dir);
	free(spec);
	/* the holder takes no BASEENV: only serve's parser accepts it */
	assert_int_equal(msg_exec_get(&f, &m), FRAME_ERR_VALUE);
	buf_free(&out);
}

/* No variables, no spec: still a frame serve takes. */
static void
test_minimal(void **state)
{
	char			 a0[] = "true";
	char			*argv[] = { a0, NULL };
	struct exec_agent	 r = req;
	struct buf		 out = BUF_INIT;
	struct frame		 f;
	struct msg_exec		 m;
	char			*dir, *spec;

	(void)state;
	r.spec = "";
	assert_int_equal(agent_req_frame(&r, 1, argv, NULL, 0, &out), 0);
	assert_int_equal(frame_parse(out.data, out.len, &f), 1);
	assert_int_equal(msg_exec_get_relayed(&f, &m), 0);
	assert_null(m.env[0]);
	msg_exec_free(&m);
	assert_int_equal(msg_exec_target_get(&f, &dir, &spec), 0);
	assert_string_equal(spec, "");
	free(dir);
	free(spec);
	buf_free(&out);
}

/*
 * The agent's own step (fs-read): FRAME_EXEC_SELF goes with it, and
 * both parsers take it; with a terminal or as a login it is refused.
 */
static void
test_self(void **state)
{
	char			 a0[] = "clawssh-agent", a1[] = "fs-read";
	char			*argv[] = { a0, a1, NULL }, *noenv[] = { NULL };
	struct exec_agent	 r = req;
	struct buf		 out = BUF_INIT;
	struct frame		 f;
	struct frame_wr		 w = FRAME_WR_INIT;
	struct msg_exec		 m;

	(void)state;
	r.self = 1;
	assert_int_equal(agent_req_frame(&r, 2, argv, NULL, 0, &out), 0);
	assert_int_equal(frame_parse(out.data, out.len, &f), 1);
	assert_int_equal(msg_exec_get_relayed(&f, &m), 0);
	assert_int_equal(m.flags, FRAME_EXEC_BASEENV | FRAME_EXEC_SELF);
	/* as serve passes it on to the holder: three fds, no BASEENV */
	m.flags = FRAME_EXEC_SELF;
	m.nfds = 3;
	msg_exec_put(&w, 1, &m);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	msg_exec_free(&m);
	assert_int_equal(msg_exec_get(&f, &m), 0);
	assert_int_equal(m.flags, FRAME_EXEC_SELF);
	msg_exec_free(&m);
	frame_wr_free(&w);
	buf_free(&out);
	/* not with a terminal */
	memset(&m, 0, sizeof m);
	m.argv = argv;
	m.env = noenv;
	m.cwd = (char *)(uintptr_t)"/w";
	m.flags = FRAME_EXEC_SELF | FRAME_EXEC_PTY;
	msg_exec_put(&w, 1, &m);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	memset(&m, 0, sizeof m);
	assert_int_equal(msg_exec_get(&f, &m), FRAME_ERR_VALUE);
	msg_exec_free(&m);
	frame_wr_free(&w);
}

/* No argv, or one too big for a frame: refused, nothing appended. */
static void
test_refused(void **state)
{
	char		*argv[] = { NULL, NULL };
	struct buf	 out = BUF_INIT;
	char		*big;

	(void)state;
	assert_int_equal(agent_req_frame(&req, 0, argv, NULL, 0, &out),
	    CLAW_ERR_INVAL);
	assert_int_equal(out.len, 0);
	big = malloc(FRAME_MAX + 1);
	assert_non_null(big);
	memset(big, 'x', FRAME_MAX);
	big[FRAME_MAX] = '\0';
	argv[0] = big;
	assert_int_equal(agent_req_frame(&req, 1, argv, NULL, 0, &out),
	    CLAW_ERR_RANGE);
	assert_int_equal(out.len, 0);
	free(big);
	buf_free(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

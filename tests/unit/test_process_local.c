/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for background processes (start and its supervisor, stdin,
 * wait, poll, list, kill) over the local transport; no sshd.  Every case
 * runs twice: through the sh scripts, and through the host agent's
 * proc-* commands ($CLAWSSH_AGENT), which must answer alike; the
 * differential cases put the same state before both and compare the
 * bytes.
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
#include "exec.h"
#include "local_fixture.h"
#include "process.h"
#include "strv.h"
#include "transport.h"

struct fx {
	struct local_fx		 lx;
	char			 ws[160];
	struct process_at	 at;
};

/* The agent under test, or NULL for the sh scripts (main sets it). */
static const char	*fx_agent;

static int
setup(void **state)
{
	struct fx	*f = calloc(1, sizeof *f);

	local_fx_init(&f->lx, "test_process_local", "sbx", NULL);
	snprintf(f->ws, sizeof f->ws, "%s/workspace", f->lx.a);
	assert_int_equal(mkdir(f->ws, 0755), 0);
	f->at.t = f->lx.t;
	f->at.sd = f->lx.a;
	f->at.agent = fx_agent;
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

/*
 * Start sh -c script in the background at at (the fixture's: the sh
 * scripts, or the agent's proc-start), its log capped at log_max bytes
 * (0: the default); its handle.
 */
static char *
start_at(struct fx *f, const struct process_at *at, const char *script,
    const char *name, size_t log_max)
{
	struct process_start	 ps;
	char			*argv[3], *cause = NULL;

	argv[0] = strdup("sh");
	argv[1] = strdup("-c");
	argv[2] = strdup(script);
	if (process_start_init(&ps, 3, argv, NULL, name, log_max,
	    &cause) != 0 || process_start(at, f->ws, NULL, &ps, NULL, 0,
	    &cause) != 0)
		fail_msg("start: %s", cause);
	free(argv[0]);
	free(argv[1]);
	free(argv[2]);
	assert_true(process_handle_ok(ps.handle));
	return strdup(ps.handle);
}

/* start_at the fixture's way, the default log cap. */
static char *
start(struct fx *f, const char *script, const char *name)
{
	return start_at(f, &f->at, script, name, 0);
}

/* Wait for h to end; its state (run, exit status) checked. */
static void
wait_end(struct fx *f, const char *h, enum process_run run, int status)
{
	struct process_state	 st;
	char			*cause = NULL;

	memset(&st, 0, sizeof st);
	if (process_wait(&f->at, h, 20000, &st, &cause) != 0)
		fail_msg("wait: %s", cause);
	assert_int_equal(st.run, run);
	assert_int_equal(st.exit_status, status);
	process_state_clear(&st);
}

/* stdin, its output and its exit status, in the workspace. */
static void
test_run_to_exit(void **state)
{
	struct fx		*f = *state;
	struct process_state	 st;
	struct buf		 out = BUF_INIT;
	char			*h, *cause = NULL;

	mode_t			 um = umask(022);
	char			 want[32];

	umask(um);
	snprintf(want, sizeof want, "\n%04o\n", (unsigned)um);
	h = start(f, "pwd; umask; read x; echo \"got $x\"; exit 3",
	    "reader");
	assert_int_equal(process_write(&f->at, h, "yo\n", 3, -1, 1, &cause),
	    0);
	memset(&st, 0, sizeof st);
	if (process_wait(&f->at, h, 20000, &st, &cause) != 0)
		fail_msg("wait: %s", cause);
	assert_int_equal(st.run, PROCESS_EXITED);
	assert_int_equal(st.exit_status, 3);
	assert_string_equal(st.name, "reader");
	process_state_clear(&st);
	assert_int_equal(process_poll(&f->at, h, &st, &out, &cause), 0);
	buf_append(&out, "", 1);
	assert_non_null(strstr(out.data, "/sbx/workspace\n"));
	assert_non_null(strstr(out.data, "got yo\n"));
	/* the caller's umask, not the state's 077 */
	assert_non_null(strstr(out.data, want));
	process_state_clear(&st);
	/* everything was polled: the next poll brings nothing */
	buf_reset(&out);
	assert_int_equal(process_poll(&f->at, h, &st, &out, &cause), 0);
	assert_int_equal(out.len, 0);
	process_state_clear(&st);
	/* a write to an exited process is refused with the host's words */
	assert_int_not_equal(process_write(&f->at, h, "x", 1, -1, 0, &cause),
	    0);
	assert_non_null(strstr(cause, "has exited"));
	free(cause);
	buf_free(&out);
	free(h);
}

/* A running process is listed, killed, and says so. */
static void
test_list_kill(void **state)
{
	struct fx		*f = *state;
	struct process_state	*list = NULL;
	size_t			 n = 0, i;
	char			*h, *cause = NULL;
	int			 was = 0, found = 0;

	h = start(f, "sleep 60", NULL);
	assert_int_equal(process_list(&f->at, &list, &n, &cause), 0);
	for (i = 0; i < n; i++)
		if (strcmp(list[i].handle, h) == 0) {
			found = 1;
			assert_int_equal(list[i].run, PROCESS_RUNNING);
		}
	assert_true(found);
	process_list_free(list, n);
	assert_int_equal(process_kill(&f->at, h, "TERM", &was, &cause), 0);
	assert_true(was);
	wait_end(f, h, PROCESS_KILLED, 128 + 15);
	/* killing it again: it had already exited */
	assert_int_equal(process_kill(&f->at, h, NULL, &was, &cause), 0);
	assert_false(was);
	/* an unknown handle is an error, not a crash */
	assert_int_not_equal(process_kill(&f->at, "p00000000", "TERM", &was,
	    &cause), 0);
	assert_non_null(strstr(cause, "no process p00000000"));
	free(cause);
	assert_int_not_equal(process_kill(&f->at, h, "NOPE", &was, &cause),
	    0);
	free(cause);
	free(h);
}

/* A kill with no signal named ends a process that ignores TERM. */
static void
test_kill_escalates(void **state)
{
	struct fx	*f = *state;
	char		*h, *cause = NULL;
	int		 was = 0;

	h = start(f, "trap '' TERM; echo ready; while :; do sleep 1; done",
	    NULL);
	usleep(300 * 1000);
	assert_int_equal(process_kill(&f->at, h, NULL, &was, &cause), 0);
	assert_true(was);
	wait_end(f, h, PROCESS_KILLED, 128 + 9);
	free(h);
	/* a signal by number, as kill(1) takes it; one past 64 refused */
	h = start(f, "sleep 60", NULL);
	assert_int_not_equal(process_kill(&f->at, h, "65", &was, &cause), 0);
	free(cause);
	assert_int_equal(process_kill(&f->at, h, "9", &was, &cause), 0);
	wait_end(f, h, PROCESS_KILLED, 128 + 9);
	free(h);
}

/* The log's tail, and output polled in pieces as it comes. */
static void
test_log_tail_and_pieces(void **state)
{
	struct fx		*f = *state;
	struct process_state	 st;
	struct buf		 out = BUF_INIT;
	char			*h, *cause = NULL;

	h = start(f, "printf 'a\\nb\\nc\\n'; read x; printf 'd\\ne'", NULL);
	usleep(300 * 1000);
	memset(&st, 0, sizeof st);
	assert_int_equal(process_poll(&f->at, h, &st, &out, &cause), 0);
	assert_int_equal(st.run, PROCESS_RUNNING);
	assert_int_equal(out.len, 6);
	assert_memory_equal(out.data, "a\nb\nc\n", 6);
	process_state_clear(&st);
	assert_int_equal(process_write(&f->at, h, "go\n", 3, -1, 1, &cause),
	    0);
	wait_end(f, h, PROCESS_EXITED, 0);
	buf_reset(&out);
	assert_int_equal(process_poll(&f->at, h, &st, &out, &cause), 0);
	assert_int_equal(out.len, 3);
	assert_memory_equal(out.data, "d\ne", 3);
	process_state_clear(&st);
	buf_reset(&out);
	assert_int_equal(process_log(&f->at, h, 2, &st, &out, &cause), 0);
	assert_int_equal(out.len, 3);
	assert_memory_equal(out.data, "d\ne", 3);
	process_state_clear(&st);
	buf_reset(&out);
	assert_int_equal(process_log(&f->at, h, 0, &st, &out, &cause), 0);
	assert_int_equal(out.len, 9);
	process_state_clear(&st);
	buf_free(&out);
	free(h);
}

/*
 * The host's state is not trusted: a planted link where the process's
 * directory or its stdin FIFO should be, or garbage in its number files,
 * is refused, and nothing outside is touched.
 */
static void
test_hostile_state(void **state)
{
	struct fx		*f = *state;
	struct process_state	 st;
	struct buf		 out = BUF_INIT;
	char			*h, *cause = NULL, cmd[512];

	h = start(f, "exit 0", NULL);
	wait_end(f, h, PROCESS_EXITED, 0);
	/* max garbled */
	snprintf(cmd, sizeof cmd, "printf 'x1' > procs/%s/max", h);
	local_sh(f->lx.a, cmd);
	memset(&st, 0, sizeof st);
	assert_int_not_equal(process_poll(&f->at, h, &st, &out, &cause), 0);
	assert_non_null(strstr(cause, "garbled state file"));
	free(cause);
	/* the process directory a link to one outside */
	snprintf(cmd, sizeof cmd, "mkdir ../outside && mv procs/%s "
	    "../outside/ && ln -s ../../outside/%s procs/%s && "
	    "printf 65536 > ../outside/%s/max", h, h, h, h);
	local_sh(f->lx.a, cmd);
	assert_int_not_equal(process_poll(&f->at, h, &st, &out, &cause), 0);
	assert_non_null(strstr(cause, "no process"));
	free(cause);
	/* a sandbox without its workspace is gone */
	local_sh(f->lx.a, "rmdir workspace");
	assert_int_not_equal(process_poll(&f->at, h, &st, &out, &cause), 0);
	assert_non_null(strstr(cause, "no longer exists"));
	free(cause);
	buf_free(&out);
	free(h);
}

/*
 * A lock left by a reader that died (older than a minute) is broken; a
 * fresh one held by another makes the call wait, then say it is busy.
 */
static void
test_stale_lock(void **state)
{
	struct fx		*f = *state;
	struct process_state	 st;
	struct buf		 out = BUF_INIT;
	char			*h, *cause = NULL, cmd[512];

	h = start(f, "echo out", NULL);
	wait_end(f, h, PROCESS_EXITED, 0);
	snprintf(cmd, sizeof cmd, "mkdir procs/%s/lock && touch -d '-2 "
	    "minutes' procs/%s/lock", h, h);
	local_sh(f->lx.a, cmd);
	memset(&st, 0, sizeof st);
	if (process_poll(&f->at, h, &st, &out, &cause) != 0)
		fail_msg("poll past a stale lock: %s", cause);
	assert_int_equal(out.len, 4);
	process_state_clear(&st);
	snprintf(cmd, sizeof cmd, "test ! -e procs/%s/lock", h);
	local_sh(f->lx.a, cmd);
	buf_free(&out);
	free(h);
}

/* Run s on at: its exit status, its stdout into out. */
static int
run_raw(const struct process_at *at, const struct process_step *s,
    struct buf *out)
{
	struct exec_opts	 eo;
	struct buf		 err = BUF_INIT;
	char			**argv, *cause = NULL;
	size_t			 max;
	int			 argc, status = -1;

	assert_int_equal(process_step_argv(at, s, &argv, &max, &cause), 0);
	for (argc = 0; argv[argc] != NULL; argc++)
		;
	exec_opts_capture(&eo, NULL, 0, max, out, &err);
	eo.argc = argc;
	eo.argv = argv;
	if (exec_run(at->t, &eo, &status, &cause) != 0)
		fail_msg("%s", cause);
	buf_append(&err, "", 1);
	if (status != 0)
		fprintf(stderr, "# %s: %s", argv[1], err.data);
	strv_free(argv);
	buf_free(&err);
	return status;
}

/*
 * The same state before the sh scripts and the agent: a copy of one
 * process's directory each, the same bytes back from poll, log and list
 * (a log cut to chunks with some dropped, a polled offset inside).
 */
static void
test_sh_agent_agree(void **state)
{
	struct fx		*f = *state;
	struct process_at	 sh = f->at, ag = f->at;
	struct process_step	 s;
	struct buf		 o1 = BUF_INIT, o2 = BUF_INIT;
	const char		*agent = getenv("CLAWSSH_AGENT");
	char			*h, *cause = NULL, cmd[1024], sd2[256];
	int			 op, st1, st2;

	if (agent == NULL || fx_agent != NULL)
		skip();		/* once, with the sh run's fixture */
	h = start(f, "i=0; while [ $i -lt 3000 ]; do echo \"line $i\"; "
	    "i=$((i + 1)); done", "many");
	wait_end(f, h, PROCESS_EXITED, 0);
	/* chunks of 4096, 8192 kept: an offset inside, some dropped */
	snprintf(cmd, sizeof cmd, "cd procs/%s && printf 4096 > chunk && "
	    "printf 8192 > max && rm -f log.* && i=0 && while [ $i -lt 3000 "
	    "]; do echo \"line $i\"; i=$((i + 1)); done | split -b 4096 -a 6 "
	    "-d - log. && rm log.000000 log.000001 && printf 12000 > polled",
	    h);
	local_sh(f->lx.a, cmd);
	snprintf(sd2, sizeof sd2, "%s2", f->lx.a);
	snprintf(cmd, sizeof cmd, "cp -a %s %s", f->lx.a, sd2);
	local_sh("/", cmd);
	sh.agent = NULL;
	ag.agent = agent;
	ag.sd = sd2;
	for (op = PROCESS_OP_LIST; op <= PROCESS_OP_WAIT; op++) {
		memset(&s, 0, sizeof s);
		s.op = (enum process_op)op;
		s.handle = h;
		s.tail = op == PROCESS_OP_LOG ? 7 : 0;
		buf_reset(&o1);
		buf_reset(&o2);
		st1 = run_raw(&sh, &s, &o1);
		st2 = run_raw(&ag, &s, &o2);
		assert_int_equal(st1, 0);
		assert_int_equal(st2, 0);
		assert_true(o1.len > 0);
		assert_int_equal(o1.len, o2.len);
		assert_memory_equal(o1.data, o2.data, o1.len);
	}
	/* the poll moved both offsets alike */
	snprintf(cmd, sizeof cmd, "cmp procs/%s/polled %s/procs/%s/polled", h,
	    sd2, h);
	local_sh(f->lx.a, cmd);
	snprintf(cmd, sizeof cmd, "rm -rf %s", sd2);
	local_sh("/", cmd);
	free(cause);
	buf_free(&o1);
	buf_free(&o2);
	free(h);
}

/* A command that cannot be run: exit status 127, and the log says why. */
static void
test_cannot_run(void **state)
{
	struct fx		*f = *state;
	struct process_start	 ps;
	struct process_state	 st;
	struct buf		 out = BUF_INIT;
	char			 word[] = "./no-such-command";
	char			*argv[] = { word, NULL }, *cause = NULL;

	if (process_start_init(&ps, 1, argv, NULL, NULL, 0, &cause) != 0 ||
	    process_start(&f->at, f->ws, NULL, &ps, NULL, 0, &cause) != 0)
		fail_msg("start: %s", cause);
	wait_end(f, ps.handle, PROCESS_EXITED, 127);
	memset(&st, 0, sizeof st);
	assert_int_equal(process_log(&f->at, ps.handle, 0, &st, &out,
	    &cause), 0);
	buf_append(&out, "", 1);
	assert_non_null(strstr(out.data, "no-such-command"));
	process_state_clear(&st);
	buf_free(&out);
}

/*
 * The sh supervisor (split and its filter) and the agent's cut the same
 * output into the same chunks and drop the same ones: a 4 KiB cap (512
 * byte chunks), the same command under each, the same files after.
 */
static void
test_supervisors_agree(void **state)
{
	struct fx		*f = *state;
	struct process_at	 sh = f->at, ag = f->at;
	const char		*agent = getenv("CLAWSSH_AGENT");
	const char		*script = "i=0; while [ $i -lt 3000 ]; do "
	    "echo \"line $i\"; i=$((i + 1)); done; exit 5";
	char			*h1, *h2, cmd[2048], sd2[256];

	if (agent == NULL || fx_agent != NULL)
		skip();		/* once, with the sh run's fixture */
	snprintf(sd2, sizeof sd2, "%s2", f->lx.a);
	snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s/workspace", sd2,
	    sd2);
	local_sh("/", cmd);
	sh.agent = NULL;
	ag.agent = agent;
	ag.sd = sd2;
	h1 = start_at(f, &sh, script, "cut", 4096);
	h2 = start_at(f, &ag, script, "cut", 4096);
	wait_end(f, h1, PROCESS_EXITED, 5);
	f->at = ag;
	wait_end(f, h2, PROCESS_EXITED, 5);
	snprintf(cmd, sizeof cmd, "a=procs/%s; b=%s/procs/%s; "
	    "test -e $a/done && test -e $b/done && cmp $a/rc $b/rc && "
	    "cmp $a/max $b/max && cmp $a/chunk $b/chunk && "
	    "cmp $a/cmd $b/cmd && cmp $a/name $b/name && "
	    "[ \"$(cd $a && echo log.*)\" = \"$(cd $b && echo log.*)\" ] && "
	    "[ \"$(cd $a && echo log.*)\" != 'log.*' ] && "
	    "test ! -e $a/log.000000 && "
	    "for c in $(cd $a && echo log.*); do cmp $a/$c $b/$c || exit 1; "
	    "done", h1, sd2, h2);
	local_sh(f->lx.a, cmd);
	snprintf(cmd, sizeof cmd, "rm -rf %s", sd2);
	local_sh("/", cmd);
	free(h1);
	free(h2);
}

/*
 * Every case under each shell a host may have as its sh (the process
 * tool's scripts, src/host/process_*.sh, are run by the session's sh),
 * then once more through the agent.  Not busybox sh: it runs its own
 * applets first, and its split has no --filter, so the process tool
 * needs GNU coreutils (docs/process.md, "Limits").
 */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_to_exit, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_list_kill, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_kill_escalates, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_log_tail_and_pieces,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_state, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_stale_lock, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_sh_agent_agree, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_cannot_run, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_supervisors_agree, setup,
		    teardown),
	};
	int	failed;

	failed = local_each_shell("process_local", tests,
	    sizeof tests / sizeof tests[0]);
	if ((fx_agent = getenv("CLAWSSH_AGENT")) == NULL) {
		fprintf(stderr, "# CLAWSSH_AGENT not set: the agent's "
		    "proc-* commands not tested\n");
		return failed;
	}
	fprintf(stderr, "# through the host agent's proc-* commands\n");
	return failed + _cmocka_run_group_tests("process_local_agent", tests,
	    sizeof tests / sizeof tests[0], NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the remote command wrapper, run through a real local sh
 * exactly as sshd would run it: "sh -c COMMAND" with the preamble on stdin.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/wait.h>

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
#include "clawconfig.h"
#include "error.h"
#include "remote_cmd.h"
#include "xmalloc.h"

/* Run rc's command under sh with preamble+extra on stdin; capture stdout. */
static int
run_wrapper(const struct remote_cmd *rc, const char *extra, struct buf *out)
{
	int	inp[2], outp[2], status;
	char	chunk[512];
	ssize_t	n;
	pid_t	pid;

	assert_int_equal(pipe(inp), 0);
	assert_int_equal(pipe(outp), 0);
	if ((pid = fork()) == 0) {
		setsid();
		dup2(inp[0], 0);
		dup2(outp[1], 1);
		close(inp[1]);
		close(outp[0]);
		execl("/bin/sh", "sh", "-c", rc->command, (char *)NULL);
		_exit(127);
	}
	close(inp[0]);
	close(outp[1]);
	assert_int_equal(write(inp[1], rc->preamble, rc->preamble_len),
	    (ssize_t)rc->preamble_len);
	if (extra != NULL)
		assert_int_equal(write(inp[1], extra, strlen(extra)),
		    (ssize_t)strlen(extra));
	close(inp[1]);
	while ((n = read(outp[0], chunk, sizeof chunk)) > 0)
		buf_append(out, chunk, (size_t)n);
	close(outp[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Split off the first line of out and check it is our pid marker. */
static void
check_marker(const struct remote_cmd *rc, struct buf *out)
{
	char	*nl = memchr(out->data, '\n', out->len);
	char	 ident[REMOTE_IDENT_MAX];
	long	 pid = 0;

	assert_non_null(nl);
	assert_true(remote_cmd_parse_pid(rc, out->data,
	    (size_t)(nl - out->data) + 1, &pid, ident));
	assert_true(pid > 1);
	/* on Linux the wrapper says who its process is */
	assert_int_equal(strlen(ident), 36 + 1 + strspn(ident + 37,
	    "0123456789"));
	assert_true(strlen(ident) > 37);
	buf_consume(out, (size_t)(nl - out->data) + 1);
}

/* Environment values, newlines and quotes included, reach the command. */
static void
test_env_and_argv(void **state)
{
	char			 na[] = "A", va[] = "it's a\nmulti-line $value";
	char			 nb[] = "B_2", vb[] = "";
	char			 a0[] = "sh", a1[] = "-c", a3[] = "x";
	char			 a2[] = "printf '%s|%s|%s' \"$A\" "
				    "\"${B_2-unset}\" \"$1\"";
	char			 a4[] = "arg one";
	struct claw_env		 env[] = { { na, va }, { nb, vb } };
	char *const		 argv[] = { a0, a1, a2, a3, a4 };
	struct remote_cmd	 rc;
	struct buf		 out = BUF_INIT;
	char			*cause = NULL;

	(void)state;
	assert_int_equal(remote_cmd_build(&rc, 5, argv, NULL, "/", env, 2,
	    &cause), 0);
	assert_null(strstr(rc.command, "multi-line"));
	assert_int_equal(run_wrapper(&rc, NULL, &out), 0);
	check_marker(&rc, &out);
	assert_string_equal(out.data, "it's a\nmulti-line $value||arg one");
	remote_cmd_clear(&rc);
	buf_free(&out);
}

/*
 * The marker's identity is the command's own (the wrapper execs it, so
 * pid and start time are the same), as sed and cut read it from /proc.
 */
static void
test_marker_ident(void **state)
{
	char			 a0[] = "sh", a1[] = "-c";
	char			 a2[] = "printf '%s %s' \"$(cat "
				    "/proc/sys/kernel/random/boot_id)\" "
				    "\"$(sed 's/.*) //' /proc/$$/stat | "
				    "cut -d' ' -f20)\"";
	char *const		 argv[] = { a0, a1, a2 };
	struct remote_cmd	 rc;
	struct buf		 out = BUF_INIT;
	char			*cause = NULL, *nl, ident[REMOTE_IDENT_MAX];
	long			 pid;

	(void)state;
	assert_int_equal(remote_cmd_build(&rc, 3, argv, NULL, NULL, NULL, 0,
	    &cause), 0);
	assert_int_equal(run_wrapper(&rc, NULL, &out), 0);
	assert_non_null(nl = memchr(out.data, '\n', out.len));
	assert_true(remote_cmd_parse_pid(&rc, out.data,
	    (size_t)(nl - out.data) + 1, &pid, ident));
	buf_consume(&out, (size_t)(nl - out.data) + 1);
	buf_append(&out, "", 1);
	assert_string_equal(ident, out.data);
	remote_cmd_clear(&rc);
	buf_free(&out);
}

/* User stdin after the preamble reaches the command untouched. */
static void
test_stdin_passthrough(void **state)
{
	char			 a0[] = "cat";
	char *const		 argv[] = { a0 };
	struct remote_cmd	 rc;
	struct buf		 out = BUF_INIT;
	char			*cause = NULL;

	(void)state;
	assert_int_equal(remote_cmd_build(&rc, 1, argv, NULL, NULL, NULL, 0,
	    &cause), 0);
	assert_int_equal(run_wrapper(&rc, "line1\nline2", &out), 0);
	check_marker(&rc, &out);
	assert_string_equal(out.data, "line1\nline2");
	remote_cmd_clear(&rc);
	buf_free(&out);
}

/* Without the nonce line (a cut connection) nothing runs: exit 255. */
static void
test_truncated_preamble(void **state)
{
	char			 a0[] = "echo", a1[] = "ran";
	char *const		 argv[] = { a0, a1 };
	struct remote_cmd	 rc;
	struct buf		 out = BUF_INIT;
	char			*cause = NULL;

	(void)state;
	assert_int_equal(remote_cmd_build(&rc, 2, argv, NULL, NULL, NULL, 0,
	    &cause), 0);
	rc.preamble_len = 0;
	assert_int_equal(run_wrapper(&rc, NULL, &out), 255);
	check_marker(&rc, &out);
	assert_int_equal(out.len, 0);
	remote_cmd_clear(&rc);
	buf_free(&out);
}

/*
 * A command too long for the exec request (libssh2's packet) carries its
 * words in the preamble: the line stays short, the words arrive intact
 * (quotes, newlines), with and without a wrapper, and the user's stdin
 * still follows.
 */
static void
test_long_argv(void **state)
{
	size_t			 n = 3 * REMOTE_CMD_LINE_MAX, i;
	char			*big = xmalloc(n + 1), a0[] = "sh", a1[] = "-c";
	char			 a2[] = "printf '%s|' \"${#1}\" \"$2\"; cat";
	char			 a3[] = "x", a5[] = "it's\nmulti-line $HOME";
	char			 wrap[] = "set -- env";
	char *const		 argv[] = { a0, a1, a2, a3, big, a5 };
	struct remote_cmd	 rc;
	struct buf		 out = BUF_INIT;
	char			*cause = NULL, *want;
	int			 w;

	(void)state;
	for (i = 0; i < n; i++)
		big[i] = i % 61 == 60 ? '\n' : "ab'\"$\\"[i % 6];
	big[n] = '\0';
	want = xasprintf("%zu|it's\nmulti-line $HOME|stdin", n);
	for (w = 0; w < 2; w++) {
		assert_int_equal(remote_cmd_build_wrapped(&rc, 6, argv, NULL,
		    w ? wrap : NULL, "/", NULL, 0, 0, &cause), 0);
		assert_true(strlen(rc.command) <= REMOTE_CMD_LINE_MAX);
		assert_null(strstr(rc.command, "multi-line"));
		assert_int_equal(run_wrapper(&rc, "stdin", &out), 0);
		check_marker(&rc, &out);
		assert_string_equal(out.data, want);
		remote_cmd_clear(&rc);
		buf_free(&out);
	}
	free(want);
	free(big);
}

/* Bad input is refused with a message. */
static void
test_bad_input(void **state)
{
	char			 n[] = "1BAD", v[] = "x", a0[] = "true";
	struct claw_env		 env[] = { { n, v } };
	char *const		 argv[] = { a0 };
	struct remote_cmd	 rc;
	char			*cause = NULL;

	(void)state;
	assert_int_equal(remote_cmd_build(&rc, 1, argv, NULL, NULL, env, 1,
	    &cause), CLAW_ERR_INVAL);
	assert_non_null(strstr(cause, "1BAD"));
	free(cause);
	cause = NULL;
	assert_int_equal(remote_cmd_build(&rc, 0, argv, NULL, NULL, NULL, 0,
	    &cause), CLAW_ERR_INVAL);
	free(cause);
	cause = NULL;
	assert_int_equal(remote_cmd_build(&rc, 1, argv, NULL, "", NULL, 0,
	    &cause), CLAW_ERR_INVAL);
	free(cause);
	assert_false(remote_cmd_env_name_ok(""));
	assert_false(remote_cmd_env_name_ok("A-B"));
	assert_true(remote_cmd_env_name_ok("_a1"));
	/* the scripts' own variables cannot be preset */
	assert_false(remote_cmd_env_name_ok("__claw_idu"));
	assert_false(remote_cmd_env_name_ok("__claw"));
	assert_true(remote_cmd_env_name_ok("__cla"));
}

/* Only an exact marker with a plausible pid is accepted. */
static void
test_parse_pid(void **state)
{
	struct remote_cmd	 rc;
	char			 line[160], ident[REMOTE_IDENT_MAX];
	long			 pid = 0;
	const char		*boot = "0123abcd-0123-4567-89ab-0123456789ab";

	(void)state;
	memset(&rc, 0, sizeof rc);
	memset(rc.nonce, 'a', REMOTE_CMD_NONCE_LEN);
#define TRY(fmt, arg) (snprintf(line, sizeof line, fmt, rc.nonce, arg), \
	remote_cmd_parse_pid(&rc, line, strlen(line), &pid, ident))
	assert_true(TRY(REMOTE_CMD_MARKER "%s %s\n", "1234"));
	assert_int_equal(pid, 1234);
	assert_false(TRY(REMOTE_CMD_MARKER "%s %s\n", "1"));
	assert_false(TRY(REMOTE_CMD_MARKER "%s %s\n", "0"));
	assert_false(TRY(REMOTE_CMD_MARKER "%s %s\n", "-5"));
	assert_false(TRY(REMOTE_CMD_MARKER "%s %s\n", "99999999999"));
	assert_false(TRY(REMOTE_CMD_MARKER "%s %s\n", "12a"));
	assert_false(TRY(REMOTE_CMD_MARKER "%s %s\n", ""));
	assert_false(TRY(REMOTE_CMD_MARKER "%s %s", "1234"));
	/* a pseudo-terminal's CRLF, but no other stray byte */
	assert_true(TRY(REMOTE_CMD_MARKER "%s %s\r\n", "4321"));
	assert_int_equal(pid, 4321);
	assert_false(TRY(REMOTE_CMD_MARKER "%s %s\r", "1234"));
	assert_false(TRY(REMOTE_CMD_MARKER "%s %s\r\r\n", "1234"));
	assert_false(TRY(REMOTE_CMD_MARKER "%s %s\n\n", "1234"));
	assert_false(TRY("x" REMOTE_CMD_MARKER "%s %s\n", "1234"));
	memset(line, 0, sizeof line);
	assert_false(remote_cmd_parse_pid(&rc, line, 3, &pid, ident));
	/* the identity after the pid: kept when well formed, else dropped
	   (the marker stands: its nonce says it is ours) */
	snprintf(line, sizeof line, REMOTE_CMD_MARKER "%s 1234 77 %s 1\n",
	    rc.nonce, boot);	/* a word too many before it: not ours */
	assert_true(remote_cmd_parse_pid(&rc, line, strlen(line), &pid, ident));
	assert_string_equal(ident, "");
	snprintf(line, sizeof line, REMOTE_CMD_MARKER "%s 1234 %s 123456\n",
	    rc.nonce, boot);
	assert_true(remote_cmd_parse_pid(&rc, line, strlen(line), &pid, ident));
	assert_int_equal(pid, 1234);
	assert_string_equal(ident, "0123abcd-0123-4567-89ab-0123456789ab "
	    "123456");
	snprintf(line, sizeof line, REMOTE_CMD_MARKER "%s 1234 %s 12x\n",
	    rc.nonce, boot);
	assert_true(remote_cmd_parse_pid(&rc, line, strlen(line), &pid, ident));
	assert_string_equal(ident, "");
	snprintf(line, sizeof line, REMOTE_CMD_MARKER "%s 1234 %s 1 '\n",
	    rc.nonce, boot);
	assert_true(remote_cmd_parse_pid(&rc, line, strlen(line), &pid, ident));
	assert_string_equal(ident, "");
	snprintf(line, sizeof line, REMOTE_CMD_MARKER "%s 1234 x%s 1\n",
	    rc.nonce, boot + 1);
	assert_true(remote_cmd_parse_pid(&rc, line, strlen(line), &pid, ident));
	assert_string_equal(ident, "");
	snprintf(line, sizeof line, REMOTE_CMD_MARKER "%s 1234 %s "
	    "123456789012345678901\n", rc.nonce, boot);
	assert_true(remote_cmd_parse_pid(&rc, line, strlen(line), &pid, ident));
	assert_string_equal(ident, "");
	/* a client's MUX_PGID */
	assert_int_equal(remote_cmd_parse_ident("42", 2, &pid, ident), 0);
	assert_int_equal(pid, 42);
	assert_string_equal(ident, "");
	assert_int_equal(remote_cmd_parse_ident("1", 1, &pid, ident), -1);
	assert_int_equal(remote_cmd_parse_ident("4 2", 3, &pid, ident), 0);
	assert_string_equal(ident, "");
#undef TRY
}

/* The kill script stops a whole process group, children included. */
static void
test_kill_script(void **state)
{
	char	*script;
	pid_t	 leader, child;
	int	 status, i;

	(void)state;
	if ((leader = fork()) == 0) {
		setsid();
		execl("/bin/sh", "sh", "-c", "sleep 300 & sleep 300; wait",
		    (char *)NULL);
		_exit(127);
	}
	usleep(200000);
	script = remote_cmd_kill_script((long)leader, NULL, 20);
	assert_int_equal(system(script), 0);
	free(script);
	assert_int_equal(waitpid(leader, &status, 0), leader);
	assert_true(WIFSIGNALED(status));
	for (i = 0; i < 50 && kill(-leader, 0) == 0; i++)
		usleep(100000);
	child = kill(-leader, 0);
	assert_int_equal(child, -1);
}

/* fork a session leader running sleep; its pid. */
static pid_t
leader_start(void)
{
	pid_t	p;

	if ((p = fork()) == 0) {
		setsid();
		execl("/bin/sh", "sh", "-c", "sleep 300 & sleep 300; wait",
		    (char *)NULL);
		_exit(127);
	}
	usleep(200000);
	return p;
}

/* The identity the wrapper would print for pid, as remote_cmd.c reads it. */
static void
ident_of(pid_t pid, char *out, size_t len)
{
	char	 path[64], stat[1024], boot[64], *rp;
	FILE	*f;
	int	 i;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	assert_non_null(f = fopen(path, "r"));
	assert_non_null(fgets(stat, sizeof stat, f));
	fclose(f);
	assert_non_null(f = fopen("/proc/sys/kernel/random/boot_id", "r"));
	assert_non_null(fgets(boot, sizeof boot, f));
	fclose(f);
	boot[strcspn(boot, "\n")] = '\0';
	assert_non_null(rp = strrchr(stat, ')'));
	for (rp += 1, i = 1; i < 20; i++)	/* ") S ppid ...": word 20 */
		assert_non_null(rp = strchr(rp + 1, ' '));
	rp++;
	rp[strspn(rp, "0123456789")] = '\0';
	snprintf(out, len, "%.36s %.20s", boot, rp);
}

/*
 * A pid whose process is another than the one the marker named (its
 * identity differs: the host rebooted, pids came round) is left alone;
 * with the identity it was given, the kill goes ahead.
 */
static void
test_kill_script_ident(void **state)
{
	char	 ident[REMOTE_IDENT_MAX], *script;
	pid_t	 leader;
	int	 status;

	(void)state;
	leader = leader_start();
	script = remote_cmd_kill_script((long)leader,
	    "0123abcd-0123-4567-89ab-0123456789ab 1", 20);
	assert_int_equal(system(script), 0);
	free(script);
	assert_int_equal(kill(-leader, 0), 0);		/* not touched */
	assert_int_equal(waitpid(leader, &status, WNOHANG), 0);
	ident_of(leader, ident, sizeof ident);
	script = remote_cmd_kill_script((long)leader, ident, 20);
	assert_int_equal(system(script), 0);
	free(script);
	assert_int_equal(waitpid(leader, &status, 0), leader);
	assert_true(WIFSIGNALED(status));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_and_argv),
		cmocka_unit_test(test_marker_ident),
		cmocka_unit_test(test_stdin_passthrough),
		cmocka_unit_test(test_truncated_preamble),
		cmocka_unit_test(test_long_argv),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_parse_pid),
		cmocka_unit_test(test_kill_script),
		cmocka_unit_test(test_kill_script_ident),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

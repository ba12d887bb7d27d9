/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for box_stop: clawssh stop's script for a bwrap sandbox,
 * run here under /bin/sh as sshd would run it, without sshd: it ends the
 * sandbox's background processes (their process groups, from their
 * procs/p*\/pid files) and says "not running" when no environment holds
 * it; a sandbox that is gone is an error; and the judge of its answer
 * takes exactly the two answers.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
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

#include "box_stop.h"
#include "buf.h"
#include "tmpdir.h"
#include "xmalloc.h"

/* Run script under sh; its stdout in out, stderr in err: the status. */
static int
run_sh(const char *script, struct buf *out, struct buf *err)
{
	char	 tmpl[] = "/tmp/test_box_stopXXXXXX", *cmd, chunk[512];
	FILE	*f;
	size_t	 n;
	int	 fd, st;

	assert_true((fd = mkstemp(tmpl)) >= 0);
	assert_int_equal(write(fd, script, strlen(script)),
	    (ssize_t)strlen(script));
	close(fd);
	cmd = xasprintf("/bin/sh %s 2>%s.err", tmpl, tmpl);
	assert_non_null(f = popen(cmd, "r"));
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(out, chunk, n);
	st = pclose(f);
	free(cmd);
	cmd = xasprintf("%s.err", tmpl);
	assert_non_null(f = fopen(cmd, "r"));
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(err, chunk, n);
	fclose(f);
	unlink(cmd);
	unlink(tmpl);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A process group of its own sleeping; its pid (= its group). */
static pid_t
sleeper(void)
{
	pid_t	pid;

	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	setpgid(pid, pid);
	return pid;
}

/* Background processes end; no environment: "not running". */
static void
test_stop_procs(void **state)
{
	char		 top[] = "/tmp/test_box_stop_dXXXXXX", path[4096];
	char		*dir, *run, *script;
	struct buf	 out = BUF_INIT, err = BUF_INIT;
	FILE		*f;
	pid_t		 pid;
	int		 st;

	(void)state;
	assert_non_null(mkdtemp(top));
	dir = xasprintf("%s/cabcdefghijkl", top);
	run = xasprintf("%s/run", dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(mkdir(run, 0700), 0);
	tmpdir_pathf(path, "%s/procs", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	tmpdir_pathf(path, "%s/procs/p0123abcd", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	pid = sleeper();
	tmpdir_pathf(path, "%s/procs/p0123abcd/pid", dir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%ld\n", (long)pid);
	fclose(f);
	script = box_stop_script_bwrap(dir, run, NULL);
	assert_int_equal(run_sh(script, &out, &err), 0);
	assert_string_equal(box_stop_state(&out), "not running");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	buf_reset(&out);
	buf_reset(&err);
	assert_int_equal(tmpdir_remove(top), 0);
	assert_int_equal(run_sh(script, &out, &err), 3);
	assert_non_null(strstr(err.data, "clawssh-error: sandbox "
	    "cabcdefghijkl no longer exists on this host"));
	assert_null(box_stop_state(&out));
	free(script);
	free(run);
	free(dir);
	buf_free(&out);
	buf_free(&err);
}

/* Only the two answers, exactly. */
static void
test_state(void **state)
{
	static const char *const bad[] = { "", "stopped", "stopped\n\n",
	    "not running\nstopped\n", "Stopped\n", "stopped \n", "running\n" };
	struct buf	 b = BUF_INIT;
	size_t		 i;

	(void)state;
	buf_append_str(&b, "stopped\n");
	assert_string_equal(box_stop_state(&b), "stopped");
	buf_reset(&b);
	buf_append_str(&b, "not running\n");
	assert_string_equal(box_stop_state(&b), "not running");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		buf_reset(&b);
		buf_append_str(&b, bad[i]);
		assert_null(box_stop_state(&b));
	}
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_procs),
		cmocka_unit_test(test_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

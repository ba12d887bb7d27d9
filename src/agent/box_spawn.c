/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The holder starts a command: vfork, a new session, its stdio (passed
 * fds or a fresh pty), defaults for signals, its directory and
 * environment, then exec with sh's error conventions (127 not found,
 * 126 cannot run).  vfork, not fork: the holder's memory is neither
 * copied nor torn down again at the exec (half the cost of a short
 * command); the child therefore touches no memory of the holder's but
 * its own stack, never allocates and never returns (see spawn_child).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/ioctl.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "agent.h"
#include "box_init.h"
#include "msg.h"

#define SPAWN_PATH	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:" \
			"/sbin:/bin"
#define SPAWN_ARGV_MAX	4096	/* a script's arguments, on the stack */

/* "PREFIXWHAT: ERR" on fd 2 (the command's stderr). */
static void
spawn_say(const char *prefix, const char *what, const char *err)
{
	char	buf[1024];
	int	n;

	n = snprintf(buf, sizeof(buf), "%s%s: %s\n", prefix, what, err);
	if (n > 0)
		(void)write_all(STDERR_FILENO, buf,
		    (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* NAME's value in env (NAME=VALUE strings, NULL-ended), or NULL. */
static const char *
spawn_getenv(char **env, const char *name)
{
	size_t	n = strlen(name);

	for (; *env != NULL; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/*
 * execve, and a file the kernel cannot run through /bin/sh (as execvp;
 * the shell's argv on this stack: no allocation in a vfork child).
 */
static int
spawn_try(const char *path, char **argv, char **env)
{
	char	*sh[SPAWN_ARGV_MAX + 2];
	size_t	 n, i;
	int	 e;

	execve(path, argv, env);
	if ((e = errno) != ENOEXEC)
		return e;
	for (n = 0; argv[n] != NULL; n++)
		;
	if (n > SPAWN_ARGV_MAX)
		return E2BIG;
	sh[0] = (char *)(uintptr_t)"sh";
	sh[1] = (char *)(uintptr_t)path;
	for (i = 1; i <= n; i++)
		sh[i + 1] = argv[i];	/* argv[n]: the NULL */
	execve("/bin/sh", sh, env);
	return ENOEXEC;
}

/* execvp through the command's own PATH: the errno of the failure. */
static int
spawn_execvp(char **argv, char **env)
{
	const char	*path = spawn_getenv(env, "PATH"), *p, *e;
	char		 buf[4096];
	int		 err, seen = ENOENT;

	if (argv[0][0] == '\0')
		return ENOENT;
	if (strchr(argv[0], '/') != NULL)
		return spawn_try(argv[0], argv, env);
	if (path == NULL || *path == '\0')
		path = SPAWN_PATH;
	for (p = path; ; p = e + 1) {
		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(e - p), p,
		    e == p ? "" : "/", argv[0]) < (int)sizeof(buf)) {
			err = spawn_try(buf, argv, env);
			if (err == EACCES)
				seen = EACCES;
			else if (err != ENOENT && err != ENOTDIR &&
			    err != ELOOP && err != ENAMETOOLONG)
				return err;
		}
		if (*e == '\0')
			return seen;
	}
}

/* A login shell: bash if the sandbox has one, else sh. */
static int
spawn_login(char **env)
{
	char	*argv[2] = { NULL, NULL };

	if (access("/bin/bash", X_OK) == 0) {
		argv[0] = (char *)(uintptr_t)"-bash";
		execve("/bin/bash", argv, env);
	}
	argv[0] = (char *)(uintptr_t)"-sh";
	execve("/bin/sh", argv, env);
	return errno;
}

/* The child's stdio: the slave of the pty, or the passed fds. */
static void
spawn_stdio(const int *fds, const char *slave)
{
	int	fd, i;

	if (slave != NULL) {
		if ((fd = open(slave, O_RDWR)) == -1 ||
		    ioctl(fd, TIOCSCTTY, 0) == -1)
			_exit(126);
		for (i = 0; i < 3; i++)
			if (dup2(fd, i) == -1)
				_exit(126);
		if (fd > 2)
			close(fd);
		return;
	}
	for (i = 0; i < 3; i++)		/* received fds are all above 2 */
		if (dup2(fds[i], i) == -1)
			_exit(126);
}

/*
 * The child of vfork: never returns, and writes no memory but its own
 * stack (the holder's globals, environ and heap are shared with it
 * until the exec).  It starts with every signal blocked (the holder's
 * handlers would write to the holder's self-pipe: a SIGTERM meant for
 * the command would stop the sandbox); its own dispositions are its own
 * (vfork shares no signal handlers).  The holder runs on once it has
 * exec'd or ended, so its session exists before STARTED goes out.
 */
static void __attribute__((__noreturn__))
spawn_child(const struct msg_exec *m, const int *fds, const char *slave)
{
	sigset_t	set;
	int		sig, err;

	(void)setsid();
	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	spawn_stdio(fds, slave);
	fd_close_from(3, NULL, 0);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	if (chdir(m->cwd) == -1) {
		err = errno;
		spawn_say("clawssh: cd: ", m->cwd, strerror(err));
		_exit(1);
	}
	if ((m->flags & FRAME_EXEC_SELF) != 0) {
		execve("/proc/self/exe", m->argv, m->env);	/* the agent */
		err = errno;
	} else
		err = m->argv[0] == NULL ? spawn_login(m->env) :
		    spawn_execvp(m->argv, m->env);
	spawn_say("", m->argv[0] != NULL ? m->argv[0] : "/bin/sh",
	    err == ENOENT ? "not found" : strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

/* A new pty: its master (CLOEXEC, window size set) and slave's name. */
static int
spawn_pty(const struct msg_exec *m, char *slave, size_t len)
{
	struct winsize	ws;
	int		fd;

	if ((fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1)
		return -1;
	if (grantpt(fd) == -1 || unlockpt(fd) == -1 ||
	    ptsname_r(fd, slave, len) != 0) {
		close(fd);
		return -1;
	}
	memset(&ws, 0, sizeof(ws));
	ws.ws_row = m->rows != 0 ? m->rows : 24;
	ws.ws_col = m->cols != 0 ? m->cols : 80;
	(void)ioctl(fd, TIOCSWINSZ, &ws);
	return fd;
}

/*
 * vfork with every signal blocked (see spawn_child); in its own frame,
 * so that nothing of the caller's lives across it.
 */
static pid_t
spawn_vfork(const struct msg_exec *m, const int *fds, const char *slave)
{
	sigset_t	all, old;
	pid_t		pid;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = vfork()) == 0)
		spawn_child(m, fds, slave);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

/* Start m's command: see box_init.h. */
pid_t
spawn_command(const struct msg_exec *m, const int *fds, int *master,
    char *cause, size_t len)
{
	char		slave[128];
	int		pty = -1;
	pid_t		pid;

	*master = -1;
	if ((m->flags & FRAME_EXEC_PTY) &&
	    (pty = spawn_pty(m, slave, sizeof(slave))) == -1) {
		snprintf(cause, len, "no pty: %s", strerror(errno));
		return -1;
	}
	pid = spawn_vfork(m, fds, pty != -1 ? slave : NULL);
	if (pid == -1) {
		snprintf(cause, len, "vfork: %s", strerror(errno));
		if (pty != -1)
			close(pty);
		return -1;
	}
	*master = pty;
	return pid;
}

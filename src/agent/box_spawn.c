/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The holder starts a command: fork, a new session, its stdio (passed
 * fds or a fresh pty), defaults for signals, its directory and
 * environment, then exec with sh's error conventions (127 not found,
 * 126 cannot run).
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

extern char	**environ;

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

/* execve, and a file the kernel cannot run through /bin/sh (as execvp). */
static int
spawn_try(const char *path, char **argv)
{
	char	**sh;
	size_t	  n, i;
	int	  e;

	execve(path, argv, environ);
	if ((e = errno) != ENOEXEC)
		return e;
	for (n = 0; argv[n] != NULL; n++)
		;
	sh = xcalloc(n + 2, sizeof(*sh));
	sh[0] = (char *)(uintptr_t)"sh";
	sh[1] = (char *)(uintptr_t)path;
	for (i = 1; i < n; i++)
		sh[i + 1] = argv[i];
	execve("/bin/sh", sh, environ);
	free(sh);
	return ENOEXEC;
}

/* execvp through the command's own PATH: the errno of the failure. */
static int
spawn_execvp(char **argv)
{
	const char	*path = getenv("PATH"), *p, *e;
	char		 buf[4096];
	int		 err, seen = ENOENT;

	if (argv[0][0] == '\0')
		return ENOENT;
	if (strchr(argv[0], '/') != NULL)
		return spawn_try(argv[0], argv);
	if (path == NULL || *path == '\0')
		path = SPAWN_PATH;
	for (p = path; ; p = e + 1) {
		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(e - p), p,
		    e == p ? "" : "/", argv[0]) < (int)sizeof(buf)) {
			err = spawn_try(buf, argv);
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
spawn_login(void)
{
	char	*argv[2] = { NULL, NULL };

	if (access("/bin/bash", X_OK) == 0) {
		argv[0] = (char *)(uintptr_t)"-bash";
		execve("/bin/bash", argv, environ);
	}
	argv[0] = (char *)(uintptr_t)"-sh";
	execve("/bin/sh", argv, environ);
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
 * The child: never returns.  It starts with every signal blocked (the
 * holder's handlers would write to the holder's self-pipe: a SIGTERM
 * meant for the command would stop the sandbox), and its new session is
 * made before the fds are closed, which tells the holder (spawn_wait)
 * that signals to the process group can reach it.
 */
static void
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
	environ = m->env;
	if (chdir(m->cwd) == -1) {
		err = errno;
		spawn_say("clawssh: cd: ", m->cwd, strerror(err));
		_exit(1);
	}
	err = m->argv[0] == NULL ? spawn_login() : spawn_execvp(m->argv);
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
 * Wait until the child closed its copy of the pipe's write end (it has
 * its session then, spawn_child), so that STARTED never precedes the
 * process group a SIGNAL is sent to.
 */
static void
spawn_wait(int rd)
{
	char	c;

	while (read(rd, &c, 1) == -1 && errno == EINTR)
		;
	close(rd);
}

/* Fork m's command: see box_init.h. */
pid_t
spawn_command(const struct msg_exec *m, const int *fds, int *master,
    char *cause, size_t len)
{
	sigset_t	all, old;
	char		slave[128];
	int		pty = -1, ready[2];
	pid_t		pid;

	*master = -1;
	if ((m->flags & FRAME_EXEC_PTY) &&
	    (pty = spawn_pty(m, slave, sizeof(slave))) == -1) {
		snprintf(cause, len, "no pty: %s", strerror(errno));
		return -1;
	}
	if (pipe2(ready, O_CLOEXEC) == -1) {
		snprintf(cause, len, "pipe: %s", strerror(errno));
		if (pty != -1)
			close(pty);
		return -1;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = fork()) == 0)
		spawn_child(m, fds, pty != -1 ? slave : NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(ready[1]);
	if (pid == -1) {
		snprintf(cause, len, "fork: %s", strerror(errno));
		close(ready[0]);
		if (pty != -1)
			close(pty);
		return -1;
	}
	spawn_wait(ready[0]);
	*master = pty;
	return pid;
}

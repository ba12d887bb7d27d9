/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * box-hold: run by the start script.  Listens on RUNDIR/box.sock, then
 * starts RUNTIME-ARGV (a bwrap command line ending in "--") on this very
 * executable's box-init, detached (its own session, output to
 * RUNDIR/box.log), and waits for box-init to say it is ready.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define HOLD_LISTEN_FD	3
#define HOLD_READY_FD	4
#define HOLD_EXE_FD	5
#define HOLD_DIR_FD	6	/* RUNDIR, for box-init to watch */
#define HOLD_READY_MS	10000
#define HOLD_TAIL	2048	/* bytes of box.log shown on failure */

struct hold_opts {
	const char	 *dir;
	const char	 *spec;
	char		**runtime;
	int		  nruntime;
};

/* Parse box-hold's options. */
static void
hold_parse(int argc, char **argv, struct hold_opts *o)
{
	int	i;

	memset(o, 0, sizeof(*o));
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (i + 1 >= argc)
			agent_die("box-hold: %s: bad option", argv[i]);
		if (strcmp(argv[i], "--dir") == 0)
			o->dir = argv[++i];
		else if (strcmp(argv[i], "--spec") == 0)
			o->spec = argv[++i];
		else
			agent_die("box-hold: %s: bad option", argv[i]);
	}
	if (o->dir == NULL || o->dir[0] != '/')
		agent_die("box-hold: --dir needs an absolute path");
	if (i + 1 >= argc)
		agent_die("box-hold: no runtime command after --");
	o->runtime = argv + i + 1;
	o->nruntime = argc - i - 1;
}

/* Listen on RUNDIR/box.sock (a stale one removed), mode 0600. */
static int
hold_listen(const char *dir)
{
	struct sockaddr_un	sun;
	mode_t			old;
	int			fd, r;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	xsnprintf(sun.sun_path, sizeof(sun.sun_path), "%s/%s", dir,
	    AGENT_SOCK);
	if (unlink(sun.sun_path) == -1 && errno != ENOENT)
		agent_die("%s: %s", sun.sun_path, strerror(errno));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		agent_die("socket: %s", strerror(errno));
	old = umask(0177);		/* the socket is 0600 */
	r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (r == -1 || listen(fd, 128) == -1)
		agent_die("%s: %s", sun.sun_path, strerror(errno));
	return fd;
}

/* Write "PID STARTTIME" of this process to RUNDIR/box.pid. */
static void
hold_write_pid(const char *dir)
{
	unsigned long long	st = 0;
	char			path[4096], tmp[4096], line[64];
	int			fd, n;

	xsnprintf(path, sizeof(path), "%s/%s", dir, AGENT_PID);
	xsnprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, AGENT_PID);
	(void)proc_starttime(getpid(), &st);
	n = snprintf(line, sizeof(line), "%ld %llu\n", (long)getpid(), st);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1 || write_all(fd, line, (size_t)n) != 0 ||
	    close(fd) == -1 || rename(tmp, path) == -1)
		agent_warn("%s: %s", path, strerror(errno));
}

/* stdin from /dev/null, stdout and stderr to a fresh RUNDIR/box.log. */
static void
hold_stdio(const char *dir)
{
	char	path[4096];
	int	fd;

	if ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 ||
	    fd_move(fd, STDIN_FILENO) != 0)
		_exit(AGENT_EXIT_ERR);
	xsnprintf(path, sizeof(path), "%s/%s", dir, AGENT_LOG);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (fd == -1 || dup2(fd, STDOUT_FILENO) == -1 ||
	    fd_move(fd, STDERR_FILENO) != 0)
		_exit(AGENT_EXIT_ERR);
}

/* Put fds[0..4) at 3, 4, 5, 6 without CLOEXEC; close every other fd. */
static void
hold_place_fds(int *fds)
{
	static const int	keep[] = { HOLD_LISTEN_FD, HOLD_READY_FD,
				    HOLD_EXE_FD, HOLD_DIR_FD };
	int			i;

	for (i = 0; i < 4; i++)		/* out of the way of 3..6 first */
		if ((fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10)) == -1)
			_exit(AGENT_EXIT_ERR);
	for (i = 0; i < 4; i++)
		if (fd_move(fds[i], keep[i]) != 0)
			_exit(AGENT_EXIT_ERR);
	fd_close_from(3, keep, 4);
}

/* The child: detach, then exec RUNTIME-ARGV on box-init. */
static void
hold_child(const struct hold_opts *o, int *fds)
{
	char	**argv, exe[32], lfd[16], rfd[16], dfd[16];
	int	  n = 0, i;

	(void)setsid();
	hold_stdio(o->dir);
	hold_write_pid(o->dir);
	hold_place_fds(fds);
	xsnprintf(exe, sizeof(exe), "/proc/self/fd/%d", HOLD_EXE_FD);
	xsnprintf(lfd, sizeof(lfd), "%d", HOLD_LISTEN_FD);
	xsnprintf(rfd, sizeof(rfd), "%d", HOLD_READY_FD);
	xsnprintf(dfd, sizeof(dfd), "%d", HOLD_DIR_FD);
	argv = xcalloc((size_t)o->nruntime + 12, sizeof(*argv));
	for (i = 0; i < o->nruntime; i++)
		argv[n++] = o->runtime[i];
	argv[n++] = exe;
	argv[n++] = (char *)(uintptr_t)"box-init";
	argv[n++] = (char *)(uintptr_t)"--listen-fd";
	argv[n++] = lfd;
	argv[n++] = (char *)(uintptr_t)"--ready-fd";
	argv[n++] = rfd;
	argv[n++] = (char *)(uintptr_t)"--dir-fd";
	argv[n++] = dfd;
	if (o->spec != NULL) {
		argv[n++] = (char *)(uintptr_t)"--spec";
		argv[n++] = (char *)(uintptr_t)o->spec;
	}
	execvp(argv[0], argv);
	agent_warn("%s: %s", argv[0], strerror(errno));
	_exit(127);
}

/* Wait for the ready byte: 1 got it, 0 EOF or timeout. */
static int
hold_wait_ready(int fd)
{
	struct pollfd	pfd;
	uint64_t	end = mono_ms() + HOLD_READY_MS, now;
	char		c;
	ssize_t		n;

	while ((now = mono_ms()) < end) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)(end - now)) <= 0)
			continue;
		if ((n = read(fd, &c, 1)) == 1)
			return 1;
		if (n == 0 || errno != EINTR)
			return 0;
	}
	return 0;
}

/* The last lines of box.log, on one line, in buf. */
static void
hold_log_tail(const char *dir, char *buf, size_t len)
{
	char	path[4096], tail[HOLD_TAIL + 1], *p;
	ssize_t	n;
	int	fd;

	snprintf(buf, len, "(box.log is empty)");
	xsnprintf(path, sizeof(path), "%s/%s", dir, AGENT_LOG);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	(void)lseek(fd, -HOLD_TAIL, SEEK_END);
	n = read(fd, tail, HOLD_TAIL);
	close(fd);
	if (n <= 0)
		return;
	tail[n] = '\0';
	while (n > 0 && tail[n - 1] == '\n')
		tail[--n] = '\0';
	for (p = tail; *p != '\0'; p++)
		if (*p == '\n')
			*p = ' ';
	p = (size_t)n >= len ? tail + n - (len - 1) : tail;
	memcpy(buf, p, strlen(p) + 1);
}

/* box-hold --dir RUNDIR [--spec TOKEN] -- RUNTIME-ARGV... */
int
box_hold_main(int argc, char **argv)
{
	struct hold_opts	o;
	char			why[400];
	int			fds[4], ready[2];
	pid_t			pid;

	hold_parse(argc, argv, &o);
	fds[0] = hold_listen(o.dir);
	if ((fds[2] = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1)
		agent_die("/proc/self/exe: %s", strerror(errno));
	if ((fds[3] = open(o.dir, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		agent_die("%s: %s", o.dir, strerror(errno));
	if (pipe(ready) == -1)
		agent_die("pipe: %s", strerror(errno));
	(void)fd_set_cloexec(ready[0], 1);
	(void)fd_set_cloexec(ready[1], 1);
	fds[1] = ready[1];
	if ((pid = fork()) == -1)
		agent_die("fork: %s", strerror(errno));
	if (pid == 0)
		hold_child(&o, fds);
	close(fds[0]);
	close(fds[2]);
	close(fds[3]);
	close(ready[1]);
	if (hold_wait_ready(ready[0]))
		return 0;
	hold_log_tail(o.dir, why, sizeof(why));
	agent_warn("the sandbox environment did not start: %s", why);
	proc_kill_tree(pid);
	(void)kill(-pid, SIGKILL);
	(void)waitpid(pid, NULL, 0);
	return AGENT_EXIT_ERR;
}

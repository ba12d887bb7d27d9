/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Local channels: the command runs under /bin/sh -c on this machine, in
 * a process group of its own, with pipes for its stdin, stdout and
 * stderr.  The transport's descriptor is an epoll set holding every
 * channel's output pipes and process descriptor (pidfd; where there is
 * none, as under valgrind 3.19, a 50 ms timerfd that wakes the loop to
 * poll for the exit instead), so the callers'
 * poll on transport_fd wakes for any of them as it would for a session's
 * socket.  Used by the unit tests to drive exec, transfers and the host
 * scripts without sshd; the real sh runs the same scripts sshd would.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chan_int.h"
#include "error.h"
#include "fdio.h"
#include "signals.h"
#include "spawn.h"
#include "transport.h"
#include "xmalloc.h"

/* One local command. */
struct chan_local {
	pid_t	pid;
	int	pidfd;		/* in the epoll set until reaped */
	int	tick;		/* pidfd is a timerfd (no pidfd_open) */
	int	in;		/* its stdin, -1 once EOF was sent */
	int	out[2];		/* its stdout and stderr, -1 at EOF */
	int	status;		/* wait status, valid once reaped */
	int	reaped;
	int	wants_out;	/* stdin is in the set for EPOLLOUT */
};

/* Add fd to t's epoll set for events, or change it; -1 and errno. */
static int
local_watch(struct transport *t, int fd, int op, uint32_t events)
{
	struct epoll_event	ev;

	memset(&ev, 0, sizeof ev);
	ev.events = events;
	ev.data.fd = fd;
	return epoll_ctl(transport_fd(t), op, fd, &ev);
}

/* Take fd out of the set and close it; *fdp becomes -1. */
static void
local_close(struct transport *t, int *fdp)
{
	if (*fdp == -1)
		return;
	(void)epoll_ctl(transport_fd(t), EPOLL_CTL_DEL, *fdp, NULL);
	close(*fdp);
	*fdp = -1;
}

/* Make fd non-blocking: 0, or -1 and errno, like fcntl(2). */
static int
local_nonblock(int fd)
{
	int	fl = fcntl(fd, F_GETFL);

	return fl == -1 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* A timerfd firing every 50 ms, for a kernel without pidfd_open. */
static int
local_ticker(int *tick)
{
	struct itimerspec	its;
	int			fd;

	if ((fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
	    TFD_CLOEXEC)) == -1)
		return -1;
	memset(&its, 0, sizeof its);
	its.it_value.tv_nsec = its.it_interval.tv_nsec = 50 * 1000 * 1000;
	if (timerfd_settime(fd, 0, &its, NULL) == -1) {
		close(fd);
		return -1;
	}
	*tick = 1;
	return fd;
}

/* Take the ticks that woke the poll, so that it sleeps again. */
static void
local_untick(struct chan_local *l)
{
	uint64_t	n;

	if (l->tick && l->pidfd != -1)
		(void)read(l->pidfd, &n, sizeof n);
}

/*
 * In the child: the pipes as fds 0-2, then sh -c command; the shell is
 * CLAWSSH_LOCAL_SH when set (a test's: dash, bash, busybox, each run
 * as "sh"), else /bin/sh.
 */
static void __attribute__((__noreturn__))
local_child(const char *command, int in[2], int out[2], int err[2])
{
	const char	*sh = getenv("CLAWSSH_LOCAL_SH");

	if (dup2(in[0], 0) == -1 || dup2(out[1], 1) == -1 ||
	    dup2(err[1], 2) == -1)
		_exit(127);
	spawn_child_setup();
	execl(sh != NULL && *sh == '/' ? sh : "/bin/sh", "sh", "-c", command,
	    (char *)NULL);
	_exit(127);
}

/* Start command under /bin/sh on this machine. */
int
chan_local_start(struct chan *c, const char *command,
    const struct pty_req *pty, char **cause)
{
	struct chan_local	*l;
	int			 p[3][2] = {
		{ -1, -1 }, { -1, -1 }, { -1, -1 } };
	int			 i;
	pid_t			 pid;

	if (pty != NULL) {
		*cause = xstrdup("local: no terminals on the local transport");
		return CLAW_ERR_UNSUPPORTED;
	}
	for (i = 0; i < 3; i++) {
		if (pipe2(p[i], O_CLOEXEC) == -1) {
			*cause = xasprintf("local: pipe: %s", strerror(errno));
			fdio_close_pipes(p, 3);
			return CLAW_ERR_IO;
		}
	}
	if ((pid = fork()) == -1) {
		*cause = xasprintf("local: fork: %s", strerror(errno));
		fdio_close_pipes(p, 3);
		return CLAW_ERR_IO;
	}
	if (pid == 0)
		local_child(command, p[0], p[1], p[2]);
	close(p[0][0]);
	close(p[1][1]);
	close(p[2][1]);
	l = xcalloc(1, sizeof *l);
	l->pid = pid;
	l->in = p[0][1];
	l->out[0] = p[1][0];
	l->out[1] = p[2][0];
	l->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (l->pidfd == -1 && errno == ENOSYS)
		l->pidfd = local_ticker(&l->tick);
	c->lc = l;
	if (l->pidfd == -1 || local_nonblock(l->in) == -1 ||
	    local_nonblock(l->out[0]) == -1 ||
	    local_nonblock(l->out[1]) == -1 ||
	    local_watch(c->t, l->out[0], EPOLL_CTL_ADD, EPOLLIN) == -1 ||
	    local_watch(c->t, l->out[1], EPOLL_CTL_ADD, EPOLLIN) == -1 ||
	    local_watch(c->t, l->pidfd, EPOLL_CTL_ADD, EPOLLIN) == -1) {
		*cause = xasprintf("local: %s", strerror(errno));
		return CLAW_ERR_IO;
	}
	return 0;
}

/* Read stream 0 or 1: bytes, 0 for nothing now or at EOF. */
static ssize_t
local_read(struct chan *c, int stream, char *p, size_t n, char **cause)
{
	struct chan_local	*l = c->lc;
	int			*fd = &l->out[stream != 0];
	ssize_t			 r;

	local_untick(l);
	if (*fd == -1)
		return 0;
	while ((r = read(*fd, p, n)) == -1 && errno == EINTR)
		;
	if (r > 0)
		return r;
	if (r == 0)
		local_close(c->t, fd);
	else if (errno != EAGAIN) {
		*cause = xasprintf("local: reading the command's output: %s",
		    strerror(errno));
		return CLAW_ERR_IO;
	}
	return 0;
}

/* Write stdin: bytes taken, 0 for not now (then watched for room). */
static ssize_t
local_write(struct chan *c, const char *p, size_t n, char **cause)
{
	struct chan_local	*l = c->lc;
	ssize_t			 r;

	if (l->in == -1)
		return 0;
	while ((r = write(l->in, p, n)) == -1 && errno == EINTR)
		;
	if (r >= 0) {
		if (l->wants_out) {
			(void)epoll_ctl(transport_fd(c->t), EPOLL_CTL_DEL,
			    l->in, NULL);
			l->wants_out = 0;
		}
		return r;
	}
	if (errno == EAGAIN) {
		if (!l->wants_out && local_watch(c->t, l->in, EPOLL_CTL_ADD,
		    EPOLLOUT) == 0)
			l->wants_out = 1;
		return 0;
	}
	if (errno == EPIPE) {	/* it stopped reading: as sshd, drop it */
		(void)local_close(c->t, &l->in);
		return (ssize_t)n;
	}
	*cause = xasprintf("local: sending stdin: %s", strerror(errno));
	return CLAW_ERR_IO;
}

/* EOF on stdin: close the pipe. */
static int
local_send_eof(struct chan *c, char **cause)
{
	(void)cause;
	local_close(c->t, &c->lc->in);
	c->lc->wants_out = 0;
	return 0;
}

/* Both output pipes ended. */
static int
local_eof(struct chan *c)
{
	return c->lc->out[0] == -1 && c->lc->out[1] == -1;
}

/* Closed once the command was reaped (its pidfd woke the poll). */
static int
local_wait_closed(struct chan *c, char **cause)
{
	struct chan_local	*l = c->lc;
	int			 st;

	if (l->reaped)
		return 0;
	local_untick(l);
	if ((st = spawn_poll(l->pid)) == -1) {
		if (kill(l->pid, 0) == -1 && errno == ESRCH) {
			*cause = xstrdup("local: the command vanished");
			return CLAW_ERR_IO;
		}
		return 1;
	}
	l->status = st;
	l->reaped = 1;
	local_close(c->t, &l->pidfd);
	return 0;
}

/* Exit status, or the signal's name as a server would send it. */
static void
local_exit(struct chan *c, int *status, char **signame)
{
	struct chan_local	*l = c->lc;
	const char		*name;

	*status = -1;
	if (!l->reaped)
		return;
	if (WIFEXITED(l->status))
		*status = WEXITSTATUS(l->status);
	else if (WIFSIGNALED(l->status) &&
	    (name = signals_name(WTERMSIG(l->status))) != NULL)
		*signame = xstrdup(name);
}

/* No terminal, so no size. */
static int
local_resize(struct chan *c, unsigned cols, unsigned rows, char **cause)
{
	(void)c;
	(void)cols;
	(void)rows;
	*cause = xstrdup("local: no terminals on the local transport");
	return CLAW_ERR_UNSUPPORTED;
}

/* Signal the command's process group. */
static int
local_signal(struct chan *c, int sig, char **cause)
{
	if (c->lc->reaped || kill(-c->lc->pid, sig) == 0 || errno == ESRCH)
		return 0;
	*cause = xasprintf("local: kill: %s", strerror(errno));
	return CLAW_ERR_IO;
}

/* Close the pipes; a command still running is ended, group and all. */
static void
local_free(struct chan *c)
{
	struct chan_local	*l = c->lc;

	if (l == NULL)
		return;
	local_close(c->t, &l->in);
	local_close(c->t, &l->out[0]);
	local_close(c->t, &l->out[1]);
	local_close(c->t, &l->pidfd);
	if (!l->reaped)
		(void)spawn_reap(l->pid, 0);
	free(l);
	c->lc = NULL;
}

const struct chan_ops chan_local_ops = {
	local_read, local_write, local_send_eof, local_eof, NULL,
	local_wait_closed, local_exit, local_resize, local_signal, NULL,
	NULL, local_free
};

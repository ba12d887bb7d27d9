/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * box-init: the holder, inside the sandbox.  One poll loop, no threads:
 * it accepts connections on the inherited listening socket, starts the
 * commands they ask for, reaps every child (it is a subreaper, so
 * orphans of commands come to it too), reports each command's end on
 * its connection, lists processes, and ends the sandbox on STOP or
 * SIGTERM.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "box_init.h"
#include "frame.h"
#include "msg.h"
#include "wire.h"

#define INIT_CONNS_MAX	1000	/* connections at once */
#define INIT_WATCH_MS	10000	/* how often an idle holder looks at RUNDIR */
#define INIT_STOP_MS	2000	/* SIGTERM to SIGKILL on STOP */

struct init_conn {
	struct wire		 w;
	int			 hello;		/* HELLO exchanged */
	int			 closing;	/* close once flushed */
	pid_t			 job;		/* its command; 0 if none */
	uint32_t		 job_id;
	struct init_conn	*next;
};

struct init {
	int			 lfd;
	int			 dirfd;		/* RUNDIR on the host */
	ino_t			 sock_ino;	/* RUNDIR/box.sock's */
	int			 sig[2];
	char			*spec;
	time_t			 started;
	struct init_conn	*conns;
	int			 nconns;
	struct pollfd		*pfd;
	size_t			 npfd;
};

static int	init_sigfd = -1;

/* SIGCHLD and SIGTERM go down the self-pipe. */
static void
init_on_signal(int sig)
{
	unsigned char	c = (unsigned char)sig;
	int		e = errno;

	(void)write(init_sigfd, &c, 1);
	errno = e;
}

/* Parse box-init's options. */
static void
init_parse(int argc, char **argv, int *lfd, int *rfd, int *dfd, char **spec)
{
	int	i;

	*lfd = *rfd = *dfd = -1;
	*spec = xstrdup("");
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--listen-fd") == 0)
			*lfd = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--ready-fd") == 0)
			*rfd = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--dir-fd") == 0)
			*dfd = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--spec") == 0) {
			free(*spec);
			*spec = xstrdup(argv[i + 1]);
		} else
			break;
	}
	if (i != argc || *lfd < 3 || *rfd < 3 || *lfd == *rfd ||
	    (*dfd != -1 && (*dfd < 3 || *dfd == *lfd || *dfd == *rfd)))
		agent_die("box-init: bad options");
}

/* The inode of RUNDIR/box.sock, seen through dirfd; 0 if none. */
static ino_t
init_sock_ino(int dirfd)
{
	struct stat	st;

	if (fstatat(dirfd, AGENT_SOCK, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    !S_ISSOCK(st.st_mode))
		return 0;
	return st.st_ino;
}

/*
 * Whether this holder lost its place on the host: its run directory was
 * removed (the sandbox destroyed behind our back, /tmp cleaned) or its
 * socket removed or replaced (box-stop, a new holder).  Such a holder
 * can never be reached again, so it ends rather than linger.
 */
static int
init_orphaned(const struct init *in)
{
	struct stat	st;

	if (in->dirfd == -1)
		return 0;
	if (fstat(in->dirfd, &st) == -1 || st.st_nlink == 0)
		return 1;
	return init_sock_ino(in->dirfd) != in->sock_ino;
}

/* Become the holder: undumpable, a subreaper, signals to the pipe. */
static void
init_setup(struct init *in, int rfd)
{
	struct sigaction	sa;
	int			keep[3], n = 0, i, t;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1)
		agent_die("prctl: %s", strerror(errno));
	keep[n++] = in->lfd;
	keep[n++] = rfd;
	if (in->dirfd != -1)
		keep[n++] = in->dirfd;
	for (i = 1; i < n; i++)		/* fd_close_from wants them sorted */
		for (t = i; t > 0 && keep[t - 1] > keep[t]; t--) {
			keep[t] ^= keep[t - 1];
			keep[t - 1] ^= keep[t];
			keep[t] ^= keep[t - 1];
		}
	fd_close_from(3, keep, n);	/* the exe fd, anything else */
	if (in->dirfd != -1 && (fd_set_cloexec(in->dirfd, 1) != 0 ||
	    (in->sock_ino = init_sock_ino(in->dirfd)) == 0))
		agent_die("box-init: the run directory: %s", strerror(errno));
	if (fd_set_cloexec(in->lfd, 1) != 0 || fd_set_nonblock(in->lfd, 1))
		agent_die("listening socket: %s", strerror(errno));
	if (pipe(in->sig) == -1)
		agent_die("pipe: %s", strerror(errno));
	(void)fd_set_cloexec(in->sig[0], 1);
	(void)fd_set_cloexec(in->sig[1], 1);
	(void)fd_set_nonblock(in->sig[0], 1);
	(void)fd_set_nonblock(in->sig[1], 1);
	init_sigfd = in->sig[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = init_on_signal;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	in->started = time(NULL);
}

/* Queue fw on c; a connection that cannot take it is closed. */
static void
init_reply(struct init_conn *c, struct frame_wr *fw, const int *fds,
    int nfds)
{
	if (wire_queue(&c->w, fw, fds, nfds) != 0)
		c->closing = 2;		/* close now */
	frame_wr_free(fw);
}

/* Answer a request with an ERROR. */
static void
init_error(struct init_conn *c, uint32_t id, const char *message)
{
	struct frame_wr	fw = FRAME_WR_INIT;

	msg_error(&fw, id, message);
	init_reply(c, &fw, NULL, 0);
}

/* Kill every process of the namespace but us, reap, and exit 0. */
static void
init_stop(struct init *in, struct init_conn *asker, uint32_t id)
{
	struct frame_wr	fw = FRAME_WR_INIT;
	uint64_t	end = mono_ms() + INIT_STOP_MS;

	(void)kill(-1, SIGTERM);
	while (mono_ms() < end && waitpid(-1, NULL, WNOHANG) != -1)
		usleep(10000);
	(void)kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	if (asker != NULL) {
		msg_simple(&fw, FRAME_OK, id);
		(void)wire_send(&asker->w, &fw, NULL, 0, 1000);
		frame_wr_free(&fw);
	}
	(void)in;
	exit(0);
}

/* Start the command of an EXEC request. */
static void
init_exec(struct init_conn *c, const struct frame *f)
{
	struct frame_wr	fw = FRAME_WR_INIT;
	struct msg_exec	m;
	char		cause[256];
	int		fds[3] = { -1, -1, -1 }, master, i, r;
	pid_t		pid;

	if (c->job != 0) {
		init_error(c, f->id, "a command runs on this connection");
		return;
	}
	if ((r = msg_exec_get(f, &m)) != 0) {
		init_error(c, f->id, frame_strerror(r));
		return;
	}
	if (wire_take_fds(&c->w, (int)m.nfds, fds) != 0)
		init_error(c, f->id, "the request's fds did not arrive");
	else if ((pid = spawn_command(&m, fds, &master, cause,
	    sizeof(cause))) == -1)
		init_error(c, f->id, cause);
	else {
		c->job = pid;
		c->job_id = f->id;
		frame_begin(&fw, FRAME_STARTED, f->id);
		frame_put_u32(&fw, TAG_PID, (uint32_t)pid);
		frame_put_u32(&fw, TAG_NFDS, master != -1 ? 1 : 0);
		frame_end(&fw);
		init_reply(c, &fw, &master, master != -1 ? 1 : 0);
		if (master != -1)
			close(master);
	}
	for (i = 0; i < 3; i++)
		if (fds[i] != -1)
			close(fds[i]);
	msg_exec_free(&m);
}

/* Forward a SIGNAL request to its command's process group. */
static void
init_signal(struct init_conn *c, const struct frame *f)
{
	int	sig;

	if (msg_signal_get(f, &sig) != 0 || c->job == 0 || f->id != c->job_id)
		return;
	switch (sig) {
	case SIGTERM: case SIGINT: case SIGHUP: case SIGQUIT:
	case SIGUSR1: case SIGUSR2: case SIGWINCH: case SIGKILL:
		(void)kill(-c->job, sig);
		break;
	}
}

/* One request of a connection. */
static void
init_request(struct init *in, struct init_conn *c, const struct frame *f)
{
	struct frame_wr	fw = FRAME_WR_INIT;
	struct msg_hello	h;

	if (!c->hello) {
		if (msg_hello_get(f, &h) != 0) {
			init_error(c, f->id, "HELLO first");
			c->closing = 1;
			return;
		}
		msg_hello_free(&h);
		c->hello = 1;
		msg_hello_put(&fw, f->id, in->spec, (uint64_t)in->started);
		init_reply(c, &fw, NULL, 0);
		return;
	}
	switch (f->type) {
	case FRAME_EXEC:
		init_exec(c, f);
		break;
	case FRAME_SIGNAL:
		init_signal(c, f);
		break;
	case FRAME_STATUS:
		procs_put(&fw, f->id, in->started, in->spec);
		init_reply(c, &fw, NULL, 0);
		break;
	case FRAME_STOP:
		init_stop(in, c, f->id);
		break;
	default:
		init_error(c, f->id, "unexpected request");
		break;
	}
}

/*
 * Handle the whole requests c's buffer holds, one at a time while its
 * replies go out (a client that does not read stops being read).
 * -1: drop c.
 */
static int
init_frames(struct init *in, struct init_conn *c)
{
	struct frame	f;
	int		r = 0;

	while (c->closing == 0 && !wire_pending(&c->w) &&
	    (r = wire_frame(&c->w, &f)) == 1) {
		init_request(in, c, &f);
		wire_consume(&c->w, &f);
	}
	return r < 0 ? -1 : 0;
}

/* Accept what waits on the listening socket. */
static void
init_accept(struct init *in)
{
	struct init_conn	*c;
	int			 fd;

	while (in->nconns < INIT_CONNS_MAX &&
	    (fd = accept4(in->lfd, NULL, NULL,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) != -1) {
		c = xcalloc(1, sizeof(*c));
		wire_init(&c->w, fd);
		c->next = in->conns;
		in->conns = c;
		in->nconns++;
	}
}

/* The command pid ended with status st: tell its connection. */
static void
init_reaped(struct init *in, pid_t pid, int st)
{
	struct frame_wr		 fw = FRAME_WR_INIT;
	struct init_conn	*c;

	for (c = in->conns; c != NULL; c = c->next)
		if (c->job == pid)
			break;
	if (c == NULL)
		return;		/* an orphan, or a dropped connection's */
	if (WIFSIGNALED(st))
		msg_u32(&fw, FRAME_EXIT, c->job_id, TAG_SIGNO,
		    (uint32_t)WTERMSIG(st));
	else
		msg_u32(&fw, FRAME_EXIT, c->job_id, TAG_CODE,
		    (uint32_t)WEXITSTATUS(st));
	c->job = 0;
	init_reply(c, &fw, NULL, 0);
	if (c->closing == 0)
		c->closing = 1;
}

/* Handle what the self-pipe says: reap children, stop on SIGTERM. */
static void
init_signals(struct init *in)
{
	unsigned char	c;
	pid_t		pid;
	int		st, stop = 0;

	while (read(in->sig[0], &c, 1) == 1)
		if (c != SIGCHLD)
			stop = 1;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		init_reaped(in, pid, st);
	if (stop)
		init_stop(in, NULL, 0);
}

/* Drop c: its command, if it still runs, is killed. */
static void
init_drop(struct init *in, struct init_conn *c)
{
	struct init_conn	**pp;

	if (c->job != 0)
		(void)kill(-c->job, SIGKILL);	/* reaped as an orphan */
	for (pp = &in->conns; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	wire_close(&c->w);
	free(c);
	in->nconns--;
}

/* Fill the poll set: the pipe, the listener, every connection. */
static void
init_pollfds(struct init *in)
{
	struct init_conn	*c;
	size_t			 n = 2;

	if (in->npfd < (size_t)in->nconns + 2) {
		in->npfd = (size_t)in->nconns + 64;
		in->pfd = xreallocarray(in->pfd, in->npfd, sizeof(*in->pfd));
	}
	in->pfd[0].fd = in->sig[0];
	in->pfd[0].events = POLLIN;
	in->pfd[1].fd = in->nconns < INIT_CONNS_MAX ? in->lfd : -1;
	in->pfd[1].events = POLLIN;
	for (c = in->conns; c != NULL; c = c->next, n++) {
		in->pfd[n].fd = c->w.fd;
		in->pfd[n].events = wire_pending(&c->w) ? POLLOUT :
		    c->closing ? 0 : POLLIN;
	}
}

/* Step every connection on what poll said. */
static void
init_step(struct init *in)
{
	struct init_conn	*c, *next;
	size_t			 n = 2;
	short			 ev;
	int			 drop, r;

	for (c = in->conns; c != NULL; c = next, n++) {
		next = c->next;
		ev = in->pfd[n].revents;
		drop = c->closing == 2 || (ev & POLLNVAL) != 0;
		if (!drop && (ev & (POLLOUT | POLLERR | POLLHUP)) != 0)
			drop = wire_flush(&c->w) < 0;
		if (!drop && (ev & (POLLIN | POLLHUP | POLLERR)) != 0 &&
		    c->closing == 0)
			drop = (r = wire_recv(&c->w)) == 0 ||
			    (r < 0 && r != -EAGAIN);
		if (!drop)
			drop = init_frames(in, c) != 0;
		if (!drop && c->closing != 0 && !wire_pending(&c->w))
			drop = 1;
		if (drop)
			init_drop(in, c);
	}
}

/* box-init --listen-fd L --ready-fd R [--spec TOKEN] */
int
box_init_main(int argc, char **argv)
{
	struct init	in;
	int		rfd, r;

	memset(&in, 0, sizeof(in));
	init_parse(argc, argv, &in.lfd, &rfd, &in.dirfd, &in.spec);
	init_setup(&in, rfd);
	if (write_all(rfd, "1", 1) != 0)
		agent_die("ready fd: %s", strerror(errno));
	close(rfd);
	for (;;) {
		init_pollfds(&in);
		if ((r = poll(in.pfd, (nfds_t)in.nconns + 2,
		    INIT_WATCH_MS)) == -1) {
			if (errno == EINTR)
				continue;
			agent_die("poll: %s", strerror(errno));
		}
		if (r == 0 && init_orphaned(&in))
			init_stop(&in, NULL, 0);
		if (in.pfd[0].revents != 0)
			init_signals(&in);
		init_step(&in);		/* before accept adds to the list */
		if (in.pfd[1].revents != 0)
			init_accept(&in);
	}
}

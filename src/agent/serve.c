/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh-agent serve: the loop.  Frames from the client on stdin (read
 * whenever no command's stdin backlog is over SERVE_IN_HIGH), frames to
 * it on stdout (the commands' output is not read while more than
 * SERVE_OUT_HIGH waits to be written), and every relayed command's
 * holder connection and pipes, all non-blocking in one poll.  The
 * client's EOF ends every command (their holder connections close) and
 * then serve; a client that breaks the protocol gets an ERROR with id 0
 * and the same end, exit status 125.  See docs/agent.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "frame.h"
#include "msg.h"
#include "serve.h"
#include "wire.h"

/* What a pollfd stands for. */
struct serve_slot {
	struct serve_exec	*e;	/* NULL: the client */
	int			 what;	/* -1 holder, else a stream */
};

#define SERVE_NFDS	(2 + SERVE_EXECS_MAX * 4)

/* Bytes queued for the client and not yet written. */
static size_t
serve_backlog(const struct serve *s)
{
	return s->out.len - s->sent;
}

/* Write what is queued for the client; compact the buffer. */
static void
serve_flush(struct serve *s)
{
	ssize_t	n;

	while (!s->out_err && s->sent < s->out.len) {
		n = write(STDOUT_FILENO, s->out.data + s->sent,
		    s->out.len - s->sent);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			break;
		if (n <= 0) {
			s->out_err = 1;
			break;
		}
		s->sent += (size_t)n;
	}
	if (s->sent == s->out.len || s->out_err) {
		frame_wr_reset(&s->out);
		s->sent = 0;
	} else if (s->sent > SERVE_OUT_HIGH) {
		memmove(s->out.data, s->out.data + s->sent,
		    s->out.len - s->sent);
		s->out.len -= s->sent;
		s->sent = 0;
	}
}

/* One frame from the client; -1 if it breaks the protocol. */
static int
serve_dispatch(struct serve *s, const struct frame *f)
{
	struct msg_hello	h;

	if (!s->hello) {
		if (f->type != FRAME_HELLO || msg_hello_get(f, &h) != 0)
			return -1;
		msg_hello_free(&h);
		s->hello = 1;
		msg_hello_put(&s->out, f->id, NULL, 0);
		return 0;
	}
	switch (f->type) {
	case FRAME_EXEC:
		serve_exec_start(s, f);
		return 0;
	case FRAME_DATA:
	case FRAME_EOF:
		serve_exec_input(s, f);
		return 0;
	case FRAME_SIGNAL:
		serve_exec_signal(s, f);
		return 0;
	default:
		serve_error(s, f->id, MSG_ERR_REQUEST, "frame type %d is not "
		    "a request", f->type);
		return 0;
	}
}

/* Read from the client and handle every whole frame; -1: broken. */
static int
serve_client_read(struct serve *s)
{
	struct frame	f;
	ssize_t		n;
	size_t		off = 0;
	int		r;

	if (s->rcap - s->rlen < SERVE_CHUNK) {
		s->rcap = s->rlen + SERVE_CHUNK * 2;
		s->rbuf = xreallocarray(s->rbuf, s->rcap, 1);
	}
	do
		n = read(STDIN_FILENO, s->rbuf + s->rlen, s->rcap - s->rlen);
	while (n == -1 && errno == EINTR);
	if (n == -1 && errno == EAGAIN)
		return 0;
	if (n <= 0) {
		s->client_eof = 1;
		return 0;
	}
	s->rlen += (size_t)n;
	while ((r = frame_parse(s->rbuf + off, s->rlen - off, &f)) == 1) {
		if (serve_dispatch(s, &f) != 0)
			return -1;
		off += f.used;
	}
	memmove(s->rbuf, s->rbuf + off, s->rlen - off);
	s->rlen -= off;
	return r < 0 ? -1 : 0;
}

/* 1 if a command's stdin backlog says: read no more from the client. */
static int
serve_input_full(const struct serve *s)
{
	size_t	i;

	for (i = 0; i < SERVE_EXECS_MAX; i++)
		if (s->ex[i] != NULL && s->ex[i]->inlen > SERVE_IN_HIGH)
			return 1;
	return 0;
}

/* Add fd to the poll set. */
static void
serve_add(struct pollfd *pfd, struct serve_slot *sl, int *n, int fd,
    short ev, struct serve_exec *e, int what)
{
	pfd[*n].fd = fd;
	pfd[*n].events = ev;
	pfd[*n].revents = 0;
	sl[*n].e = e;
	sl[*n].what = what;
	(*n)++;
}

/* The poll set: the client, then each command's holder and pipes. */
static int
serve_pollset(struct serve *s, struct pollfd *pfd, struct serve_slot *sl)
{
	struct serve_exec	*e;
	int			 n = 0, st, out_ok;
	size_t			 i;

	if (!s->client_eof && !serve_input_full(s))
		serve_add(pfd, sl, &n, STDIN_FILENO, POLLIN, NULL, 0);
	if (serve_backlog(s) > 0 && !s->out_err)
		serve_add(pfd, sl, &n, STDOUT_FILENO, POLLOUT, NULL, 1);
	out_ok = serve_backlog(s) < SERVE_OUT_HIGH;
	for (i = 0; i < SERVE_EXECS_MAX; i++) {
		if ((e = s->ex[i]) == NULL || e->state == SERVE_DONE)
			continue;
		serve_add(pfd, sl, &n, e->hc.w.fd, POLLIN |
		    (wire_pending(&e->hc.w) ? POLLOUT : 0), e, -1);
		if (e->fd[0] != -1 && (e->inlen > 0 || e->in_eof))
			serve_add(pfd, sl, &n, e->fd[0], POLLOUT, e, 0);
		for (st = 1; st <= 2 && out_ok && e->started; st++)
			if (e->fd[st] != -1)
				serve_add(pfd, sl, &n, e->fd[st], POLLIN, e,
				    st);
	}
	return n;
}

/* Handle what poll found. */
static int
serve_events(struct serve *s, struct pollfd *pfd, struct serve_slot *sl,
    int n)
{
	int	i;

	for (i = 0; i < n; i++) {
		if (pfd[i].revents == 0)
			continue;
		if (sl[i].e == NULL && sl[i].what == 0) {
			if (serve_client_read(s) != 0)
				return -1;
		} else if (sl[i].e == NULL)
			serve_flush(s);
		else if (sl[i].e->state == SERVE_DONE)
			continue;
		else if (sl[i].what == -1)
			serve_exec_holder(s, sl[i].e);
		else if (sl[i].what == 0)
			serve_exec_write(s, sl[i].e);
		else
			serve_exec_read(s, sl[i].e, sl[i].what);
	}
	return 0;
}

/* Free the commands that are done (their EXIT or ERROR is queued). */
static void
serve_reap(struct serve *s, int all)
{
	size_t	i;

	for (i = 0; i < SERVE_EXECS_MAX; i++)
		if (s->ex[i] != NULL && (all || s->ex[i]->state == SERVE_DONE))
			serve_exec_free(s, s->ex[i]);
}

/* clawssh-agent serve: relay commands until the client goes. */
int
serve_main(int argc, char **argv)
{
	static struct pollfd	pfd[SERVE_NFDS];
	static struct serve_slot sl[SERVE_NFDS];
	struct serve		s;
	int			n, broken = 0;

	(void)argv;
	if (argc != 1)
		agent_die("usage: clawssh-agent serve");
	memset(&s, 0, sizeof(s));
	(void)signal(SIGPIPE, SIG_IGN);
	if (fd_set_nonblock(STDIN_FILENO, 1) != 0 ||
	    fd_set_nonblock(STDOUT_FILENO, 1) != 0)
		agent_die("serve: stdin and stdout must be open");
	while (!s.client_eof && !s.out_err) {
		n = serve_pollset(&s, pfd, sl);
		if (poll(pfd, (nfds_t)n, -1) == -1 && errno != EINTR)
			agent_die("poll: %s", strerror(errno));
		if (serve_events(&s, pfd, sl, n) != 0) {
			serve_error(&s, 0, MSG_ERR_REQUEST, "not a frame of "
			    "protocol %d", MSG_PROTO);
			broken = 1;
			break;
		}
		serve_reap(&s, 0);
		serve_flush(&s);
	}
	serve_reap(&s, 1);	/* their holders end what still runs */
	(void)fd_set_nonblock(STDOUT_FILENO, 0);
	serve_flush(&s);
	frame_wr_free(&s.out);
	free(s.rbuf);
	return broken ? AGENT_EXIT_ERR : 0;
}

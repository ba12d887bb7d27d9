/* SPDX-License-Identifier: BSD-2-Clause */
/* One agent protocol connection: see wire.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "frame.h"
#include "wire.h"

#define WIRE_READ	65536

/* A queued frame and the fds that go with its first byte. */
struct wire_out {
	struct wire_out	*next;
	uint8_t		*data;
	size_t		 len;
	size_t		 off;
	int		 fds[WIRE_MAXFDS];
	int		 nfds;
};

/* Start a connection on fd. */
void
wire_init(struct wire *w, int fd)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
}

/* Free one queued frame and close its fds. */
static void
wire_out_free(struct wire_out *o)
{
	int	i;

	for (i = 0; i < o->nfds; i++)
		close(o->fds[i]);
	free(o->data);
	free(o);
}

/* Close every fd received and not claimed. */
static void
wire_drop_fds(struct wire *w)
{
	while (w->nfdq > 0)
		close(w->fdq[--w->nfdq]);
}

/* Close the connection and free everything it holds. */
void
wire_close(struct wire *w)
{
	struct wire_out	*o;

	while ((o = w->out) != NULL) {
		w->out = o->next;
		wire_out_free(o);
	}
	wire_drop_fds(w);
	free(w->rbuf);
	if (w->fd != -1)
		close(w->fd);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

/* Queue the fds of a control message; too many: close them all. */
static int
wire_take_cmsg(struct wire *w, struct msghdr *msg)
{
	struct cmsghdr	*c;
	int		*fds, n, i, bad = 0;

	for (c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		fds = (int *)(void *)CMSG_DATA(c);
		n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (i = 0; i < n; i++) {
			if (w->nfdq < WIRE_MAXFDS)
				w->fdq[w->nfdq++] = fds[i];
			else {
				close(fds[i]);
				bad = 1;
			}
		}
	}
	if ((msg->msg_flags & MSG_CTRUNC) != 0 || bad)
		return -EPROTO;
	return 0;
}

/* Make room to read: the buffer grows up to one whole frame. */
static size_t
wire_room(struct wire *w)
{
	size_t	cap;

	if (w->rcap - w->rlen >= WIRE_READ || w->rcap >= FRAME_MAX + 4)
		return w->rcap - w->rlen;
	cap = w->rcap == 0 ? WIRE_READ : w->rcap * 2;
	if (cap > FRAME_MAX + 4)
		cap = FRAME_MAX + 4;
	w->rbuf = xreallocarray(w->rbuf, cap, 1);
	w->rcap = cap;
	return w->rcap - w->rlen;
}

/* One recvmsg into the buffer; fds go to the queue. */
int
wire_recv(struct wire *w)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int) * WIRE_MAXFDS)];
	} cm;
	struct msghdr	msg;
	struct iovec	iov;
	ssize_t		n;
	int		r;

	if ((iov.iov_len = wire_room(w)) == 0)
		return -EPROTO;		/* a frame cannot be this long */
	iov.iov_base = w->rbuf + w->rlen;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cm.buf;
	msg.msg_controllen = sizeof(cm.buf);
	do
		n = recvmsg(w->fd, &msg, MSG_CMSG_CLOEXEC);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if ((r = wire_take_cmsg(w, &msg)) != 0)
		return r;
	w->rlen += (size_t)n;
	return (int)n;
}

/* The next whole frame in the buffer. */
int
wire_frame(struct wire *w, struct frame *f)
{
	int	r;

	if ((r = frame_parse(w->rbuf, w->rlen, f)) < 0)
		return -EPROTO;
	return r;
}

/* Drop frame f from the buffer. */
void
wire_consume(struct wire *w, const struct frame *f)
{
	memmove(w->rbuf, w->rbuf + f->used, w->rlen - f->used);
	w->rlen -= f->used;
	if (w->rlen == 0)
		wire_drop_fds(w);	/* attached to no frame */
}

/* Take exactly n received fds. */
int
wire_take_fds(struct wire *w, int n, int *fds)
{
	int	i;

	if (n < 0 || n > w->nfdq)
		return -EPROTO;
	for (i = 0; i < n; i++)
		fds[i] = w->fdq[i];
	memmove(w->fdq, w->fdq + n, (size_t)(w->nfdq - n) * sizeof(int));
	w->nfdq -= n;
	return 0;
}

/* Queue fw's bytes with copies of fds. */
int
wire_queue(struct wire *w, const struct frame_wr *fw, const int *fds,
    int nfds)
{
	struct wire_out	*o;
	int		 i, r;

	if (fw->err != 0 || nfds < 0 || nfds > WIRE_MAXFDS)
		return -EINVAL;
	o = xcalloc(1, sizeof(*o));
	for (i = 0; i < nfds; i++) {
		if ((o->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3)) == -1) {
			r = -errno;
			wire_out_free(o);
			return r;
		}
		o->nfds++;
	}
	o->data = xmalloc(fw->len);
	memcpy(o->data, fw->data, fw->len);
	o->len = fw->len;
	if (w->out_last != NULL)
		w->out_last->next = o;
	else
		w->out = o;
	w->out_last = o;
	return 0;
}

/* One sendmsg of o's rest, with its fds if none of it went yet. */
static ssize_t
wire_send_one(struct wire *w, struct wire_out *o)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int) * WIRE_MAXFDS)];
	} cm;
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*c;
	ssize_t		 n;

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = o->data + o->off;
	iov.iov_len = o->len - o->off;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (o->off == 0 && o->nfds > 0) {
		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)o->nfds);
		c = &cm.hdr;		/* the first, and aligned */
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)o->nfds);
		memcpy(CMSG_DATA(c), o->fds, sizeof(int) * (size_t)o->nfds);
	}
	do
		n = sendmsg(w->fd, &msg, MSG_NOSIGNAL);
	while (n == -1 && errno == EINTR);
	return n;
}

/* Send what is queued, as far as the socket takes it. */
int
wire_flush(struct wire *w)
{
	struct wire_out	*o;
	ssize_t		 n;

	while ((o = w->out) != NULL) {
		if ((n = wire_send_one(w, o)) == -1)
			return errno == EWOULDBLOCK || errno == EAGAIN ?
			    1 : -errno;
		o->off += (size_t)n;
		if (o->off < o->len)
			continue;
		if ((w->out = o->next) == NULL)
			w->out_last = NULL;
		wire_out_free(o);
	}
	return 0;
}

/* 1 if frames wait to be sent. */
int
wire_pending(const struct wire *w)
{
	return w->out != NULL;
}

/* Poll the wire's fd for ev until the deadline: 1 ready, -errno. */
static int
wire_poll(struct wire *w, short ev, uint64_t deadline)
{
	struct pollfd	pfd;
	uint64_t	now;
	int		n, ms;

	for (;;) {
		ms = -1;
		if (deadline != 0) {
			if ((now = mono_ms()) >= deadline)
				return -ETIMEDOUT;
			ms = (int)(deadline - now);
		}
		pfd.fd = w->fd;
		pfd.events = ev;
		if ((n = poll(&pfd, 1, ms)) == -1 && errno != EINTR)
			return -errno;
		if (n > 0)
			return 1;
	}
}

/* Queue and send, waiting up to timeout_ms. */
int
wire_send(struct wire *w, const struct frame_wr *fw, const int *fds,
    int nfds, int timeout_ms)
{
	uint64_t	deadline = 0;
	int		r;

	if (timeout_ms >= 0)
		deadline = mono_ms() + (uint64_t)timeout_ms;
	if ((r = wire_queue(w, fw, fds, nfds)) != 0)
		return r;
	while ((r = wire_flush(w)) == 1)
		if ((r = wire_poll(w, POLLOUT, deadline)) < 0)
			return r;
	return r;
}

/* Wait for a whole frame, reading as needed. */
int
wire_wait(struct wire *w, struct frame *f, int timeout_ms)
{
	uint64_t	deadline = 0;
	int		r;

	if (timeout_ms >= 0)
		deadline = mono_ms() + (uint64_t)timeout_ms;
	while ((r = wire_frame(w, f)) == 0) {
		if ((r = wire_recv(w)) == 0)
			return 0;
		if (r == -EAGAIN)
			r = wire_poll(w, POLLIN, deadline);
		if (r < 0)
			return r;
	}
	return r;
}

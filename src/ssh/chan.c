/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Command channels: the kind follows the transport (a libssh2 session of
 * our own, the daemon, or this machine), and every call goes through the
 * kind's operations (chan_int.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "chan_int.h"
#include "transport.h"
#include "xmalloc.h"

/* A new channel of t's kind, or NULL after start failed (freed). */
static struct chan *
chan_new(struct transport *t)
{
	struct chan	*c = xcalloc(1, sizeof *c);

	c->t = t;
	if (transport_mux(t) != NULL)
		c->ops = &chan_mux_ops;
	else if (transport_is_local(t))
		c->ops = &chan_local_ops;
	else
		c->ops = &chan_ssh_ops;
	return c;
}

/* Open and start; see chan.h. */
struct chan *
chan_exec(struct transport *t, const char *command, const char *nonce,
    int64_t deadline, char **cause)
{
	return chan_exec_pty(t, command, nonce, NULL, deadline, cause);
}

/* Open, maybe with a terminal, and start; see chan.h. */
struct chan *
chan_exec_pty(struct transport *t, const char *command, const char *nonce,
    const struct pty_req *pty, int64_t deadline, char **cause)
{
	struct chan	*c = chan_new(t);
	int		 rc;

	if (c->ops == &chan_mux_ops)
		rc = chan_mux_start(c, command, nonce, pty, cause);
	else if (c->ops == &chan_local_ops)
		rc = chan_local_start(c, command, pty, cause);
	else
		rc = chan_ssh_start(c, command, pty, deadline, cause);
	if (rc != 0) {
		chan_free(c);
		return NULL;
	}
	return c;
}

/* Through the daemon's host agent channel; see chan.h. */
struct chan *
chan_exec_agent(struct transport *t, const char *agent, const void *frame,
    size_t len, char **cause)
{
	struct chan	*c;

	if (transport_mux(t) == NULL) {
		*cause = xstrdup("no daemon: no host agent channel");
		return NULL;
	}
	c = chan_new(t);
	if (chan_mux_start_agent(c, agent, frame, len, cause) != 0) {
		chan_free(c);
		return NULL;
	}
	return c;
}

/* Signal the command's group; see chan.h. */
int
chan_signal(struct chan *c, int sig, char **cause)
{
	return c->ops->signal(c, sig, cause);
}

/* Started; see chan.h. */
int
chan_started(struct chan *c)
{
	return c->ops->started == NULL || c->ops->started(c);
}

/* New window size; see chan.h. */
int
chan_resize(struct chan *c, unsigned cols, unsigned rows, char **cause)
{
	return c->ops->resize(c, cols, rows, cause);
}

/* Read output; see chan.h. */
ssize_t
chan_read(struct chan *c, int stream, char *p, size_t n, char **cause)
{
	return c->ops->read(c, stream, p, n, cause);
}

/* Write input; see chan.h. */
ssize_t
chan_write(struct chan *c, const char *p, size_t n, char **cause)
{
	return c->ops->write(c, p, n, cause);
}

/* Send EOF; see chan.h. */
int
chan_send_eof(struct chan *c, char **cause)
{
	return c->ops->send_eof(c, cause);
}

/* Remote EOF; see chan.h. */
int
chan_eof(struct chan *c)
{
	return c->ops->eof(c);
}

/* Output buffered here; see chan.h. */
int
chan_pending(struct chan *c)
{
	return c->ops->pending != NULL && c->ops->pending(c);
}

/* Wait for close; see chan.h. */
int
chan_wait_closed(struct chan *c, char **cause)
{
	return c->ops->wait_closed(c, cause);
}

/* Exit status and signal; see chan.h. */
void
chan_exit(struct chan *c, int *status, char **signame)
{
	*signame = NULL;
	c->ops->exit(c, status, signame);
}

/* Register the process group; see chan.h. */
void
chan_set_pgid(struct chan *c, long pgid, const char *ident)
{
	if (c->ops->set_pgid != NULL)
		c->ops->set_pgid(c, pgid, ident);
}

/* Free; see chan.h. */
void
chan_free(struct chan *c)
{
	if (c == NULL)
		return;
	c->ops->free(c);
	free(c);
}

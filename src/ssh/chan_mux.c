/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Channels through the daemon's warm session (mux_client.c), including
 * the host agent's channel for contained commands.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "chan_int.h"
#include "error.h"
#include "mux_client.h"
#include "transport.h"
#include "xmalloc.h"

/* The daemon's channel broke: say why. */
static int
mux_fail(struct chan *c, char **cause)
{
	const char	*why = mux_error(transport_mux(c->t));

	if (why == NULL)
		why = mux_chan_errmsg(c->mc);
	*cause = xasprintf("%s: %s", transport_label(c->t), why != NULL ?
	    why : "connection lost");
	return CLAW_ERR_CONNECT;
}

/* Open a channel through the daemon and start command. */
int
chan_mux_start(struct chan *c, const char *command, const char *nonce,
    const struct pty_req *pty, char **cause)
{
	c->mc = mux_chan_open(transport_mux(c->t), command, nonce, pty,
	    cause);
	return c->mc != NULL ? 0 : CLAW_ERR_CONNECT;
}

/* Open a command on the daemon's host agent channel. */
int
chan_mux_start_agent(struct chan *c, const char *agent, const void *frame,
    size_t len, char **cause)
{
	c->mc = mux_chan_open_agent(transport_mux(c->t), agent, frame, len,
	    cause);
	return c->mc != NULL ? 0 : CLAW_ERR_CONNECT;
}

/*
 * A failure, said: CLAW_ERR_UNSUPPORTED when the agent refused the
 * command before it started (its caller runs it another way), else
 * mux_fail's.
 */
static int
mux_failed(struct chan *c, char **cause)
{
	int	rc = mux_fail(c, cause);

	return mux_chan_refused(c->mc) ? CLAW_ERR_UNSUPPORTED : rc;
}

/* Read stream 0 or 1; CLAW_ERR_UNSUPPORTED: it never started. */
static ssize_t
mux_read(struct chan *c, int stream, char *p, size_t n, char **cause)
{
	ssize_t	r;

	if ((r = mux_chan_read(c->mc, stream, p, n)) < 0)
		return mux_failed(c, cause);
	return r;
}

/* Send stdin. */
static ssize_t
mux_write(struct chan *c, const char *p, size_t n, char **cause)
{
	ssize_t	r;

	if ((r = mux_chan_write(c->mc, p, n)) < 0)
		return mux_failed(c, cause);
	return r;
}

/* Send EOF on stdin. */
static int
mux_send_eof(struct chan *c, char **cause)
{
	int	rc;

	rc = mux_chan_send_eof(c->mc);
	return rc >= 0 ? rc : mux_failed(c, cause);
}

/* The command's output ended. */
static int
mux_eof(struct chan *c)
{
	(void)mux_pump(transport_mux(c->t));
	return mux_chan_eof(c->mc);
}

/* Output already read from the daemon's socket. */
static int
mux_pending(struct chan *c)
{
	return mux_chan_pending(c->mc);
}

/* Wait for the daemon's close. */
static int
mux_wait_closed(struct chan *c, char **cause)
{
	if (mux_chan_closed(c->mc))
		return 0;
	if (mux_pump(transport_mux(c->t)) != 0)
		return mux_fail(c, cause);
	return mux_chan_closed(c->mc) ? 0 : 1;
}

/* Exit status and signal. */
static void
mux_exit(struct chan *c, int *status, char **signame)
{
	const char	*name;

	mux_chan_exit(c->mc, status, &name);
	if (name != NULL)
		*signame = xstrdup(name);
}

/* New window size. */
static int
mux_resize(struct chan *c, unsigned cols, unsigned rows, char **cause)
{
	return mux_chan_resize(c->mc, cols, rows) == 0 ? 0 :
	    mux_fail(c, cause);
}

/* Signal the command's group (the host agent's channel). */
static int
mux_signal(struct chan *c, int sig, char **cause)
{
	return mux_chan_signal(c->mc, sig) == 0 ? 0 : mux_fail(c, cause);
}

/* Started: an agent channel once OPENED came. */
static int
mux_started(struct chan *c)
{
	return mux_chan_started(c->mc);
}

/* Tell the daemon the process group to kill if this process goes. */
static void
mux_set_pgid(struct chan *c, long pgid, const char *ident)
{
	mux_chan_pgid(c->mc, pgid, ident);
}

/* Free the daemon's channel. */
static void
mux_free_chan(struct chan *c)
{
	if (c->mc != NULL)
		mux_chan_free(c->mc);
}

const struct chan_ops chan_mux_ops = {
	mux_read, mux_write, mux_send_eof, mux_eof, mux_pending,
	mux_wait_closed, mux_exit, mux_resize, mux_signal, mux_started,
	mux_set_pgid, mux_free_chan
};

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Command channels over either kind of transport.  The libssh2 path maps
 * EAGAIN to "not now" and errors through transport_map_error; the daemon
 * path forwards to mux_client.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include <libssh2.h>

#include "chan.h"
#include "clock.h"
#include "error.h"
#include "log.h"
#include "mux_client.h"
#include "pty.h"
#include "transport.h"
#include "xmalloc.h"

struct chan {
	struct transport	*t;
	LIBSSH2_CHANNEL		*ch;	/* a session of our own, or */
	struct mux_chan		*mc;	/* a channel through the daemon */
};

/* Describe a libssh2 failure and return the mapped error. */
static int
chan_fail(struct chan *c, const char *what, int rc, char **cause)
{
	char	*err = transport_last_error(c->t);

	*cause = xasprintf("%s: %s: %s", transport_label(c->t), what, err);
	free(err);
	rc = transport_map_error(rc);
	return rc == CLAW_ERR_CHANNEL || rc == CLAW_ERR_PROTO ?
	    CLAW_ERR_CONNECT : rc;
}

/* The daemon's channel broke: say why. */
static int
chan_mux_fail(struct chan *c, char **cause)
{
	const char	*why = mux_error(transport_mux(c->t));

	if (why == NULL)
		why = mux_chan_errmsg(c->mc);
	*cause = xasprintf("%s: %s", transport_label(c->t), why != NULL ?
	    why : "connection lost");
	return CLAW_ERR_CONNECT;
}

/* Ask for the pseudo-terminal pty on c's new channel. */
static int
chan_request_pty(struct chan *c, const struct pty_req *pty,
    int64_t deadline, char **cause)
{
	int	rc;

	while ((rc = libssh2_channel_request_pty_ex(c->ch, pty->term,
	    (unsigned)strlen(pty->term), (const char *)pty->modes,
	    (unsigned)pty->modes_len, (int)pty->cols, (int)pty->rows, 0, 0)) ==
	    LIBSSH2_ERROR_EAGAIN && transport_wait(c->t, deadline) == 0)
		;
	if (rc != 0)
		return chan_fail(c, "the server refused a pseudo-terminal", rc,
		    cause);
	return 0;
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
	struct chan	*c = xcalloc(1, sizeof *c);
	int		 rc;

	c->t = t;
	if (transport_mux(t) != NULL) {
		c->mc = mux_chan_open(transport_mux(t), command, nonce, pty,
		    cause);
		if (c->mc == NULL) {
			free(c);
			return NULL;
		}
		return c;
	}
	if ((c->ch = transport_channel_open(t, deadline, cause)) == NULL) {
		free(c);
		return NULL;
	}
	if (pty != NULL && chan_request_pty(c, pty, deadline, cause) != 0) {
		chan_free(c);
		return NULL;
	}
	while ((rc = libssh2_channel_exec(c->ch, command)) ==
	    LIBSSH2_ERROR_EAGAIN && transport_wait(t, deadline) == 0)
		;
	if (rc != 0) {
		(void)chan_fail(c, "the server refused to run the command",
		    rc, cause);
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
	c = xcalloc(1, sizeof *c);
	c->t = t;
	c->mc = mux_chan_open_agent(transport_mux(t), agent, frame, len,
	    cause);
	if (c->mc == NULL) {
		free(c);
		return NULL;
	}
	return c;
}

/* Signal the command's group; see chan.h. */
int
chan_signal(struct chan *c, int sig, char **cause)
{
	if (c->mc == NULL || mux_chan_signal(c->mc, sig) != 0)
		return chan_mux_fail(c, cause);
	return 0;
}

/* Started; see chan.h. */
int
chan_started(struct chan *c)
{
	return c->mc == NULL || mux_chan_started(c->mc);
}

/* New window size; see chan.h. */
int
chan_resize(struct chan *c, unsigned cols, unsigned rows, char **cause)
{
	int	rc;

	if (c->mc != NULL)
		return mux_chan_resize(c->mc, cols, rows) == 0 ? 0 :
		    chan_mux_fail(c, cause);
	rc = libssh2_channel_request_pty_size_ex(c->ch, (int)cols, (int)rows,
	    0, 0);
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return 1;
	if (rc != 0)
		return chan_fail(c, "resizing the terminal", rc, cause);
	return 0;
}

/* Read output; see chan.h. */
ssize_t
chan_read(struct chan *c, int stream, char *p, size_t n, char **cause)
{
	ssize_t	r;

	if (c->mc != NULL) {
		if ((r = mux_chan_read(c->mc, stream, p, n)) ==
		    CLAW_ERR_UNSUPPORTED) {
			(void)chan_mux_fail(c, cause);
			return r;
		}
		if (r < 0)
			return chan_mux_fail(c, cause);
		return r;
	}
	r = libssh2_channel_read_ex(c->ch, stream != 0 ?
	    SSH_EXTENDED_DATA_STDERR : 0, p, n);
	if (r == LIBSSH2_ERROR_EAGAIN)
		return 0;
	if (r < 0)
		return chan_fail(c, "connection lost", (int)r, cause);
	return r;
}

/* Write input; see chan.h. */
ssize_t
chan_write(struct chan *c, const char *p, size_t n, char **cause)
{
	ssize_t	r;

	if (c->mc != NULL) {
		if ((r = mux_chan_write(c->mc, p, n)) < 0)
			return chan_mux_fail(c, cause);
		return r;
	}
	r = libssh2_channel_write(c->ch, p, n);
	if (r == LIBSSH2_ERROR_EAGAIN)
		return 0;
	if (r < 0)
		return chan_fail(c, "sending stdin", (int)r, cause);
	return r;
}

/* Send EOF; see chan.h. */
int
chan_send_eof(struct chan *c, char **cause)
{
	int	rc;

	if (c->mc != NULL) {
		rc = mux_chan_send_eof(c->mc);
		return rc >= 0 ? rc : chan_mux_fail(c, cause);
	}
	rc = libssh2_channel_send_eof(c->ch);
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return 1;
	if (rc != 0)
		return chan_fail(c, "sending EOF", rc, cause);
	return 0;
}

/* Remote EOF; see chan.h. */
int
chan_eof(struct chan *c)
{
	if (c->mc != NULL) {
		(void)mux_pump(transport_mux(c->t));
		return mux_chan_eof(c->mc);
	}
	return libssh2_channel_eof(c->ch);
}

/* Output buffered here; see chan.h. */
int
chan_pending(struct chan *c)
{
	if (c->mc != NULL)
		return mux_chan_pending(c->mc);
	return libssh2_poll_channel_read(c->ch, 0) > 0 ||
	    libssh2_poll_channel_read(c->ch, 1) > 0;
}

/* Wait for close; see chan.h. */
int
chan_wait_closed(struct chan *c, char **cause)
{
	int	rc;

	if (c->mc != NULL) {
		if (mux_chan_closed(c->mc))
			return 0;
		if (mux_pump(transport_mux(c->t)) != 0)
			return chan_mux_fail(c, cause);
		return mux_chan_closed(c->mc) ? 0 : 1;
	}
	rc = libssh2_channel_wait_closed(c->ch);
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return 1;
	if (rc != 0)
		return chan_fail(c, "closing the channel", rc, cause);
	return 0;
}

/* Exit status and signal; see chan.h. */
void
chan_exit(struct chan *c, int *status, char **signame)
{
	const char	*name;
	char		*sig = NULL;
	size_t		 len = 0;

	*signame = NULL;
	if (c->mc != NULL) {
		mux_chan_exit(c->mc, status, &name);
		if (name != NULL)
			*signame = xstrdup(name);
		return;
	}
	libssh2_channel_get_exit_signal(c->ch, &sig, &len, NULL, NULL, NULL,
	    NULL);
	if (sig != NULL) {
		*signame = xstrndup(sig, len);
		libssh2_free(transport_session(c->t), sig);
	}
	*status = libssh2_channel_get_exit_status(c->ch);
}

/* Register the process group; see chan.h. */
void
chan_set_pgid(struct chan *c, long pgid)
{
	if (c->mc != NULL)
		mux_chan_pgid(c->mc, pgid);
}

/* Free; see chan.h. */
void
chan_free(struct chan *c)
{
	if (c == NULL)
		return;
	if (c->mc != NULL)
		mux_chan_free(c->mc);
	else if (c->ch != NULL) {
		while (libssh2_channel_free(c->ch) == LIBSSH2_ERROR_EAGAIN &&
		    transport_wait(c->t, clock_now_ms() + 1000) == 0)
			;
	}
	free(c);
}

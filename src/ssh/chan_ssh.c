/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Channels on a libssh2 session of this process's own: the state machine
 * of sshchan.c, waited on the session's socket while it says "again"
 * (the start, the close, the free), or handed back as "not now" to
 * exec.c's loop (reads, writes).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "chan_int.h"
#include "clock.h"
#include "error.h"
#include "sshchan.h"
#include "transport.h"
#include "xmalloc.h"

#define CHAN_SSH_FREE_MS	1000	/* the free's wait for the server */

/*
 * Describe the failure of c's step and return its error: a channel or
 * protocol failure reads as a lost connection.
 */
static int
ssh_fail(struct chan *c, int rc, char **cause)
{
	char	*err = transport_last_error(c->t);

	*cause = xasprintf("%s: %s: %s", transport_label(c->t), c->sc->what,
	    err);
	free(err);
	return rc == CLAW_ERR_CHANNEL || rc == CLAW_ERR_PROTO ?
	    CLAW_ERR_CONNECT : rc;
}

/* Open a session channel, maybe with a terminal, and start command. */
int
chan_ssh_start(struct chan *c, const char *command, const struct pty_req *pty,
    int64_t deadline, char **cause)
{
	int	rc;

	c->sc = xmalloc(sizeof *c->sc);
	sshchan_init(c->sc, transport_session(c->t), command, pty);
	while ((rc = sshchan_start(c->sc)) == SSHCHAN_AGAIN) {
		if (transport_wait(c->t, deadline) != 0) {
			*cause = xasprintf("%s: timed out %s",
			    transport_label(c->t), c->sc->phase == SSHCHAN_OPEN ?
			    "opening a channel" : "starting the command");
			return CLAW_ERR_CONNECT;
		}
	}
	if (rc == 0)
		return 0;
	if (c->sc->phase == SSHCHAN_OPEN) {
		/* the session did not give a channel: the host is not there */
		ssh_fail(c, rc, cause);
		return CLAW_ERR_CONNECT;
	}
	return ssh_fail(c, rc, cause);
}

/* Read stream 0 or 1. */
static ssize_t
ssh_read(struct chan *c, int stream, char *p, size_t n, char **cause)
{
	ssize_t	r = sshchan_read(c->sc, stream, p, n);

	return r >= 0 ? r : ssh_fail(c, (int)r, cause);
}

/* Send stdin. */
static ssize_t
ssh_write(struct chan *c, const char *p, size_t n, char **cause)
{
	ssize_t	r = sshchan_write(c->sc, p, n);

	return r >= 0 ? r : ssh_fail(c, (int)r, cause);
}

/* Send EOF on stdin. */
static int
ssh_send_eof(struct chan *c, char **cause)
{
	int	rc = sshchan_send_eof(c->sc);

	return rc >= 0 ? rc : ssh_fail(c, rc, cause);
}

/* The server's EOF. */
static int
ssh_eof(struct chan *c)
{
	return sshchan_eof(c->sc);
}

/* Output libssh2 already holds. */
static int
ssh_pending(struct chan *c)
{
	return sshchan_pending(c->sc);
}

/* Wait for the server's close. */
static int
ssh_wait_closed(struct chan *c, char **cause)
{
	int	rc = sshchan_wait_closed(c->sc);

	return rc >= 0 ? rc : ssh_fail(c, rc, cause);
}

/* Exit status and signal. */
static void
ssh_exit(struct chan *c, int *status, char **signame)
{
	sshchan_exit(c->sc, status, signame);
}

/* New window size. */
static int
ssh_resize(struct chan *c, unsigned cols, unsigned rows, char **cause)
{
	int	rc = sshchan_resize(c->sc, cols, rows);

	return rc >= 0 ? rc : ssh_fail(c, rc, cause);
}

/* Signals go through the host agent's channel only (the daemon's). */
static int
ssh_signal(struct chan *c, int sig, char **cause)
{
	(void)sig;
	*cause = xasprintf("%s: signalling a command needs the daemon's "
	    "host agent channel", transport_label(c->t));
	return CLAW_ERR_UNSUPPORTED;
}

/* Free the libssh2 channel, waiting a little for the server. */
static void
ssh_free(struct chan *c)
{
	int64_t	deadline = clock_now_ms() + CHAN_SSH_FREE_MS;

	if (c->sc == NULL)
		return;
	while (sshchan_free(c->sc) == SSHCHAN_AGAIN &&
	    transport_wait(c->t, deadline) == 0)
		;
	free(c->sc);
	c->sc = NULL;
}

const struct chan_ops chan_ssh_ops = {
	ssh_read, ssh_write, ssh_send_eof, ssh_eof, ssh_pending,
	ssh_wait_closed, ssh_exit, ssh_resize, ssh_signal, NULL, NULL,
	ssh_free
};

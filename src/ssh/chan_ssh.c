/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Channels on a libssh2 session of this process's own: EAGAIN is "not
 * now", errors go through transport_map_error.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include <libssh2.h>

#include "chan_int.h"
#include "clock.h"
#include "error.h"
#include "pty.h"
#include "transport.h"
#include "xmalloc.h"

/* Describe a libssh2 failure and return the mapped error. */
static int
ssh_fail(struct chan *c, const char *what, int rc, char **cause)
{
	char	*err = transport_last_error(c->t);

	*cause = xasprintf("%s: %s: %s", transport_label(c->t), what, err);
	free(err);
	rc = transport_map_error(rc);
	return rc == CLAW_ERR_CHANNEL || rc == CLAW_ERR_PROTO ?
	    CLAW_ERR_CONNECT : rc;
}

/* Ask for the pseudo-terminal pty on c's new channel. */
static int
ssh_request_pty(struct chan *c, const struct pty_req *pty, int64_t deadline,
    char **cause)
{
	int	rc;

	while ((rc = libssh2_channel_request_pty_ex(c->ch, pty->term,
	    (unsigned)strlen(pty->term), (const char *)pty->modes,
	    (unsigned)pty->modes_len, (int)pty->cols, (int)pty->rows, 0, 0)) ==
	    LIBSSH2_ERROR_EAGAIN && transport_wait(c->t, deadline) == 0)
		;
	if (rc != 0)
		return ssh_fail(c, "the server refused a pseudo-terminal", rc,
		    cause);
	return 0;
}

/* Open a session channel, maybe with a terminal, and start command. */
int
chan_ssh_start(struct chan *c, const char *command, const struct pty_req *pty,
    int64_t deadline, char **cause)
{
	int	rc;

	if ((c->ch = transport_channel_open(c->t, deadline, cause)) == NULL)
		return CLAW_ERR_CONNECT;
	if (pty != NULL && (rc = ssh_request_pty(c, pty, deadline,
	    cause)) != 0)
		return rc;
	while ((rc = libssh2_channel_exec(c->ch, command)) ==
	    LIBSSH2_ERROR_EAGAIN && transport_wait(c->t, deadline) == 0)
		;
	if (rc != 0)
		return ssh_fail(c, "the server refused to run the command", rc,
		    cause);
	return 0;
}

/* Read stream 0 or 1. */
static ssize_t
ssh_read(struct chan *c, int stream, char *p, size_t n, char **cause)
{
	ssize_t	r;

	r = libssh2_channel_read_ex(c->ch, stream != 0 ?
	    SSH_EXTENDED_DATA_STDERR : 0, p, n);
	if (r == LIBSSH2_ERROR_EAGAIN)
		return 0;
	if (r < 0)
		return ssh_fail(c, "connection lost", (int)r, cause);
	return r;
}

/* Send stdin. */
static ssize_t
ssh_write(struct chan *c, const char *p, size_t n, char **cause)
{
	ssize_t	r;

	r = libssh2_channel_write(c->ch, p, n);
	if (r == LIBSSH2_ERROR_EAGAIN)
		return 0;
	if (r < 0)
		return ssh_fail(c, "sending stdin", (int)r, cause);
	return r;
}

/* Send EOF on stdin. */
static int
ssh_send_eof(struct chan *c, char **cause)
{
	int	rc;

	rc = libssh2_channel_send_eof(c->ch);
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return 1;
	if (rc != 0)
		return ssh_fail(c, "sending EOF", rc, cause);
	return 0;
}

/* The server's EOF. */
static int
ssh_eof(struct chan *c)
{
	return libssh2_channel_eof(c->ch);
}

/* Output libssh2 already holds. */
static int
ssh_pending(struct chan *c)
{
	return libssh2_poll_channel_read(c->ch, 0) > 0 ||
	    libssh2_poll_channel_read(c->ch, 1) > 0;
}

/* Wait for the server's close. */
static int
ssh_wait_closed(struct chan *c, char **cause)
{
	int	rc;

	rc = libssh2_channel_wait_closed(c->ch);
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return 1;
	if (rc != 0)
		return ssh_fail(c, "closing the channel", rc, cause);
	return 0;
}

/* Exit status and signal. */
static void
ssh_exit(struct chan *c, int *status, char **signame)
{
	char	*sig = NULL;
	size_t	 len = 0;

	libssh2_channel_get_exit_signal(c->ch, &sig, &len, NULL, NULL, NULL,
	    NULL);
	if (sig != NULL) {
		*signame = xstrndup(sig, len);
		libssh2_free(transport_session(c->t), sig);
	}
	*status = libssh2_channel_get_exit_status(c->ch);
}

/* New window size. */
static int
ssh_resize(struct chan *c, unsigned cols, unsigned rows, char **cause)
{
	int	rc;

	rc = libssh2_channel_request_pty_size_ex(c->ch, (int)cols, (int)rows,
	    0, 0);
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return 1;
	if (rc != 0)
		return ssh_fail(c, "resizing the terminal", rc, cause);
	return 0;
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

/* Free the libssh2 channel. */
static void
ssh_free(struct chan *c)
{
	if (c->ch == NULL)
		return;
	while (libssh2_channel_free(c->ch) == LIBSSH2_ERROR_EAGAIN &&
	    transport_wait(c->t, clock_now_ms() + 1000) == 0)
		;
}

const struct chan_ops chan_ssh_ops = {
	ssh_read, ssh_write, ssh_send_eof, ssh_eof, ssh_pending,
	ssh_wait_closed, ssh_exit, ssh_resize, ssh_signal, NULL, NULL,
	ssh_free
};

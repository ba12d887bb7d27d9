/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A libssh2 session channel as a state machine; see sshchan.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <libssh2.h>

#include "error.h"
#include "pty.h"
#include "sshchan.h"
#include "transport.h"
#include "xmalloc.h"

/* Set c up; see sshchan.h. */
void
sshchan_init(struct sshchan *c, LIBSSH2_SESSION *session, const char *command,
    const struct pty_req *pty)
{
	memset(c, 0, sizeof *c);
	c->session = session;
	c->command = command;
	c->pty = pty;
}

/*
 * A libssh2 call returned rc: SSHCHAN_AGAIN for EAGAIN, else remember
 * what failed and return rc mapped into the clawssh error space.
 */
static int
sshchan_result(struct sshchan *c, const char *what, int rc)
{
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return SSHCHAN_AGAIN;
	c->what = what;
	c->lerr = rc;
	return transport_map_error(rc);
}

/* Ask for the channel; 0 once it is open. */
static int
sshchan_open(struct sshchan *c)
{
	c->ch = libssh2_channel_open_ex(c->session, "session",
	    sizeof "session" - 1, SSHCHAN_WINDOW, SSHCHAN_PACKET, NULL, 0);
	if (c->ch != NULL)
		return 0;
	return sshchan_result(c, "could not open a channel",
	    libssh2_session_last_errno(c->session));
}

/* Ask for c->pty on the open channel. */
static int
sshchan_pty(struct sshchan *c)
{
	const struct pty_req	*p = c->pty;
	int			 rc;

	rc = libssh2_channel_request_pty_ex(c->ch, p->term,
	    (unsigned)strlen(p->term), (const char *)p->modes,
	    (unsigned)p->modes_len, (int)p->cols, (int)p->rows, 0, 0);
	return rc == 0 ? 0 : sshchan_result(c,
	    "the server refused a pseudo-terminal", rc);
}

/* Step the start; see sshchan.h. */
int
sshchan_start(struct sshchan *c)
{
	int	rc;

	if (c->phase == SSHCHAN_OPEN) {
		if ((rc = sshchan_open(c)) != 0)
			return rc;
		c->phase = c->pty != NULL ? SSHCHAN_PTY : SSHCHAN_EXEC;
	}
	if (c->phase == SSHCHAN_PTY) {
		if ((rc = sshchan_pty(c)) != 0)
			return rc;
		c->phase = SSHCHAN_EXEC;
	}
	if (c->phase == SSHCHAN_EXEC) {
		rc = libssh2_channel_exec(c->ch, c->command);
		if (rc != 0)
			return sshchan_result(c,
			    "the server refused to run the command", rc);
		c->phase = SSHCHAN_RUNNING;
	}
	return 0;
}

/* Read a stream; see sshchan.h. */
ssize_t
sshchan_read(struct sshchan *c, int stream, char *p, size_t n)
{
	ssize_t	r;

	r = libssh2_channel_read_ex(c->ch, stream != 0 ?
	    SSH_EXTENDED_DATA_STDERR : 0, p, n);
	if (r >= 0 || r == LIBSSH2_ERROR_EAGAIN)
		return r >= 0 ? r : 0;
	return sshchan_result(c, "connection lost", (int)r);
}

/* Send stdin; see sshchan.h. */
ssize_t
sshchan_write(struct sshchan *c, const char *p, size_t n)
{
	ssize_t	r;

	r = libssh2_channel_write(c->ch, p, n);
	if (r >= 0 || r == LIBSSH2_ERROR_EAGAIN)
		return r >= 0 ? r : 0;
	return sshchan_result(c, "sending stdin", (int)r);
}

/* Send EOF; see sshchan.h. */
int
sshchan_send_eof(struct sshchan *c)
{
	int	rc = libssh2_channel_send_eof(c->ch);

	return rc == 0 ? 0 : sshchan_result(c, "sending EOF", rc);
}

/* The server's EOF; see sshchan.h. */
int
sshchan_eof(struct sshchan *c)
{
	return libssh2_channel_eof(c->ch) != 0;
}

/* Output held; see sshchan.h. */
int
sshchan_pending(struct sshchan *c)
{
	return libssh2_poll_channel_read(c->ch, 0) > 0 ||
	    libssh2_poll_channel_read(c->ch, 1) > 0;
}

/* The server's close; see sshchan.h. */
int
sshchan_wait_closed(struct sshchan *c)
{
	int	rc = libssh2_channel_wait_closed(c->ch);

	return rc == 0 ? 0 : sshchan_result(c, "closing the channel", rc);
}

/* Exit status and signal; see sshchan.h. */
void
sshchan_exit(struct sshchan *c, int *status, char **signame)
{
	char	*sig = NULL;
	size_t	 len = 0;

	libssh2_channel_get_exit_signal(c->ch, &sig, &len, NULL, NULL, NULL,
	    NULL);
	if (sig != NULL) {
		*signame = xstrndup(sig, len);
		libssh2_free(c->session, sig);
	}
	*status = libssh2_channel_get_exit_status(c->ch);
}

/* A new terminal size; see sshchan.h. */
int
sshchan_resize(struct sshchan *c, unsigned cols, unsigned rows)
{
	int	rc;

	rc = libssh2_channel_request_pty_size_ex(c->ch, (int)cols, (int)rows,
	    0, 0);
	return rc == 0 ? 0 : sshchan_result(c, "resizing the terminal", rc);
}

/* Free the channel; see sshchan.h. */
int
sshchan_free(struct sshchan *c)
{
	if (c->ch == NULL)
		return 0;
	if (libssh2_channel_free(c->ch) == LIBSSH2_ERROR_EAGAIN)
		return SSHCHAN_AGAIN;
	c->ch = NULL;
	return 0;
}

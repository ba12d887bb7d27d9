/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SSH transport: one authenticated, non-blocking libssh2 session to one
 * host, over which channels are opened.  A transport and its channels belong
 * to one thread at a time.
 */
#ifndef CLAW_TRANSPORT_H
#define CLAW_TRANSPORT_H

#include <stdint.h>

#include <libssh2.h>

struct mux;
struct sshconfig;
struct transport;

/* Settings that do not come from ssh_config. */
struct transport_opts {
	const char	*passphrase_file;	/* encrypted keys, or NULL */
};

/*
 * Connect to the host described by sc, verify its host key against the
 * known_hosts files in sc (recording it when StrictHostKeyChecking allows),
 * and authenticate with ssh-agent identities, then identity files.  The
 * whole of it must finish within sc->connect_timeout seconds when set.
 * Returns 0 and sets *out, or a negative CLAW_ERR_* with *cause set:
 * CLAW_ERR_CONNECT, CLAW_ERR_TIMEOUT, CLAW_ERR_HOSTKEY_*, CLAW_ERR_AUTH,
 * CLAW_ERR_PROTO.
 */
int	 transport_connect(const struct sshconfig *sc,
	    const struct transport_opts *opts, struct transport **out,
	    char **cause);

/*
 * A transport whose channels go through the clawssh daemon (see
 * mux_client.h), which takes ownership of m; label as transport_label.
 */
struct transport	*transport_from_mux(struct mux *m, const char *label);

/*
 * A transport to this machine: each channel's command runs under
 * /bin/sh -c here (chan_local.c).  For the unit tests, which drive exec,
 * transfers and host scripts through it without sshd.  NULL with *cause
 * if the epoll set cannot be made.
 */
struct transport	*transport_local(const char *label, char **cause);

/* Whether t is a local transport. */
int	transport_is_local(struct transport *t);

/* The daemon connection behind t, or NULL for a session of our own. */
struct mux	*transport_mux(struct transport *t);

/* Disconnect and free; NULL is fine. */
void	 transport_free(struct transport *t);

/* The libssh2 session and socket, owned by the transport. */
LIBSSH2_SESSION	*transport_session(struct transport *t);
int		 transport_fd(struct transport *t);

/*
 * Bytes libssh2 has read off the socket so far.  A call on one channel
 * can read another channel's packets into libssh2's buffers, where poll
 * cannot see them: a caller stepping several channels compares this
 * before and after to know that another turn is due.
 */
uint64_t	 transport_rx_bytes(struct transport *t);

/* The "user@host:port" label used in messages. */
const char	*transport_label(struct transport *t);

/*
 * The poll(2) events the session waits for after LIBSSH2_ERROR_EAGAIN
 * (POLLIN and/or POLLOUT; POLLIN when libssh2 says nothing).
 */
short	 transport_poll_events(struct transport *t);

/*
 * Wait until the socket is ready for what libssh2 is blocked on, or the
 * deadline (clock_now_ms based; CLOCK_NEVER for none) passes.  Returns 0,
 * CLAW_ERR_TIMEOUT or CLAW_ERR_IO.
 */
int	 transport_wait(struct transport *t, int64_t deadline);

/*
 * Note that data arrived from the server (for the liveness check), send a
 * keepalive if one is due, and tell whether the server has been silent for
 * longer than ServerAliveInterval * ServerAliveCountMax.  *next_ms is set
 * to the milliseconds until the next call is due (-1: none).  Returns 0,
 * or CLAW_ERR_TIMEOUT / CLAW_ERR_PROTO with *cause set.
 */
int	 transport_keepalive(struct transport *t, int got_data, int *next_ms,
	    char **cause);

/* Describe the session's last libssh2 error (allocated). */
char	*transport_last_error(struct transport *t);

/* Map a libssh2 error code into the clawssh error space. */
int	 transport_map_error(int rc);

#endif /* CLAW_TRANSPORT_H */

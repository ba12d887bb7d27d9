/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals shared by transport.c, transport_hostkey.c and
 * transport_auth.c.  Not for use elsewhere.
 */
#ifndef CLAW_TRANSPORT_INT_H
#define CLAW_TRANSPORT_INT_H

#include <sys/types.h>

#include <stdint.h>

#include <libssh2.h>

struct mux;
struct sshconfig;
struct transport_opts;

struct transport {
	struct mux	*mux;		/* through the daemon, or NULL */
	LIBSSH2_SESSION	*session;
	int		 fd;
	char		*label;		/* user@host:port for messages */
	int64_t		 last_rx;	/* when the server last sent data */
	uint64_t	 rx_bytes;	/* read off the socket, ever */
	int		 alive_interval;	/* seconds; 0 = off */
	int		 alive_count_max;
	char		*proxy;		/* ProxyCommand, or NULL */
	pid_t		 proxy_pid;	/* its process, or -1 */
	int		 local;		/* fd is an epoll set (chan_local.c) */
};

/* Order host key algorithms so that types already known come first. */
void	transport_hostkey_prefs(struct transport *t,
	    const struct sshconfig *sc);

/* Verify the negotiated host key; see transport_connect. */
int	transport_hostkey_verify(struct transport *t,
	    const struct sshconfig *sc, char **cause);

/* Authenticate as sc->user before deadline; see transport_connect. */
int	transport_auth(struct transport *t, const struct sshconfig *sc,
	    const struct transport_opts *opts, int64_t deadline, char **cause);

/*
 * Start "sh -c 'exec command'" with one end of a socketpair as its stdin
 * and stdout; *fdp is the other end (non-blocking, close-on-exec).
 * Returns 0, or a negative CLAW_ERR_* with *cause naming the command.
 */
int	transport_proxy_start(const char *command, int *fdp, pid_t *pidp,
	    char **cause);

/*
 * Name the proxy (and how it ended, if it has) in a failure message;
 * takes cause and returns the new message.  Without a proxy, cause.
 */
char	*transport_proxy_explain(struct transport *t, char *cause);

/* Close the session's socket and reap the proxy, if any. */
void	transport_proxy_stop(struct transport *t);

#endif /* CLAW_TRANSPORT_INT_H */

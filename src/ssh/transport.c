/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SSH transport: TCP connect with a deadline, libssh2 handshake, then
 * host key verification and authentication (see transport_hostkey.c and
 * transport_auth.c).  The session is non-blocking from the start; every
 * EAGAIN waits in transport_wait on the directions libssh2 reports.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh2.h>

#include "clock.h"
#include "error.h"
#include "log.h"
#include "mux_client.h"
#include "sshconfig.h"
#include "transport.h"
#include "transport_int.h"
#include "xmalloc.h"

/* Bulk channels get a larger window than libssh2's 2 MiB default. */

/* Initialise libssh2 once per process. */
static int
transport_global_init(void)
{
	static int	done;

	if (done)
		return 0;
	if (libssh2_init(0) != 0)
		return CLAW_ERR_PROTO;
	done = 1;
	return 0;
}

/* Wait for a non-blocking connect on fd to finish before deadline. */
static int
transport_connect_wait(int fd, int64_t deadline)
{
	struct pollfd	pfd = { .fd = fd, .events = POLLOUT };
	socklen_t	len = sizeof(int);
	int		n, err = 0;

	for (;;) {
		n = poll(&pfd, 1, clock_poll_timeout(deadline));
		if (n > 0)
			break;
		if (n == 0)
			return ETIMEDOUT;
		if (errno != EINTR)
			return errno;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		return errno;
	return err;
}

/* Try one resolved address; return a connected socket or -1 with *err. */
static int
transport_connect_addr(const struct addrinfo *ai, int64_t deadline,
    int *err)
{
	int	fd, one = 1;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, ai->ai_protocol);
	if (fd == -1) {
		*err = errno;
		return -1;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1) {
		*err = errno == EINPROGRESS ?
		    transport_connect_wait(fd, deadline) : errno;
		if (*err != 0) {
			close(fd);
			return -1;
		}
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

/* Resolve host and connect to the first address that answers. */
static int
transport_tcp(const char *host, int port, int64_t deadline, int *fdp,
    char **cause)
{
	struct addrinfo	 hints, *res, *ai;
	char		 service[16];
	int		 rc, fd = -1, err = 0;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof service, "%d", port);
	if ((rc = getaddrinfo(host, service, &hints, &res)) != 0) {
		*cause = xasprintf("could not resolve host '%s': %s", host,
		    gai_strerror(rc));
		return CLAW_ERR_CONNECT;
	}
	for (ai = res; ai != NULL && fd == -1; ai = ai->ai_next)
		fd = transport_connect_addr(ai, deadline, &err);
	freeaddrinfo(res);
	if (fd == -1) {
		*cause = xasprintf("connect to host %s port %d: %s%s", host,
		    port, strerror(err), err == ETIMEDOUT ?
		    " (ConnectTimeout)" : "");
		return err == ETIMEDOUT ? CLAW_ERR_TIMEOUT : CLAW_ERR_CONNECT;
	}
	*fdp = fd;
	return 0;
}

/* Return the poll events libssh2 is blocked on. */
short
transport_poll_events(struct transport *t)
{
	int	dir;
	short	ev = 0;

	if (t->mux != NULL)
		return mux_poll_events(t->mux);
	if (t->local)
		return POLLIN;	/* the epoll set: any channel ready */
	dir = libssh2_session_block_directions(t->session);

	if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
		ev |= POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		ev |= POLLOUT;
	return ev == 0 ? POLLIN : ev;
}

/* Wait for the socket to be ready for libssh2, or the deadline. */
int
transport_wait(struct transport *t, int64_t deadline)
{
	struct pollfd	pfd;
	int		n;

	pfd.fd = transport_fd(t);
	pfd.events = transport_poll_events(t);
	for (;;) {
		n = poll(&pfd, 1, clock_poll_timeout(deadline));
		if (n > 0) {
			if (pfd.revents & POLLNVAL)
				return CLAW_ERR_IO;
			if (pfd.revents & POLLIN)
				t->last_rx = clock_now_ms();
			if (t->mux != NULL && mux_pump(t->mux) != 0)
				return CLAW_ERR_IO;
			return 0;
		}
		if (n == 0)
			return CLAW_ERR_TIMEOUT;
		if (errno != EINTR)
			return CLAW_ERR_IO;
	}
}

/* Map a libssh2 error code into the clawssh error space. */
int
transport_map_error(int rc)
{
	switch (rc) {
	case 0:
		return 0;
	case LIBSSH2_ERROR_ALLOC:
		return CLAW_ERR_NOMEM;
	case LIBSSH2_ERROR_TIMEOUT:
		return CLAW_ERR_TIMEOUT;
	case LIBSSH2_ERROR_SOCKET_SEND:
	case LIBSSH2_ERROR_SOCKET_RECV:
	case LIBSSH2_ERROR_SOCKET_DISCONNECT:
	case LIBSSH2_ERROR_SOCKET_TIMEOUT:
	case LIBSSH2_ERROR_BANNER_RECV:
	case LIBSSH2_ERROR_BANNER_SEND:
		return CLAW_ERR_CONNECT;
	case LIBSSH2_ERROR_AUTHENTICATION_FAILED:
	case LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED:
		return CLAW_ERR_AUTH;
	case LIBSSH2_ERROR_CHANNEL_FAILURE:
	case LIBSSH2_ERROR_CHANNEL_REQUEST_DENIED:
	case LIBSSH2_ERROR_CHANNEL_CLOSED:
	case LIBSSH2_ERROR_CHANNEL_EOF_SENT:
	case LIBSSH2_ERROR_CHANNEL_UNKNOWN:
	case LIBSSH2_ERROR_CHANNEL_OUTOFORDER:
		return CLAW_ERR_CHANNEL;
	default:
		return CLAW_ERR_PROTO;
	}
}

/* Describe the session's last libssh2 error. */
char *
transport_last_error(struct transport *t)
{
	char	*msg = NULL;
	int	 len = 0;

	if (t->mux != NULL)
		return xstrdup(mux_error(t->mux) != NULL ? mux_error(t->mux) :
		    "connection through the daemon failed");
	libssh2_session_last_error(t->session, &msg, &len, 0);
	if (msg == NULL || len <= 0)
		return xstrdup("unknown libssh2 error");
	return xstrndup(msg, (size_t)len);
}

/* Run the SSH handshake on the connected socket before deadline. */
static int
transport_handshake(struct transport *t, int64_t deadline, char **cause)
{
	char	*err;
	int	 rc;

	while ((rc = libssh2_session_handshake(t->session, t->fd)) ==
	    LIBSSH2_ERROR_EAGAIN) {
		if (transport_wait(t, deadline) != 0) {
			*cause = xasprintf("%s: SSH handshake timed out "
			    "(ConnectTimeout)", t->label);
			return CLAW_ERR_TIMEOUT;
		}
	}
	if (rc != 0) {
		err = transport_last_error(t);
		*cause = xasprintf("%s: SSH handshake failed: %s", t->label,
		    err);
		free(err);
		return transport_map_error(rc) == CLAW_ERR_CONNECT ?
		    CLAW_ERR_CONNECT : CLAW_ERR_PROTO;
	}
	return 0;
}

/* libssh2's socket read, counting what it takes (transport_rx_bytes). */
static LIBSSH2_RECV_FUNC(transport_recv)
{
	struct transport	*t = *abstract;
	ssize_t			 n;

	n = recv(socket, buffer, length, flags);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	t->rx_bytes += (uint64_t)n;
	return n;
}

/* Create the transport object around a connected socket. */
static struct transport *
transport_new(const struct sshconfig *sc, int fd)
{
	struct transport	*t;

	t = xcalloc(1, sizeof *t);
	t->fd = fd;
	t->proxy_pid = -1;
	t->label = xasprintf("%s@%s:%d", sc->user, sc->hostname, sc->port);
	t->session = libssh2_session_init_ex(NULL, NULL, NULL, t);
	if (t->session == NULL) {
		fprintf(stderr, "clawssh: libssh2_session_init failed\n");
		abort();
	}
	libssh2_session_callback_set(t->session, LIBSSH2_CALLBACK_RECV,
	    (void *)transport_recv);
	libssh2_session_set_blocking(t->session, 0);
	t->alive_interval = sc->server_alive_interval;
	t->alive_count_max = sc->server_alive_count_max;
	t->last_rx = clock_now_ms();
	if (t->alive_interval > 0)
		libssh2_keepalive_config(t->session, 1,
		    (unsigned)t->alive_interval);
	return t;
}

/* Connect, verify the host and authenticate; see transport.h. */
int
transport_connect(const struct sshconfig *sc,
    const struct transport_opts *opts, struct transport **out, char **cause)
{
	struct transport	*t;
	int64_t			 deadline = CLOCK_NEVER;
	pid_t			 pid = -1;
	int			 fd, rc;

	if ((rc = transport_global_init()) != 0) {
		*cause = xstrdup("libssh2 initialisation failed");
		return rc;
	}
	if (sc->connect_timeout > 0)
		deadline = clock_now_ms() + (int64_t)sc->connect_timeout * 1000;
	if (sc->proxy_command != NULL)
		rc = transport_proxy_start(sc->proxy_command, &fd, &pid,
		    cause);
	else {
		log_info("connecting to %s port %d", sc->hostname, sc->port);
		rc = transport_tcp(sc->hostname, sc->port, deadline, &fd,
		    cause);
	}
	if (rc != 0)
		return rc;
	t = transport_new(sc, fd);
	if (pid != -1) {
		t->proxy = xstrdup(sc->proxy_command);
		t->proxy_pid = pid;
	}
	transport_hostkey_prefs(t, sc);
	if ((rc = transport_handshake(t, deadline, cause)) != 0 ||
	    (rc = transport_hostkey_verify(t, sc, cause)) != 0 ||
	    (rc = transport_auth(t, sc, opts, deadline, cause)) != 0) {
		if (rc != CLAW_ERR_HOSTKEY_CHANGED &&
		    rc != CLAW_ERR_HOSTKEY_UNKNOWN)
			*cause = transport_proxy_explain(t, *cause);
		transport_free(t);
		return rc;
	}
	log_info("authenticated to %s", t->label);
	*out = t;
	return 0;
}

/*
 * Disconnect politely (waiting at most a second) and free everything.  If
 * the server does not take the goodbye, the socket is shut down so that
 * libssh2's own teardown fails fast instead of returning EAGAIN forever
 * (a session freed in non-blocking mode can otherwise be left half-freed).
 */
void
transport_free(struct transport *t)
{
	int64_t	deadline;
	int	rc, tries;

	if (t == NULL)
		return;
	mux_free(t->mux);
	if (t->session != NULL) {
		deadline = clock_now_ms() + 1000;
		while ((rc = libssh2_session_disconnect(t->session, "bye")) ==
		    LIBSSH2_ERROR_EAGAIN && transport_wait(t, deadline) == 0)
			;
		if (rc != 0 && t->fd != -1)
			shutdown(t->fd, SHUT_RDWR);
		for (tries = 0; tries < 100 && libssh2_session_free(t->session)
		    == LIBSSH2_ERROR_EAGAIN; tries++) {
			if (t->fd != -1)
				shutdown(t->fd, SHUT_RDWR);
		}
	}
	transport_proxy_stop(t);
	if (t->local)
		close(t->fd);
	free(t->proxy);
	free(t->label);
	free(t);
}

/* Return the libssh2 session. */
LIBSSH2_SESSION *
transport_session(struct transport *t)
{
	return t->session;
}

/* Return the socket. */
int
transport_fd(struct transport *t)
{
	return t->mux != NULL ? mux_fd(t->mux) : t->fd;
}

/* Bytes read off the socket so far; see transport.h. */
uint64_t
transport_rx_bytes(struct transport *t)
{
	return t->rx_bytes;
}

/* Wrap a daemon connection; see transport.h. */
struct transport *
transport_from_mux(struct mux *m, const char *label)
{
	struct transport	*t = xcalloc(1, sizeof *t);

	t->mux = m;
	t->fd = -1;
	t->label = xstrdup(label);
	return t;
}

/* A transport to this machine; see transport.h. */
struct transport *
transport_local(const char *label, char **cause)
{
	struct transport	*t;
	int			 fd;

	if ((fd = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		*cause = xasprintf("local: epoll: %s", strerror(errno));
		return NULL;
	}
	t = xcalloc(1, sizeof *t);
	t->local = 1;
	t->fd = fd;
	t->proxy_pid = -1;
	t->label = xstrdup(label);
	return t;
}

/* Whether t is local; see transport.h. */
int
transport_is_local(struct transport *t)
{
	return t->local;
}

/* Return the daemon connection, if any. */
struct mux *
transport_mux(struct transport *t)
{
	return t->mux;
}

/* Return the user@host:port label. */
const char *
transport_label(struct transport *t)
{
	return t->label;
}

/* Send keepalives when due and detect a silent server; see transport.h. */
int
transport_keepalive(struct transport *t, int got_data, int *next_ms,
    char **cause)
{
	int64_t	now = clock_now_ms(), limit;
	int	secs = 0, rc;

	*next_ms = -1;
	if (got_data)
		t->last_rx = now;
	if (t->mux != NULL || t->alive_interval <= 0)
		return 0;
	limit = (int64_t)t->alive_interval * 1000 *
	    (t->alive_count_max > 0 ? t->alive_count_max : 1);
	if (now - t->last_rx > limit) {
		*cause = xasprintf("%s: no response from server for %lld s "
		    "(ServerAliveInterval %d, ServerAliveCountMax %d)",
		    t->label, (long long)((now - t->last_rx) / 1000),
		    t->alive_interval, t->alive_count_max);
		return CLAW_ERR_TIMEOUT;
	}
	rc = libssh2_keepalive_send(t->session, &secs);
	if (rc != 0 && rc != LIBSSH2_ERROR_EAGAIN) {
		*cause = xasprintf("%s: keepalive failed", t->label);
		return CLAW_ERR_PROTO;
	}
	*next_ms = secs > 0 ? secs * 1000 : 1000;
	if (t->last_rx + limit - now < *next_ms)
		*next_ms = (int)(t->last_rx + limit - now) + 1;
	return 0;
}


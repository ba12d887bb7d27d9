/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The MCP Streamable HTTP transport's server: where it listens (loopback
 * or a Unix socket only), its bearer token, and the one poll loop that
 * steps every connection and the MCP server behind them; see mcp_http.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "clock.h"
#include "compat.h"
#include "error.h"
#include "log.h"
#include "mcp_http_int.h"
#include "num.h"
#include "signals.h"
#include "xmalloc.h"

#define MH_SWEEP_MS	60000	/* how often expired sessions are looked for */

/* Where to listen: a TCP address on loopback, or a Unix socket path. */
struct mh_addr {
	struct sockaddr_storage	ss;
	socklen_t		len;
	const char		*path;	/* the Unix socket, or NULL */
};

/* The Unix socket path of a --listen value, or NULL. */
static const char *
mh_unix_path(const char *listen)
{
	if (strncmp(listen, "unix:", 5) == 0)
		return listen + 5;
	return listen[0] == '/' ? listen : NULL;
}

/* A Unix socket address; 0 or CLAW_ERR_INVAL. */
static int
mh_addr_unix(const char *path, struct mh_addr *a, char **cause)
{
	struct sockaddr_un	*sun = (struct sockaddr_un *)&a->ss;

	if (path[0] != '/' || strlen(path) >= sizeof sun->sun_path)
		return claw_fail(cause, CLAW_ERR_INVAL, "--listen unix:%s: an "
		    "absolute path under %zu bytes expected", path,
		    sizeof sun->sun_path);
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, strlen(path) + 1);
	a->len = sizeof *sun;
	a->path = path;
	return 0;
}

/* HOST:PORT (HOST loopback) into a; 0 or CLAW_ERR_INVAL. */
static int
mh_addr_tcp(const char *listen, struct mh_addr *a, char **cause)
{
	struct sockaddr_in	*in4 = (struct sockaddr_in *)&a->ss;
	struct sockaddr_in6	*in6 = (struct sockaddr_in6 *)&a->ss;
	const char		*colon = strrchr(listen, ':');
	char			 host[64];
	size_t			 n;
	uint64_t		 port;

	if (colon == NULL || (n = (size_t)(colon - listen)) >= sizeof host ||
	    num_parse_str(colon + 1, 0, 65535, &port) != 0)
		return claw_fail(cause, CLAW_ERR_INVAL, "--listen %s: "
		    "HOST:PORT or unix:PATH expected", listen);
	memcpy(host, listen, n);
	host[n] = '\0';
	if (strcmp(host, "[::1]") == 0) {
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_loopback;
		in6->sin6_port = htons((uint16_t)port);
		a->len = sizeof *in6;
		return 0;
	}
	in4->sin_family = AF_INET;
	in4->sin_port = htons((uint16_t)port);
	a->len = sizeof *in4;
	if (strcmp(host, "localhost") == 0)
		strlcpy(host, "127.0.0.1", sizeof host);
	if (inet_pton(AF_INET, host, &in4->sin_addr) != 1 ||
	    (ntohl(in4->sin_addr.s_addr) >> 24) != 127)
		return claw_fail(cause, CLAW_ERR_INVAL, "--listen %s: only "
		    "loopback (127.0.0.0/8, [::1], localhost) or a Unix "
		    "socket", listen);
	return 0;
}

/* Parse a --listen value into a. */
static int
mh_addr_parse(const char *listen, struct mh_addr *a, char **cause)
{
	const char	*path = mh_unix_path(listen);

	memset(a, 0, sizeof *a);
	if (path != NULL)
		return mh_addr_unix(path, a, cause);
	return mh_addr_tcp(listen, a, cause);
}

/* Check a --listen value; see mcp_http.h. */
int
mcp_http_listen_ok(const char *listen, char **cause)
{
	struct mh_addr	a;

	return mh_addr_parse(listen, &a, cause);
}

/* 1 if a Unix socket at path is left over (nothing answers there). */
static int
mh_unix_stale(const struct mh_addr *a)
{
	struct stat	st;
	int		fd, stale;

	if (lstat(a->path, &st) != 0 || !S_ISSOCK(st.st_mode))
		return 0;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return 0;
	stale = connect(fd, (const struct sockaddr *)&a->ss, a->len) == -1 &&
	    errno == ECONNREFUSED;
	close(fd);
	return stale;
}

/* Bind a (a Unix socket: mode 0600, a stale one replaced). */
static int
mh_bind(int fd, const struct mh_addr *a)
{
	mode_t	old;
	int	rc, one = 1;

	if (a->path == NULL) {
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof one);
		return bind(fd, (const struct sockaddr *)&a->ss, a->len);
	}
	old = umask(077);
	rc = bind(fd, (const struct sockaddr *)&a->ss, a->len);
	if (rc == -1 && errno == EADDRINUSE && mh_unix_stale(a) &&
	    unlink(a->path) == 0)
		rc = bind(fd, (const struct sockaddr *)&a->ss, a->len);
	umask(old);
	return rc;
}

/* The URL clients use, from the address bound. */
static char *
mh_url(int fd, const struct mh_addr *a)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof ss;
	char			 host[INET6_ADDRSTRLEN];

	if (a->path != NULL)
		return xstrdup("http://localhost/mcp");
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return NULL;
	if (ss.ss_family == AF_INET6)
		return xasprintf("http://[::1]:%u/mcp", (unsigned)ntohs(
		    ((struct sockaddr_in6 *)&ss)->sin6_port));
	inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host,
	    sizeof host);
	return xasprintf("http://%s:%u/mcp", host, (unsigned)ntohs(
	    ((struct sockaddr_in *)&ss)->sin_port));
}

/* Listen where s->o says; 0 or a CLAW_ERR_* with *cause. */
static int
mh_listen(struct mcp_http *s, char **cause)
{
	struct mh_addr	a;
	int		rc;

	if ((rc = mh_addr_parse(s->o->listen, &a, cause)) != 0)
		return rc;
	s->lfd = socket(a.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (s->lfd == -1)
		return claw_fail_errno(cause, s->o->listen, "socket");
	if (mh_bind(s->lfd, &a) != 0)
		return claw_fail_errno(cause, s->o->listen, "bind");
	s->path = a.path != NULL ? xstrdup(a.path) : NULL;
	if (listen(s->lfd, 128) != 0)
		return claw_fail_errno(cause, s->o->listen, "listen");
	if ((s->url = mh_url(s->lfd, &a)) == NULL)
		return claw_fail_errno(cause, s->o->listen, "getsockname");
	return 0;
}

/* Say where we listen: one JSON line on stdout. */
static void
mh_ready(const struct mcp_http *s)
{
	cJSON	*o = cJSON_CreateObject();
	char	*line;

	cJSON_AddStringToObject(o, "url", s->url);
	if (s->path != NULL)
		cJSON_AddStringToObject(o, "socket", s->path);
	if (s->o->token_file != NULL)
		cJSON_AddStringToObject(o, "tokenFile", s->o->token_file);
	if ((line = cJSON_PrintUnformatted(o)) == NULL)
		abort();
	printf("%s\n", line);
	fflush(stdout);
	cJSON_free(line);
	cJSON_Delete(o);
	log_info("mcp http: serving %s", s->url);
}

/* Take every waiting connection (over the cap: 503 and closed). */
static void
mh_accept(struct mcp_http *s)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
	    "Content-Length: 0\r\nConnection: close\r\n\r\n";
	struct mh_conn	*c;
	int		 fd, one = 1;

	while ((fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK |
	    SOCK_CLOEXEC)) != -1) {
		if (s->nconns >= MH_CONNS_MAX) {
			(void)!write(fd, busy, sizeof busy - 1);
			close(fd);
			continue;
		}
		if (s->path == NULL)
			(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
			    sizeof one);
		c = mh_conn_new(s, fd);
		TAILQ_INSERT_TAIL(&s->conns, c, entry);
		s->nconns++;
	}
}

/* The poll events c waits for. */
static short
mh_conn_events(const struct mh_conn *c)
{
	short	ev = 0;

	if (c->state != MH_WRITE && c->in.len < HTTP_HEAD_MAX +
	    c->s->max_body)
		ev |= POLLIN;
	if (c->out.len > 0)
		ev |= POLLOUT;
	return ev;
}

/* Fill pfd for one turn; returns how many; conns[i] for pfd[3 + i]. */
static size_t
mh_poll_fill(struct mcp_http *s, struct pollfd *pfd, struct mh_conn **conns)
{
	struct mh_conn	*c;
	size_t		 n = 3;

	pfd[0].fd = signals_fd();
	pfd[0].events = POLLIN;
	pfd[1].fd = s->lfd;
	pfd[1].events = POLLIN;
	pfd[2].fd = s->child.pid != 0 ? s->child.out : -1;
	pfd[2].events = POLLIN;
	TAILQ_FOREACH(c, &s->conns, entry) {
		pfd[n].fd = c->fd;
		pfd[n].events = mh_conn_events(c);
		pfd[n].revents = 0;
		conns[n++ - 3] = c;
	}
	pfd[n].fd = s->child.pid != 0 && s->child.wbuf.len > 0 ?
	    s->child.in : -1;
	pfd[n].events = POLLOUT;
	return n + 1;
}

/* The poll timeout: the nearest deadline of a connection or the sweep. */
static int
mh_poll_timeout(struct mcp_http *s, int64_t sweep)
{
	struct mh_conn	*c;
	int64_t		 d = sweep;

	TAILQ_FOREACH(c, &s->conns, entry) {
		if (c->again)
			return 0;
		d = clock_min(d, mh_conn_deadline(c));
	}
	return clock_poll_timeout(d);
}

/* After a turn: time out, step and free connections. */
static void
mh_conns_after(struct mcp_http *s)
{
	struct mh_conn	*c, *next;
	int64_t		 now = clock_now_ms();

	for (c = TAILQ_FIRST(&s->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (!c->dead)
			mh_conn_timeout(c, now);
		if (c->again && !c->dead) {
			c->again = 0;
			mh_conn_step(c);
		}
		if (c->dead) {
			TAILQ_REMOVE(&s->conns, c, entry);
			s->nconns--;
			mh_conn_free(c);
		}
	}
}

/* One turn of the loop: 0, or 1 when a signal says stop. */
static int
mh_turn(struct mcp_http *s, struct pollfd *pfd, struct mh_conn **conns,
    int64_t *sweep)
{
	size_t	n, i;

	n = mh_poll_fill(s, pfd, conns);
	if (poll(pfd, n, mh_poll_timeout(s, *sweep)) == -1 && errno != EINTR)
		log_warn("mcp http: poll: %s", strerror(errno));
	if ((pfd[0].revents & POLLIN) && signals_take() != 0)
		return 1;
	if (pfd[1].revents & POLLIN)
		mh_accept(s);
	if (pfd[n - 1].revents != 0)
		mh_route_child_write(s);
	if (pfd[2].revents != 0 && s->child.pid != 0)
		mh_route_child_read(s);
	for (i = 3; i < n - 1; i++) {
		if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR) &&
		    conns[i - 3]->state != MH_WRITE)
			mh_conn_read(conns[i - 3]);
		if (pfd[i].revents & (POLLOUT | POLLHUP | POLLERR))
			mh_conn_flush(conns[i - 3]);
	}
	mh_conns_after(s);
	if (clock_now_ms() >= *sweep) {
		mh_route_sweep(s, clock_now_ms());
		*sweep = clock_now_ms() + MH_SWEEP_MS;
	}
	return 0;
}

/* Free what s holds. */
static void
mh_done(struct mcp_http *s)
{
	struct mh_conn	*c;

	mh_route_stop(s);
	while ((c = TAILQ_FIRST(&s->conns)) != NULL) {
		TAILQ_REMOVE(&s->conns, c, entry);
		mh_conn_free(c);
	}
	if (s->lfd != -1)
		close(s->lfd);
	if (s->path != NULL)
		(void)unlink(s->path);
	free(s->path);
	free(s->url);
}

/* Serve until a signal; see mcp_http.h. */
int
mcp_http_run(const struct mcp_http_opts *o, char **cause)
{
	struct mcp_http	  s;
	struct pollfd	  pfd[MH_CONNS_MAX + 4];
	struct mh_conn	 *conns[MH_CONNS_MAX];
	int64_t		  sweep = clock_now_ms() + MH_SWEEP_MS;
	int		  rc;

	memset(&s, 0, sizeof s);
	s.o = o;
	s.lfd = s.child.in = s.child.out = -1;
	s.max_body = o->max_body != 0 ? o->max_body : MCP_HTTP_BODY_DEFAULT;
	TAILQ_INIT(&s.conns);
	TAILQ_INIT(&s.sessions);
	TAILQ_INIT(&s.pendings);
	if (signals_init() != 0)
		rc = claw_fail(cause, CLAW_ERR_IO, "cannot install signal "
		    "handlers");
	else if ((rc = mh_listen(&s, cause)) == 0) {
		mh_ready(&s);
		while (mh_turn(&s, pfd, conns, &sweep) == 0)
			;
		log_info("mcp http: stopping");
	}
	mh_done(&s);
	return rc;
}

/* Make a new token and write it to path (created, 0600). */
static int
mh_token_new(const char *path, char **token, char **cause)
{
	unsigned char	raw[32];
	char		hex[2 * sizeof raw + 2];
	size_t		i;
	int		fd;

	if (RAND_bytes(raw, sizeof raw) != 1)
		return claw_fail(cause, CLAW_ERR_IO, "no random bytes for a "
		    "token");
	for (i = 0; i < sizeof raw; i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	explicit_bzero(raw, sizeof raw);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1)
		return claw_fail_errno(cause, path, "create");
	hex[2 * sizeof raw] = '\n';
	if (write(fd, hex, sizeof hex - 1) != (ssize_t)(sizeof hex - 1) ||
	    close(fd) != 0) {
		explicit_bzero(hex, sizeof hex);
		(void)unlink(path);
		return claw_fail_errno(cause, path, "write");
	}
	*token = xstrndup(hex, 2 * sizeof raw);
	explicit_bzero(hex, sizeof hex);
	return 0;
}

/* Read the token in fd's first line (visible ASCII, long enough). */
static int
mh_token_read(int fd, const char *path, char **token, char **cause)
{
	char	buf[1024];
	ssize_t	n;
	size_t	len;
	int	rc = 0;

	if ((n = read(fd, buf, sizeof buf - 1)) < 0)
		return claw_fail_errno(cause, path, "read");
	buf[n] = '\0';
	len = strcspn(buf, "\r\n");
	buf[len] = '\0';
	if (len < MCP_HTTP_TOKEN_MIN || len == sizeof buf - 1)
		rc = claw_fail(cause, CLAW_ERR_INVAL, "%s: the token must be "
		    "one line of %d to %zu characters", path,
		    MCP_HTTP_TOKEN_MIN, sizeof buf - 2);
	else if (strspn(buf, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
	    "vwxyz0123456789-._~+/=") != len)
		rc = claw_fail(cause, CLAW_ERR_INVAL, "%s: the token may hold "
		    "only letters, digits and -._~+/=", path);
	else
		*token = xstrdup(buf);
	explicit_bzero(buf, sizeof buf);
	return rc;
}

/* The bearer token; see mcp_http.h. */
int
mcp_http_token(const char *path, char **token, char **cause)
{
	struct stat	st;
	int		fd, rc;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return mh_token_new(path, token, cause);
		return claw_fail_errno(cause, path, "open");
	}
	if (fstat(fd, &st) != 0)
		rc = claw_fail_errno(cause, path, "stat");
	else if (!S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077) != 0)
		rc = claw_fail(cause, CLAW_ERR_PERM, "%s: a token file must "
		    "be a regular file of yours that only you can read "
		    "(chmod 600)", path);
	else
		rc = mh_token_read(fd, path, token, cause);
	close(fd);
	return rc;
}

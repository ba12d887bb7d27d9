/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A ProxyCommand relay for fault tests: "cut_relay HOST PORT" forwards
 * stdin to a TCP connection to HOST:PORT and the connection to stdout,
 * and cuts it after a number of bytes.  The environment says when:
 *
 *   CUT_AFTER=N        cut once N bytes went through (in CUT_DIR)
 *   CUT_SEED=S         no CUT_AFTER: N is drawn from a PRNG seeded with S,
 *                      uniformly in [CUT_MIN, CUT_MAX] (0, 1048576)
 *   CUT_DIR=up|down|both  count bytes client->server, server->client,
 *                      or both (the default)
 *   CUT_MODE=close|hang   close: both ends closed at once (the default);
 *                      hang: nothing more is forwarded but every
 *                      descriptor stays open (a black hole) until the
 *                      client closes its end or CUT_HANG_S seconds (60)
 *   CUT_LOG=FILE       append a line "cut DIR N" when it cut, and "end
 *                      DIR N" when the session ended first
 *   CUT_FILE=FILE      a cut ordered while the relay runs (a daemon's
 *                      pooled session): whenever FILE appears, the first
 *                      relay to see it (before moving bytes) takes it
 *                      (renames it away) and cuts "N [DIR [MODE]]" (its
 *                      one line) N bytes from then on
 *
 * Neither CUT_AFTER nor CUT_SEED: a plain relay.  The bytes counted are
 * the SSH stream's, handshake included.
 */
#include <sys/socket.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RELAY_CHUNK	16384

/* What the environment asked for. */
struct relay {
	uint64_t	 after;		/* UINT64_MAX: never cut */
	int		 up, down;	/* directions counted */
	int		 hang;
	int		 hang_s;
	const char	*log;
	const char	*dir;
	const char	*file;
	char		 fdir[8], fmode[8];
	uint64_t	 count;
};

/* Read a number from the environment, or def. */
static uint64_t
relay_env_num(const char *name, uint64_t def)
{
	const char	*s = getenv(name);
	char		*end;
	unsigned long long v;

	if (s == NULL || *s == '\0')
		return def;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0') {
		fprintf(stderr, "cut_relay: bad %s\n", name);
		exit(2);
	}
	return v;
}

/* splitmix64: a small seeded generator, the same on every machine. */
static uint64_t
relay_rand(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fill r from the environment. */
static void
relay_config(struct relay *r)
{
	const char	*dir = getenv("CUT_DIR"), *mode = getenv("CUT_MODE");
	uint64_t	 seed, lo, hi;

	memset(r, 0, sizeof *r);
	r->after = UINT64_MAX;
	if (getenv("CUT_AFTER") != NULL)
		r->after = relay_env_num("CUT_AFTER", 0);
	else if (getenv("CUT_SEED") != NULL) {
		seed = relay_env_num("CUT_SEED", 0);
		lo = relay_env_num("CUT_MIN", 0);
		hi = relay_env_num("CUT_MAX", 1048576);
		if (hi < lo)
			hi = lo;
		r->after = lo + relay_rand(&seed) % (hi - lo + 1);
	}
	r->dir = dir != NULL ? dir : "both";
	r->up = strcmp(r->dir, "down") != 0;
	r->down = strcmp(r->dir, "up") != 0;
	r->hang = mode != NULL && strcmp(mode, "hang") == 0;
	r->hang_s = (int)relay_env_num("CUT_HANG_S", 60);
	r->log = getenv("CUT_LOG");
	r->file = getenv("CUT_FILE");
}

/* Take an order from CUT_FILE, if one is there. */
static void
relay_order(struct relay *r)
{
	char			 taken[4096];
	unsigned long long	 n;
	FILE			*f;
	int			 k;

	if (r->file == NULL || access(r->file, F_OK) != 0)
		return;
	snprintf(taken, sizeof taken, "%s.taken.%ld", r->file,
	    (long)getpid());
	if (rename(r->file, taken) != 0 || (f = fopen(taken, "r")) == NULL)
		return;
	strcpy(r->fdir, "both");
	strcpy(r->fmode, "close");
	k = fscanf(f, "%llu %7s %7s", &n, r->fdir, r->fmode);
	fclose(f);
	unlink(taken);
	if (k < 1)
		return;
	r->after = r->count + n;
	r->dir = r->fdir;
	r->up = strcmp(r->dir, "down") != 0;
	r->down = strcmp(r->dir, "up") != 0;
	r->hang = strcmp(r->fmode, "hang") == 0;
}

/* Append one line to the log, if any. */
static void
relay_log(const struct relay *r, const char *what)
{
	FILE	*f;

	if (r->log == NULL || (f = fopen(r->log, "a")) == NULL)
		return;
	fprintf(f, "%s %s %llu\n", what, r->dir, (unsigned long long)r->after);
	fclose(f);
}

/* Connect to host:port (numeric IPv4). */
static int
relay_connect(const char *host, const char *port)
{
	struct sockaddr_in	sin;
	int			fd;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(port));
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1 ||
	    (fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Write all of buf, or return -1. */
static int
relay_write(int fd, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Move what one read gives from in to out, stopping at the cut.  Returns
 * 1 on a cut, -1 at the end of the stream, 0 otherwise.
 */
static int
relay_move(struct relay *r, int in, int out)
{
	char	buf[RELAY_CHUNK];
	ssize_t	n;
	size_t	len;
	int	cut = 0, counted;

	if ((n = read(in, buf, sizeof buf)) <= 0)
		return n == -1 && errno == EINTR ? 0 : -1;
	relay_order(r);
	counted = in == STDIN_FILENO ? r->up : r->down;
	len = (size_t)n;
	if (counted && r->count + len >= r->after) {
		len = (size_t)(r->after - r->count);
		cut = 1;
	}
	if (counted)
		r->count += len;
	if (len > 0 && relay_write(out, buf, len) == -1)
		return -1;
	return cut;
}

/* After a hang cut: keep everything open until stdin closes, or a while. */
static void
relay_hang(const struct relay *r)
{
	struct pollfd	pfd;
	char		buf[RELAY_CHUNK];
	time_t		end = time(NULL) + r->hang_s;

	pfd.fd = STDIN_FILENO;
	pfd.events = POLLIN;
	while (time(NULL) < end) {
		if (poll(&pfd, 1, 1000) == 1 &&
		    read(STDIN_FILENO, buf, sizeof buf) <= 0)
			break;
	}
}

int
main(int argc, char **argv)
{
	struct relay	r;
	struct pollfd	pfd[2];
	int		sock, rc = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: cut_relay HOST PORT\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	relay_config(&r);
	if ((sock = relay_connect(argv[1], argv[2])) == -1) {
		perror("cut_relay: connect");
		return 1;
	}
	pfd[0].fd = STDIN_FILENO;
	pfd[1].fd = sock;
	pfd[0].events = pfd[1].events = POLLIN;
	while (rc == 0) {
		if (poll(pfd, 2, -1) == -1 && errno != EINTR)
			break;
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
			rc = relay_move(&r, STDIN_FILENO, sock);
		if (rc == 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
			rc = relay_move(&r, sock, STDOUT_FILENO);
	}
	if (rc == 1) {
		relay_log(&r, "cut");
		if (r.hang)
			relay_hang(&r);
	} else
		relay_log(&r, "end");
	shutdown(sock, SHUT_RDWR);
	close(sock);
	return 0;
}

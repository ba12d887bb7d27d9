/*
 * The clawssh daemon: one per user, on a Unix socket only that user can
 * reach.  It holds warm SSH sessions (a small pool per host), runs the
 * channels clawssh commands ask for over the control socket (see
 * mux_proto.h), sends keepalives, reconnects with backoff when a host
 * drops, stops the remote commands of clients that go away, and exits
 * after a stretch of idleness.
 */
#ifndef CLAW_DAEMON_H
#define CLAW_DAEMON_H

#include <stdint.h>

#define DAEMON_IDLE_DEFAULT	600	/* seconds */
#define DAEMON_SESSIONS_DEFAULT	10	/* sshd's MaxSessions default */
#define DAEMON_CONNS_DEFAULT	4	/* sessions per host */

struct daemon_opts {
	const char	*socket_path;	/* where to listen */
	int		 idle_timeout;	/* seconds without clients; 0: never */
	int		 max_sessions;	/* channels per SSH session */
	int		 max_conns;	/* SSH sessions per host */
	int		 ready_fd;	/* write one byte when listening, or -1 */
};

/*
 * Listen on o->socket_path (refusing if a live daemon is there, replacing
 * a stale socket) and serve until idle, SIGTERM, SIGINT or SIGHUP.
 * Returns 0, or a negative CLAW_ERR_* with *cause when it could not start.
 */
int	daemon_run(const struct daemon_opts *o, char **cause);

#endif /* CLAW_DAEMON_H */

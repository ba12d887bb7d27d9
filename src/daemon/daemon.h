/* SPDX-License-Identifier: BSD-2-Clause */
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

#include <stddef.h>
#include <stdint.h>

struct audit;
struct claw_policy;

#define DAEMON_IDLE_DEFAULT	600	/* seconds */
#define DAEMON_SESSIONS_DEFAULT	10	/* sshd's MaxSessions default */
#define DAEMON_CONNS_DEFAULT	4	/* sessions per host */
#define DAEMON_LINE_DEFAULT	(16 * 1024 * 1024) /* JSON-RPC line cap */
#define DAEMON_WORKERS_DEFAULT	64	/* tool calls running at once */

enum daemon_stdio {
	DAEMON_STDIO_NONE = 0,
	DAEMON_STDIO_RPC,	/* JSON-RPC on stdin/stdout too */
	DAEMON_STDIO_MCP	/* MCP on stdin/stdout */
};

struct daemon_opts {
	const char	*socket_path;	/* where to listen */
	int		 idle_timeout;	/* seconds without clients; 0: never */
	int		 max_sessions;	/* channels per SSH session */
	int		 max_conns;	/* SSH sessions per host */
	int		 ready_fd;	/* write one byte when listening, or -1 */
	const struct claw_policy *policy; /* tool calls; NULL: allow */
	struct audit	*audit;		/* NULL: no audit log */
	size_t		 max_line;	/* JSON-RPC line cap; 0: default */
	int		 max_workers;	/* tool calls at once; 0: default */
	enum daemon_stdio stdio;	/* serve stdin/stdout and end with it */
	const char	*agent;		/* stdio: the caller's agent name */
	const char	*sandbox;	/* MCP: the sandbox tools act on */
	size_t		 mcp_max_result; /* MCP: result cap; 0: default */
};

/*
 * Listen on o->socket_path (refusing if a live daemon is there, replacing
 * a stale socket) and serve until idle, SIGTERM, SIGINT or SIGHUP, or with
 * o->stdio until stdin ends and its calls are answered.
 * Returns 0, or a negative CLAW_ERR_* with *cause when it could not start.
 */
int	daemon_run(const struct daemon_opts *o, char **cause);

#endif /* CLAW_DAEMON_H */

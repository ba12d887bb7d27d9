/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MCP over the Streamable HTTP transport (MCP 2025-06-18): one endpoint,
 * /mcp, on loopback TCP or a Unix socket, behind a bearer token.  Each
 * JSON-RPC message POSTed there goes to one stdio MCP server (`clawssh
 * serve --mcp`, run as a child) under an id of our own, and its answer
 * comes back as application/json, or as text/event-stream when progress
 * notifications arrive first.  Sessions (Mcp-Session-Id) start at
 * initialize and end by DELETE or after an hour unused.  See
 * docs/protocol.md.
 */
#ifndef CLAW_MCP_HTTP_H
#define CLAW_MCP_HTTP_H

#include <stddef.h>

#define MCP_HTTP_BODY_DEFAULT	(16 * 1024 * 1024)
#define MCP_HTTP_BODY_MIN	4096
#define MCP_HTTP_BODY_MAX	(256 * 1024 * 1024)
#define MCP_HTTP_TOKEN_MIN	16	/* characters of a token file's */

struct mcp_http_opts {
	const char	*listen;	/* HOST:PORT on loopback, or unix:PATH
					   or /PATH (see mcp_http_listen) */
	const char	*token;		/* the bearer token */
	const char	*token_file;	/* where it is, for the ready line */
	size_t		 max_body;	/* 0: MCP_HTTP_BODY_DEFAULT */
	size_t		 max_line;	/* cap on the child's lines; 0: 16 MiB */
	char *const	*child_argv;	/* the stdio MCP server, NULL-ended;
					   run as /proc/self/exe */
};

/*
 * Listen, print one JSON line on stdout ({"url", "tokenFile"}, and
 * "socket" for a Unix socket) once ready, and serve until SIGINT, SIGTERM
 * or SIGHUP.  0, or a CLAW_ERR_* with *cause (allocated) when it could
 * not start.
 */
int	mcp_http_run(const struct mcp_http_opts *, char **cause);

/*
 * Check a --listen value: 0, or CLAW_ERR_INVAL with *cause saying why
 * (only 127.0.0.0/8, [::1] and localhost, with a port from 0 to 65535;
 * or a Unix socket path).
 */
int	mcp_http_listen_ok(const char *listen, char **cause);

/*
 * The bearer token: read from path when it exists (the first line; the
 * file must be the user's and not readable by others), else a new
 * random one written there (mode 0600, created, never overwritten).  0
 * with *token (allocated; wipe before free), or a CLAW_ERR_* with *cause.
 */
int	mcp_http_token(const char *path, char **token, char **cause);

#endif /* CLAW_MCP_HTTP_H */

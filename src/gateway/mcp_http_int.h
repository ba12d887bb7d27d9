/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the MCP HTTP transport: connections (mcp_http.c, mcp_http_conn.c)
 * and the routing of messages between them, the sessions and the stdio
 * MCP server behind them (mcp_http_route.c).  One thread, one poll loop.
 */
#ifndef CLAW_MCP_HTTP_INT_H
#define CLAW_MCP_HTTP_INT_H

#include <sys/queue.h>
#include <sys/types.h>

#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "http_msg.h"
#include "jsonrpc.h"
#include "mcp_http.h"

#define MH_CONNS_MAX		256
#define MH_SESSIONS_MAX		1024
#define MH_SESSION_IDLE_MS	(3600 * 1000)	/* a session unused this long
						   ends */
#define MH_HEAD_MS		10000	/* from a head's first byte to its end */
#define MH_BODY_MS		60000	/* for the whole body */
#define MH_IDLE_MS		60000	/* a kept-alive connection's wait */
#define MH_WRITE_MS		60000	/* a write that makes no progress */
#define MH_OUT_MAX		(64 * 1024 * 1024) /* unsent output kept */
#define MH_SID_LEN		32	/* hex characters of a session id */

enum mh_state {
	MH_HEAD,		/* reading a request head */
	MH_BODY,		/* reading its body */
	MH_WAIT,		/* waiting for the MCP server's answer */
	MH_WRITE		/* sending a whole response, then MH_HEAD */
};

struct mh_pending;

struct mh_conn {
	TAILQ_ENTRY(mh_conn)	 entry;
	struct mcp_http		*s;
	int			 fd;
	enum mh_state		 state;
	struct buf		 in;
	struct buf		 out;
	struct http_req		 req;	/* the request being served */
	size_t			 body;	/* its Content-Length */
	int64_t			 deadline;
	int64_t			 wrote;	/* the last write that moved */
	int			 close;	/* close once out is sent */
	int			 sse;	/* a text/event-stream response is open */
	int			 dead;	/* to be freed */
	int			 again;	/* holds bytes of a next request */
	struct mh_pending	*pending;
};

struct mh_session {
	TAILQ_ENTRY(mh_session)	 entry;
	char			 id[MH_SID_LEN + 1];
	int64_t			 used;
	int			 npending;
};

struct mh_pending {
	TAILQ_ENTRY(mh_pending)	 entry;
	char			 key[32];	/* our id, and progress token */
	cJSON			*id;		/* the client's id */
	cJSON			*token;		/* its progressToken, or NULL */
	struct mh_session	*sess;		/* NULL for initialize */
	struct mh_conn		*conn;		/* NULL once the client left */
	int			 sse_ok;	/* it takes text/event-stream */
	int			 json_ok;	/* it takes application/json */
	int			 initialize;	/* an initialize request */
};

struct mh_child {
	pid_t			 pid;		/* 0: not running */
	int			 in;		/* its stdin */
	int			 out;		/* its stdout */
	struct buf		 wbuf;		/* lines to write */
	struct jsonrpc_framer	*framer;
};

struct mcp_http {
	const struct mcp_http_opts *o;
	int			 lfd;
	int			 unix_sock;
	char			*url;
	char			*path;		/* the Unix socket, or NULL */
	size_t			 max_body;
	uint64_t		 seq;		/* our next request id */
	struct mh_child		 child;
	TAILQ_HEAD(, mh_conn)	 conns;
	size_t			 nconns;
	TAILQ_HEAD(, mh_session) sessions;
	size_t			 nsessions;
	TAILQ_HEAD(, mh_pending) pendings;
};

/* mcp_http_conn.c: one connection's HTTP. */
struct mh_conn *mh_conn_new(struct mcp_http *, int fd);
void	mh_conn_free(struct mh_conn *);
void	mh_conn_read(struct mh_conn *);
void	mh_conn_step(struct mh_conn *);
int64_t	mh_conn_deadline(const struct mh_conn *);
void	mh_conn_flush(struct mh_conn *);
void	mh_conn_timeout(struct mh_conn *, int64_t now);
/* A whole response; body may be NULL; extra: more header lines. */
void	mh_conn_respond(struct mh_conn *, int status, const char *type,
	    const char *body, size_t len, const char *extra);
/* An error response with a JSON-RPC error body (id null). */
void	mh_conn_error(struct mh_conn *, int status, int code,
	    const char *msg);
/* Open a text/event-stream response (once); extra: more headers. */
void	mh_conn_event_open(struct mh_conn *, const char *extra);
/* Open it if need be, then send one message (a JSON line). */
void	mh_conn_event(struct mh_conn *, const char *json, const char *extra);
/* End an open event stream. */
void	mh_conn_event_end(struct mh_conn *);

/* mcp_http_route.c: messages, sessions and the MCP server. */
void	mh_route_post(struct mh_conn *, const char *body, size_t len);
void	mh_route_delete(struct mh_conn *);
void	mh_route_child_read(struct mcp_http *);
void	mh_route_child_write(struct mcp_http *);
void	mh_route_conn_gone(struct mh_conn *);
void	mh_route_sweep(struct mcp_http *, int64_t now);
void	mh_route_stop(struct mcp_http *);
struct mh_session *mh_session_find(struct mcp_http *, const char *id);
void	mh_session_end(struct mcp_http *, struct mh_session *);

#endif /* CLAW_MCP_HTTP_INT_H */

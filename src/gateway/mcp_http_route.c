/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The MCP messages of the HTTP transport: sessions, and one stdio MCP
 * server (`clawssh serve --mcp`) behind every session.  Each request goes
 * to it under an id of ours ("h1", "h2", ...) that is also its progress
 * token, so that answers and progress notifications find their HTTP
 * request, whichever session sent it; the client's id and token are put
 * back on the way out.  A cancellation is passed on under our id.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "clock.h"
#include "error.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp_http_int.h"
#include "spawn.h"
#include "xmalloc.h"

/* The MCP versions a request's MCP-Protocol-Version may name. */
static const char *const mh_versions[] = {
	"2025-06-18", "2025-03-26", "2024-11-05"
};

/*
 * Start the stdio MCP server; 0, or errno's code (logged, but for a
 * failure of the first pipe).
 */
static int
mh_child_start(struct mcp_http *s)
{
	int	in[2], out[2], err;
	pid_t	pid;

	if (pipe2(in, O_CLOEXEC) == -1)
		return claw_err_from_errno(errno);
	if (pipe2(out, O_CLOEXEC) == -1 || (pid = fork()) == -1) {
		err = errno;
		log_error("mcp http: cannot start the MCP server: %s",
		    strerror(err));
		close(in[0]);
		close(in[1]);
		return claw_err_from_errno(err);
	}
	if (pid == 0) {
		if (dup2(in[0], 0) == -1 || dup2(out[1], 1) == -1)
			_exit(127);
		spawn_child_setup();
		execv("/proc/self/exe", s->o->child_argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	(void)fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
	(void)fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
	s->child.pid = pid;
	s->child.in = in[1];
	s->child.out = out[0];
	s->child.framer = jsonrpc_framer_new(s->o->max_line);
	log_info("mcp http: MCP server started (pid %ld)", (long)pid);
	return 0;
}

/*
 * Send one message (one line of JSON) to the MCP server; 0, or
 * mh_child_start's code.
 */
static int
mh_child_send(struct mcp_http *s, const char *line)
{
	size_t	n = strlen(line);
	int	rc;

	if (s->child.pid == 0 && (rc = mh_child_start(s)) != 0)
		return rc;
	buf_append(&s->child.wbuf, line, n);
	if (n == 0 || line[n - 1] != '\n')
		buf_append(&s->child.wbuf, "\n", 1);
	mh_route_child_write(s);
	return 0;
}

/* Write what the MCP server has waiting, as far as its pipe takes it. */
void
mh_route_child_write(struct mcp_http *s)
{
	ssize_t	n;

	while (s->child.pid != 0 && s->child.in != -1 &&
	    s->child.wbuf.len > 0) {
		n = write(s->child.in, s->child.wbuf.data, s->child.wbuf.len);
		if (n > 0)
			buf_consume(&s->child.wbuf, (size_t)n);
		else if (n == -1 && errno == EINTR)
			continue;
		else if (n == -1 && errno == EAGAIN)
			break;
		else {
			buf_reset(&s->child.wbuf);	/* it ended: see read */
			break;
		}
	}
}

/* Forget p (its connection, if any, was answered or left). */
static void
mh_pending_free(struct mcp_http *s, struct mh_pending *p)
{
	TAILQ_REMOVE(&s->pendings, p, entry);
	if (p->sess != NULL)
		p->sess->npending--;
	if (p->conn != NULL)
		p->conn->pending = NULL;
	cJSON_Delete(p->id);
	cJSON_Delete(p->token);
	free(p);
}

/* Answer p's connection with json (a response line) and forget p. */
static void
mh_pending_answer(struct mcp_http *s, struct mh_pending *p,
    const char *json, const char *extra)
{
	struct mh_conn	*c = p->conn;

	if (c != NULL && !c->dead) {
		if (c->sse || (!p->json_ok && p->sse_ok)) {
			mh_conn_event(c, json, extra);
			mh_conn_event_end(c);
		} else
			mh_conn_respond(c, 200, "application/json", json,
			    strlen(json), extra);
	}
	mh_pending_free(s, p);
}

/* End p without the MCP server's answer: an error, or an empty stream. */
static void
mh_pending_abort(struct mcp_http *s, struct mh_pending *p, int code,
    const char *msg)
{
	struct mh_conn	*c = p->conn;
	char		*line;

	if (c != NULL && !c->dead && (c->sse || p->sse_ok) &&
	    code == JSONRPC_CANCELLED) {
		if (!c->sse)
			mh_conn_event_open(c, NULL);
		mh_conn_event_end(c);	/* a cancelled call gets no answer */
		mh_pending_free(s, p);
		return;
	}
	line = jsonrpc_error(p->id, code, msg, NULL);
	mh_pending_answer(s, p, line, NULL);
	free(line);
}

/* The MCP server ended: reap it and fail every call it had. */
static void
mh_child_end(struct mcp_http *s)
{
	struct mh_pending	*p;
	char			*why, *msg;
	int			 status;

	close(s->child.in);
	close(s->child.out);
	status = spawn_reap(s->child.pid, 2000);
	why = status == -1 ? xstrdup("could not be reaped") :
	    spawn_status_text(status);
	log_warn("mcp http: the MCP server (pid %ld) %s",
	    (long)s->child.pid, why);
	msg = xasprintf("the MCP server (clawssh serve --mcp) %s; the next "
	    "request starts a new one", why);
	while ((p = TAILQ_FIRST(&s->pendings)) != NULL)
		mh_pending_abort(s, p, JSONRPC_INTERNAL_ERROR, msg);
	free(msg);
	free(why);
	jsonrpc_framer_free(s->child.framer);
	buf_free(&s->child.wbuf);
	memset(&s->child, 0, sizeof s->child);
	s->child.in = s->child.out = -1;
}

/* The pending call whose key is key, or NULL. */
static struct mh_pending *
mh_pending_find(struct mcp_http *s, const cJSON *key)
{
	struct mh_pending	*p;

	if (!cJSON_IsString(key))
		return NULL;
	TAILQ_FOREACH(p, &s->pendings, entry)
		if (strcmp(p->key, key->valuestring) == 0)
			return p;
	return NULL;
}

/* A session for a successful initialize (allocated, listed). */
static struct mh_session *
mh_session_new(struct mcp_http *s)
{
	struct mh_session	*se, *old = NULL;
	unsigned char		 raw[MH_SID_LEN / 2];
	size_t			 i;

	if (RAND_bytes(raw, sizeof raw) != 1)
		return NULL;
	if (s->nsessions >= MH_SESSIONS_MAX) {
		TAILQ_FOREACH(se, &s->sessions, entry)	/* the least used */
			if (se->npending == 0 && (old == NULL ||
			    se->used < old->used))
				old = se;
		if (old == NULL)
			return NULL;
		mh_session_end(s, old);
	}
	se = xcalloc(1, sizeof *se);
	for (i = 0; i < sizeof raw; i++)
		snprintf(se->id + 2 * i, 3, "%02x", raw[i]);
	se->used = clock_now_ms();
	TAILQ_INSERT_TAIL(&s->sessions, se, entry);
	s->nsessions++;
	log_info("mcp http: session %.8s... started", se->id);
	return se;
}

/* An answer from the MCP server: to the request it belongs to. */
static void
mh_route_answer(struct mcp_http *s, cJSON *o)
{
	struct mh_pending	*p;
	struct mh_session	*se;
	char			*line, *extra = NULL;

	if ((p = mh_pending_find(s, cJSON_GetObjectItemCaseSensitive(o,
	    "id"))) == NULL)
		return;		/* cancelled, or its session ended */
	cJSON_ReplaceItemInObjectCaseSensitive(o, "id",
	    cJSON_Duplicate(p->id, 1));
	if (p->initialize && cJSON_GetObjectItemCaseSensitive(o,
	    "result") != NULL) {
		if ((se = mh_session_new(s)) == NULL) {
			mh_pending_abort(s, p, JSONRPC_OVERLOADED, "no room "
			    "for another session (all are busy)");
			return;
		}
		extra = xasprintf("Mcp-Session-Id: %s\r\n", se->id);
	}
	if ((line = cJSON_PrintUnformatted(o)) == NULL)
		abort();
	mh_pending_answer(s, p, line, extra);
	cJSON_free(line);
	free(extra);
}

/* A progress notification: to the event stream of its request. */
static void
mh_route_progress(struct mcp_http *s, cJSON *o)
{
	cJSON			*params;
	struct mh_pending	*p;
	char			*line;

	params = cJSON_GetObjectItemCaseSensitive(o, "params");
	p = mh_pending_find(s, cJSON_GetObjectItemCaseSensitive(params,
	    "progressToken"));
	if (p == NULL || p->token == NULL || p->conn == NULL ||
	    p->conn->dead || !p->sse_ok)
		return;		/* nowhere it can go */
	cJSON_ReplaceItemInObjectCaseSensitive(params, "progressToken",
	    cJSON_Duplicate(p->token, 1));
	if ((line = cJSON_PrintUnformatted(o)) == NULL)
		abort();
	mh_conn_event(p->conn, line, NULL);
	cJSON_free(line);
}

/* One line from the MCP server. */
static void
mh_route_line(struct mcp_http *s, const char *line, size_t len)
{
	cJSON		*o = cJSON_ParseWithLength(line, len);
	const cJSON	*m;

	m = cJSON_GetObjectItemCaseSensitive(o, "method");
	if (!cJSON_IsObject(o))
		log_warn("mcp http: the MCP server sent something not JSON");
	else if (m == NULL)
		mh_route_answer(s, o);
	else if (cJSON_IsString(m) && strcmp(m->valuestring,
	    "notifications/progress") == 0)
		mh_route_progress(s, o);
	else
		log_debug("mcp http: dropped a server message (no stream "
		    "to send it on)");
	cJSON_Delete(o);
}

/* Read what the MCP server said; its end fails what it had. */
void
mh_route_child_read(struct mcp_http *s)
{
	char	buf[65536], *line;
	size_t	len;
	ssize_t	n;
	int	rc;

	for (;;) {
		n = read(s->child.out, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0) {
			mh_child_end(s);
			return;
		}
		jsonrpc_framer_feed(s->child.framer, buf, (size_t)n);
		while ((rc = jsonrpc_framer_next(s->child.framer, &line,
		    &len)) != 0) {
			if (rc < 0)
				log_warn("mcp http: a line of the MCP server "
				    "over its cap was dropped");
			else
				mh_route_line(s, line, len);
		}
	}
}

/* Tell the MCP server to cancel p, and end p's HTTP request. */
static void
mh_pending_cancel(struct mcp_http *s, struct mh_pending *p,
    const char *why)
{
	cJSON	*params = cJSON_CreateObject();
	char	*line;

	cJSON_AddStringToObject(params, "requestId", p->key);
	cJSON_AddStringToObject(params, "reason", why);
	line = jsonrpc_notification("notifications/cancelled", params);
	(void)mh_child_send(s, line);
	free(line);
	mh_pending_abort(s, p, JSONRPC_CANCELLED, why);
}

/* notifications/cancelled from a client: cancel that call of its. */
static void
mh_route_cancel(struct mcp_http *s, struct mh_session *se,
    const cJSON *params)
{
	const cJSON		*rid, *reason;
	struct mh_pending	*p;

	rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	reason = cJSON_GetObjectItemCaseSensitive(params, "reason");
	if (rid == NULL)
		return;
	TAILQ_FOREACH(p, &s->pendings, entry)
		if (p->sess == se && se != NULL && jsonrpc_id_is(p->id, rid))
			break;
	if (p != NULL)
		mh_pending_cancel(s, p, cJSON_IsString(reason) ?
		    reason->valuestring : "cancelled by the client");
}

/* End session se: cancel its calls and forget it. */
void
mh_session_end(struct mcp_http *s, struct mh_session *se)
{
	struct mh_pending	*p, *next;

	for (p = TAILQ_FIRST(&s->pendings); p != NULL; p = next) {
		next = TAILQ_NEXT(p, entry);
		if (p->sess == se)
			mh_pending_cancel(s, p, "the session ended");
	}
	TAILQ_REMOVE(&s->sessions, se, entry);
	s->nsessions--;
	log_info("mcp http: session %.8s... ended", se->id);
	free(se);
}

/* The session whose id is id, or NULL. */
struct mh_session *
mh_session_find(struct mcp_http *s, const char *id)
{
	struct mh_session	*se;

	if (id == NULL)
		return NULL;
	TAILQ_FOREACH(se, &s->sessions, entry)
		if (strcmp(se->id, id) == 0)
			return se;
	return NULL;
}

/* The MCP-Protocol-Version of a request is one we speak (or absent). */
static int
mh_version_ok(const char *v)
{
	size_t	i;

	if (v == NULL)
		return 1;
	for (i = 0; i < sizeof mh_versions / sizeof *mh_versions; i++)
		if (strcmp(v, mh_versions[i]) == 0)
			return 1;
	return 0;
}

/* Replace params._meta.progressToken by key; the client's, or NULL. */
static cJSON *
mh_take_token(cJSON *params, const char *key)
{
	cJSON	*meta, *tok;

	meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	tok = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
	if (tok == NULL)
		return NULL;
	tok = cJSON_DetachItemViaPointer(meta, tok);
	cJSON_AddStringToObject(meta, "progressToken", key);
	return tok;
}

/* A request from c: to the MCP server under our id. */
static void
mh_route_request(struct mh_conn *c, struct mh_session *se,
    struct jsonrpc_req *req)
{
	struct mcp_http		*s = c->s;
	const char		*accept = http_req_header(&c->req, "Accept");
	struct mh_pending	*p = xcalloc(1, sizeof *p);
	cJSON			*o;
	char			*line;

	snprintf(p->key, sizeof p->key, "h%llu",
	    (unsigned long long)++s->seq);
	p->id = req->id;
	req->id = NULL;
	p->token = mh_take_token(req->params, p->key);
	p->sess = se;
	p->conn = c;
	p->initialize = strcmp(req->method, "initialize") == 0;
	p->json_ok = http_accepts(accept, "application/json");
	p->sse_ok = http_accepts(accept, "text/event-stream") &&
	    c->req.minor == 1;
	if (se != NULL)
		se->npending++;
	c->pending = p;
	TAILQ_INSERT_TAIL(&s->pendings, p, entry);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddStringToObject(o, "id", p->key);
	cJSON_AddStringToObject(o, "method", req->method);
	if (req->params != NULL)
		cJSON_AddItemToObject(o, "params", req->params);
	req->params = NULL;
	line = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (line == NULL)
		abort();
	if (mh_child_send(s, line) != 0)
		mh_pending_abort(s, p, JSONRPC_INTERNAL_ERROR, "cannot start "
		    "the MCP server (clawssh serve --mcp)");
	cJSON_free(line);
}

/* A JSON-RPC response a client POSTed: we asked nothing, so 1 if o is
   one (it is accepted and dropped). */
static int
mh_is_response(const char *body, size_t len)
{
	cJSON	*o = cJSON_ParseWithLength(body, len);
	int	 yes;

	yes = cJSON_IsObject(o) && !cJSON_HasObjectItem(o, "method") &&
	    cJSON_HasObjectItem(o, "id") && (cJSON_HasObjectItem(o,
	    "result") || cJSON_HasObjectItem(o, "error"));
	cJSON_Delete(o);
	return yes;
}

/* The session a POST names: 0 with *se (NULL for initialize), or the
   HTTP status to refuse it with *msg. */
static int
mh_route_session(struct mh_conn *c, const char *method,
    struct mh_session **se, const char **msg)
{
	const char		*sid = http_req_header(&c->req,
				    "Mcp-Session-Id");
	struct mcp_http		*s = c->s;
	struct mh_session	*x;

	*se = NULL;
	if (method != NULL && strcmp(method, "initialize") == 0) {
		if (s->nsessions < MH_SESSIONS_MAX)
			return 0;
		TAILQ_FOREACH(x, &s->sessions, entry)
			if (x->npending == 0)
				return 0;
		*msg = "too many sessions, all of them busy";
		return 503;
	}
	if (sid == NULL) {
		*msg = "Mcp-Session-Id header required (initialize first)";
		return 400;
	}
	if ((*se = mh_session_find(s, sid)) == NULL) {
		*msg = "no such session (it ended or expired): initialize "
		    "again";
		return 404;
	}
	if (!mh_version_ok(http_req_header(&c->req,
	    "MCP-Protocol-Version"))) {
		*msg = "unsupported MCP-Protocol-Version (2025-06-18, "
		    "2025-03-26 and 2024-11-05 are spoken)";
		return 400;
	}
	(*se)->used = clock_now_ms();
	return 0;
}

/* A parsed message from c, in session se (NULL: initialize). */
static void
mh_route_message(struct mh_conn *c, struct mh_session *se,
    struct jsonrpc_req *req)
{
	if (req->id != NULL) {
		mh_route_request(c, se, req);
		return;
	}
	if (strcmp(req->method, "notifications/cancelled") == 0)
		mh_route_cancel(c->s, se, req->params);
	mh_conn_respond(c, 202, NULL, NULL, 0, NULL);
}

/* A POST's body (c's request), one JSON-RPC message. */
void
mh_route_post(struct mh_conn *c, const char *body, size_t len)
{
	struct jsonrpc_req	 req;
	struct mh_session	*se;
	const char		*why;
	char			*msg = NULL, *line;
	int			 code, st;

	if (mh_is_response(body, len)) {
		if ((st = mh_route_session(c, NULL, &se, &why)) != 0)
			mh_conn_error(c, st, -32000, why);
		else
			mh_conn_respond(c, 202, NULL, NULL, 0, NULL);
		return;
	}
	if ((code = jsonrpc_parse(body, len, &req, &msg)) != 0) {
		line = jsonrpc_error(req.id, code, msg, NULL);
		mh_conn_respond(c, 400, "application/json", line,
		    strlen(line), NULL);
		free(line);
		free(msg);
		jsonrpc_req_clear(&req);
		return;
	}
	if ((st = mh_route_session(c, req.method, &se, &why)) != 0)
		mh_conn_error(c, st, -32000, why);
	else
		mh_route_message(c, se, &req);
	jsonrpc_req_clear(&req);
}

/* DELETE: end the session c names. */
void
mh_route_delete(struct mh_conn *c)
{
	const char		*sid;
	struct mh_session	*se;

	sid = http_req_header(&c->req, "Mcp-Session-Id");
	if (sid == NULL)
		mh_conn_error(c, 400, -32000, "Mcp-Session-Id header "
		    "required");
	else if ((se = mh_session_find(c->s, sid)) == NULL)
		mh_conn_error(c, 404, -32000, "no such session (it ended or "
		    "expired)");
	else {
		mh_session_end(c->s, se);
		mh_conn_respond(c, 200, NULL, NULL, 0, NULL);
	}
}

/* c is closing: an answer for its request has nowhere to go. */
void
mh_route_conn_gone(struct mh_conn *c)
{
	if (c->pending != NULL)
		c->pending->conn = NULL;
	c->pending = NULL;
}

/* End the sessions unused for MH_SESSION_IDLE_MS. */
void
mh_route_sweep(struct mcp_http *s, int64_t now)
{
	struct mh_session	*se, *next;

	for (se = TAILQ_FIRST(&s->sessions); se != NULL; se = next) {
		next = TAILQ_NEXT(se, entry);
		if (se->npending == 0 && now - se->used > MH_SESSION_IDLE_MS)
			mh_session_end(s, se);
	}
}

/* Stop: the MCP server ends with its input, then everything goes. */
void
mh_route_stop(struct mcp_http *s)
{
	struct mh_session	*se;

	if (s->child.pid != 0) {
		close(s->child.in);
		s->child.in = -1;
		(void)spawn_reap(s->child.pid, 3000);
		close(s->child.out);
		s->child.pid = 0;
	}
	while (!TAILQ_EMPTY(&s->pendings))
		mh_pending_free(s, TAILQ_FIRST(&s->pendings));
	while ((se = TAILQ_FIRST(&s->sessions)) != NULL) {
		TAILQ_REMOVE(&s->sessions, se, entry);
		free(se);
	}
	s->nsessions = 0;
	jsonrpc_framer_free(s->child.framer);
	buf_free(&s->child.wbuf);
}

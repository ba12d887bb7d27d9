/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One HTTP connection of the MCP transport: read a head and a body
 * within their caps and deadlines, refuse what is not ours (path, Host,
 * Origin, token, method, media types) with a clear 4xx, hand a POST to
 * the router, and write responses and event streams without blocking.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "clock.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp_http_int.h"
#include "xmalloc.h"

/* A new connection on fd (non-blocking), waiting for a request. */
struct mh_conn *
mh_conn_new(struct mcp_http *s, int fd)
{
	struct mh_conn	*c = xcalloc(1, sizeof *c);

	c->s = s;
	c->fd = fd;
	c->state = MH_HEAD;
	c->deadline = clock_now_ms() + MH_IDLE_MS;
	return c;
}

/* Close and free c (the router forgets it first). */
void
mh_conn_free(struct mh_conn *c)
{
	if (c == NULL)
		return;
	mh_route_conn_gone(c);
	close(c->fd);
	buf_free(&c->in);
	buf_free(&c->out);
	http_req_clear(&c->req);
	free(c);
}

/* Write what c has to send, as far as the socket takes it. */
void
mh_conn_flush(struct mh_conn *c)
{
	ssize_t	n;

	while (c->out.len > 0 && !c->dead) {
		n = write(c->fd, c->out.data, c->out.len);
		if (n > 0) {
			buf_consume(&c->out, (size_t)n);
			c->wrote = clock_now_ms();
		} else if (n == -1 && errno == EINTR)
			continue;
		else if (n == -1 && errno == EAGAIN)
			break;
		else
			c->dead = 1;
	}
	if (c->sse && c->out.len > MH_OUT_MAX) {
		log_info("mcp http: a client does not read its stream");
		c->dead = 1;
	}
	if (c->dead || c->out.len > 0 || c->state != MH_WRITE)
		return;
	if (c->close) {
		c->dead = 1;
		return;
	}
	http_req_clear(&c->req);	/* kept alive: the next request */
	c->state = MH_HEAD;
	c->again = c->in.len > 0;
	c->deadline = clock_now_ms() + (c->in.len > 0 ? MH_HEAD_MS :
	    MH_IDLE_MS);
}

/* Start a response: status line and the headers every one has. */
static void
mh_conn_head_start(struct mh_conn *c, int status, const char *type)
{
	buf_appendf(&c->out, "HTTP/1.1 %d %s\r\n", status,
	    http_status_text(status));
	if (type != NULL)
		buf_appendf(&c->out, "Content-Type: %s\r\n", type);
	if (c->close)
		buf_append_str(&c->out, "Connection: close\r\n");
}

/* A whole response; see mcp_http_int.h. */
void
mh_conn_respond(struct mh_conn *c, int status, const char *type,
    const char *body, size_t len, const char *extra)
{
	mh_conn_head_start(c, status, type);
	buf_appendf(&c->out, "Content-Length: %zu\r\n"
	    "Cache-Control: no-store\r\n%s\r\n", len,
	    extra != NULL ? extra : "");
	if (len > 0)
		buf_append(&c->out, body, len);
	c->state = MH_WRITE;
	c->wrote = clock_now_ms();
	mh_conn_flush(c);
}

/* An error response with a JSON-RPC error body. */
void
mh_conn_error(struct mh_conn *c, int status, int code, const char *msg)
{
	const char	*extra = NULL;
	char		*body;

	if (status == 401)
		extra = "WWW-Authenticate: Bearer realm=\"clawssh\"\r\n";
	else if (status == 405)
		extra = "Allow: POST, DELETE\r\n";
	log_debug("mcp http: %d %s", status, msg);
	body = jsonrpc_error(NULL, code, msg, NULL);
	mh_conn_respond(c, status, "application/json", body, strlen(body),
	    extra);
	free(body);
}

/* Refuse the request before its body was read: the connection ends. */
static void
mh_conn_refuse(struct mh_conn *c, int status, const char *msg)
{
	c->close = 1;
	mh_conn_error(c, status, -32000, msg);
}

/* Open a text/event-stream response, once. */
void
mh_conn_event_open(struct mh_conn *c, const char *extra)
{
	if (c->sse)
		return;
	mh_conn_head_start(c, 200, "text/event-stream");
	buf_appendf(&c->out, "Cache-Control: no-cache\r\n"
	    "Transfer-Encoding: chunked\r\n%s\r\n",
	    extra != NULL ? extra : "");
	c->sse = 1;
}

/* Send one message on c's event stream, opening it if need be. */
void
mh_conn_event(struct mh_conn *c, const char *json, const char *extra)
{
	size_t	n = strlen(json);

	if (n > 0 && json[n - 1] == '\n')
		n--;
	mh_conn_event_open(c, extra);
	buf_appendf(&c->out, "%zx\r\nevent: message\ndata: ", n + 23);
	buf_append(&c->out, json, n);
	buf_append_str(&c->out, "\n\n\r\n");
	mh_conn_flush(c);
}

/* End an open event stream; the response is then complete. */
void
mh_conn_event_end(struct mh_conn *c)
{
	buf_append_str(&c->out, "0\r\n\r\n");
	c->sse = 0;
	c->state = MH_WRITE;
	c->wrote = clock_now_ms();
	mh_conn_flush(c);
}

/* 1 if the Connection header lists "close". */
static int
mh_conn_wants_close(const struct http_req *r)
{
	const char	*v = http_req_header(r, "Connection");
	const char	*p;
	size_t		 n;

	for (p = v; p != NULL && *p != '\0'; p += n + (p[n] != '\0')) {
		p += strspn(p, " \t");
		n = strcspn(p, ",");
		if (n >= 5 && strncasecmp(p, "close", 5) == 0 &&
		    strspn(p + 5, " \t") == n - 5)
			return 1;
	}
	return r->minor == 0;
}

/* A POST's framing and media types: 0, or the status to refuse it. */
static int
mh_conn_post_check(const struct mh_conn *c, const char **msg)
{
	const struct http_req	*r = &c->req;
	const char		*accept = http_req_header(r, "Accept");
	const char		*expect = http_req_header(r, "Expect");

	if (r->content_length < 0) {
		*msg = "a POST needs Content-Length";
		return 411;
	}
	if ((size_t)r->content_length > c->s->max_body) {
		*msg = "body over the size cap (clawssh serve --max-body)";
		return 413;
	}
	if (!http_type_is(http_req_header(r, "Content-Type"),
	    "application/json")) {
		*msg = "Content-Type must be application/json";
		return 415;
	}
	if (!http_accepts(accept, "application/json") &&
	    !http_accepts(accept, "text/event-stream")) {
		*msg = "Accept must take application/json or "
		    "text/event-stream";
		return 406;
	}
	if (expect != NULL && strcasecmp(expect, "100-continue") != 0) {
		*msg = "only Expect: 100-continue is understood";
		return 417;
	}
	return 0;
}

/* A POST's head is fine: check its framing and types, then its body. */
static void
mh_conn_post_head(struct mh_conn *c)
{
	const char	*msg;
	int		 st;

	if ((st = mh_conn_post_check(c, &msg)) != 0) {
		mh_conn_refuse(c, st, msg);
		return;
	}
	c->body = (size_t)c->req.content_length;
	if (http_req_header(&c->req, "Expect") != NULL &&
	    c->in.len < c->body) {
		buf_append_str(&c->out, "HTTP/1.1 100 Continue\r\n\r\n");
		mh_conn_flush(c);
	}
	c->state = MH_BODY;
	c->deadline = clock_now_ms() + MH_BODY_MS;
}

/* Whether a head is for us and from whom: 0, or the status to refuse. */
static int
mh_conn_head_check(const struct mh_conn *c, const char **msg)
{
	const struct http_req	*r = &c->req;
	const char		*host = http_req_header(r, "Host");
	const char		*origin = http_req_header(r, "Origin");

	if (!http_req_path_is(r, "/mcp")) {
		*msg = "no such endpoint: MCP is served at /mcp";
		return 404;
	}
	if ((r->minor == 1 && http_req_count(r, "Host") != 1) ||
	    http_req_count(r, "Host") > 1) {
		*msg = "one Host header expected";
		return 400;
	}
	if (host != NULL && !http_host_local(host)) {
		*msg = "Host not allowed (only localhost, 127.0.0.0/8 and "
		    "[::1])";
		return 403;
	}
	if (origin != NULL && (http_req_count(r, "Origin") != 1 ||
	    !http_origin_local(origin))) {
		*msg = "Origin not allowed (only http(s)://localhost, "
		    "127.0.0.0/8 and [::1])";
		return 403;
	}
	if (http_req_count(r, "Authorization") != 1 || !http_bearer_ok(
	    http_req_header(r, "Authorization"), c->s->o->token)) {
		*msg = "missing or wrong bearer token (Authorization: Bearer "
		    "TOKEN; see --token-file)";
		return 401;
	}
	if (strcmp(r->method, "POST") != 0 && strcmp(r->method,
	    "DELETE") != 0) {
		*msg = "only POST and DELETE are served at /mcp (no server "
		    "stream: GET is not offered)";
		return 405;
	}
	return 0;
}

/* A whole head arrived: refuse it, or go on with its method. */
static void
mh_conn_head(struct mh_conn *c)
{
	const char	*msg = NULL;
	int		 st;

	c->close = mh_conn_wants_close(&c->req);
	if ((st = mh_conn_head_check(c, &msg)) != 0)
		mh_conn_refuse(c, st, msg);
	else if (strcmp(c->req.method, "POST") == 0)
		mh_conn_post_head(c);
	else {
		if (c->req.content_length > 0)
			c->close = 1;	/* its body is not read */
		c->state = MH_WAIT;
		mh_route_delete(c);
	}
}

/* Step c as far as the bytes it holds allow. */
void
mh_conn_step(struct mh_conn *c)
{
	const char	*why = NULL;
	size_t		 used = 0;
	int		 rc, status = 400;

	if (c->state == MH_HEAD && !c->dead) {
		rc = http_req_parse(c->in.data, c->in.len, &c->req, &used,
		    &status, &why);
		if (rc == 0)
			return;
		if (rc < 0) {
			mh_conn_refuse(c, status, why);
			return;
		}
		buf_consume(&c->in, used);
		mh_conn_head(c);
	}
	if (c->state == MH_BODY && !c->dead && c->in.len >= c->body) {
		c->state = MH_WAIT;
		c->deadline = CLOCK_NEVER;
		mh_route_post(c, c->body > 0 ? c->in.data : "", c->body);
		buf_consume(&c->in, c->body);
	}
}

/* Read what the client sent, then step. */
void
mh_conn_read(struct mh_conn *c)
{
	char	buf[65536];
	size_t	cap = HTTP_HEAD_MAX + c->s->max_body;
	ssize_t	n;

	while (c->in.len < cap && !c->dead) {
		if ((n = read(c->fd, buf, sizeof buf)) > 0) {
			if (c->state == MH_HEAD && c->in.len == 0)
				c->deadline = clock_now_ms() + MH_HEAD_MS;
			buf_append(&c->in, buf, (size_t)n);
		} else if (n == -1 && errno == EINTR)
			continue;
		else if (n == -1 && errno == EAGAIN)
			break;
		else
			c->dead = 1;	/* closed, or failed */
	}
	mh_conn_step(c);
}

/* The next time c must be looked at (CLOCK_NEVER: none). */
int64_t
mh_conn_deadline(const struct mh_conn *c)
{
	int64_t	d = c->deadline;

	if (c->out.len > 0)
		d = clock_min(d, c->wrote + MH_WRITE_MS);
	return d;
}

/* A deadline passed: end c, with 408 if it was inside a request. */
void
mh_conn_timeout(struct mh_conn *c, int64_t now)
{
	if (now < mh_conn_deadline(c))
		return;
	if (c->out.len > 0 || (c->state == MH_HEAD && c->in.len == 0)) {
		c->dead = 1;
		return;
	}
	if (c->state == MH_HEAD || c->state == MH_BODY) {
		buf_reset(&c->in);
		c->deadline = now + MH_WRITE_MS;
		mh_conn_refuse(c, 408, c->state == MH_HEAD ? "request head "
		    "not complete in time" : "request body not complete in "
		    "time");
	}
}

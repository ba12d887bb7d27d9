/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The HTTP/1.1 of the MCP Streamable HTTP transport (mcp_http.h): a
 * bounded parser for one request head, and the checks a local server
 * makes of it (Host and Origin on loopback, a bearer token, media types
 * in Accept).  Pure code, no I/O; see docs/protocol.md.
 */
#ifndef CLAW_HTTP_MSG_H
#define CLAW_HTTP_MSG_H

#include <stddef.h>

#define HTTP_HEAD_MAX		(16 * 1024)	/* request line + headers */
#define HTTP_HEADERS_MAX	64

struct http_header {
	const char	*name;		/* as sent; compare without case */
	const char	*value;		/* without surrounding blanks */
};

struct http_req {
	char			*head;	/* owned copy the pointers point in */
	const char		*method;
	const char		*target;
	int			 minor;	/* HTTP/1.<minor>: 0 or 1 */
	struct http_header	 h[HTTP_HEADERS_MAX];
	size_t			 nh;
	long long		 content_length; /* -1: none */
};

/*
 * Parse the head at the start of data[0..len): 1 with *req filled and
 * *used set to the bytes of the head (through its empty line); 0: not
 * complete yet (and not over HTTP_HEAD_MAX); CLAW_ERR_PARSE with *status
 * (400, 431, 501 or 505) and *why (static text) for a head we refuse.
 * Lines end in CRLF; folded lines, bare CR, control bytes, a repeated or
 * bad Content-Length and more than HTTP_HEADERS_MAX headers are refused.
 */
int	http_req_parse(const char *data, size_t len, struct http_req *req,
	    size_t *used, int *status, const char **why);

/* Free what req holds and zero it; a zeroed req is fine. */
void	http_req_clear(struct http_req *);

/* The value of header name (first of them), or NULL. */
const char *http_req_header(const struct http_req *, const char *name);

/* How many times header name was sent. */
size_t	http_req_count(const struct http_req *, const char *name);

/* 1 if the target's path (before any '?') is exactly path. */
int	http_req_path_is(const struct http_req *, const char *path);

/*
 * 1 if host (a Host value: name or address and an optional port) is
 * localhost, an IPv4 address in 127.0.0.0/8 or [::1]; else 0.
 */
int	http_host_local(const char *host);

/* 1 if origin is http:// or https:// and a local host (see above). */
int	http_origin_local(const char *origin);

/*
 * 1 if the Accept value accept takes type ("application/json"): a range
 * type, type/x or x/ that is not q=0.  NULL (no Accept) takes anything.
 */
int	http_accepts(const char *accept, const char *type);

/* 1 if the Content-Type value names type (parameters after ';' aside). */
int	http_type_is(const char *value, const char *type);

/*
 * 1 if authz is "Bearer TOKEN" (scheme without case) with TOKEN equal to
 * token, compared in constant time; else 0.
 */
int	http_bearer_ok(const char *authz, const char *token);

/* The reason phrase of status ("Not Found"), "Unknown" if we use none. */
const char *http_status_text(int status);

#endif /* CLAW_HTTP_MSG_H */

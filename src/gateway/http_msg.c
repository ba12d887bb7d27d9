/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One HTTP/1.1 request head, parsed strictly and within bounds, and the
 * checks of a server that listens on loopback only; see http_msg.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>

#include "error.h"
#include "http_msg.h"
#include "num.h"
#include "xmalloc.h"

/* 1 if c may be in a token (RFC 9110 tchar). */
static int
http_tchar(unsigned char c)
{
	return isalnum(c) || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c));
}

/* 1 if s[0..n) is a non-empty token. */
static int
http_token(const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (!http_tchar((unsigned char)s[i]))
			return 0;
	return n > 0;
}

/* Fail the parse with status and why. */
static int
http_refuse(int *status, const char **why, int code, const char *text)
{
	*status = code;
	*why = text;
	return CLAW_ERR_PARSE;
}

/* The request line "METHOD SP TARGET SP HTTP/1.x"; 0 or a status. */
static int
http_parse_start(char *line, struct http_req *req, const char **why)
{
	char	*sp1, *sp2, *p;

	if ((sp1 = strchr(line, ' ')) == NULL ||
	    (sp2 = strchr(sp1 + 1, ' ')) == NULL || strchr(sp2 + 1, ' ')) {
		*why = "bad request line";
		return 400;
	}
	*sp1 = *sp2 = '\0';
	if (!http_token(line, strlen(line))) {
		*why = "bad method";
		return 400;
	}
	for (p = sp1 + 1; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			break;
	if (sp1[1] != '/' || *p != '\0') {
		*why = "bad request target (origin form \"/mcp\" expected)";
		return 400;
	}
	if (strncmp(sp2 + 1, "HTTP/", 5) != 0) {
		*why = "bad HTTP version";
		return 400;
	}
	if (strcmp(sp2 + 1, "HTTP/1.1") != 0 &&
	    strcmp(sp2 + 1, "HTTP/1.0") != 0) {
		*why = "only HTTP/1.1 and HTTP/1.0 are served";
		return 505;
	}
	req->method = line;
	req->target = sp1 + 1;
	req->minor = sp2[8] - '0';
	return 0;
}

/*
 * A Content-Length value: digits only, at most 18 of them;
 * CLAW_ERR_PARSE if bad.
 */
static long long
http_length(const char *v)
{
	uint64_t	n;

	if (strlen(v) > 18 || num_parse_str(v, 0, INT64_MAX, &n) != 0)
		return CLAW_ERR_PARSE;
	return (long long)n;
}

/* One header line into req; 0 or a status with *why. */
static int
http_parse_header(char *line, struct http_req *req, const char **why)
{
	char	*colon = strchr(line, ':'), *v, *end;

	if (line[0] == ' ' || line[0] == '\t') {
		*why = "folded header lines are not accepted";
		return 400;
	}
	if (colon == NULL || !http_token(line, (size_t)(colon - line))) {
		*why = "bad header line";
		return 400;
	}
	if (req->nh == HTTP_HEADERS_MAX) {
		*why = "too many header fields";
		return 431;
	}
	*colon = '\0';
	for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
		;
	end = v + strlen(v);
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	for (end = v; *end != '\0'; end++)
		if (((unsigned char)*end < ' ' && *end != '\t') ||
		    *end == 0x7f) {
			*why = "control character in a header field";
			return 400;
		}
	req->h[req->nh].name = line;
	req->h[req->nh++].value = v;
	return 0;
}

/* Framing headers: Content-Length once and well formed, no
   Transfer-Encoding; 0 or a status. */
static int
http_parse_framing(struct http_req *req, const char **why)
{
	const char	*cl = http_req_header(req, "Content-Length");

	if (http_req_header(req, "Transfer-Encoding") != NULL) {
		*why = "Transfer-Encoding is not supported: send "
		    "Content-Length";
		return 501;
	}
	req->content_length = -1;
	if (cl == NULL)
		return 0;
	if (http_req_count(req, "Content-Length") != 1 ||
	    (req->content_length = http_length(cl)) < 0) {
		*why = "bad Content-Length";
		return 400;
	}
	return 0;
}

/* Split the NUL-terminated head into its lines and parse them. */
static int
http_parse_lines(struct http_req *req, const char **why)
{
	char	*line = req->head, *crlf;
	int	 st;

	crlf = strstr(line, "\r\n");
	*crlf = '\0';
	if ((st = http_parse_start(line, req, why)) != 0)
		return st;
	for (line = crlf + 2; *line != '\0'; line = crlf + 2) {
		crlf = strstr(line, "\r\n");
		*crlf = '\0';
		if (strchr(line, '\r') != NULL || strchr(line, '\n') != NULL) {
			*why = "bare CR or LF";
			return 400;
		}
		if ((st = http_parse_header(line, req, why)) != 0)
			return st;
	}
	return http_parse_framing(req, why);
}

/* Parse a request head; see http_msg.h. */
int
http_req_parse(const char *data, size_t len, struct http_req *req,
    size_t *used, int *status, const char **why)
{
	const char	*end;
	size_t		 skip = 0, n;
	int		 st;

	while (skip + 1 < len && data[skip] == '\r' && data[skip + 1] == '\n')
		skip += 2;	/* empty lines before a request */
	n = len - skip < HTTP_HEAD_MAX ? len - skip : HTTP_HEAD_MAX;
	if ((end = memmem(data + skip, n, "\r\n\r\n", 4)) == NULL) {
		if (len - skip >= HTTP_HEAD_MAX)
			return http_refuse(status, why, 431,
			    "request head too large");
		return 0;
	}
	n = (size_t)(end - (data + skip)) + 2;	/* through the last CRLF */
	if (memchr(data + skip, '\0', n) != NULL)
		return http_refuse(status, why, 400, "NUL in request head");
	memset(req, 0, sizeof *req);
	req->head = xstrndup(data + skip, n);
	if ((st = http_parse_lines(req, why)) != 0) {
		http_req_clear(req);
		*status = st;
		return CLAW_ERR_PARSE;
	}
	*used = skip + n + 2;
	return 1;
}

/* Free what req holds and zero it. */
void
http_req_clear(struct http_req *req)
{
	free(req->head);
	memset(req, 0, sizeof *req);
}

/* The first value of header name, or NULL. */
const char *
http_req_header(const struct http_req *req, const char *name)
{
	size_t	i;

	for (i = 0; i < req->nh; i++)
		if (strcasecmp(req->h[i].name, name) == 0)
			return req->h[i].value;
	return NULL;
}

/* How many times header name was sent. */
size_t
http_req_count(const struct http_req *req, const char *name)
{
	size_t	i, n = 0;

	for (i = 0; i < req->nh; i++)
		if (strcasecmp(req->h[i].name, name) == 0)
			n++;
	return n;
}

/* 1 if the target's path is exactly path. */
int
http_req_path_is(const struct http_req *req, const char *path)
{
	size_t	n = strcspn(req->target, "?");

	return n == strlen(path) && strncmp(req->target, path, n) == 0;
}

/* 1 if name[0..n) names this machine's loopback. */
static int
http_name_local(const char *name, size_t n)
{
	struct in_addr	a;
	char		buf[64];

	if (n == 9 && strncasecmp(name, "localhost", 9) == 0)
		return 1;
	if (n == 5 && strncmp(name, "[::1]", 5) == 0)
		return 1;
	if (n >= sizeof buf)
		return 0;
	memcpy(buf, name, n);
	buf[n] = '\0';
	return inet_pton(AF_INET, buf, &a) == 1 &&
	    (ntohl(a.s_addr) >> 24) == 127;
}

/* 1 if host (name and optional :port) is local. */
int
http_host_local(const char *host)
{
	const char	*colon;
	size_t		 n;

	if (host == NULL)
		return 0;
	if (host[0] == '[')
		colon = strchr(host, ']') != NULL ?
		    strchr(strchr(host, ']'), ':') : NULL;
	else
		colon = strchr(host, ':');
	n = colon != NULL ? (size_t)(colon - host) : strlen(host);
	if (colon != NULL && (colon[1] == '\0' ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    strlen(colon + 1) > 5))
		return 0;
	return http_name_local(host, n);
}

/* 1 if origin is http(s)://LOCALHOST[:port] with nothing after. */
int
http_origin_local(const char *origin)
{
	const char	*rest;

	if (origin == NULL)
		return 0;
	if (strncasecmp(origin, "http://", 7) == 0)
		rest = origin + 7;
	else if (strncasecmp(origin, "https://", 8) == 0)
		rest = origin + 8;
	else
		return 0;
	if (strchr(rest, '/') != NULL || strchr(rest, '@') != NULL)
		return 0;
	return http_host_local(rest);
}

/* 1 if the media range r[0..n) (parameters included) takes type. */
static int
http_range_takes(const char *r, size_t n, const char *type)
{
	const char	*slash = strchr(type, '/');
	char		 buf[256], *p, *q;
	size_t		 tn;

	if (n >= sizeof buf)
		return 0;
	memcpy(buf, r, n);
	buf[n] = '\0';
	for (p = strchr(buf, ';'); p != NULL; p = strchr(p + 1, ';')) {
		q = p + 1 + strspn(p + 1, " \t");
		if ((q[0] == 'q' || q[0] == 'Q') && q[1] == '=' &&
		    strtod(q + 2, NULL) <= 0)
			return 0;	/* q=0: not acceptable */
	}
	tn = strcspn(buf, "; \t");
	if (tn == 3 && strncmp(buf, "*/*", 3) == 0)
		return 1;
	if (tn == (size_t)(slash - type) + 2 && buf[tn - 1] == '*' &&
	    strncasecmp(buf, type, (size_t)(slash - type) + 1) == 0)
		return 1;
	return tn == strlen(type) && strncasecmp(buf, type, tn) == 0;
}

/* 1 if the Accept value takes type. */
int
http_accepts(const char *accept, const char *type)
{
	const char	*p, *comma;
	size_t		 n;

	if (accept == NULL)
		return 1;
	for (p = accept; *p != '\0'; p = *comma != '\0' ? comma + 1 : comma) {
		p += strspn(p, " \t");
		comma = p + strcspn(p, ",");
		n = (size_t)(comma - p);
		if (n > 0 && http_range_takes(p, n, type))
			return 1;
	}
	return 0;
}

/* 1 if the Content-Type value names type. */
int
http_type_is(const char *value, const char *type)
{
	size_t	n;

	if (value == NULL)
		return 0;
	n = strcspn(value, "; \t");
	return n == strlen(type) && strncasecmp(value, type, n) == 0;
}

/* 1 if authz is "Bearer TOKEN" with the right TOKEN. */
int
http_bearer_ok(const char *authz, const char *token)
{
	size_t	n;

	if (authz == NULL || token == NULL || strncasecmp(authz, "Bearer ",
	    7) != 0)
		return 0;
	authz += 7;
	authz += strspn(authz, " ");
	n = strlen(token);
	if (strlen(authz) != n || n == 0)
		return 0;
	return CRYPTO_memcmp(authz, token, n) == 0;
}

/* The reason phrase of status. */
const char *
http_status_text(int status)
{
	static const struct {
		int		 code;
		const char	*text;
	} t[] = {
		{ 100, "Continue" }, { 200, "OK" }, { 202, "Accepted" },
		{ 400, "Bad Request" }, { 401, "Unauthorized" },
		{ 403, "Forbidden" }, { 404, "Not Found" },
		{ 405, "Method Not Allowed" }, { 406, "Not Acceptable" },
		{ 408, "Request Timeout" }, { 411, "Length Required" },
		{ 413, "Content Too Large" }, { 415, "Unsupported Media Type" },
		{ 417, "Expectation Failed" },
		{ 431, "Request Header Fields Too Large" },
		{ 500, "Internal Server Error" }, { 501, "Not Implemented" },
		{ 502, "Bad Gateway" }, { 503, "Service Unavailable" },
		{ 505, "HTTP Version Not Supported" }
	};
	size_t	i;

	for (i = 0; i < sizeof t / sizeof *t; i++)
		if (t[i].code == status)
			return t[i].text;
	return "Unknown";
}

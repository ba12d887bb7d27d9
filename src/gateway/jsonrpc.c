/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON-RPC 2.0 framing, parsing and serialization (see jsonrpc.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base64.h"
#include "error.h"
#include "jsonrpc.h"
#include "xmalloc.h"

struct jsonrpc_framer {
	char	*buf;
	size_t	 size;		/* allocated */
	size_t	 len;		/* bytes held */
	size_t	 off;		/* start of the unconsumed bytes */
	size_t	 scan;		/* bytes past off known to hold no newline */
	size_t	 cap;
	int	 discarding;	/* dropping an over-long line's rest */
};

/* Make a framer. */
struct jsonrpc_framer *
jsonrpc_framer_new(size_t cap)
{
	struct jsonrpc_framer	*fr;

	fr = xcalloc(1, sizeof *fr);
	fr->cap = cap == 0 ? JSONRPC_LINE_MAX : cap;
	if (fr->cap > SIZE_MAX / 4)
		fr->cap = SIZE_MAX / 4;
	return fr;
}

/* Free a framer; NULL is ignored. */
void
jsonrpc_framer_free(struct jsonrpc_framer *fr)
{
	if (fr == NULL)
		return;
	free(fr->buf);
	free(fr);
}

/* Append bytes, dropping those of an over-long line. */
void
jsonrpc_framer_feed(struct jsonrpc_framer *fr, const void *data, size_t len)
{
	const char	*p = data, *nl;

	if (fr->discarding) {
		if ((nl = memchr(p, '\n', len)) == NULL)
			return;
		fr->discarding = 0;
		len -= (size_t)(nl + 1 - p);
		p = nl + 1;
	}
	if (len == 0)
		return;
	if (fr->off != 0) {
		memmove(fr->buf, fr->buf + fr->off, fr->len - fr->off);
		fr->len -= fr->off;
		fr->off = 0;
	}
	if (fr->size - fr->len < len) {
		if (len > SIZE_MAX / 2 - fr->len)
			abort();
		fr->size = (fr->len + len) * 2;
		fr->buf = xreallocarray(fr->buf, 1, fr->size);
	}
	memcpy(fr->buf + fr->len, p, len);
	fr->len += len;
}

/* Bytes held for an unfinished line. */
size_t
jsonrpc_framer_pending(const struct jsonrpc_framer *fr)
{
	return fr->len - fr->off;
}

/* The next line, or 0 for more bytes, or CLAW_ERR_RANGE once per long one. */
int
jsonrpc_framer_next(struct jsonrpc_framer *fr, char **line, size_t *len)
{
	char	*s, *nl;
	size_t	 n;

	for (;;) {
		s = fr->buf + fr->off;
		nl = fr->len == fr->off ? NULL :
		    memchr(s + fr->scan, '\n', fr->len - fr->off - fr->scan);
		if (nl == NULL) {
			fr->scan = fr->len - fr->off;
			if (fr->scan <= fr->cap + 1)	/* + a '\r' */
				return 0;
			fr->discarding = 1;
			fr->len = fr->off = fr->scan = 0;
			return CLAW_ERR_RANGE;
		}
		n = (size_t)(nl - s);
		fr->off += n + 1;
		fr->scan = 0;
		if (n > 0 && s[n - 1] == '\r')
			n--;
		if (n > fr->cap)
			return CLAW_ERR_RANGE;
		if (n == 0)
			continue;
		s[n] = '\0';
		*line = s;
		*len = n;
		return 1;
	}
}

/* The length of the UTF-8 sequence at p (at most left bytes), 0 if bad. */
static size_t
jsonrpc_utf8_seq(const unsigned char *p, size_t left)
{
	unsigned int	c = p[0], cp;
	size_t		n, i;

	if (c < 0x80)
		return c == 0 ? 0 : 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* 1 if data is valid UTF-8 with no NUL byte. */
int
jsonrpc_utf8_ok(const char *data, size_t len)
{
	const unsigned char	*p = (const unsigned char *)data;
	size_t			 i = 0, n;

	while (i < len) {
		if ((n = jsonrpc_utf8_seq(p + i, len - i)) == 0)
			return 0;
		i += n;
	}
	return 1;
}

/* A copy fit for JSON: bad bytes and NUL become U+FFFD. */
char *
jsonrpc_utf8_clean(const char *data, size_t len)
{
	const unsigned char	*p = (const unsigned char *)data;
	char			*out, *o;
	size_t			 i = 0, n;

	if (len > (SIZE_MAX - 1) / 3)
		abort();
	o = out = xmalloc(len * 3 + 1);
	while (i < len) {
		if ((n = jsonrpc_utf8_seq(p + i, len - i)) == 0) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(o, p + i, n);
		o += n;
		i += n;
	}
	*o = '\0';
	return out;
}

/*
 * Check the raw text before cJSON sees it: no NUL byte, valid UTF-8, no
 * control character inside a string, no "\u0000" escape.
 */
static int
jsonrpc_scan(const char *line, size_t len, char **msg)
{
	const unsigned char	*p = (const unsigned char *)line;
	size_t			 i;
	int			 in = 0;

	if (memchr(line, '\0', len) != NULL) {
		*msg = xstrdup("NUL byte in the request");
		return JSONRPC_PARSE_ERROR;
	}
	if (!jsonrpc_utf8_ok(line, len)) {
		*msg = xstrdup("the request is not valid UTF-8");
		return JSONRPC_PARSE_ERROR;
	}
	for (i = 0; i < len; i++) {
		if (p[i] == '"')
			in = !in;
		else if (in && p[i] < 0x20) {
			*msg = xstrdup("control character in a string");
			return JSONRPC_PARSE_ERROR;
		} else if (in && p[i] == '\\' && i + 1 < len) {
			if (p[i + 1] == 'u' && len - i >= 6 &&
			    memcmp(line + i + 2, "0000", 4) == 0) {
				*msg = xstrdup("\\u0000 in a string is not "
				    "supported (use a *_base64 parameter)");
				return JSONRPC_INVALID_REQUEST;
			}
			i++;
		}
	}
	return 0;
}

/* Return the end of the JSON string that starts (with its quote) at p. */
static const char *
jsonrpc_skip_string(const char *p, const char *e)
{
	for (p++; p < e && *p != '"'; p++)
		if (*p == '\\' && p + 1 < e)
			p++;
	return p < e ? p + 1 : e;
}

/* Return the end of the JSON value (already validated) that starts at p. */
static const char *
jsonrpc_skip_value(const char *p, const char *e)
{
	int	depth = 0;

	if (p < e && *p == '"')
		return jsonrpc_skip_string(p, e);
	if (p < e && *p != '{' && *p != '[') {
		while (p < e && strchr(",}] \t\r\n", *p) == NULL)
			p++;
		return p;
	}
	while (p < e) {
		if (*p == '"') {
			p = jsonrpc_skip_string(p, e);
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && --depth == 0)
			return p + 1;
		p++;
	}
	return e;
}

/* 1 if the raw member name key[0..len) (quotes included) decodes to "id". */
static int
jsonrpc_key_is_id(const char *key, size_t len)
{
	cJSON	*k;
	int	 is;

	if (len == 4 && memcmp(key, "\"id\"", 4) == 0)
		return 1;
	if (memchr(key, '\\', len) == NULL)
		return 0;
	k = cJSON_ParseWithLength(key, len);
	is = cJSON_IsString(k) && strcmp(k->valuestring, "id") == 0;
	cJSON_Delete(k);
	return is;
}

/*
 * Find the literal text of the top-level "id" member's value in a line
 * that cJSON parsed as an object: cJSON keeps numbers as doubles only, so
 * 2^53+1 would come back as 2^53.  Returns an allocated copy, or NULL.
 */
static char *
jsonrpc_id_literal(const char *line, size_t len)
{
	const char	*p = line, *e = line + len, *k, *kend, *v;
	const char	*ws = " \t\r\n";

	while (p < e && strchr(ws, *p) != NULL)
		p++;
	if (p == e || *p++ != '{')
		return NULL;
	while (p < e) {
		while (p < e && (strchr(ws, *p) != NULL || *p == ','))
			p++;
		if (p == e || *p != '"')
			return NULL;
		k = p;
		p = kend = jsonrpc_skip_string(p, e);
		while (p < e && (strchr(ws, *p) != NULL || *p == ':'))
			p++;
		v = p;
		p = jsonrpc_skip_value(p, e);
		if (jsonrpc_key_is_id(k, (size_t)(kend - k)))
			return xstrndup(v, (size_t)(p - v));
	}
	return NULL;
}

/*
 * The value of id if it has a valid type, else NULL.  A number keeps the
 * text it was sent as (a raw item), so it is echoed exactly.
 */
static cJSON *
jsonrpc_take_id(const cJSON *o, const char *line, size_t len)
{
	const cJSON	*id = cJSON_GetObjectItemCaseSensitive(o, "id");
	cJSON		*raw;
	char		*lit;

	if (id == NULL)
		return NULL;
	if (cJSON_IsNumber(id)) {
		if ((lit = jsonrpc_id_literal(line, len)) == NULL)
			return NULL;
		raw = cJSON_CreateRaw(lit);
		free(lit);
		return raw;
	}
	if (cJSON_IsString(id) || cJSON_IsNull(id))
		return cJSON_Duplicate(id, 0);
	return NULL;
}

/* Check the members of a request object; 0 or a code with *msg. */
static int
jsonrpc_check_members(const cJSON *o, char **msg)
{
	static const char *const known[] = {
		"jsonrpc", "id", "method", "params"
	};
	const cJSON	*m, *k;
	size_t		 i;

	cJSON_ArrayForEach(m, o) {
		for (i = 0; i < sizeof known / sizeof *known; i++)
			if (strcmp(m->string, known[i]) == 0)
				break;
		if (i == sizeof known / sizeof *known) {
			*msg = xasprintf("unknown member '%s'", m->string);
			return JSONRPC_INVALID_REQUEST;
		}
		for (k = o->child; k != m; k = k->next)
			if (strcmp(k->string, m->string) == 0) {
				*msg = xasprintf("member '%s' repeated",
				    m->string);
				return JSONRPC_INVALID_REQUEST;
			}
	}
	return 0;
}

/* Validate a parsed request object and fill req. */
static int
jsonrpc_check(const cJSON *o, struct jsonrpc_req *req, char **msg)
{
	const cJSON	*v, *id;
	int		 rc;

	if ((rc = jsonrpc_check_members(o, msg)) != 0)
		return rc;
	id = cJSON_GetObjectItemCaseSensitive(o, "id");
	if (id != NULL && req->id == NULL) {
		*msg = xstrdup("id must be a string, a number or null");
		return JSONRPC_INVALID_REQUEST;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "jsonrpc");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, "2.0") != 0) {
		*msg = xstrdup("jsonrpc must be \"2.0\"");
		return JSONRPC_INVALID_REQUEST;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "method");
	if (!cJSON_IsString(v) || *v->valuestring == '\0') {
		*msg = xstrdup("method must be a non-empty string");
		return JSONRPC_INVALID_REQUEST;
	}
	req->method = xstrdup(v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(o, "params");
	if (v != NULL && !cJSON_IsObject(v) && !cJSON_IsArray(v)) {
		*msg = xstrdup("params must be an object or an array");
		return JSONRPC_INVALID_REQUEST;
	}
	if (v != NULL)
		req->params = cJSON_Duplicate(v, 1);
	return 0;
}

/* Parse and validate one request line. */
int
jsonrpc_parse(const char *line, size_t len, struct jsonrpc_req *req,
    char **msg)
{
	cJSON		*o;
	const char	*end = NULL;
	int		 rc;

	memset(req, 0, sizeof *req);
	if ((rc = jsonrpc_scan(line, len, msg)) != 0)
		return rc;
	o = cJSON_ParseWithLengthOpts(line, len, &end, 0);
	if (o != NULL)
		end += strspn(end, " \t\r\n");
	if (o == NULL || end != line + len) {
		cJSON_Delete(o);
		*msg = xstrdup("not one JSON value");
		return JSONRPC_PARSE_ERROR;
	}
	if (cJSON_IsArray(o)) {
		*msg = xstrdup("batches are not supported");
		rc = JSONRPC_INVALID_REQUEST;
	} else if (!cJSON_IsObject(o)) {
		*msg = xstrdup("a request must be a JSON object");
		rc = JSONRPC_INVALID_REQUEST;
	} else {
		req->id = jsonrpc_take_id(o, line, len);
		rc = jsonrpc_check(o, req, msg);
	}
	cJSON_Delete(o);
	if (rc != 0) {
		free(req->method);
		cJSON_Delete(req->params);
		req->method = NULL;
		req->params = NULL;
	}
	return rc;
}

/* Free what req holds and zero it. */
void
jsonrpc_req_clear(struct jsonrpc_req *req)
{
	cJSON_Delete(req->id);
	free(req->method);
	cJSON_Delete(req->params);
	memset(req, 0, sizeof *req);
}

/* Serialize o as one line and free it. */
static char *
jsonrpc_line(cJSON *o)
{
	char	*s, *line;
	size_t	 n;

	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		abort();
	cJSON_Delete(o);
	n = strlen(s);
	line = xmalloc(n + 2);
	memcpy(line, s, n);
	line[n] = '\n';
	line[n + 1] = '\0';
	cJSON_free(s);
	return line;
}

/*
 * A copy of id for output.  A parsed numeric id is a raw item holding the
 * literal it was sent as; a number made here is written exactly as an
 * integer (cJSON prints 15 significant digits).
 */
static cJSON *
jsonrpc_id_copy(const cJSON *id)
{
	char	num[64];
	double	d;

	if (id == NULL)
		return cJSON_CreateNull();
	if (!cJSON_IsNumber(id))
		return cJSON_Duplicate(id, 1);
	d = id->valuedouble;
	if (d > -9223372036854775808.0 && d < 9223372036854775808.0 &&
	    d == (double)(long long)d)
		snprintf(num, sizeof num, "%lld", (long long)d);
	else if (d == d && d - d == 0)		/* finite */
		snprintf(num, sizeof num, "%.17g", d);
	else
		snprintf(num, sizeof num, "null");
	return cJSON_CreateRaw(num);
}

/* A response object with jsonrpc and id set. */
static cJSON *
jsonrpc_response(const cJSON *id)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddItemToObject(o, "id", jsonrpc_id_copy(id));
	return o;
}

/* A success response line; takes result. */
char *
jsonrpc_result(const cJSON *id, cJSON *result)
{
	cJSON	*o = jsonrpc_response(id);

	cJSON_AddItemToObject(o, "result", result != NULL ? result :
	    cJSON_CreateNull());
	return jsonrpc_line(o);
}

/* An error response line; takes data. */
char *
jsonrpc_error(const cJSON *id, int code, const char *msg, cJSON *data)
{
	cJSON	*o = jsonrpc_response(id), *e;
	char	*clean;

	if (msg == NULL)
		msg = "error";
	clean = jsonrpc_utf8_clean(msg, strlen(msg));
	e = cJSON_AddObjectToObject(o, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", clean);
	if (data != NULL)
		cJSON_AddItemToObject(e, "data", data);
	free(clean);
	return jsonrpc_line(o);
}

/* Whether id is rid; see jsonrpc.h. */
int
jsonrpc_id_is(const cJSON *id, const cJSON *rid)
{
	char	*end;
	double	 v;

	if (cJSON_IsRaw(id) && cJSON_IsNumber(rid)) {
		v = strtod(id->valuestring, &end);
		return *end == '\0' && v == rid->valuedouble;
	}
	return cJSON_Compare(id, rid, 1);
}

/* A notification line; takes params. */
char *
jsonrpc_notification(const char *method, cJSON *params)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddStringToObject(o, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(o, "params", params);
	return jsonrpc_line(o);
}

/* The params of an exec.output notification. */
cJSON *
jsonrpc_output_params(const cJSON *id, const char *stream, const char *data,
    size_t len)
{
	cJSON	*o = cJSON_CreateObject();
	char	*s;

	cJSON_AddItemToObject(o, "id", jsonrpc_id_copy(id));
	cJSON_AddStringToObject(o, "stream", stream);
	if (jsonrpc_utf8_ok(data, len)) {
		s = len == 0 ? xstrdup("") : xstrndup(data, len);
		cJSON_AddStringToObject(o, "data", s);
	} else {
		s = base64_encode((const unsigned char *)data, len);
		cJSON_AddStringToObject(o, "data_base64", s);
	}
	free(s);
	return o;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON-RPC 2.0 over newline-delimited lines: framing with a size cap,
 * request parsing and validation, and serialized responses and
 * notifications.  Pure code, no I/O; see docs/protocol.md.
 */
#ifndef CLAW_JSONRPC_H
#define CLAW_JSONRPC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define JSONRPC_PARSE_ERROR	 -32700
#define JSONRPC_INVALID_REQUEST	 -32600
#define JSONRPC_METHOD_NOT_FOUND -32601
#define JSONRPC_INVALID_PARAMS	 -32602
#define JSONRPC_INTERNAL_ERROR	 -32603
/* Server-defined codes (-32000..-32099). */
#define JSONRPC_DENIED		 -32001	/* refused by policy */
#define JSONRPC_REMOTE_FAILED	 -32002	/* the worker (clawssh) failed */
#define JSONRPC_CANCELLED	 -32003	/* cancelled, or the client left */
#define JSONRPC_OVERLOADED	 -32004	/* too many calls in flight */

#define JSONRPC_LINE_MAX	(16 * 1024 * 1024)

struct jsonrpc_framer;

/* A framer for lines of at most cap bytes (0: JSONRPC_LINE_MAX). */
struct jsonrpc_framer *jsonrpc_framer_new(size_t cap);
void	jsonrpc_framer_free(struct jsonrpc_framer *);

/* Append len bytes read from the peer. */
void	jsonrpc_framer_feed(struct jsonrpc_framer *, const void *, size_t);

/*
 * The next complete line: 1 with *line (NUL-terminated, without the
 * newline or a '\r' before it; owned by the framer until the next call)
 * and *len set; 0: need more bytes; CLAW_ERR_RANGE: a line passed the cap
 * (its bytes are discarded up to the next newline, reported once per
 * over-long line, and the framer goes on with the next line).  Empty
 * lines are skipped.  A line may hold NUL bytes: *len counts them.
 */
int	jsonrpc_framer_next(struct jsonrpc_framer *, char **line, size_t *len);

/* Bytes held for an unfinished line. */
size_t	jsonrpc_framer_pending(const struct jsonrpc_framer *);

struct jsonrpc_req {
	cJSON	*id;		/* NULL: a notification (no reply) */
	char	*method;
	cJSON	*params;	/* object, array, or NULL when absent */
};

/*
 * Parse one line: 0 and *req filled, or a JSONRPC_* code with *msg
 * (allocated); req->id is set even on failure when it could be recovered,
 * so the error response carries it (NULL otherwise: reply with id null).
 * Batches (arrays) are refused with JSONRPC_INVALID_REQUEST "batches are
 * not supported".  Strings holding "\u0000" are refused (they cannot be
 * passed on intact); so are unknown or repeated members.
 */
int	jsonrpc_parse(const char *line, size_t len, struct jsonrpc_req *req,
	    char **msg);
void	jsonrpc_req_clear(struct jsonrpc_req *);

/*
 * 1 if a request's id (a number is kept as its raw text, see
 * jsonrpc_parse) is rid, as a client names it again (the requestId of
 * notifications/cancelled), else 0.
 */
int	jsonrpc_id_is(const cJSON *id, const cJSON *rid);

/*
 * Serialized responses, each one line ending in '\n' (allocated,
 * compact); they take ownership of result / data / params.  id NULL is
 * written as null.
 */
char	*jsonrpc_result(const cJSON *id, cJSON *result);
char	*jsonrpc_error(const cJSON *id, int code, const char *msg, cJSON *data);
char	*jsonrpc_notification(const char *method, cJSON *params);

/*
 * Params of an "exec.output" notification: {"id": ID, "stream":
 * "stdout"|"stderr", "data": TEXT} when the bytes are valid UTF-8 without
 * NUL, else {"id":..., "stream":..., "data_base64": B64}.
 */
cJSON	*jsonrpc_output_params(const cJSON *id, const char *stream,
	    const char *data, size_t len);

/* 1 if data[0..len) is valid UTF-8 with no NUL byte, else 0. */
int	jsonrpc_utf8_ok(const char *data, size_t len);

/*
 * data[0..len) as a NUL-terminated string fit for JSON (allocated):
 * invalid UTF-8 and NUL bytes become U+FFFD.
 */
char	*jsonrpc_utf8_clean(const char *data, size_t len);

#endif /* CLAW_JSONRPC_H */

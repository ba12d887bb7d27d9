/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A finished worker's exit status and output -> the JSON-RPC result or
 * error of its method (see rpc_methods.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base64.h"
#include "jsonrpc.h"
#include "rpc_methods.h"
#include "xmalloc.h"

#define RPC_MESSAGE_MAX	2000	/* bytes of a worker's message kept */
#define RPC_EXIT_CLAWSSH 255	/* the CLI's own failures */

/*
 * The last line of err[0..len) that starts with prefix (or any non-empty
 * line if prefix is NULL): its start past the prefix and its length.
 */
static const char *
rpc_last_line(const char *err, size_t len, const char *prefix, size_t *n)
{
	const char	*end = err + len, *s, *e;
	size_t		 plen = prefix != NULL ? strlen(prefix) : 0;

	while (end > err) {
		e = end;
		while (e > err && (e[-1] == '\n' || e[-1] == '\r'))
			e--;
		for (s = e; s > err && s[-1] != '\n'; s--)
			;
		end = s;
		if (s == e || (size_t)(e - s) < plen ||
		    (prefix != NULL && memcmp(s, prefix, plen) != 0))
			continue;
		*n = (size_t)(e - s) - plen;
		return s + plen;
	}
	return NULL;
}

/* The message of a failed worker, or NULL. */
char *
rpc_stderr_message(const char *err, size_t errlen)
{
	const char	*s;
	size_t		 n;

	if (err == NULL || errlen == 0)
		return NULL;
	if ((s = rpc_last_line(err, errlen, "clawssh: ", &n)) == NULL &&
	    (s = rpc_last_line(err, errlen, NULL, &n)) == NULL)
		return NULL;
	if (n > RPC_MESSAGE_MAX)
		n = RPC_MESSAGE_MAX;
	return jsonrpc_utf8_clean(s, n);
}

/* Add bytes to o as key (text) or key_base64. */
static void
rpc_add_bytes(cJSON *o, const char *key, const char *data, size_t len)
{
	char	*s, *k;

	if (jsonrpc_utf8_ok(data, len)) {
		s = len == 0 ? xstrdup("") : xstrndup(data, len);
		cJSON_AddStringToObject(o, key, s);
	} else {
		s = base64_encode((const unsigned char *)data, len);
		k = xasprintf("%s_base64", key);
		cJSON_AddStringToObject(o, k, s);
		free(k);
	}
	free(s);
}

/* The result of exec: exit status, duration, output unless streamed. */
static cJSON *
rpc_exec_result(const struct rpc_call *c, int status, const char *out,
    size_t outlen, const char *err, size_t errlen, int64_t ms)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "exit_status", status);
	cJSON_AddNumberToObject(o, "duration_ms", (double)ms);
	if (!c->stream) {
		rpc_add_bytes(o, "stdout", out, outlen);
		rpc_add_bytes(o, "stderr", err, errlen);
	}
	return o;
}

/* The worker's JSON output, wrapped in result_key if the call has one. */
static cJSON *
rpc_json_result(const struct rpc_call *c, const char *out, size_t outlen,
    int *code, char **msg)
{
	cJSON	*v, *o;
	char	*clean;

	clean = jsonrpc_utf8_clean(out, outlen);
	v = cJSON_Parse(clean);
	free(clean);
	if (v == NULL) {
		*code = JSONRPC_INTERNAL_ERROR;
		*msg = xstrdup("the worker did not print JSON");
		return NULL;
	}
	if (c->result_key == NULL && cJSON_IsObject(v))
		return v;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, c->result_key != NULL ? c->result_key :
	    "value", v);
	return o;
}

/* The error of a worker that failed. */
static cJSON *
rpc_fail_result(int status, const char *err, size_t errlen, int *code,
    char **msg)
{
	char	*m;

	if ((m = rpc_stderr_message(err, errlen)) == NULL)
		m = xasprintf("clawssh exited with status %d", status);
	*code = JSONRPC_REMOTE_FAILED;
	*msg = m;
	return NULL;
}

/* The result of a finished worker, or NULL and an error. */
cJSON *
rpc_call_result(const struct rpc_call *c, int exit_status, const char *out,
    size_t outlen, const char *err, size_t errlen, int64_t duration_ms,
    int *code, char **msg)
{
	cJSON		*o;
	const char	*key;
	size_t		 n;

	if (out == NULL)
		outlen = 0;
	if (err == NULL)
		errlen = 0;
	if (c->result == RPC_RESULT_EXEC) {
		if (exit_status == RPC_EXIT_CLAWSSH &&
		    rpc_last_line(err, errlen, "clawssh: ", &n) != NULL)
			return rpc_fail_result(exit_status, err, errlen, code,
			    msg);
		return rpc_exec_result(c, exit_status, out, outlen, err,
		    errlen, duration_ms);
	}
	if (exit_status != 0)
		return rpc_fail_result(exit_status, err, errlen, code, msg);
	if (c->result == RPC_RESULT_JSON)
		return rpc_json_result(c, out, outlen, code, msg);
	key = c->result_key != NULL ? c->result_key : "text";
	o = cJSON_CreateObject();
	rpc_add_bytes(o, key, out, outlen);
	return o;
}

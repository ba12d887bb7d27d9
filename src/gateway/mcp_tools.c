/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MCP initialize, tools/list and tools/call (see mcp_tools.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base64.h"
#include "jsonrpc.h"
#include "mcp_tools.h"
#include "ops.h"
#include "xmalloc.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION	"0"
#endif

static const char *const mcp_versions[] = {
	"2025-06-18", "2025-03-26", "2024-11-05"
};

/* The initialize result. */
cJSON *
mcp_initialize_result(const cJSON *params, const char *sandbox)
{
	const cJSON	*v = NULL;
	const char	*version = MCP_PROTOCOL_LATEST;
	cJSON		*o, *info;
	char		*text;
	size_t		 i;

	if (cJSON_IsObject(params))
		v = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	for (i = 0; cJSON_IsString(v) && i < sizeof mcp_versions /
	    sizeof *mcp_versions; i++)
		if (strcmp(v->valuestring, mcp_versions[i]) == 0)
			version = mcp_versions[i];
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "protocolVersion", version);
	cJSON_AddObjectToObject(cJSON_AddObjectToObject(o, "capabilities"),
	    "tools");
	info = cJSON_AddObjectToObject(o, "serverInfo");
	cJSON_AddStringToObject(info, "name", "clawssh");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	text = xasprintf("Every tool acts on the remote sandbox %s: commands "
	    "run in its workspace (/workspace in a contained sandbox) and "
	    "paths are relative to that workspace.  Long-running commands: "
	    "use process_start, then process_poll.",
	    sandbox != NULL ? sandbox : "(none bound)");
	cJSON_AddStringToObject(o, "instructions", text);
	free(text);
	return o;
}

/* The annotations object of a tool. */
static cJSON *
mcp_annotations(const struct op_entry *t)
{
	cJSON	*a = cJSON_CreateObject();

	cJSON_AddBoolToObject(a, "readOnlyHint", (t->hints & OPH_RO) != 0);
	cJSON_AddBoolToObject(a, "destructiveHint", (t->hints & OPH_DE) != 0);
	cJSON_AddBoolToObject(a, "idempotentHint", (t->hints & OPH_ID) != 0);
	cJSON_AddBoolToObject(a, "openWorldHint", 0);
	return a;
}

/* A schema literal of the operations table, parsed. */
static cJSON *
mcp_schema(const char *text)
{
	cJSON	*schema;

	if ((schema = cJSON_Parse(text)) == NULL)
		abort();	/* a bad literal in ops_table.c */
	return schema;
}

/* The policy name of an operation. */
static const char *
mcp_op_policy(const struct op_entry *t)
{
	return t->policy != NULL ? t->policy : t->method;
}

/* The tools/list result, the denied tools left out. */
cJSON *
mcp_tools_list_allowed(int (*allowed)(const char *, void *), void *arg)
{
	const struct op_entry	*t;
	cJSON			*o, *a, *j;
	size_t			 i;

	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, "tools");
	for (i = 0; i < ops_n; i++) {
		t = &ops_table[i];
		if (t->tool == NULL || (allowed != NULL &&
		    !allowed(mcp_op_policy(t), arg)))
			continue;
		j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", t->tool);
		cJSON_AddStringToObject(j, "description", t->summary);
		cJSON_AddItemToObject(j, "inputSchema", ops_input_schema(t));
		cJSON_AddItemToObject(j, "outputSchema",
		    mcp_schema(t->output));
		cJSON_AddItemToObject(j, "annotations", mcp_annotations(t));
		cJSON_AddItemToArray(a, j);
	}
	return o;
}

/* The tools/list result. */
cJSON *
mcp_tools_list(void)
{
	return mcp_tools_list_allowed(NULL, NULL);
}

/* The policy name of a method. */
const char *
mcp_policy_name(const char *method)
{
	const struct op_entry	*t = ops_by_method(method);

	return t != NULL && t->tool != NULL ? mcp_op_policy(t) : method;
}

/* Copy arguments into params, checking names against the table. */
static int
mcp_copy_args(const struct op_entry *t, const cJSON *args, cJSON *p,
    char **msg)
{
	const cJSON	*a;

	cJSON_ArrayForEach(a, args) {
		if (ops_arg(t, OPS_SURFACE_MCP, a->string) == NULL ||
		    cJSON_GetObjectItemCaseSensitive(p, a->string) != NULL) {
			*msg = xasprintf("arguments.%.64s: unknown or repeated "
			    "argument of %s", a->string, t->tool);
			return JSONRPC_INVALID_PARAMS;
		}
		cJSON_AddItemToObject(p, a->string, cJSON_Duplicate(a, 1));
	}
	return 0;
}

/* Turn a "command" string into argv ["sh", "-c", command]. */
static int
mcp_command(cJSON *p, char **msg)
{
	cJSON	*cmd, *argv;

	if ((cmd = cJSON_DetachItemFromObjectCaseSensitive(p, "command")) ==
	    NULL)
		return 0;
	if (!cJSON_IsString(cmd) || *cmd->valuestring == '\0' ||
	    cJSON_GetObjectItemCaseSensitive(p, "argv") != NULL) {
		cJSON_Delete(cmd);
		*msg = xstrdup("arguments.command: expected a non-empty string "
		    "(and no argv)");
		return JSONRPC_INVALID_PARAMS;
	}
	argv = cJSON_AddArrayToObject(p, "argv");
	cJSON_AddItemToArray(argv, cJSON_CreateString("sh"));
	cJSON_AddItemToArray(argv, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(argv, cmd);
	return 0;
}

/*
 * The encoding argument: read_file's becomes a flag, write_file's turns
 * content into content_base64; read_output keeps it.
 */
static int
mcp_encoding(const struct op_entry *t, cJSON *p, int *flags, char **msg)
{
	cJSON	*e, *c;
	int	 b64;

	if (strcmp(t->method, MCP_READ_OUTPUT) == 0 ||
	    (e = cJSON_DetachItemFromObjectCaseSensitive(p, "encoding")) ==
	    NULL)
		return 0;
	b64 = cJSON_IsString(e) && strcmp(e->valuestring, "base64") == 0;
	if (!b64 && !(cJSON_IsString(e) && strcmp(e->valuestring,
	    "utf-8") == 0)) {
		cJSON_Delete(e);
		*msg = xstrdup("arguments.encoding: expected \"utf-8\" or "
		    "\"base64\"");
		return JSONRPC_INVALID_PARAMS;
	}
	cJSON_Delete(e);
	if (b64 && strcmp(t->method, "fs.read") == 0)
		*flags |= MCP_CALL_BASE64;
	if (b64 && strcmp(t->method, "fs.write") == 0 &&
	    (c = cJSON_DetachItemFromObjectCaseSensitive(p, "content")) !=
	    NULL)
		cJSON_AddItemToObject(p, "content_base64", c);
	return 0;
}

/* tools/call -> method, params and flags. */
int
mcp_tool_call_ex(const cJSON *params, const char *sandbox, char **method,
    cJSON **rpc_params, int *flags, char **msg)
{
	const struct op_entry	*t;
	const cJSON		*name, *args;
	cJSON			*p;
	int			 rc;

	name = cJSON_GetObjectItemCaseSensitive(params, "name");
	args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	if (!cJSON_IsObject(params) || !cJSON_IsString(name)) {
		*msg = xstrdup("params.name: expected a tool name");
		return JSONRPC_INVALID_PARAMS;
	}
	if ((t = ops_by_tool(name->valuestring)) == NULL) {
		*msg = xasprintf("unknown tool '%.64s'", name->valuestring);
		return JSONRPC_INVALID_PARAMS;
	}
	if (args != NULL && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
		*msg = xstrdup("params.arguments: expected an object");
		return JSONRPC_INVALID_PARAMS;
	}
	if (sandbox == NULL) {
		*msg = xstrdup("no sandbox is bound to this server");
		return JSONRPC_INVALID_PARAMS;
	}
	*flags = 0;
	p = cJSON_CreateObject();
	if ((rc = mcp_copy_args(t, args, p, msg)) != 0 ||
	    (rc = mcp_command(p, msg)) != 0 ||
	    (rc = mcp_encoding(t, p, flags, msg)) != 0) {
		cJSON_Delete(p);
		return rc;
	}
	cJSON_AddStringToObject(p, "sandbox", sandbox);
	*method = xstrdup(t->method);
	*rpc_params = p;
	return 0;
}

/* tools/call -> method and params. */
int
mcp_tool_call(const cJSON *params, const char *sandbox, char **method,
    cJSON **rpc_params, char **msg)
{
	int	flags;

	return mcp_tool_call_ex(params, sandbox, method, rpc_params, &flags,
	    msg);
}

/* A tools/call result holding text. */
static cJSON *
mcp_text_result(const char *text, int is_error)
{
	cJSON	*o = cJSON_CreateObject(), *c, *a;

	a = cJSON_AddArrayToObject(o, "content");
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", text);
	cJSON_AddItemToArray(a, c);
	cJSON_AddBoolToObject(o, "isError", is_error);
	return o;
}

/* A process state's text: its output, then its state. */
static cJSON *
mcp_process_result(const cJSON *result)
{
	const char	*out, *state;
	const cJSON	*st;
	char		*text;
	cJSON		*o;

	out = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result,
	    "output"));
	state = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result,
	    "state"));
	st = cJSON_GetObjectItemCaseSensitive(result, "exit_status");
	if (out == NULL || state == NULL)
		return NULL;
	if (cJSON_IsNumber(st))
		text = xasprintf("%s%s[%s, exit status %d]", out, *out != '\0'
		    && out[strlen(out) - 1] != '\n' ? "\n" : "", state,
		    st->valueint);
	else
		text = xasprintf("%s%s[%s]", out, *out != '\0' &&
		    out[strlen(out) - 1] != '\n' ? "\n" : "", state);
	o = mcp_text_result(text, 0);
	free(text);
	cJSON_AddItemToObject(o, "structuredContent", cJSON_Duplicate(result,
	    1));
	return o;
}

/* The largest n' <= n that does not end inside a UTF-8 character. */
size_t
mcp_utf8_cut(const char *data, size_t n)
{
	size_t		i = n, need;
	unsigned char	c;

	while (i > 0 && n - i < 3 && ((unsigned char)data[i - 1] & 0xc0) ==
	    0x80)
		i--;
	if (i == 0)
		return n;
	c = (unsigned char)data[i - 1];
	need = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ?
	    3 : (c & 0xf8) == 0xf0 ? 4 : 1;
	return n - (i - 1) < need ? i - 1 : n;
}

/* The serialized size of o. */
static size_t
mcp_size(const cJSON *o)
{
	char	*s;
	size_t	 n;

	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		abort();
	n = strlen(s);
	cJSON_free(s);
	return n;
}

/* The cap of o. */
static size_t
mcp_cap(const struct mcp_output *o)
{
	return o->max_result != 0 ? o->max_result : MCP_MAX_RESULT_DEFAULT;
}

/* n scaled down so that a result of size len would fit under cap. */
static size_t
mcp_shrink(size_t n, size_t len, size_t cap)
{
	double	f = (double)(cap > 1024 ? cap - 1024 : 0) / (double)len;

	return f < 1 ? (size_t)((double)n * f) : n;
}

/* The name of the signal of an exit status 128+N, or NULL. */
static const char *
mcp_signal(int status)
{
	if (status <= 128 || status > 128 + 64)
		return NULL;
	return sigabbrev_np(status - 128);
}

/* Add data[0..len) to o as a string fit for JSON. */
static void
mcp_add_text(cJSON *o, const char *key, const char *data, size_t len)
{
	char	*s = jsonrpc_utf8_clean(data != NULL ? data : "",
	    data != NULL ? len : 0);

	cJSON_AddStringToObject(o, key, s);
	free(s);
}

/* exec's result with nout bytes of stdout and nerr of stderr. */
static cJSON *
mcp_exec_build(const cJSON *result, const struct mcp_output *o,
    size_t nout, size_t nerr)
{
	const cJSON	*v;
	const char	*sig, *so, *se;
	uint64_t	 tout, terr;
	int		 status, cut;
	char		*text;
	cJSON		*r, *sc;

	v = cJSON_GetObjectItemCaseSensitive(result, "exit_status");
	status = cJSON_IsNumber(v) ? v->valueint : -1;
	sig = mcp_signal(status);
	tout = o->out_total > o->outlen ? o->out_total : o->outlen;
	terr = o->err_total > o->errlen ? o->err_total : o->errlen;
	cut = nout < tout || nerr < terr;
	sc = cJSON_CreateObject();
	if (sig != NULL)
		cJSON_AddNullToObject(sc, "exitCode");
	else
		cJSON_AddNumberToObject(sc, "exitCode", status);
	if (sig != NULL)
		cJSON_AddStringToObject(sc, "signal", sig);
	else
		cJSON_AddNullToObject(sc, "signal");
	mcp_add_text(sc, "stdout", o->out, nout);
	mcp_add_text(sc, "stderr", o->err, nerr);
	cJSON_AddBoolToObject(sc, "truncated", cut);
	cJSON_AddNumberToObject(sc, "stdoutBytes", (double)tout);
	cJSON_AddNumberToObject(sc, "stderrBytes", (double)terr);
	v = cJSON_GetObjectItemCaseSensitive(result, "duration_ms");
	cJSON_AddNumberToObject(sc, "durationMs", cJSON_IsNumber(v) ?
	    v->valuedouble : 0);
	so = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sc,
	    "stdout"));
	se = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sc,
	    "stderr"));
	text = xasprintf("%s%s%s%s%s[exit status %d]", so, se,
	    (*so != '\0' || *se != '\0') && (*se != '\0' ? se : so)[strlen(
	    *se != '\0' ? se : so) - 1] != '\n' ? "\n" : "", cut ?
	    "[output cut to fit the result cap]" : "", cut ? "\n" : "",
	    status);
	r = mcp_text_result(text, status != 0);
	free(text);
	cJSON_AddItemToObject(r, "structuredContent", sc);
	return r;
}

/* exec's result, stdout and stderr cut to fit the cap. */
static cJSON *
mcp_exec_result(const cJSON *result, const struct mcp_output *o)
{
	size_t	 cap = mcp_cap(o), nout = o->out != NULL ? o->outlen : 0;
	size_t	 nerr = o->err != NULL ? o->errlen : 0, len, cut, d;
	size_t	*big, *small;
	cJSON	*r;

	for (;;) {
		r = mcp_exec_build(result, o, nout, nerr);
		if ((len = mcp_size(r)) <= cap || (nout == 0 && nerr == 0))
			return r;
		cJSON_Delete(r);
		cut = (nout + nerr) - mcp_shrink(nout + nerr, len, cap);
		if (nout >= nerr) {	/* the longer one gives first */
			big = &nout;
			small = &nerr;
		} else {
			big = &nerr;
			small = &nout;
		}
		if (cut > *big - *small) {	/* then both, evenly */
			d = (cut - (*big - *small)) / 2;
			*small -= d < *small ? d : *small;
			cut -= d;
		}
		*big -= cut < *big ? cut : *big;
		nout = mcp_utf8_cut(o->out, nout);
		nerr = mcp_utf8_cut(o->err, nerr);
	}
}

/* Add the read_output id of a cut exec's output; see mcp_tools.h. */
void
mcp_result_output_id(cJSON *r, const char *id)
{
	cJSON	*sc, *c;
	char	*text;

	sc = cJSON_GetObjectItemCaseSensitive(r, "structuredContent");
	c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "content"),
	    0);
	cJSON_AddStringToObject(sc, "outputId", id);
	text = xasprintf("%s\n[the whole output: read_output id %s]",
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "text")),
	    id);
	cJSON_ReplaceItemInObjectCaseSensitive(c, "text",
	    cJSON_CreateString(text));
	free(text);
}

/* read_file's result from n bytes of data, base64 or text. */
static cJSON *
mcp_read_build(const char *data, size_t n, size_t total, int b64)
{
	cJSON	*r, *sc;
	char	*s, *text;

	if (b64)
		s = base64_encode((const unsigned char *)data, n);
	else
		s = xstrndup(data, n);
	text = b64 ? xasprintf("(binary content, base64)\n%s", s) : NULL;
	r = mcp_text_result(text != NULL ? text : s, 0);
	sc = cJSON_AddObjectToObject(r, "structuredContent");
	cJSON_AddStringToObject(sc, "content", s);
	cJSON_AddStringToObject(sc, "encoding", b64 ? "base64" : "utf-8");
	cJSON_AddNumberToObject(sc, "bytes", (double)n);
	cJSON_AddBoolToObject(sc, "truncated", n < total);
	free(text);
	free(s);
	return r;
}

/* read_file: text, or base64 when not UTF-8 or asked for; capped. */
static cJSON *
mcp_read_result(const cJSON *result, const struct mcp_output *o)
{
	const char	*s;
	char		*data;
	size_t		 n, total, len, cap = mcp_cap(o);
	int		 b64 = (o->flags & MCP_CALL_BASE64) != 0;
	cJSON		*r;

	if ((s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result,
	    "content"))) != NULL)
		data = xstrdup(s), n = strlen(s);
	else if ((s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
	    result, "content_base64"))) != NULL &&
	    (data = (char *)base64_decode(s, strlen(s), &n)) != NULL)
		b64 = 1;
	else
		return mcp_text_result("the worker gave no content", 1);
	total = n;
	for (;;) {
		r = mcp_read_build(data, n, total, b64);
		if ((len = mcp_size(r)) <= cap || n == 0)
			break;
		cJSON_Delete(r);
		n = mcp_shrink(n, len, cap);
		if (!b64)
			n = mcp_utf8_cut(data, n);
	}
	free(data);
	return r;
}

/* A text-only method's result: {"message": ...}. */
static cJSON *
mcp_message_result(const char *text, const struct mcp_output *o,
    const char *method)
{
	cJSON	*r, *sc;

	r = mcp_text_result(*text != '\0' ? text : "ok", 0);
	sc = cJSON_AddObjectToObject(r, "structuredContent");
	if (strcmp(method, "fs.write") == 0)
		cJSON_AddNumberToObject(sc, "bytes", (double)o->in_bytes);
	cJSON_AddStringToObject(sc, "message", text);
	return r;
}

/* A JSON result: its text and structuredContent, if it fits the cap. */
static cJSON *
mcp_json_result(const cJSON *result, const struct mcp_output *o)
{
	char	*text;
	cJSON	*r;

	if ((text = cJSON_Print(result)) == NULL)
		abort();
	r = mcp_text_result(text, 0);
	cJSON_free(text);
	if (cJSON_IsObject(result))
		cJSON_AddItemToObject(r, "structuredContent",
		    cJSON_Duplicate(result, 1));
	if (mcp_size(r) > mcp_cap(o)) {
		cJSON_Delete(r);
		text = xasprintf("the result is over the result cap (%zu "
		    "bytes): ask for less", mcp_cap(o));
		r = mcp_text_result(text, 1);
		free(text);
	}
	return r;
}

/* The tools/call result of a method's result or error; full form. */
cJSON *
mcp_tool_result_ex(const char *method, const cJSON *result,
    const struct mcp_output *o, int errcode, const char *errmsg)
{
	const char	*s;
	cJSON		*r;

	if (errcode != 0 || result == NULL)
		return mcp_text_result(errmsg != NULL ? errmsg : "failed", 1);
	if (strcmp(method, "exec") == 0)
		return mcp_exec_result(result, o);
	if (strcmp(method, "fs.read") == 0)
		return mcp_read_result(result, o);
	if ((strcmp(method, "process.poll") == 0 ||
	    strcmp(method, "process.log") == 0) &&
	    (r = mcp_process_result(result)) != NULL)
		return r;
	if ((s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result,
	    "text"))) != NULL)
		return mcp_message_result(s, o, method);
	return mcp_json_result(result, o);
}

/* The tools/call result; short form (see mcp_tools.h). */
cJSON *
mcp_tool_result(const char *method, const cJSON *result, const char *output,
    size_t outlen, int errcode, const char *errmsg)
{
	struct mcp_output	o;

	memset(&o, 0, sizeof o);
	o.out = output;
	o.outlen = output != NULL ? outlen : 0;
	return mcp_tool_result_ex(method, result, &o, errcode, errmsg);
}

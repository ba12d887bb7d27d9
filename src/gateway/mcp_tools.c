/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MCP initialize, tools/list and tools/call (see mcp_tools.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonrpc.h"
#include "mcp_tools.h"
#include "xmalloc.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION	"0"
#endif

#define MCP_PATH_PROP \
	"\"path\":{\"type\":\"string\",\"description\":\"a path in the " \
	"sandbox's workspace, relative to it\"}"
#define MCP_HANDLE_PROP \
	"\"handle\":{\"type\":\"string\",\"pattern\":\"^p[0-9a-f]{8}$\"," \
	"\"description\":\"the handle process_start returned\"}"
#define MCP_COMMAND_PROPS \
	"\"command\":{\"type\":\"string\",\"description\":\"a shell " \
	"command line, run with sh -c (give this or argv)\"}," \
	"\"argv\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}," \
	"\"minItems\":1,\"description\":\"the program and its arguments, " \
	"run without a shell (give this or command)\"}," \
	"\"env\":{\"type\":\"object\",\"additionalProperties\":" \
	"{\"type\":\"string\"},\"description\":\"environment variables\"}"
#define MCP_PATHS_PROP \
	"\"paths\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}," \
	"\"description\":\"only these paths (default: everything)\"}"

struct mcp_tool {
	const char	*name;
	const char	*method;
	const char	*description;
	const char	*schema;	/* JSON Schema of the arguments */
};

static const struct mcp_tool mcp_tools[] = {
	{ "exec", "exec",
	  "Run a command in the sandbox's workspace and return its output "
	  "and exit status.",
	  "{\"type\":\"object\",\"properties\":{" MCP_COMMAND_PROPS ","
	  "\"cwd\":{\"type\":\"string\",\"description\":\"working directory, "
	  "relative to the workspace\"},"
	  "\"timeout\":{\"type\":\"integer\",\"minimum\":0,"
	  "\"maximum\":31536000,\"description\":\"seconds; 0 or absent: "
	  "none\"},"
	  "\"stdin\":{\"type\":\"string\",\"description\":\"standard "
	  "input\"},"
	  "\"pty\":{\"type\":\"boolean\",\"description\":\"run it on a "
	  "pseudo-terminal (stdout and stderr become one stream)\"},"
	  "\"cols\":{\"type\":\"integer\",\"minimum\":1,"
	  "\"maximum\":10000,\"description\":\"with pty: columns (80)\"},"
	  "\"rows\":{\"type\":\"integer\",\"minimum\":1,"
	  "\"maximum\":10000,\"description\":\"with pty: rows (24)\"}},"
	  "\"additionalProperties\":false}" },
	{ "read_file", "fs.read",
	  "Read a file of the workspace, or a byte or line range of it.",
	  "{\"type\":\"object\",\"properties\":{" MCP_PATH_PROP ","
	  "\"offset\":{\"type\":\"integer\",\"minimum\":0},"
	  "\"limit\":{\"type\":\"integer\",\"minimum\":0},"
	  "\"lines\":{\"type\":\"boolean\",\"description\":\"offset and "
	  "limit count lines, not bytes\"}},"
	  "\"required\":[\"path\"],\"additionalProperties\":false}" },
	{ "write_file", "fs.write",
	  "Replace a file with new content, atomically, creating parent "
	  "directories.",
	  "{\"type\":\"object\",\"properties\":{" MCP_PATH_PROP ","
	  "\"content\":{\"type\":\"string\"}},"
	  "\"required\":[\"path\",\"content\"],"
	  "\"additionalProperties\":false}" },
	{ "edit_file", "fs.edit",
	  "Replace exact text in a file: old must occur once, or set all.",
	  "{\"type\":\"object\",\"properties\":{" MCP_PATH_PROP ","
	  "\"old\":{\"type\":\"string\",\"minLength\":1},"
	  "\"new\":{\"type\":\"string\"},"
	  "\"all\":{\"type\":\"boolean\"}},"
	  "\"required\":[\"path\",\"old\",\"new\"],"
	  "\"additionalProperties\":false}" },
	{ "apply_patch", "fs.applyPatch",
	  "Apply a unified diff or a '*** Begin Patch' patch to the "
	  "workspace: every file applies or nothing is written.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"patch\":{\"type\":\"string\",\"minLength\":1}},"
	  "\"required\":[\"patch\"],\"additionalProperties\":false}" },
	{ "list_dir", "fs.ls",
	  "List a directory of the workspace (default: its top).",
	  "{\"type\":\"object\",\"properties\":{" MCP_PATH_PROP "},"
	  "\"additionalProperties\":false}" },
	{ "stat", "fs.stat",
	  "Show one file's type, mode, size and modification time.",
	  "{\"type\":\"object\",\"properties\":{" MCP_PATH_PROP "},"
	  "\"required\":[\"path\"],\"additionalProperties\":false}" },
	{ "process_start", "process.start",
	  "Start a background process in the sandbox; returns its handle.",
	  "{\"type\":\"object\",\"properties\":{" MCP_COMMAND_PROPS ","
	  "\"name\":{\"type\":\"string\",\"pattern\":"
	  "\"^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$\"}},"
	  "\"additionalProperties\":false}" },
	{ "process_poll", "process.poll",
	  "A background process's state and the output since the last "
	  "poll.",
	  "{\"type\":\"object\",\"properties\":{" MCP_HANDLE_PROP "},"
	  "\"required\":[\"handle\"],\"additionalProperties\":false}" },
	{ "process_log", "process.log",
	  "The end of a background process's output.",
	  "{\"type\":\"object\",\"properties\":{" MCP_HANDLE_PROP ","
	  "\"tail\":{\"type\":\"integer\",\"minimum\":1,"
	  "\"maximum\":10000000,\"description\":\"lines\"}},"
	  "\"required\":[\"handle\"],\"additionalProperties\":false}" },
	{ "process_wait", "process.wait",
	  "Wait until a background process exits (or timeout seconds "
	  "pass: state still running); its state and exit status.",
	  "{\"type\":\"object\",\"properties\":{" MCP_HANDLE_PROP ","
	  "\"timeout\":{\"type\":\"integer\",\"minimum\":0,"
	  "\"maximum\":31536000,\"description\":\"seconds\"}},"
	  "\"required\":[\"handle\"],\"additionalProperties\":false}" },
	{ "process_write", "process.write",
	  "Write to a background process's standard input.",
	  "{\"type\":\"object\",\"properties\":{" MCP_HANDLE_PROP ","
	  "\"data\":{\"type\":\"string\"},"
	  "\"eof\":{\"type\":\"boolean\",\"description\":\"close its "
	  "input after data\"}},"
	  "\"required\":[\"handle\"],\"additionalProperties\":false}" },
	{ "process_kill", "process.kill",
	  "Send a signal (default TERM) to a background process.",
	  "{\"type\":\"object\",\"properties\":{" MCP_HANDLE_PROP ","
	  "\"signal\":{\"type\":\"string\",\"description\":\"TERM, KILL, "
	  "INT, HUP, ...\"}},"
	  "\"required\":[\"handle\"],\"additionalProperties\":false}" },
	{ "process_list", "process.list",
	  "List the sandbox's background processes.",
	  "{\"type\":\"object\",\"properties\":{},"
	  "\"additionalProperties\":false}" },
	{ "sync_push", "sync.push",
	  "Send local workspace changes to the sandbox now.",
	  "{\"type\":\"object\",\"properties\":{" MCP_PATHS_PROP "},"
	  "\"additionalProperties\":false}" },
	{ "sync_pull", "sync.pull",
	  "Fetch the sandbox's workspace changes into the local workspace "
	  "now.",
	  "{\"type\":\"object\",\"properties\":{" MCP_PATHS_PROP "},"
	  "\"additionalProperties\":false}" },
};
#define N_TOOLS	(sizeof mcp_tools / sizeof mcp_tools[0])

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

/* The tools/list result. */
cJSON *
mcp_tools_list(void)
{
	cJSON	*o, *a, *t, *schema;
	size_t	 i;

	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, "tools");
	for (i = 0; i < N_TOOLS; i++) {
		if ((schema = cJSON_Parse(mcp_tools[i].schema)) == NULL)
			abort();	/* a bad literal above */
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", mcp_tools[i].name);
		cJSON_AddStringToObject(t, "description",
		    mcp_tools[i].description);
		cJSON_AddItemToObject(t, "inputSchema", schema);
		cJSON_AddItemToArray(a, t);
	}
	return o;
}

/* The tool named name, or NULL. */
static const struct mcp_tool *
mcp_tool_find(const char *name)
{
	size_t	i;

	for (i = 0; i < N_TOOLS; i++)
		if (strcmp(name, mcp_tools[i].name) == 0)
			return &mcp_tools[i];
	return NULL;
}

/* Copy arguments into params, checking names against the schema. */
static int
mcp_copy_args(const struct mcp_tool *t, const cJSON *args, cJSON *p,
    char **msg)
{
	cJSON		*schema, *props;
	const cJSON	*a;
	int		 rc = 0;

	if ((schema = cJSON_Parse(t->schema)) == NULL)
		abort();
	props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
	cJSON_ArrayForEach(a, args) {
		if (cJSON_GetObjectItemCaseSensitive(props, a->string) ==
		    NULL ||
		    cJSON_GetObjectItemCaseSensitive(p, a->string) != NULL) {
			*msg = xasprintf("arguments.%.64s: unknown or repeated "
			    "argument of %s", a->string, t->name);
			rc = JSONRPC_INVALID_PARAMS;
			break;
		}
		cJSON_AddItemToObject(p, a->string, cJSON_Duplicate(a, 1));
	}
	cJSON_Delete(schema);
	return rc;
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

/* tools/call -> method and params. */
int
mcp_tool_call(const cJSON *params, const char *sandbox, char **method,
    cJSON **rpc_params, char **msg)
{
	const struct mcp_tool	*t;
	const cJSON		*name, *args;
	cJSON			*p;
	int			 rc;

	name = cJSON_GetObjectItemCaseSensitive(params, "name");
	args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	if (!cJSON_IsObject(params) || !cJSON_IsString(name)) {
		*msg = xstrdup("params.name: expected a tool name");
		return JSONRPC_INVALID_PARAMS;
	}
	if ((t = mcp_tool_find(name->valuestring)) == NULL) {
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
	p = cJSON_CreateObject();
	if ((rc = mcp_copy_args(t, args, p, msg)) != 0 ||
	    (rc = mcp_command(p, msg)) != 0) {
		cJSON_Delete(p);
		return rc;
	}
	cJSON_AddStringToObject(p, "sandbox", sandbox);
	*method = xstrdup(t->method);
	*rpc_params = p;
	return 0;
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

/* exec's text: the output, then the exit status. */
static cJSON *
mcp_exec_result(const cJSON *result, const char *output, size_t outlen)
{
	const cJSON	*v;
	char		*out, *text;
	int		 status;
	cJSON		*o;

	v = cJSON_GetObjectItemCaseSensitive(result, "exit_status");
	status = cJSON_IsNumber(v) ? v->valueint : -1;
	out = jsonrpc_utf8_clean(output != NULL ? output : "",
	    output != NULL ? outlen : 0);
	text = xasprintf("%s%s[exit status %d]", out, *out != '\0' &&
	    out[strlen(out) - 1] != '\n' ? "\n" : "", status);
	o = mcp_text_result(text, status != 0);
	free(text);
	free(out);
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

/* The tools/call result of a method's result or error. */
cJSON *
mcp_tool_result(const char *method, const cJSON *result, const char *output,
    size_t outlen, int errcode, const char *errmsg)
{
	const char	*s;
	char		*text;
	cJSON		*o;

	if (errcode != 0 || result == NULL)
		return mcp_text_result(errmsg != NULL ? errmsg : "failed", 1);
	if (strcmp(method, "exec") == 0)
		return mcp_exec_result(result, output, outlen);
	if ((strcmp(method, "process.poll") == 0 ||
	    strcmp(method, "process.log") == 0) &&
	    (o = mcp_process_result(result)) != NULL)
		return o;
	if ((s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result,
	    "content"))) != NULL ||
	    (s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result,
	    "text"))) != NULL)
		return mcp_text_result(*s != '\0' || strcmp(method,
		    "fs.read") == 0 ? s : "ok", 0);
	if ((s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result,
	    "content_base64"))) != NULL) {
		text = xasprintf("(binary content, base64)\n%s", s);
		o = mcp_text_result(text, 0);
		free(text);
		return o;
	}
	if ((text = cJSON_Print(result)) == NULL)
		abort();
	o = mcp_text_result(text, 0);
	cJSON_free(text);
	if (cJSON_IsObject(result))
		cJSON_AddItemToObject(o, "structuredContent",
		    cJSON_Duplicate(result, 1));
	return o;
}

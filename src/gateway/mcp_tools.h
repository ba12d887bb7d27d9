/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Model Context Protocol over the JSON-RPC framing of jsonrpc.h:
 * initialize, tools/list and tools/call for one bound sandbox.  A tool
 * call becomes a JSON-RPC method of rpc_methods.h run against that
 * sandbox.  Pure code, no I/O; see docs/protocol.md.
 */
#ifndef CLAW_MCP_TOOLS_H
#define CLAW_MCP_TOOLS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define MCP_PROTOCOL_LATEST	"2025-06-18"

/* The cap on one tools/call result line (mcp.maxResult). */
#define MCP_MAX_RESULT_DEFAULT	(1024 * 1024)
#define MCP_MAX_RESULT_MIN	4096
#define MCP_MAX_RESULT_MAX	(256 * 1024 * 1024)

/* The method of the read_output tool, answered by the server itself. */
#define MCP_READ_OUTPUT		"mcp.readOutput"

/* Flags of a call (mcp_tool_call_ex). */
#define MCP_CALL_BASE64		0x1	/* read_file: base64 asked */

/*
 * Result of "initialize": protocolVersion (the client's if we support it
 * -- 2025-06-18, 2025-03-26, 2024-11-05 -- else our latest), capabilities
 * {"tools": {}}, serverInfo {name "clawssh", version PACKAGE_VERSION},
 * instructions naming the bound sandbox.
 */
cJSON	*mcp_initialize_result(const cJSON *params, const char *sandbox);

/*
 * The "tools/list" result: {"tools": [...]}, each with its inputSchema,
 * outputSchema and annotations (readOnlyHint, destructiveHint,
 * idempotentHint).  With allowed, only the tools for which
 * allowed(policy name, arg) is 1 (the policy name is the method, or
 * "exec" for read_output).
 */
cJSON	*mcp_tools_list(void);
cJSON	*mcp_tools_list_allowed(int (*allowed)(const char *, void *),
	    void *arg);

/* The policy name of a method mcp_tool_call returned. */
const char *mcp_policy_name(const char *method);

/*
 * "tools/call" {name, arguments} -> the JSON-RPC method (allocated) and
 * params (with "sandbox" set) to run.  0, or JSONRPC_INVALID_PARAMS with
 * *msg for an unknown tool or bad arguments.  The params are still
 * checked by rpc_call_build.
 */
int	mcp_tool_call(const cJSON *params, const char *sandbox,
	    char **method, cJSON **rpc_params, char **msg);
/* The same, and *flags (MCP_CALL_*) for mcp_tool_result_ex. */
int	mcp_tool_call_ex(const cJSON *params, const char *sandbox,
	    char **method, cJSON **rpc_params, int *flags, char **msg);

/* What a call produced, for mcp_tool_result_ex. */
struct mcp_output {
	const char	*out;		/* stdout (exec), or NULL */
	size_t		 outlen;
	const char	*err;		/* stderr (exec), or NULL */
	size_t		 errlen;
	uint64_t	 out_total;	/* bytes produced; 0: outlen */
	uint64_t	 err_total;	/* 0: errlen */
	size_t		 in_bytes;	/* bytes of input (write_file) */
	size_t		 max_result;	/* the cap; 0: the default */
	int		 flags;		/* MCP_CALL_* */
};

/*
 * The "tools/call" result from a method's result (errcode 0) or error:
 * {"content": [{"type": "text", "text": ...}], "isError": bool}.  For
 * exec, output is the collected output and the text ends with the exit
 * status; a non-zero exit is isError true.
 */
cJSON	*mcp_tool_result(const char *method, const cJSON *result,
	    const char *output, size_t outlen, int errcode, const char *errmsg);

/*
 * The full form: content for old clients plus structuredContent matching
 * the tool's outputSchema.  exec gives exitCode (null when it died of a
 * signal), signal (its name, from an exit status of 128+N, else null),
 * stdout, stderr, truncated, stdoutBytes, stderrBytes, durationMs, and
 * outputId when the rest of a cut output is kept.  The serialized result
 * stays under o->max_result: stdout and stderr (and read_file's content)
 * are cut at a character boundary to fit, and truncated says so.
 */
cJSON	*mcp_tool_result_ex(const char *method, const cJSON *result,
	    const struct mcp_output *o, int errcode, const char *errmsg);

/*
 * Add outputId (the read_output id of the whole output) to a cut exec's
 * result and name it in its text.
 */
void	mcp_result_output_id(cJSON *result, const char *id);

/* UTF-8 is not cut inside a character: the largest n' <= n that ends
   one (data[0..n) given). */
size_t	mcp_utf8_cut(const char *data, size_t n);

#endif /* CLAW_MCP_TOOLS_H */

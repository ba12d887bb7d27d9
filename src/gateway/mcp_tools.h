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

#include <cjson/cJSON.h>

#define MCP_PROTOCOL_LATEST	"2025-06-18"

/*
 * Result of "initialize": protocolVersion (the client's if we support it
 * -- 2025-06-18, 2025-03-26, 2024-11-05 -- else our latest), capabilities
 * {"tools": {}}, serverInfo {name "clawssh", version PACKAGE_VERSION},
 * instructions naming the bound sandbox.
 */
cJSON	*mcp_initialize_result(const cJSON *params, const char *sandbox);

/* The "tools/list" result: {"tools": [...]}, each with a JSON Schema. */
cJSON	*mcp_tools_list(void);

/*
 * "tools/call" {name, arguments} -> the JSON-RPC method (allocated) and
 * params (with "sandbox" set) to run.  0, or JSONRPC_INVALID_PARAMS with
 * *msg for an unknown tool or bad arguments.  The params are still
 * checked by rpc_call_build.
 */
int	mcp_tool_call(const cJSON *params, const char *sandbox,
	    char **method, cJSON **rpc_params, char **msg);

/*
 * The "tools/call" result from a method's result (errcode 0) or error:
 * {"content": [{"type": "text", "text": ...}], "isError": bool}.  For
 * exec, output is the collected output and the text ends with the exit
 * status; a non-zero exit is isError true.
 */
cJSON	*mcp_tool_result(const char *method, const cJSON *result,
	    const char *output, size_t outlen, int errcode, const char *errmsg);

#endif /* CLAW_MCP_TOOLS_H */

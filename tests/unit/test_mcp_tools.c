/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for mcp_tools: initialize version negotiation, the tools
 * list and its schemas, tools/call mapping to methods (each checked by
 * rpc_call_build), and tools/call results.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "error.h"
#include "jsonrpc.h"
#include "mcp_spill.h"
#include "mcp_tools.h"
#include "rpc_methods.h"
#include "xmalloc.h"

#define ID	"cabcdefghijkl"

/* The protocolVersion initialize answers to a client's params text. */
static void
negotiates(const char *params, const char *want)
{
	cJSON	*p = params != NULL ? cJSON_Parse(params) : NULL, *r;
	cJSON	*caps;

	r = mcp_initialize_result(p, ID);
	assert_string_equal(cJSON_GetObjectItem(r,
	    "protocolVersion")->valuestring, want);
	caps = cJSON_GetObjectItem(r, "capabilities");
	assert_true(cJSON_IsObject(cJSON_GetObjectItem(caps, "tools")));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(r,
	    "serverInfo"), "name")->valuestring, "clawssh");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(r,
	    "serverInfo"), "version")->valuestring, PACKAGE_VERSION);
	assert_non_null(strstr(cJSON_GetObjectItem(r,
	    "instructions")->valuestring, ID));
	cJSON_Delete(r);
	cJSON_Delete(p);
}

static void
test_initialize(void **state)
{
	(void)state;
	negotiates("{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},"
	    "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}",
	    "2024-11-05");
	negotiates("{\"protocolVersion\":\"2025-03-26\"}", "2025-03-26");
	negotiates("{\"protocolVersion\":\"2025-06-18\"}", "2025-06-18");
	negotiates("{\"protocolVersion\":\"2099-01-01\"}", MCP_PROTOCOL_LATEST);
	negotiates("{\"protocolVersion\":5}", MCP_PROTOCOL_LATEST);
	negotiates(NULL, MCP_PROTOCOL_LATEST);
}

static void
test_tools_list(void **state)
{
	static const char *const want[] = {
		"exec", "read_file", "write_file", "edit_file", "apply_patch",
		"list_dir", "stat", "process_start", "process_poll",
		"process_log", "process_wait", "process_write",
		"process_kill", "process_list",
		"sync_push", "sync_pull", "read_output", NULL
	};
	cJSON		*r, *tools, *t, *s, *props, *req, *v;
	char		*text, *again;
	size_t		 i = 0;

	(void)state;
	r = mcp_tools_list();
	tools = cJSON_GetObjectItem(r, "tools");
	assert_int_equal(cJSON_GetArraySize(tools), 17);
	cJSON_ArrayForEach(t, tools) {
		assert_string_equal(cJSON_GetObjectItem(t, "name")->valuestring,
		    want[i]);
		assert_true(strlen(cJSON_GetObjectItem(t,
		    "description")->valuestring) > 10);
		s = cJSON_GetObjectItem(t, "inputSchema");
		assert_string_equal(cJSON_GetObjectItem(s, "type")->valuestring,
		    "object");
		props = cJSON_GetObjectItem(s, "properties");
		assert_true(cJSON_IsObject(props));
		assert_null(cJSON_GetObjectItem(props, "sandbox"));
		assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(t,
		    "outputSchema"), "type")->valuestring, "object");
		v = cJSON_GetObjectItem(t, "annotations");
		assert_true(cJSON_IsBool(cJSON_GetObjectItem(v,
		    "readOnlyHint")));
		assert_true(cJSON_IsBool(cJSON_GetObjectItem(v,
		    "destructiveHint")));
		assert_true(cJSON_IsBool(cJSON_GetObjectItem(v,
		    "idempotentHint")));
		/* Every required name is a property. */
		req = cJSON_GetObjectItem(s, "required");
		cJSON_ArrayForEach(v, req)
			assert_non_null(cJSON_GetObjectItem(props,
			    v->valuestring));
		i++;
	}
	/* The whole list survives a print and parse. */
	text = cJSON_PrintUnformatted(r);
	cJSON_Delete(r);
	r = cJSON_Parse(text);
	assert_non_null(r);
	again = cJSON_PrintUnformatted(r);
	assert_string_equal(text, again);
	cJSON_free(text);
	cJSON_free(again);
	cJSON_Delete(r);
}

/*
 * Map a tools/call; expect method, and params that rpc_call_build takes
 * with argv want.
 */
static void
maps(const char *call, const char *method, const char *want_argv)
{
	cJSON		*p = cJSON_Parse(call), *rp = NULL;
	char		*m = NULL, *msg = NULL, *got, *n;
	struct rpc_call	 c;
	int		 i;

	assert_non_null(p);
	if (mcp_tool_call(p, ID, &m, &rp, &msg) != 0)
		fail_msg("%s: %s", call, msg);
	assert_string_equal(m, method);
	assert_string_equal(cJSON_GetObjectItem(rp, "sandbox")->valuestring,
	    ID);
	if (rpc_call_build(m, rp, &c, &msg) != 0)
		fail_msg("%s: %s", call, msg);
	got = xstrdup(c.argv[0]);
	for (i = 1; i < c.argc; i++) {
		n = xasprintf("%s|%s", got, c.argv[i]);
		free(got);
		got = n;
	}
	assert_string_equal(got, want_argv);
	free(got);
	rpc_call_clear(&c);
	cJSON_Delete(rp);
	cJSON_Delete(p);
	free(m);
}

static void
test_tool_call(void **state)
{
	(void)state;
	maps("{\"name\":\"exec\",\"arguments\":{\"command\":\"ls -l | wc\","
	    "\"timeout\":3}}", "exec", "exec|--sandbox=" ID "|--timeout=3|"
	    "--|sh|-c|ls -l | wc");
	maps("{\"name\":\"exec\",\"arguments\":{\"argv\":[\"ls\",\"-a\"],"
	    "\"env\":{\"K\":\"v\"},\"cwd\":\"d\"}}", "exec",
	    "exec|--sandbox=" ID "|--cwd=d|--env=K|--|ls|-a");
	maps("{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}",
	    "fs.read", "read|--sandbox=" ID "|--|a");
	maps("{\"name\":\"write_file\",\"arguments\":{\"path\":\"a\","
	    "\"content\":\"x\"}}", "fs.write", "write|--sandbox=" ID "|--|a");
	maps("{\"name\":\"edit_file\",\"arguments\":{\"path\":\"a\","
	    "\"old\":\"x\",\"new\":\"y\",\"all\":true}}", "fs.edit",
	    "edit|--sandbox=" ID "|--old=x|--new=y|--all|--|a");
	maps("{\"name\":\"apply_patch\",\"arguments\":{\"patch\":\"p\"}}",
	    "fs.applyPatch", "apply-patch|--sandbox=" ID);
	maps("{\"name\":\"list_dir\"}", "fs.ls", "ls|--sandbox=" ID "|--json");
	maps("{\"name\":\"list_dir\",\"arguments\":null}", "fs.ls",
	    "ls|--sandbox=" ID "|--json");
	maps("{\"name\":\"stat\",\"arguments\":{\"path\":\"a\"}}", "fs.stat",
	    "stat|--sandbox=" ID "|--json|--|a");
	maps("{\"name\":\"process_start\",\"arguments\":{\"command\":"
	    "\"sleep 9\",\"name\":\"s\"}}", "process.start",
	    "process|start|--sandbox=" ID "|--json|--name=s|--|sh|-c|sleep 9");
	maps("{\"name\":\"process_poll\",\"arguments\":{\"handle\":"
	    "\"p00000001\"}}", "process.poll", "process|poll|--sandbox=" ID
	    "|--json|--|p00000001");
	maps("{\"name\":\"process_log\",\"arguments\":{\"handle\":"
	    "\"p00000001\",\"tail\":3}}", "process.log", "process|log|"
	    "--sandbox=" ID "|--json|--tail=3|--|p00000001");
	maps("{\"name\":\"process_write\",\"arguments\":{\"handle\":"
	    "\"p00000001\",\"data\":\"x\"}}", "process.write",
	    "process|write|--sandbox=" ID "|--|p00000001");
	maps("{\"name\":\"process_kill\",\"arguments\":{\"handle\":"
	    "\"p00000001\",\"signal\":\"INT\"}}", "process.kill",
	    "process|kill|--sandbox=" ID "|--signal=INT|--|p00000001");
	maps("{\"name\":\"process_list\",\"arguments\":{}}", "process.list",
	    "process|list|--sandbox=" ID "|--json");
	maps("{\"name\":\"sync_push\",\"arguments\":{\"paths\":[\"a\"]}}",
	    "sync.push", "sync|push|--json|--|" ID "|a");
	maps("{\"name\":\"sync_pull\"}", "sync.pull",
	    "sync|pull|--json|--|" ID);
}

/* Expect a tools/call to be refused. */
static void
call_refused(const char *call, const char *sandbox, const char *part)
{
	cJSON	*p = cJSON_Parse(call), *rp = NULL;
	char	*m = NULL, *msg = NULL;

	assert_int_equal(mcp_tool_call(p, sandbox, &m, &rp, &msg),
	    JSONRPC_INVALID_PARAMS);
	assert_null(m);
	assert_null(rp);
	if (strstr(msg, part) == NULL)
		fail_msg("'%s' lacks '%s'", msg, part);
	free(msg);
	cJSON_Delete(p);
}

static void
test_tool_call_refused(void **state)
{
	(void)state;
	call_refused("{\"name\":\"rm_rf\"}", ID, "unknown tool 'rm_rf'");
	call_refused("{}", ID, "params.name");
	call_refused("[]", ID, "params.name");
	call_refused("{\"name\":\"exec\",\"arguments\":[]}", ID,
	    "params.arguments");
	/* The bound sandbox cannot be changed, nor a host reached. */
	call_refused("{\"name\":\"exec\",\"arguments\":{\"sandbox\":"
	    "\"czzzzzzzzzzzz\",\"command\":\"x\"}}", ID, "arguments.sandbox");
	call_refused("{\"name\":\"exec\",\"arguments\":{\"host\":\"h\","
	    "\"command\":\"x\"}}", ID, "arguments.host");
	call_refused("{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\","
	    "\"state_dir\":\"/\"}}", ID, "arguments.state_dir");
	call_refused("{\"name\":\"exec\",\"arguments\":{\"command\":\"x\","
	    "\"argv\":[\"y\"]}}", ID, "arguments.command");
	call_refused("{\"name\":\"exec\",\"arguments\":{\"command\":\"\"}}",
	    ID, "arguments.command");
	call_refused("{\"name\":\"exec\",\"arguments\":{\"command\":\"x\"}}",
	    NULL, "no sandbox");
}

/* The text and isError of a tools/call result. */
static void
result_is(cJSON *r, const char *text, int is_error)
{
	cJSON	*c = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "content"), 0);

	assert_string_equal(cJSON_GetObjectItem(c, "type")->valuestring,
	    "text");
	assert_string_equal(cJSON_GetObjectItem(c, "text")->valuestring,
	    text);
	assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(r, "isError")),
	    is_error);
	cJSON_Delete(r);
}

static void
test_tool_result(void **state)
{
	cJSON	*res;
	cJSON	*r;

	(void)state;
	res = cJSON_Parse("{\"exit_status\":0,\"duration_ms\":5}");
	result_is(mcp_tool_result("exec", res, "hi", 2, 0, NULL),
	    "hi\n[exit status 0]", 0);
	cJSON_Delete(res);
	res = cJSON_Parse("{\"exit_status\":2,\"duration_ms\":5}");
	result_is(mcp_tool_result("exec", res, "err\n\xff", 5, 0, NULL),
	    "err\n\xef\xbf\xbd\n[exit status 2]", 1);
	result_is(mcp_tool_result("exec", res, NULL, 0, 0, NULL),
	    "[exit status 2]", 1);
	cJSON_Delete(res);
	result_is(mcp_tool_result("fs.read", NULL, NULL, 0,
	    JSONRPC_REMOTE_FAILED, "a: no such file"), "a: no such file", 1);
	res = cJSON_Parse("{\"content\":\"\"}");
	result_is(mcp_tool_result("fs.read", res, NULL, 0, 0, NULL), "", 0);
	cJSON_Delete(res);
	res = cJSON_Parse("{\"text\":\"\"}");
	result_is(mcp_tool_result("fs.write", res, NULL, 0, 0, NULL), "ok", 0);
	cJSON_Delete(res);
	res = cJSON_Parse("{\"content_base64\":\"AAE=\"}");
	result_is(mcp_tool_result("fs.read", res, NULL, 0, 0, NULL),
	    "(binary content, base64)\nAAE=", 0);
	cJSON_Delete(res);
	res = cJSON_Parse("{\"handle\":\"p00000001\",\"state\":\"exited\","
	    "\"exit_status\":3,\"output\":\"done\"}");
	r = mcp_tool_result("process.poll", res, NULL, 0, 0, NULL);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(r,
	    "structuredContent"), "state")->valuestring, "exited");
	result_is(r, "done\n[exited, exit status 3]", 0);
	cJSON_Delete(res);
	res = cJSON_Parse("{\"handle\":\"p00000001\"}");
	r = mcp_tool_result("process.start", res, NULL, 0, 0, NULL);
	assert_non_null(cJSON_GetObjectItem(r, "structuredContent"));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(r,
	    "structuredContent"), "handle")->valuestring, "p00000001");
	result_is(r, "{\n\t\"handle\":\t\"p00000001\"\n}", 0);
	cJSON_Delete(res);
}

/* A policy that denies the writing file tools. */
static int
no_writes(const char *tool, void *arg)
{
	(void)arg;
	return strcmp(tool, "fs.write") != 0 && strcmp(tool, "fs.edit") != 0;
}

static void
test_tools_list_allowed(void **state)
{
	cJSON	*r, *t;
	int	 n = 0;

	(void)state;
	r = mcp_tools_list_allowed(no_writes, NULL);
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(r, "tools")) {
		assert_string_not_equal(cJSON_GetObjectItem(t,
		    "name")->valuestring, "write_file");
		assert_string_not_equal(cJSON_GetObjectItem(t,
		    "name")->valuestring, "edit_file");
		n++;
	}
	assert_int_equal(n, 15);
	cJSON_Delete(r);
	assert_string_equal(mcp_policy_name(MCP_READ_OUTPUT), "exec");
	assert_string_equal(mcp_policy_name("fs.read"), "fs.read");
}

/* The structuredContent member key of r. */
static cJSON *
sc_item(cJSON *r, const char *key)
{
	return cJSON_GetObjectItem(cJSON_GetObjectItem(r,
	    "structuredContent"), key);
}

static void
test_exec_structured(void **state)
{
	struct mcp_output	 o;
	cJSON			*res, *r;
	char			*big, *line;
	size_t			 i;

	(void)state;
	memset(&o, 0, sizeof o);
	o.out = "out\n";
	o.outlen = 4;
	o.err = "err\n";
	o.errlen = 4;
	res = cJSON_Parse("{\"exit_status\":143,\"duration_ms\":5}");
	r = mcp_tool_result_ex("exec", res, &o, 0, NULL);
	assert_true(cJSON_IsNull(sc_item(r, "exitCode")));
	assert_string_equal(sc_item(r, "signal")->valuestring, "TERM");
	assert_string_equal(sc_item(r, "stdout")->valuestring, "out\n");
	assert_string_equal(sc_item(r, "stderr")->valuestring, "err\n");
	assert_true(cJSON_IsFalse(sc_item(r, "truncated")));
	cJSON_Delete(r);
	cJSON_Delete(res);
	/* 100 KiB of "\x01" (6 bytes each in JSON) under an 8 KiB cap. */
	big = malloc(100 * 1024);
	memset(big, 1, 100 * 1024);
	o.out = big;
	o.outlen = 100 * 1024;
	o.out_total = 1000000;
	o.max_result = 8192;
	res = cJSON_Parse("{\"exit_status\":0,\"duration_ms\":5}");
	r = mcp_tool_result_ex("exec", res, &o, 0, NULL);
	assert_true(cJSON_IsTrue(sc_item(r, "truncated")));
	assert_int_equal(sc_item(r, "stdoutBytes")->valuedouble, 1000000);
	assert_string_equal(sc_item(r, "stderr")->valuestring, "err\n");
	mcp_result_output_id(r, "o00000001");
	line = cJSON_PrintUnformatted(r);
	assert_true(strlen(line) <= 8192 + 64);
	assert_non_null(strstr(line, "o00000001"));
	cJSON_free(line);
	cJSON_Delete(r);
	cJSON_Delete(res);
	free(big);
	/* UTF-8 is cut between characters only. */
	assert_int_equal(mcp_utf8_cut("a\xc3\xa9", 2), 1);
	assert_int_equal(mcp_utf8_cut("a\xc3\xa9", 3), 3);
	assert_int_equal(mcp_utf8_cut("\xe2\x82\xac", 2), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(mcp_utf8_cut("abcd", i), i);
}

static void
test_read_encoding(void **state)
{
	struct mcp_output	 o;
	cJSON			*res, *r, *p, *rp = NULL;
	char			*m = NULL, *msg = NULL;
	int			 flags;

	(void)state;
	memset(&o, 0, sizeof o);
	res = cJSON_Parse("{\"content\":\"plain\"}");
	o.flags = MCP_CALL_BASE64;
	r = mcp_tool_result_ex("fs.read", res, &o, 0, NULL);
	assert_string_equal(sc_item(r, "encoding")->valuestring, "base64");
	assert_string_equal(sc_item(r, "content")->valuestring, "cGxhaW4=");
	cJSON_Delete(r);
	cJSON_Delete(res);
	p = cJSON_Parse("{\"name\":\"write_file\",\"arguments\":{\"path\":"
	    "\"b\",\"content\":\"AAE=\",\"encoding\":\"base64\"}}");
	assert_int_equal(mcp_tool_call_ex(p, ID, &m, &rp, &flags, &msg), 0);
	assert_string_equal(cJSON_GetObjectItem(rp,
	    "content_base64")->valuestring, "AAE=");
	assert_null(cJSON_GetObjectItem(rp, "content"));
	free(m);
	cJSON_Delete(rp);
	cJSON_Delete(p);
	p = cJSON_Parse("{\"name\":\"read_file\",\"arguments\":{\"path\":"
	    "\"b\",\"encoding\":\"latin1\"}}");
	assert_int_equal(mcp_tool_call_ex(p, ID, &m, &rp, &flags, &msg),
	    JSONRPC_INVALID_PARAMS);
	free(msg);
	cJSON_Delete(p);
}

static void
test_spills(void **state)
{
	struct mcp_spills	*st = mcp_spills_new();
	struct mcp_spill	*s = mcp_spill_new(4);
	const char		*id, *h;
	char			*data, *cause = NULL;
	size_t			 len;
	uint64_t		 total;
	cJSON			*p, *r;

	(void)state;
	assert_int_equal(mcp_spill_add(s, 0, "0123", 4, &cause), 0);
	assert_int_equal(mcp_spill_spilled(s), 0);
	assert_int_equal(mcp_spill_add(s, 0, "456789", 6, &cause), 0);
	assert_int_equal(mcp_spill_add(s, 1, "e", 1, &cause), 0);
	assert_int_equal(mcp_spill_spilled(s), 1);
	h = mcp_spill_head(s, 0, &len);
	assert_int_equal(len, 4);
	assert_memory_equal(h, "0123", 4);
	assert_int_equal(mcp_spill_total(s, 0), 10);
	id = mcp_spills_keep(st, s);
	assert_int_equal(mcp_spills_read(st, id, 0, 3, 5, &data, &len,
	    &total, &cause), 0);
	assert_int_equal(len, 5);
	assert_memory_equal(data, "34567", 5);
	assert_int_equal(total, 10);
	free(data);
	assert_int_equal(mcp_spills_read(st, id, 1, 0, 5, &data, &len,
	    &total, &cause), 0);
	assert_string_equal(data, "e");
	free(data);
	assert_int_equal(mcp_spills_read(st, "o99999999", 0, 0, 5, &data,
	    &len, &total, &cause), CLAW_ERR_NOTFOUND);
	free(cause);
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "id", id);
	cJSON_AddNumberToObject(p, "offset", 8);
	cJSON_AddStringToObject(p, "sandbox", ID);
	r = mcp_spills_tool(st, p, 8192);
	assert_string_equal(sc_item(r, "content")->valuestring, "89");
	assert_true(cJSON_IsTrue(sc_item(r, "eof")));
	cJSON_Delete(r);
	/* A limit inside a character: base64, never an empty range. */
	s = mcp_spill_new(16);
	assert_int_equal(mcp_spill_add(s, 0, "\xe2\x82\xac", 3, &cause), 0);
	id = mcp_spills_keep(st, s);
	cJSON_ReplaceItemInObject(p, "id", cJSON_CreateString(id));
	cJSON_ReplaceItemInObject(p, "offset", cJSON_CreateNumber(0));
	cJSON_AddNumberToObject(p, "limit", 1);
	r = mcp_spills_tool(st, p, 8192);
	assert_string_equal(sc_item(r, "encoding")->valuestring, "base64");
	assert_int_equal(sc_item(r, "nextOffset")->valuedouble, 1);
	cJSON_Delete(r);
	cJSON_AddStringToObject(p, "bogus", "x");
	r = mcp_spills_tool(st, p, 8192);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "isError")));
	cJSON_Delete(r);
	cJSON_Delete(p);
	mcp_spills_free(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_initialize),
		cmocka_unit_test(test_tools_list),
		cmocka_unit_test(test_tools_list_allowed),
		cmocka_unit_test(test_exec_structured),
		cmocka_unit_test(test_read_encoding),
		cmocka_unit_test(test_spills),
		cmocka_unit_test(test_tool_call),
		cmocka_unit_test(test_tool_call_refused),
		cmocka_unit_test(test_tool_result),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The three ways in agree (issue 19): every argument each MCP tool
 * advertises (its inputSchema) is taken by tools/call, by the JSON-RPC
 * method the tool maps to, and by the CLI the worker runs: each --option
 * of the worker argv is one `clawssh SUBCOMMAND --help` lists.  Every
 * MCP enum is one the JSON-RPC side takes.  The argument values are
 * made from the schema itself (an enum's first value, the first of
 * "examples", the minimum, ...), so a new argument is tested the day it
 * is added.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "buf.h"
#include "mcp_tools.h"
#include "rpc_methods.h"

#define ID	"cabcdefghijkl"

/* A value schema s accepts (its first enum value, its minimum, ...). */
static cJSON *
sample(const char *name, const cJSON *s)
{
	const cJSON	*type = cJSON_GetObjectItemCaseSensitive(s, "type");
	const cJSON	*en = cJSON_GetObjectItemCaseSensitive(s, "enum");
	const cJSON	*min = cJSON_GetObjectItem(s, "minimum");
	const cJSON	*ex = cJSON_GetObjectItem(s, "examples");
	const char	*t = cJSON_GetStringValue(type);
	cJSON		*o;

	if (cJSON_IsArray(en))
		return cJSON_Duplicate(cJSON_GetArrayItem(en, 0), 1);
	if (cJSON_IsArray(ex))
		return cJSON_Duplicate(cJSON_GetArrayItem(ex, 0), 1);
	if (t == NULL)
		fail_msg("%s: no type in its schema", name);
	if (strcmp(t, "string") == 0)
		return cJSON_CreateString(strcmp(name, "handle") == 0 ?
		    "p0123abcd" : strcmp(name, "old_string") == 0 ? "a" :
		    "x");
	if (strcmp(t, "integer") == 0 || strcmp(t, "number") == 0)
		return cJSON_CreateNumber(cJSON_IsNumber(min) &&
		    min->valuedouble > 1 ? min->valuedouble : 1);
	if (strcmp(t, "boolean") == 0)
		return cJSON_CreateTrue();
	if (strcmp(t, "array") == 0) {
		o = cJSON_CreateArray();
		cJSON_AddItemToArray(o, cJSON_CreateString("x"));
		return o;
	}
	if (strcmp(t, "object") == 0) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "NAME", "value");
		return o;
	}
	fail_msg("%s: type %s", name, t);
	return NULL;
}

/*
 * The arguments a call needs whatever else it has: "required", and the
 * first alternative of an "anyOf" of required sets.
 */
static void
add_needed(cJSON *args, const cJSON *props, const cJSON *schema,
    const char *but)
{
	const cJSON	*req = cJSON_GetObjectItemCaseSensitive(schema,
			    "required");
	const cJSON	*any = cJSON_GetObjectItemCaseSensitive(schema,
			    "anyOf");
	const cJSON	*r;

	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetArrayItem(any, 0), "required")) {
		if (strcmp(r->valuestring, but) != 0 &&
		    cJSON_GetObjectItemCaseSensitive(args, r->valuestring) ==
		    NULL)
			cJSON_AddItemToObject(args, r->valuestring, sample(
			    r->valuestring, cJSON_GetObjectItemCaseSensitive(
			    props, r->valuestring)));
	}
	cJSON_ArrayForEach(r, req) {
		if (strcmp(r->valuestring, but) != 0)
			cJSON_AddItemToObject(args, r->valuestring, sample(
			    r->valuestring, cJSON_GetObjectItemCaseSensitive(
			    props, r->valuestring)));
	}
	/* exec-like tools need a command unless argv is the one tested */
	if (cJSON_GetObjectItemCaseSensitive(props, "command") != NULL &&
	    strcmp(but, "command") != 0 && strcmp(but, "argv") != 0)
		cJSON_AddStringToObject(args, "command", "true");
	if (strcmp(but, "cols") == 0 || strcmp(but, "rows") == 0)
		cJSON_AddTrueToObject(args, "pty");
}

/* The --help of argv's subcommand (argv[0], and argv[1] if a word). */
static char *
cli_help(char *const *argv)
{
	const char	*cli = getenv("CLAWSSH");
	struct buf	 b = BUF_INIT;
	char		 cmd[512], chunk[4096];
	FILE		*p;
	size_t		 n;

	if (cli == NULL)
		return NULL;
	if (argv[1] != NULL && argv[1][0] != '-')
		snprintf(cmd, sizeof cmd, "'%s' %s %s --help 2>&1", cli,
		    argv[0], argv[1]);
	else
		snprintf(cmd, sizeof cmd, "'%s' %s --help 2>&1", cli, argv[0]);
	assert_non_null(p = popen(cmd, "r"));
	while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
		buf_append(&b, chunk, n);
	pclose(p);
	buf_append(&b, "", 1);
	return buf_detach(&b);
}

/* Each --option of the worker argv (before "--") is in the CLI's help. */
static void
check_cli(const char *tool, const char *arg, const struct rpc_call *c)
{
	char	*help, opt[128];
	int	 i;

	if ((help = cli_help(c->argv)) == NULL)
		return;	/* run outside make check: no CLI to ask */
	for (i = 0; i < c->argc && strcmp(c->argv[i], "--") != 0; i++) {
		if (strncmp(c->argv[i], "--", 2) != 0)
			continue;
		snprintf(opt, sizeof opt, "%.*s", (int)strcspn(c->argv[i],
		    "="), c->argv[i]);
		if (strstr(help, opt) == NULL)
			fail_msg("%s.%s: the worker gets %s, which "
			    "'clawssh %s --help' does not list", tool, arg,
			    opt, c->argv[0]);
	}
	free(help);
}

/* One tool with args: through tools/call, JSON-RPC and the CLI. */
static void
call_through(const char *tool, const char *arg, cJSON *args)
{
	struct rpc_call	 c;
	cJSON		*params = cJSON_CreateObject(), *rp = NULL;
	char		*method = NULL, *msg = NULL;

	cJSON_AddStringToObject(params, "name", tool);
	cJSON_AddItemToObject(params, "arguments", args);
	if (mcp_tool_call(params, ID, &method, &rp, &msg) != 0)
		fail_msg("%s.%s: tools/call refused %s: %s", tool, arg,
		    cJSON_PrintUnformatted(args), msg);
	memset(&c, 0, sizeof c);
	if (strcmp(method, MCP_READ_OUTPUT) == 0)
		goto out;	/* the MCP server's own: no worker, no CLI */
	if (rpc_call_build(method, rp, &c, &msg) != 0)
		fail_msg("%s.%s: JSON-RPC %s refused what MCP offers (%s): %s",
		    tool, arg, method, cJSON_PrintUnformatted(rp), msg);
	check_cli(tool, arg, &c);
	rpc_call_clear(&c);
out:
	cJSON_Delete(rp);
	cJSON_Delete(params);
	free(method);
}

/* Every tool, every argument it advertises, one at a time. */
static void
test_every_argument(void **state)
{
	cJSON		*list = mcp_tools_list(), *args;
	const cJSON	*tools, *t, *schema, *props, *p;
	const char	*name;
	int		 ntools = 0, nargs = 0;

	(void)state;
	tools = cJSON_GetObjectItemCaseSensitive(list, "tools");
	cJSON_ArrayForEach(t, tools) {
		name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		    t, "name"));
		schema = cJSON_GetObjectItemCaseSensitive(t, "inputSchema");
		props = cJSON_GetObjectItemCaseSensitive(schema,
		    "properties");
		args = cJSON_CreateObject();
		add_needed(args, props, schema, "");
		call_through(name, "(required only)", args);
		cJSON_ArrayForEach(p, props) {
			args = cJSON_CreateObject();
			add_needed(args, props, schema, p->string);
			if (cJSON_GetObjectItemCaseSensitive(args,
			    p->string) == NULL)
				cJSON_AddItemToObject(args, p->string,
				    sample(p->string, p));
			call_through(name, p->string, args);
			nargs++;
		}
		ntools++;
	}
	assert_true(ntools >= 10);
	assert_true(nargs >= 30);
	cJSON_Delete(list);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_argument),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

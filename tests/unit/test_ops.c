/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The operations table walked through every surface: each JSON-RPC
 * parameter it declares is taken by its method's builder (and a value
 * of the wrong type refused, naming it), each MCP argument reaches the
 * method through tools/call, the tools' schemas list exactly the MCP
 * arguments, and the CLI's --help names every option a parameter
 * becomes.  A parameter added to one surface and not the others fails
 * here.
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
#include "cmd_ops.h"
#include "jsonrpc.h"
#include "mcp_tools.h"
#include "ops.h"
#include "rpc_methods.h"
#include "xmalloc.h"

/* A value of a's type that its checks take. */
static cJSON *
good_value(const struct op_arg *a)
{
	switch (a->type) {
	case OP_PATH:
		return cJSON_CreateString((a->flags & OPA_ABSOLUTE) ?
		    "/ws" : "a/b");
	case OP_INT:
		return cJSON_CreateNumber((double)(a->lo < a->hi ?
		    a->lo + 1 : a->lo));
	case OP_BOOL:
		return cJSON_CreateTrue();
	case OP_ENUM:
		return cJSON_CreateString(a->names->v[0]);
	case OP_SIZE:
		return cJSON_CreateString("512M");
	case OP_CPUS:
		return cJSON_CreateNumber(1.5);
	case OP_GPU:
		return cJSON_CreateString("all");
	case OP_SIGNAL:
		return cJSON_CreateString("KILL");
	case OP_ARGV:
		return cJSON_Parse("[\"true\"]");
	case OP_PATHS:
		return cJSON_Parse("[\"a\"]");
	case OP_OPTIONS:
		return cJSON_Parse("[\"Port=22\"]");
	case OP_ENV:
		return cJSON_Parse("{\"FOO\":\"bar\"}");
	case OP_ID:
		return cJSON_CreateString("cabcdefghijkl");
	case OP_HANDLE:
		return cJSON_CreateString("p0123abcd");
	case OP_OUTPUT_ID:
		return cJSON_CreateString("o0123abcd");
	case OP_NAME:
		return cJSON_CreateString("web");
	default:
		return cJSON_CreateString("x");
	}
}

/* A value of the wrong JSON type for a. */
static cJSON *
bad_value(const struct op_arg *a)
{
	switch (a->type) {
	case OP_INT:
		return cJSON_CreateString("1");
	case OP_BOOL:
		return cJSON_CreateString("yes");
	case OP_SIZE:
	case OP_CPUS:
	case OP_GPU:
	case OP_SIGNAL:
		return cJSON_CreateTrue();
	case OP_ARGV:
	case OP_PATHS:
	case OP_OPTIONS:
		return cJSON_CreateString("x");
	default:
		return cJSON_CreateNumber(7);
	}
}

/*
 * The smallest params of op on surface s with key's value added: the
 * required ones, and what key needs beside it.
 */
static cJSON *
base_params(const struct op_entry *op, enum op_surface s, const char *key)
{
	const struct op_arg	*a;
	cJSON			*p = cJSON_CreateObject();

	for (a = op->args; a->name != NULL; a++)
		if (ops_arg_on(a, s) && ops_arg_required(a, s) &&
		    strcmp(a->name, key) != 0)
			cJSON_AddItemToObject(p, a->name, good_value(a));
	if (strcmp(op->method, "exec") == 0) {
		if (s == OPS_SURFACE_RPC && strcmp(key, "host") != 0 &&
		    strcmp(key, "sandbox") != 0)
			cJSON_AddStringToObject(p, "sandbox", "cabcdefghijkl");
		if (s == OPS_SURFACE_MCP && strcmp(key, "argv") != 0 &&
		    strcmp(key, "command") != 0)
			cJSON_AddStringToObject(p, "command", "true");
		if (strcmp(key, "cols") == 0 || strcmp(key, "rows") == 0)
			cJSON_AddTrueToObject(p, "pty");
	}
	if (strcmp(op->method, "process.start") == 0 &&
	    s == OPS_SURFACE_MCP && strcmp(key, "argv") != 0 &&
	    strcmp(key, "command") != 0)
		cJSON_AddStringToObject(p, "command", "true");
	if (strcmp(op->method, "process.write") == 0 &&
	    strcmp(key, "data") != 0 && strcmp(key, "eof") != 0)
		cJSON_AddTrueToObject(p, "eof");
	return p;
}

/* Build op's call from p: 0 or the error code (msg set). */
static int
build(const struct op_entry *op, const cJSON *p, char **msg)
{
	struct rpc_call	c;
	int		rc;

	*msg = NULL;
	if ((rc = rpc_call_build(op->method, p, &c, msg)) == 0)
		rpc_call_clear(&c);
	return rc;
}

static char	*cli_help(const char *);
static int	 help_names(const char *, const char *);

/* Each --option of the worker argv (before "--") is in help. */
static void
argv_in_help(const struct op_entry *op, const struct op_arg *a,
    const cJSON *p, const char *help)
{
	struct rpc_call	 c;
	char		*msg = NULL, *opt;
	int		 i;

	if (rpc_call_build(op->method, p, &c, &msg) != 0)
		fail_msg("%s %s: refused a good value: %s", op->method,
		    a->name, msg);
	for (i = 0; i < c.argc && strcmp(c.argv[i], "--") != 0; i++) {
		if (strncmp(c.argv[i], "--", 2) != 0)
			continue;
		opt = xstrndup(c.argv[i], strcspn(c.argv[i], "="));
		if (!help_names(help, opt))
			fail_msg("%s %s: the worker gets %s, which 'clawssh "
			    "%s --help' does not name", op->method, a->name,
			    opt, op->cli);
		free(opt);
	}
	rpc_call_clear(&c);
}

/* One JSON-RPC parameter of op: taken when good, named when bad. */
static void
walk_rpc_arg(const struct op_entry *op, const struct op_arg *a,
    const char *help)
{
	cJSON	*p;
	char	*msg, *want;

	p = base_params(op, OPS_SURFACE_RPC, a->name);
	cJSON_AddItemToObject(p, a->name, good_value(a));
	argv_in_help(op, a, p, help);
	cJSON_ReplaceItemInObject(p, a->name, bad_value(a));
	if (build(op, p, &msg) != JSONRPC_INVALID_PARAMS)
		fail_msg("%s %s: took a bad value", op->method, a->name);
	want = xasprintf("params.%s", a->name);
	if (strncmp(msg, want, strlen(want)) != 0)
		fail_msg("%s %s: '%s' does not name it", op->method, a->name,
		    msg);
	free(want);
	free(msg);
	cJSON_Delete(p);
}

/* Every JSON-RPC parameter of every method, connection ones too. */
static void
test_rpc_walk(void **state)
{
	const struct op_entry	*op;
	const struct op_arg	*a;
	char			*help;
	size_t			 i;

	(void)state;
	for (i = 0; i < ops_n; i++) {
		op = &ops_table[i];
		if (op->only != 0)
			continue;
		help = cli_help(op->cli);
		for (a = op->args; a->name != NULL; a++)
			if (ops_arg_on(a, OPS_SURFACE_RPC))
				walk_rpc_arg(op, a, help);
		for (a = ops_conn_args; op->conn && a->name != NULL; a++)
			walk_rpc_arg(op, a, help);
		free(help);
	}
}

/* A required parameter left out is refused, named. */
static void
test_rpc_required(void **state)
{
	const struct op_entry	*op;
	const struct op_arg	*a;
	cJSON			*p;
	char			*msg;
	size_t			 i;

	(void)state;
	for (i = 0; i < ops_n; i++) {
		op = &ops_table[i];
		for (a = op->args; op->only == 0 && a->name != NULL; a++) {
			if (!ops_arg_required(a, OPS_SURFACE_RPC))
				continue;
			p = base_params(op, OPS_SURFACE_RPC, a->name);
			assert_int_equal(build(op, p, &msg),
			    JSONRPC_INVALID_PARAMS);
			assert_non_null(strstr(msg, a->name));
			free(msg);
			cJSON_Delete(p);
		}
	}
}

/* The tool's inputSchema as tools/list gives it. */
static cJSON *
listed_schema(cJSON *list, const char *tool)
{
	cJSON	*t;

	cJSON_ArrayForEach(t, cJSON_GetObjectItem(list, "tools"))
		if (strcmp(cJSON_GetObjectItem(t, "name")->valuestring,
		    tool) == 0)
			return cJSON_GetObjectItem(t, "inputSchema");
	return NULL;
}

/* One MCP argument: in the schema, and through tools/call to the method. */
static void
walk_mcp_arg(const struct op_entry *op, const struct op_arg *a,
    const cJSON *props)
{
	cJSON	*call, *args, *p = NULL;
	char	*method = NULL, *msg = NULL;
	int	 flags;

	if (cJSON_GetObjectItem(props, a->name) == NULL)
		fail_msg("%s: %s missing from its schema", op->tool, a->name);
	args = base_params(op, OPS_SURFACE_MCP, a->name);
	cJSON_AddItemToObject(args, a->name, good_value(a));
	call = cJSON_CreateObject();
	cJSON_AddStringToObject(call, "name", op->tool);
	cJSON_AddItemToObject(call, "arguments", args);
	if (mcp_tool_call_ex(call, "cabcdefghijkl", &method, &p, &flags,
	    &msg) != 0)
		fail_msg("%s %s: tools/call refused: %s", op->tool, a->name,
		    msg);
	assert_string_equal(method, op->method);
	if (op->only == OP_ONLY_MCP ? ops_check(op, OPS_SURFACE_RPC, "params", p,
	    &msg) != 0 : build(op, p, &msg) != 0)
		fail_msg("%s %s: the method refused it: %s", op->tool,
		    a->name, msg);
	free(method);
	cJSON_Delete(p);
	cJSON_Delete(call);
}

/* Every MCP tool's arguments: schema == table, and each gets through. */
static void
test_mcp_walk(void **state)
{
	const struct op_entry	*op;
	const struct op_arg	*a;
	cJSON			*list, *schema, *props, *m;
	size_t			 i, n, tools = 0;

	(void)state;
	list = mcp_tools_list();
	for (i = 0; i < ops_n; i++) {
		op = &ops_table[i];
		if (op->tool == NULL)
			continue;
		tools++;
		schema = listed_schema(list, op->tool);
		assert_non_null(schema);
		props = cJSON_GetObjectItem(schema, "properties");
		for (n = 0, a = op->args; a->name != NULL; a++)
			if (ops_arg_on(a, OPS_SURFACE_MCP)) {
				walk_mcp_arg(op, a, props);
				n++;
			}
		assert_int_equal(cJSON_GetArraySize(props), (int)n);
		cJSON_ArrayForEach(m, props)
			assert_non_null(ops_arg(op, OPS_SURFACE_MCP,
			    m->string));
	}
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(list,
	    "tools")), (int)tools);
	cJSON_Delete(list);
}

/* The --help text of the CLI command cmd. */
static char *
cli_help(const char *cmd)
{
	const char	*bin = getenv("CLAWSSH");
	struct buf	 b = BUF_INIT;
	char		*line, chunk[4096];
	FILE		*f;
	size_t		 n;

	line = xasprintf("'%s' %s --help 2>&1", bin != NULL ? bin :
	    "./clawssh", cmd);
	if ((f = popen(line, "r")) == NULL)
		fail_msg("popen %s", line);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&b, chunk, n);
	pclose(f);
	free(line);
	buf_append(&b, "", 1);
	return buf_detach(&b);
}

/* The option a becomes on the CLI ("--env", "-F"), or NULL. */
static char *
cli_option(const struct op_arg *a)
{
	if (a->opt != NULL)
		return a->opt[0] == '-' ? xstrdup(a->opt) :
		    xasprintf("--%s", a->opt);
	if (a->sopt != 0)
		return xasprintf("-%c", a->sopt);
	return NULL;
}

/* Whether help names opt as an option (not inside a longer one). */
static int
help_names(const char *help, const char *opt)
{
	const char	*p;
	size_t		 n = strlen(opt);

	for (p = help; (p = strstr(p, opt)) != NULL; p += n)
		if (strchr(" =,[]|)\n", p[n]) != NULL && p[n] != '\0')
			return 1;
	return 0;
}

/* Every option a parameter becomes is in its command's --help. */
static void
test_cli_help(void **state)
{
	const struct op_entry	*op;
	const struct op_arg	*a, *lists[2];
	char			*help, *opt;
	size_t			 i, l;

	(void)state;
	for (i = 0; i < ops_n; i++) {
		op = &ops_table[i];
		if (op->cli == NULL)
			continue;
		help = cli_help(op->cli);
		lists[0] = op->args;
		lists[1] = op->conn ? ops_conn_args : NULL;
		for (l = 0; l < 2 && lists[l] != NULL; l++)
			for (a = lists[l]; a->name != NULL; a++) {
				if (!ops_arg_on(a, OPS_SURFACE_CLI) ||
				    (a->flags & OPA_HIDDEN) ||
				    (opt = cli_option(a)) == NULL)
					continue;
				if (!help_names(help, opt))
					fail_msg("clawssh %s --help does not "
					    "name %s (param %s)", op->cli, opt,
					    a->name);
				free(opt);
			}
		free(help);
	}
}

/* The table's own shape: unique names, parsable schemas, docs. */
static void
test_table(void **state)
{
	const struct op_entry	*op;
	const struct op_arg	*a;
	cJSON			*s;
	size_t			 i, j;

	(void)state;
	for (i = 0; i < ops_n; i++) {
		op = &ops_table[i];
		assert_non_null(op->summary);
		assert_ptr_equal(ops_by_method(op->method), op);
		if (op->tool != NULL) {
			assert_ptr_equal(ops_by_tool(op->tool), op);
			assert_non_null(s = cJSON_Parse(op->output));
			cJSON_Delete(s);
			cJSON_Delete(ops_input_schema(op));
		}
		for (a = op->args; a->name != NULL; a++) {
			assert_non_null(a->doc);
			assert_true(a->lo <= a->hi || a->hi == 0);
			if (a->type == OP_ENUM)
				assert_non_null(a->names);
			for (j = 0; &op->args[j] != a; j++)
				if (strcmp(op->args[j].name, a->name) == 0 &&
				    ops_arg_on(&op->args[j], OPS_SURFACE_RPC) ==
				    ops_arg_on(a, OPS_SURFACE_RPC))
					fail_msg("%s: %s twice", op->method,
					    a->name);
		}
	}
}

/*
 * Parse the NULL-ended words as the CLI of method: cmd_ops_parse's
 * result.  The words stay until the next call.
 */
static int
cli_parse(struct cmd_ops *o, struct cmd_conn *cc, const char *method, ...)
{
	static char	 name[] = "tool";
	static char	*argv[16];	/* o->operands point in here */
	int		 argc = 0;
	va_list		 ap;

	memset(cc, 0, sizeof *cc);
	argv[argc++] = name;
	va_start(ap, method);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	argv[argc] = NULL;
	va_end(ap);
	return cmd_ops_parse(o, method, cc, "usage: test", argc, argv);
}

/* The CLI's options from the table: values, checks, operands, refusals. */
static void
test_cli_parse(void **state)
{
	struct cmd_ops	o;
	struct cmd_conn	cc;
	int64_t		v = 0;

	(void)state;
	assert_int_equal(cli_parse(&o, &cc, "fs.read", "-s", "cabcdefghijkl",
	    "--offset", "7", "--lines", "-p", "2222", "a/b", (char *)NULL), 0);
	assert_string_equal(cmd_ops_get(&o, "sandbox"), "cabcdefghijkl");
	assert_int_equal(cmd_ops_int(&o, "offset", &v), 1);
	assert_int_equal(v, 7);
	assert_int_equal(cmd_ops_int(&o, "limit", &v), 0);
	assert_true(cmd_ops_flag(&o, "lines"));
	assert_int_equal(cc.port, 2222);
	assert_int_equal(o.noperands, 1);
	assert_string_equal(o.operands[0], "a/b");
	/* values checked as JSON-RPC checks them */
	assert_int_equal(cli_parse(&o, &cc, "fs.read", "--offset", "x",
	    (char *)NULL), 255);
	assert_int_equal(cli_parse(&o, &cc, "fs.read", "--timeout",
	    "31536001", (char *)NULL), 255);
	assert_int_equal(cli_parse(&o, &cc, "fs.read", "-s", "nope",
	    (char *)NULL), 255);
	/* another tool's option is not this one's */
	assert_int_equal(cli_parse(&o, &cc, "fs.read", "--push",
	    (char *)NULL), 255);
	assert_int_equal(cli_parse(&o, &cc, "fs.edit", "--old", "a", "--new",
	    "", "--all", "--push", (char *)NULL), 0);
	assert_string_equal(cmd_ops_get(&o, "new"), "");
	assert_true(cmd_ops_flag(&o, "push"));
	assert_int_equal(cli_parse(&o, &cc, "fs.edit", "--old", "",
	    (char *)NULL), 255);
	cmd_ops_free(&o);
}

/* A command after "--", a repeated option, a sibling's option. */
static void
test_cli_parse_command(void **state)
{
	const char *const	*env;
	struct cmd_ops		 o;
	struct cmd_conn		 cc;
	size_t			 n;

	(void)state;
	assert_int_equal(cli_parse(&o, &cc, "process.start", "-s",
	    "cabcdefghijkl", "--env", "A=1", "--env", "B", "--name", "web",
	    "--", "sh", "-c", "--env", (char *)NULL), 0);
	env = cmd_ops_list(&o, "env", &n);
	assert_int_equal(n, 2);
	assert_string_equal(env[0], "A=1");
	assert_string_equal(env[1], "B");
	assert_int_equal(o.noperands, 3);
	assert_string_equal(o.operands[2], "--env");	/* the command's */
	cmd_ops_free(&o);
	assert_int_equal(cli_parse(&o, &cc, "process.start", "stray", "--",
	    "true", (char *)NULL), 255);
	cmd_ops_free(&o);
	assert_int_equal(cli_parse(&o, &cc, "process.poll", "--timeout", "1",
	    "p0123abcd", (char *)NULL), 255);
	cmd_ops_free(&o);
	assert_int_equal(cli_parse(&o, &cc, "process.wait", "--timeout", "1",
	    "p0123abcd", (char *)NULL), 0);
	assert_int_equal(o.noperands, 1);
	cmd_ops_free(&o);
	/* exec: TARGET before "--", -tt counted, a hidden option taken */
	assert_int_equal(cli_parse(&o, &cc, "exec", "-tt", "host1",
	    "--route-json", "--", "ls", "-l", (char *)NULL), 0);
	assert_int_equal(cmd_ops_count(&o, "tty"), 2);
	assert_true(cmd_ops_flag(&o, "route_json"));
	assert_int_equal(o.nbefore, 1);
	assert_string_equal(o.before[0], "host1");
	assert_int_equal(o.noperands, 2);
	cmd_ops_free(&o);
	assert_int_equal(cli_parse(&o, &cc, "exec", "host1", "host2", "--",
	    "ls", (char *)NULL), 255);
	cmd_ops_free(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_rpc_walk),
		cmocka_unit_test(test_rpc_required),
		cmocka_unit_test(test_mcp_walk),
		cmocka_unit_test(test_cli_help),
		cmocka_unit_test(test_cli_parse),
		cmocka_unit_test(test_cli_parse_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

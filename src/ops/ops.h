/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The operations table: every operation that JSON-RPC and MCP offer,
 * declared once with its arguments (name, type, range, the CLI option
 * it becomes, a line of documentation) and, for MCP, its result schema
 * and hints.  From it come the JSON-RPC parameter checks (ops_check.c),
 * the MCP tools' input schemas (ops_schema.c) and the reference in
 * docs/protocol.md (ops_doc.c, checked by tests/ops_doc.sh);
 * tests/unit/test_ops.c walks it through the JSON-RPC builders, MCP and
 * the CLI's --help.
 */
#ifndef CLAW_OPS_H
#define CLAW_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "names.h"

/* Limits every surface shares. */
#define OPS_ARG_MAX	(100 * 1000)	/* one CLI argument (MAX_ARG_STRLEN) */
#define OPS_ENV_MAX	256		/* env entries */
#define OPS_PATH_MAX	4096
#define OPS_TIMEOUT_MAX	31536000	/* seconds: a year */
#define OPS_WORD_MAX	255		/* host, user */
#define OPS_OPTIONS_MAX	64		/* ssh_options entries */
#define OPS_PATHS_MAX	1024		/* sync paths */
#define OPS_OFFSET_MAX	(INT64_C(1) << 53)	/* exact in a double */

enum op_type {
	OP_STR,		/* a string; flags OPA_NONEMPTY, _NODASH, _WORD, _TEXT */
	OP_PATH,	/* 1..OPS_PATH_MAX bytes, no control characters */
	OP_INT,		/* an integer in [lo, hi] */
	OP_BOOL,
	OP_ENUM,	/* one of names */
	OP_SIZE,	/* an integer in [0, hi] or a size such as "512M" */
	OP_CPUS,	/* CPUs: 0 to 4096, three decimals, or "1.5", "500m" */
	OP_GPU,		/* an integer in [1, hi] or "all" */
	OP_SIGNAL,	/* a signal name or a number 1..64 */
	OP_ARGV,	/* the command: a non-empty array of strings */
	OP_PATHS,	/* an array of at most hi paths */
	OP_OPTIONS,	/* an array of at most hi "Key=Value" strings */
	OP_ENV,		/* {"NAME": "value"} or ["NAME=value"] */
	OP_DATA,	/* bytes: a string, or NAME_base64 (JSON-RPC) */
	OP_ID,		/* a sandbox id */
	OP_HANDLE,	/* a process handle */
	OP_NAME,	/* a process name: [A-Za-z0-9._-], not '-' first */
	OP_OUTPUT_ID	/* a cut output's id (MCP read_output) */
};

/* Argument flags. */
#define OPA_REQUIRED	0x001	/* required on both surfaces */
#define OPA_REQ_RPC	0x002	/* required in JSON-RPC only */
#define OPA_RPC		0x004	/* JSON-RPC only (not an MCP argument) */
#define OPA_MCP		0x008	/* MCP only */
#define OPA_NONEMPTY	0x010	/* "" is refused */
#define OPA_NODASH	0x020	/* may not start with '-' (an option) */
#define OPA_WORD	0x040	/* no white space */
#define OPA_TEXT	0x080	/* any characters (file text, stdin) */
#define OPA_ABSOLUTE	0x100	/* a path starting with '/' */
#define OPA_CLI		0x200	/* the CLI's only (not JSON-RPC, not MCP) */
#define OPA_OPERAND	0x400	/* the CLI takes it as an operand */
#define OPA_STDIN	0x800	/* the CLI takes it on standard input */
#define OPA_HIDDEN	0x1000	/* the CLI takes it; help and docs do not
				   show it (a daemon worker's own) */

/*
 * One argument.  On the CLI it is the option --opt (or -sopt) with a
 * value named metavar (no metavar: a flag), or, with OPA_OPERAND, the
 * operand metavar, or, with OPA_STDIN, standard input.
 */
struct op_arg {
	const char		*name;	/* JSON-RPC parameter, MCP argument */
	enum op_type		 type;
	int			 flags;
	int64_t			 lo, hi;	/* range; max length; max items */
	const struct names	*names;	/* OP_ENUM */
	const char		*opt;	/* the CLI's long option, or NULL;
					   "-tt": a form of its own */
	char			 sopt;	/* its short option, or 0 */
	const char		*metavar;
	const char		*doc;
	const char		*pattern;	/* MCP schema only, or NULL */
};

/* An operation of one surface only (op_entry.only); 0: JSON-RPC too. */
#define OP_ONLY_MCP	1	/* an MCP tool of the server's own */
#define OP_ONLY_CLI	2	/* a command (interactive: shell) */

/* MCP annotations. */
#define OPH_RO		0x1	/* readOnlyHint */
#define OPH_DE		0x2	/* destructiveHint */
#define OPH_ID		0x4	/* idempotentHint */

struct op_entry {
	const char		*method;	/* JSON-RPC method */
	const char		*tool;		/* MCP tool, NULL: none */
	const char		*cli;		/* the CLI command, NULL: none */
	const char		*summary;	/* one sentence */
	const struct op_arg	*args;		/* ended by a NULL name */
	int			 conn;		/* takes ops_conn_args too */
	int			 hints;		/* OPH_RO, OPH_DE, OPH_ID */
	const char		*output;	/* MCP outputSchema (JSON) */
	const char		*mcp_extra;	/* more inputSchema members */
	const char		*policy;	/* policy name; NULL: method */
	int			 only;		/* OP_ONLY_*: one surface's */
};

/* The surfaces an argument may belong to. */
enum op_surface { OPS_SURFACE_RPC, OPS_SURFACE_MCP, OPS_SURFACE_CLI };

/* The connection arguments every JSON-RPC method with conn takes. */
extern const struct op_arg	ops_conn_args[];

/* The table: ops_n entries. */
extern const struct op_entry	ops_table[];
extern const size_t		ops_n;

/* The entry of a JSON-RPC method / an MCP tool, or NULL. */
const struct op_entry	*ops_by_method(const char *method);
const struct op_entry	*ops_by_tool(const char *tool);

/* The argument key of op on surface s (connection ones included), or NULL. */
const struct op_arg	*ops_arg(const struct op_entry *op, enum op_surface s,
			    const char *key);

/* Whether a is offered on surface s. */
int	ops_arg_on(const struct op_arg *a, enum op_surface s);

/* Whether a is required on surface s. */
int	ops_arg_required(const struct op_arg *a, enum op_surface s);

/*
 * Check one present value v of argument a (called key in messages:
 * "PREFIX.KEY: expected ...").  0, or CLAW_ERR_INVAL with *msg set.
 */
int	ops_check_value(const struct op_arg *a, const char *prefix,
	    const cJSON *v, char **msg);

/*
 * Check an object of arguments against op on surface s: unknown and
 * repeated members, required ones, each value (ops_check_value), and a
 * NAME_base64 beside an OP_DATA's NAME (JSON-RPC).  prefix is
 * "params" or "arguments".  0, or CLAW_ERR_INVAL with *msg set.
 */
int	ops_check(const struct op_entry *op, enum op_surface s,
	    const char *prefix, const cJSON *obj, char **msg);

/* The MCP inputSchema of op, as a new cJSON object. */
cJSON	*ops_input_schema(const struct op_entry *op);

/*
 * Check the CLI text s given for a (an option's value): numbers for the
 * integer types, the rest as strings; a relative path is fine where
 * JSON-RPC wants an absolute one (the CLI resolves it).  0, or
 * CLAW_ERR_INVAL with *msg set to what is wrong ("expected ...").
 */
int	ops_check_text(const struct op_arg *a, const char *s, char **msg);

/* a's CLI form ("-s, --sandbox ID", "--lines", "PATH"), allocated. */
char	*ops_cli_form(const struct op_arg *a);

/* The reference in Markdown (docs/protocol.md), allocated. */
char	*ops_doc_markdown(void);

#endif /* CLAW_OPS_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The operations reference in Markdown, for docs/protocol.md (see
 * ops.h).  The text between its "ops-reference" markers is this
 * function's output; tests/ops_doc.sh fails when they differ and
 * `make update-ops-doc` writes it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ops.h"
#include "xmalloc.h"

/* Append a's type in words. */
static void
ops_doc_type(struct buf *b, const struct op_arg *a)
{
	size_t	i;

	switch (a->type) {
	case OP_INT:
		buf_appendf(b, "integer %lld..%lld", (long long)a->lo,
		    (long long)a->hi);
		break;
	case OP_BOOL:
		buf_append_str(b, "boolean");
		break;
	case OP_ENUM:
		for (i = 0; i < a->names->n; i++)
			buf_appendf(b, "%s`%s`", i > 0 ? " \\| " : "",
			    a->names->v[i]);
		break;
	case OP_SIZE:
		buf_append_str(b, "integer or size (`\"512M\"`)");
		break;
	case OP_CPUS:
		buf_append_str(b, "number of CPUs (`1.5`) or `\"500m\"`");
		break;
	case OP_GPU:
		buf_appendf(b, "integer 1..%lld or `\"all\"`", (long long)a->hi);
		break;
	case OP_SIGNAL:
		buf_append_str(b, "signal name or number");
		break;
	case OP_ARGV:
		buf_append_str(b, "non-empty array of strings");
		break;
	case OP_PATHS:
		buf_appendf(b, "array of at most %lld paths", (long long)a->hi);
		break;
	case OP_OPTIONS:
		buf_appendf(b, "array of at most %lld `\"Key=Value\"`",
		    (long long)a->hi);
		break;
	case OP_ENV:
		buf_appendf(b, "object of strings (at most %lld)",
		    (long long)a->hi);
		break;
	case OP_DATA:
		buf_append_str(b, "string (bytes)");
		break;
	case OP_ID:
		buf_append_str(b, "sandbox id");
		break;
	case OP_HANDLE:
		buf_append_str(b, "process handle");
		break;
	case OP_OUTPUT_ID:
		buf_append_str(b, "output id");
		break;
	case OP_NAME:
		buf_appendf(b, "name (1..%lld of `A-Za-z0-9._-`)",
		    (long long)a->hi);
		break;
	case OP_PATH:
		buf_append_str(b, (a->flags & OPA_ABSOLUTE) ?
		    "absolute path" : "path");
		break;
	default:
		buf_append_str(b, "string");
		if (a->hi > 0)
			buf_appendf(b, " (at most %lld bytes)",
			    (long long)a->hi);
		break;
	}
}

/* Append one table row for a. */
static void
ops_doc_row(struct buf *b, const struct op_arg *a)
{
	const char	*where;
	char		*cli = ops_cli_form(a);

	where = (a->flags & OPA_RPC) ? "JSON-RPC" : (a->flags & OPA_MCP) ?
	    "MCP" : (a->flags & OPA_CLI) ? "CLI" : "both";
	buf_appendf(b, "| `%s`%s | ", a->name,
	    (a->flags & OPA_REQUIRED) ? " (required)" :
	    (a->flags & OPA_REQ_RPC) ? " (required in JSON-RPC)" : "");
	ops_doc_type(b, a);
	if (cli != NULL)
		buf_appendf(b, " | `%s` | %s | ", cli, where);
	else
		buf_appendf(b, " | - | %s | ", where);
	buf_appendf(b, "%s |\n", a->doc);
	free(cli);
}

/* Append the table of args (mcp: an MCP-only tool's arguments). */
static void
ops_doc_args(struct buf *b, const struct op_arg *args, int mcp)
{
	const struct op_arg	*a;
	int			 n = 0;

	for (a = args; a->name != NULL; a++) {
		if ((mcp && !ops_arg_on(a, OPS_SURFACE_MCP)) ||
		    (a->flags & OPA_HIDDEN))
			continue;
		if (n++ == 0)
			buf_append_str(b, "| parameter | type | CLI | where | "
			    "what |\n|---|---|---|---|---|\n");
		ops_doc_row(b, a);
	}
	if (n == 0)
		buf_append_str(b, "No parameters of its own.\n");
}

/* Append one operation. */
static void
ops_doc_op(struct buf *b, const struct op_entry *op)
{
	buf_appendf(b, "\n#### %s\n%s\n\n", op->only == OP_ONLY_MCP ?
	    op->tool : op->only == OP_ONLY_CLI ? op->cli : op->method,
	    op->summary);
	if (op->only == 0)
		buf_appendf(b, "JSON-RPC `%s`", op->method);
	else
		buf_append_str(b, op->only == OP_ONLY_MCP ? "MCP only" :
		    "CLI only");
	if (op->tool != NULL && op->only == 0)
		buf_appendf(b, "; MCP tool `%s`", op->tool);
	if (op->cli != NULL)
		buf_appendf(b, "; CLI `clawssh %s`", op->cli);
	if (op->tool != NULL)
		buf_appendf(b, "; annotations:%s%s%s",
		    (op->hints & OPH_RO) ? " readOnly" : "",
		    (op->hints & OPH_DE) ? " destructive" : "",
		    (op->hints & OPH_ID) ? " idempotent" : "");
	buf_append_str(b, op->conn && op->only == 0 ? "; also the connection "
	    "parameters.\n\n" : op->conn ? "; also the connection options."
	    "\n\n" : ".\n\n");
	ops_doc_args(b, op->args, op->only == OP_ONLY_MCP);
}

/* The reference; see ops.h. */
char *
ops_doc_markdown(void)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	buf_append_str(&b, "### Reference\n"
	    "Generated from `src/ops/ops_table.c` (`make update-ops-doc`); "
	    "`tests/ops_doc.sh` fails when this section and the table "
	    "differ.  *where* says which surface takes a parameter: "
	    "`JSON-RPC` (also the CLI), `MCP` (a tool argument only), `CLI` "
	    "(the command line only), or both.\n\n#### Connection parameters\n"
	    "Taken by every JSON-RPC method marked so below.\n\n");
	ops_doc_args(&b, ops_conn_args, 0);
	for (i = 0; i < ops_n; i++)
		ops_doc_op(&b, &ops_table[i]);
	return buf_detach(&b);
}

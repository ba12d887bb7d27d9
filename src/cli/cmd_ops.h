/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A command's options parsed from the operations table (src/ops/ops.h):
 * its getopt tables and the option lines of its --help come from the
 * operation's arguments on the CLI (long and short options, their value
 * names and docs) and the connection options (cmd_conn.h), and each
 * value is checked as JSON-RPC checks it (ops_check_text).  Arguments
 * the CLI takes as operands or on stdin are the command's own.
 */
#ifndef CLAW_CMD_OPS_H
#define CLAW_CMD_OPS_H

#include <stdint.h>
#include <stdio.h>

#include "cmd_conn.h"
#include "ops.h"

#define CMD_OPS_MAX	32	/* arguments of one operation */

struct cmd_ops {
	const struct op_entry	*op;
	const char		*val[CMD_OPS_MAX];	/* by op->args index;
							   a flag: "" */
	const char		**list[CMD_OPS_MAX];	/* a repeated option's
							   values (--env) */
	size_t			  nlist[CMD_OPS_MAX];
	int			  count[CMD_OPS_MAX];	/* times given (-tt) */
	char			**operands;		/* after the options;
							   after "--" for a
							   command */
	int			  noperands;
	char			**before;		/* a command's: the
							   operands before
							   "--" (TARGET) */
	int			  nbefore;
};

/*
 * Parse argv for op (found by its JSON-RPC method) into o and cc.  usage
 * is the command's usage lines and description; --help prints it, the
 * option lines and the connection options.  An operation that takes a
 * command (OP_ARGV) takes its options before "--" and the command after
 * it; words between the options and "--" are its other operands (at
 * most as many as it declares).  Returns 0, -1 after printing help,
 * or an exit status (the message printed); cmd_ops_free after either.
 */
int	cmd_ops_parse(struct cmd_ops *o, const char *method,
	    struct cmd_conn *cc, const char *usage, int argc, char **argv);

/*
 * The value given for the option name: NULL when it was not given, or
 * when o's operation has no such option (another one's: a command of
 * several operations asks for all of theirs).  A name that no operation
 * has aborts (a typo).
 */
const char *cmd_ops_get(const struct cmd_ops *o, const char *name);

/* An integer option: 1 and *out when given, else 0 (as cmd_ops_get). */
int	cmd_ops_int(const struct cmd_ops *o, const char *name, int64_t *out);

/* Whether the flag name was given (as cmd_ops_get). */
int	cmd_ops_flag(const struct cmd_ops *o, const char *name);

/* How many times the flag name was given (-tt: 2; as cmd_ops_get). */
int	cmd_ops_count(const struct cmd_ops *o, const char *name);

/* The values of a repeated option (--env), *n of them (as cmd_ops_get). */
const char *const *cmd_ops_list(const struct cmd_ops *o, const char *name,
	    size_t *n);

/*
 * Free what o holds: the lists of repeated options.  The values and
 * operands stay (they are argv's strings).
 */
void	cmd_ops_free(struct cmd_ops *o);

/* Print op's option lines, as --help shows them. */
void	cmd_ops_help(FILE *f, const struct op_entry *op);

#endif /* CLAW_CMD_OPS_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Options from the operations table; see cmd_ops.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmd.h"
#include "cmd_ops.h"
#include "xmalloc.h"

#define OPS_VAL_FIRST	1000	/* getopt value of op->args[0] */
#define OPS_HELP_COL	24	/* where an option's doc starts */
#define OPS_HELP_WIDTH	72

static const struct option ops_conn_longopts[] = {
	CMD_CONN_LONGOPTS, { "help", no_argument, NULL, 'h' }
};
#define N_CONN	(sizeof ops_conn_longopts / sizeof ops_conn_longopts[0])

/* Whether the generic parser takes a as an option. */
static int
ops_is_option(const struct op_arg *a)
{
	return ops_arg_on(a, OPS_SURFACE_CLI) &&
	    (a->flags & (OPA_OPERAND | OPA_STDIN)) == 0 &&
	    !(a->opt != NULL && a->opt[0] == '-');
}

/* How many operands op takes before a command's "--". */
static int
ops_pre_operands(const struct op_entry *op)
{
	const struct op_arg	*a;
	int			 n = 0;

	for (a = op->args; a->name != NULL; a++)
		if ((a->flags & OPA_OPERAND) && a->type != OP_ARGV &&
		    ops_arg_on(a, OPS_SURFACE_CLI))
			n++;
	return n;
}

/*
 * The getopt tables of op: its options, then the connection ones and
 * --help; short options in *shorts.  Allocated.
 */
static struct option *
ops_longopts(const struct op_entry *op, char **shorts)
{
	const struct op_arg	*a;
	struct option		*lo;
	struct buf		 s = BUF_INIT;
	size_t			 n = 0, i;

	for (a = op->args; a->name != NULL; a++)
		n++;
	if (n > CMD_OPS_MAX)
		abort();	/* CMD_OPS_MAX too small: a bug */
	lo = xcalloc(n + N_CONN + 1, sizeof *lo);
	buf_append_str(&s, ":" CMD_CONN_SHORTOPTS "h");	/* ":": say it ourselves */
	for (n = 0, a = op->args; a->name != NULL; a++) {
		if (!ops_is_option(a))
			continue;
		lo[n].has_arg = a->metavar != NULL ? required_argument :
		    no_argument;
		lo[n].val = OPS_VAL_FIRST + (int)(a - op->args);
		if (a->sopt != 0)
			buf_appendf(&s, "%c%s", a->sopt, a->metavar != NULL ?
			    ":" : "");
		if (a->opt != NULL)
			lo[n++].name = a->opt;
	}
	for (i = 0; i < N_CONN; i++)
		lo[n++] = ops_conn_longopts[i];
	*shorts = buf_detach(&s);
	return lo;
}

/* The argument of op a short option stands for, or NULL. */
static const struct op_arg *
ops_by_short(const struct op_entry *op, int ch)
{
	const struct op_arg	*a;

	for (a = op->args; a->name != NULL; a++)
		if (a->sopt == ch && ops_is_option(a))
			return a;
	return NULL;
}

/* Whether a is an option given once per value (--env A --env B). */
static int
ops_repeated(const struct op_arg *a)
{
	return a->type == OP_ENV || a->type == OP_OPTIONS ||
	    a->type == OP_PATHS;
}

/* Take the value of a (checked); 0 or an exit status. */
static int
ops_take(struct cmd_ops *o, const struct op_arg *a, const char *arg)
{
	size_t	 i = (size_t)(a - o->op->args);
	char	*what = NULL;
	int	 rc;

	o->count[i]++;
	if (a->metavar == NULL) {
		o->val[i] = "";
		return 0;
	}
	if (ops_repeated(a)) {	/* each value is the command's to check */
		o->list[i] = xreallocarray(o->list[i], o->nlist[i] + 1,
		    sizeof *o->list[i]);
		o->list[i][o->nlist[i]++] = arg;
		return 0;
	}
	if (ops_check_text(a, arg, &what) != 0) {
		if (a->opt != NULL)
			rc = cmd_fail("%s: bad --%s '%s': %s", o->op->cli,
			    a->opt, arg, what);
		else
			rc = cmd_fail("%s: bad -%c '%s': %s", o->op->cli,
			    a->sopt, arg, what);
		free(what);
		return rc;
	}
	o->val[a - o->op->args] = arg;
	return 0;
}

/*
 * The sibling operation (same first CLI word: "process wait" for
 * "process poll") that has the long option name, or NULL.
 */
static const struct op_entry *
ops_sibling_with(const struct op_entry *op, const char *name, size_t len)
{
	const struct op_arg	*a;
	size_t			 i, w = strcspn(op->cli, " ");

	if (op->cli[w] == '\0')
		return NULL;
	for (i = 0; i < ops_n; i++) {
		if (ops_table[i].cli == NULL ||
		    strncmp(ops_table[i].cli, op->cli, w + 1) != 0)
			continue;
		for (a = ops_table[i].args; a->name != NULL; a++)
			if (a->opt != NULL && strlen(a->opt) == len &&
			    strncmp(a->opt, name, len) == 0 &&
			    ops_arg_on(a, OPS_SURFACE_CLI))
				return &ops_table[i];
	}
	return NULL;
}

/* Say what was wrong with the option word w (getopt returned '?'). */
static int
ops_bad_option(const struct op_entry *op, const char *w, int missing)
{
	const struct op_entry	*sib;
	size_t			 len;

	if (missing)
		return cmd_fail("%s: %s needs a value (see 'clawssh %s "
		    "--help')", op->cli, w, op->cli);
	if (strncmp(w, "--", 2) == 0) {
		len = strcspn(w + 2, "=");
		if ((sib = ops_sibling_with(op, w + 2, len)) != NULL)
			return cmd_fail("--%.*s is for '%s' only",
			    (int)len, w + 2, sib->cli);
	}
	return cmd_fail("%s: unknown option '%s' (see 'clawssh %s --help')",
	    op->cli, w, op->cli);
}

/* Print --help: usage, the options, the connection options. */
static void
ops_print_help(const struct cmd_ops *o, const char *usage)
{
	printf("%s\n", usage);
	cmd_ops_help(stdout, o->op);
	fputs(CMD_CONN_USAGE, stdout);
}

/* Whether op takes a command after "--". */
static int
ops_takes_command(const struct op_entry *op)
{
	const struct op_arg	*a;

	for (a = op->args; a->name != NULL; a++)
		if (a->type == OP_ARGV && ops_arg_on(a, OPS_SURFACE_CLI))
			return 1;
	return 0;
}

/* The operands: after the options, or the command after "--". */
static int
ops_operands(struct cmd_ops *o, int argc, char **argv, int end)
{
	if (!ops_takes_command(o->op)) {
		o->operands = argv + optind;
		o->noperands = argc - optind;
		return 0;
	}
	o->before = argv + optind;
	o->nbefore = end - optind;
	if (o->nbefore > ops_pre_operands(o->op))
		return cmd_fail("%s: unexpected argument '%s' before '--' (put "
		    "the command after '--')", o->op->cli,
		    argv[optind + ops_pre_operands(o->op)]);
	o->operands = argv + (end < argc ? end + 1 : argc);
	o->noperands = end < argc ? argc - end - 1 : 0;
	return 0;
}

/* Parse argv for op; see cmd_ops.h. */
int
cmd_ops_parse(struct cmd_ops *o, const char *method, struct cmd_conn *cc,
    const char *usage, int argc, char **argv)
{
	const struct op_arg	*a;
	struct option		*lo;
	char			*shorts, word[3];
	int			 ch, rc = 0, end;

	memset(o, 0, sizeof *o);
	if ((o->op = ops_by_method(method)) == NULL || o->op->cli == NULL)
		abort();	/* not an operation of the CLI: a bug */
	lo = ops_longopts(o->op, &shorts);
	end = ops_takes_command(o->op) ? cmd_dashdash(argc, argv) : argc;
	optind = 1;
	opterr = 0;
	while (rc == 0 && (ch = getopt_long(end, argv, shorts, lo,
	    NULL)) != -1) {
		if (ch == '?' || ch == ':') {
			snprintf(word, sizeof word, "-%c", optopt);
			rc = ops_bad_option(o->op, optopt != 0 ? word :
			    argv[optind - 1], ch == ':');
		} else if (ch == 'h') {
			ops_print_help(o, usage);
			rc = -1;
		} else if (ch >= OPS_VAL_FIRST)
			rc = ops_take(o, &o->op->args[ch - OPS_VAL_FIRST],
			    optarg);
		else if ((a = ops_by_short(o->op, ch)) != NULL)
			rc = ops_take(o, a, optarg);
		else if ((rc = cmd_conn_option(cc, ch, optarg)) == 1)
			rc = 0;
		else if (rc == 0)
			rc = ops_bad_option(o->op, argv[optind - 1], 0);
	}
	opterr = 1;
	free(lo);
	free(shorts);
	if (rc != 0)
		return rc;
	return ops_operands(o, argc, argv, end);
}

/* The index of option name in o's operation, or -1. */
static int
ops_find(const struct cmd_ops *o, const char *name)
{
	const struct op_arg	*a;

	for (a = o->op->args; a->name != NULL; a++)
		if (strcmp(a->name, name) == 0 && ops_is_option(a))
			return (int)(a - o->op->args);
	return -1;
}

/*
 * The index of option name in o's operation, or -1 for an option of
 * another operation only (exec's --tty asked of shell's); a name that
 * no operation takes as an option is a bug.
 */
static int
ops_index(const struct cmd_ops *o, const char *name)
{
	const struct op_arg	*a;
	size_t			 i;
	int			 at = ops_find(o, name);

	if (at >= 0)
		return at;
	for (i = 0; i < ops_n; i++)
		for (a = ops_table[i].args; a->name != NULL; a++)
			if (strcmp(a->name, name) == 0 && ops_is_option(a))
				return -1;
	abort();	/* a name the table does not know: a typo */
}

/* The value given for name; see cmd_ops.h. */
const char *
cmd_ops_get(const struct cmd_ops *o, const char *name)
{
	int	i = ops_index(o, name);

	return i >= 0 ? o->val[i] : NULL;
}

/* An integer argument; see cmd_ops.h. */
int
cmd_ops_int(const struct cmd_ops *o, const char *name, int64_t *out)
{
	const char	*v = cmd_ops_get(o, name);

	if (v == NULL)
		return 0;
	*out = strtoll(v, NULL, 10);	/* checked by ops_check_text */
	return 1;
}

/* Whether a flag was given; see cmd_ops.h. */
int
cmd_ops_flag(const struct cmd_ops *o, const char *name)
{
	return cmd_ops_get(o, name) != NULL;
}

/* How many times a flag was given; see cmd_ops.h. */
int
cmd_ops_count(const struct cmd_ops *o, const char *name)
{
	int	i = ops_index(o, name);

	return i >= 0 ? o->count[i] : 0;
}

/* The values of a repeated option; see cmd_ops.h. */
const char *const *
cmd_ops_list(const struct cmd_ops *o, const char *name, size_t *n)
{
	int	i = ops_index(o, name);

	*n = i >= 0 ? o->nlist[i] : 0;
	return i >= 0 ? o->list[i] : NULL;
}

/* Free what o holds; see cmd_ops.h. */
void
cmd_ops_free(struct cmd_ops *o)
{
	size_t	i;

	for (i = 0; i < CMD_OPS_MAX; i++)
		free(o->list[i]);
	memset(o->list, 0, sizeof o->list);
	memset(o->nlist, 0, sizeof o->nlist);
}

/* Print words of doc from column col, wrapped at OPS_HELP_WIDTH. */
static void
ops_help_doc(FILE *f, const char *doc, size_t col)
{
	const char	*p = doc;
	size_t		 n;

	while (*p != '\0') {
		n = strcspn(p, " ");
		if (col > OPS_HELP_COL && col + 1 + n > OPS_HELP_WIDTH) {
			fprintf(f, "\n%*s", OPS_HELP_COL, "");
			col = OPS_HELP_COL;
		} else if (col > OPS_HELP_COL) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, n, f);
		col += n;
		p += n;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

/* Print op's option lines; see cmd_ops.h. */
void
cmd_ops_help(FILE *f, const struct op_entry *op)
{
	const struct op_arg	*a;
	char			*form;
	size_t			 n;

	for (a = op->args; a->name != NULL; a++) {
		if (!ops_is_option(a) || (a->flags & OPA_HIDDEN) ||
		    (form = ops_cli_form(a)) == NULL)
			continue;
		fprintf(f, "  %s", form);
		n = 2 + strlen(form);
		if (n >= OPS_HELP_COL - 1) {
			fprintf(f, "\n%*s", OPS_HELP_COL, "");
		} else
			fprintf(f, "%*s", (int)(OPS_HELP_COL - n), "");
		ops_help_doc(f, a->doc, OPS_HELP_COL);
		free(form);
	}
}

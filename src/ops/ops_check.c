/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Looking operations up, and checking arguments against the table (see
 * ops.h): one check per type, so JSON-RPC and MCP refuse the same
 * values with the same words.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contain.h"
#include "error.h"
#include "ops.h"
#include "process.h"
#include "sandbox.h"
#include "signals.h"
#include "xmalloc.h"

/* The entry of a JSON-RPC method; see ops.h. */
const struct op_entry *
ops_by_method(const char *method)
{
	size_t	i;

	for (i = 0; i < ops_n; i++)
		if (strcmp(ops_table[i].method, method) == 0)
			return &ops_table[i];
	return NULL;
}

/* The entry of an MCP tool; see ops.h. */
const struct op_entry *
ops_by_tool(const char *tool)
{
	size_t	i;

	for (i = 0; i < ops_n; i++)
		if (ops_table[i].tool != NULL &&
		    strcmp(ops_table[i].tool, tool) == 0)
			return &ops_table[i];
	return NULL;
}

/* Whether a is offered on surface s; see ops.h. */
int
ops_arg_on(const struct op_arg *a, enum op_surface s)
{
	switch (s) {
	case OPS_SURFACE_RPC:
		return (a->flags & (OPA_MCP | OPA_CLI)) == 0;
	case OPS_SURFACE_MCP:
		return (a->flags & (OPA_RPC | OPA_CLI)) == 0;
	default:
		return (a->flags & OPA_MCP) == 0 && (a->opt != NULL ||
		    a->sopt != 0 || (a->flags & (OPA_OPERAND | OPA_STDIN)));
	}
}

/* Whether a is required on surface s; see ops.h. */
int
ops_arg_required(const struct op_arg *a, enum op_surface s)
{
	return (a->flags & OPA_REQUIRED) ||
	    (s == OPS_SURFACE_RPC && (a->flags & OPA_REQ_RPC));
}

/* The argument key of op on surface s; see ops.h. */
const struct op_arg *
ops_arg(const struct op_entry *op, enum op_surface s, const char *key)
{
	const struct op_arg	*a;

	for (a = op->args; a->name != NULL; a++)
		if (strcmp(a->name, key) == 0 && ops_arg_on(a, s))
			return a;
	if (op->conn && s == OPS_SURFACE_RPC)
		for (a = ops_conn_args; a->name != NULL; a++)
			if (strcmp(a->name, key) == 0)
				return a;
	return NULL;
}

/* Set *msg to "PREFIX.KEY: WHAT" ("WHAT" without prefix); CLAW_ERR_INVAL. */
static int
ops_fail(char **msg, const char *prefix, const char *key, const char *fmt,
    ...)
{
	va_list	 ap;
	char	*what;

	va_start(ap, fmt);
	what = xvasprintf(fmt, ap);
	va_end(ap);
	if (prefix == NULL) {		/* ops_check_text: the value alone */
		*msg = what;
		return CLAW_ERR_INVAL;
	}
	*msg = xasprintf("%s.%s: %s", prefix, key, what);
	free(what);
	return CLAW_ERR_INVAL;
}

/* 1 if s has no control character (C0 or DEL). */
static int
ops_clean(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* A string's characters and length against a's flags and hi. */
static int
ops_check_str(const struct op_arg *a, const char *p, const char *s,
    char **msg)
{
	const unsigned char	*c;
	int			 nonempty = a->flags & OPA_NONEMPTY;

	if (a->type == OP_PATH || a->type == OP_ENUM || a->type == OP_ID ||
	    a->type == OP_HANDLE || a->type == OP_NAME)
		nonempty = 1;
	if (nonempty && *s == '\0')
		return ops_fail(msg, p, a->name, "expected a non-empty string");
	if (a->hi > 0 && strlen(s) > (size_t)a->hi)
		return ops_fail(msg, p, a->name, "expected at most %zu bytes",
		    (size_t)a->hi);
	if ((a->flags & OPA_NODASH) && *s == '-')
		return ops_fail(msg, p, a->name, "may not start with '-'");
	if (a->flags & OPA_TEXT)
		return 0;
	for (c = (const unsigned char *)s; *c != '\0'; c++) {
		if (*c < 0x20 || *c == 0x7f)
			return ops_fail(msg, p, a->name, "control characters "
			    "are not allowed");
		if ((a->flags & OPA_WORD) && *c == ' ')
			return ops_fail(msg, p, a->name, "spaces are not "
			    "allowed");
	}
	if ((a->flags & OPA_ABSOLUTE) && *s != '/')
		return ops_fail(msg, p, a->name, "expected an absolute path");
	return 0;
}

/* Whether v is an integer in [lo, hi] (exact in a double). */
static int
ops_is_int(const cJSON *v, int64_t lo, int64_t hi)
{
	double	d;

	if (!cJSON_IsNumber(v))
		return 0;
	d = v->valuedouble;
	return d >= (double)lo && d <= (double)hi &&
	    d == (double)(int64_t)d;
}

/* An array of strings, each checked by ok; at most a->hi of them. */
static int
ops_check_strings(const struct op_arg *a, const char *p, const cJSON *v,
    int (*ok)(const char *), const char *what, const char *each,
    char **msg)
{
	const cJSON	*e;
	char		 key[96];
	int		 i = 0;

	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > a->hi)
		return ops_fail(msg, p, a->name, "expected an array of at "
		    "most %lld %s", (long long)a->hi, what);
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e) || !ok(e->valuestring)) {
			snprintf(key, sizeof key, "%s[%d]", a->name, i);
			return ops_fail(msg, p, key, "expected %s", each);
		}
		i++;
	}
	return 0;
}

/* A sync path: non-empty, bounded, no control characters. */
static int
ops_path_ok(const char *s)
{
	return *s != '\0' && strlen(s) <= OPS_PATH_MAX && ops_clean(s);
}

/* An ssh_config option: "Key=Value", not an option, bounded. */
static int
ops_option_ok(const char *s)
{
	return *s != '-' && *s != '=' && strchr(s, '=') != NULL &&
	    strlen(s) <= 1024 && ops_clean(s);
}

/* The command: a non-empty array of strings, the first non-empty. */
static int
ops_check_argv(const struct op_arg *a, const char *p, const cJSON *v,
    char **msg)
{
	const cJSON	*e;
	char		 key[96];
	int		 i = 0;

	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
		return ops_fail(msg, p, a->name, "expected a non-empty array "
		    "of strings");
	cJSON_ArrayForEach(e, v) {
		snprintf(key, sizeof key, "%s[%d]", a->name, i);
		if (!cJSON_IsString(e))
			return ops_fail(msg, p, key, "expected a string");
		if (i == 0 && *e->valuestring == '\0')
			return ops_fail(msg, p, key, "expected a non-empty "
			    "string");
		i++;
	}
	return 0;
}

/* The environment: an object of strings or "NAME=VALUE" strings. */
static int
ops_check_env(const struct op_arg *a, const char *p, const cJSON *v,
    char **msg)
{
	const cJSON	*e;
	char		 key[96];
	int		 i = 0;

	if ((!cJSON_IsObject(v) && !cJSON_IsArray(v)) ||
	    cJSON_GetArraySize(v) > a->hi)
		return ops_fail(msg, p, a->name, "expected an object of "
		    "strings or an array of \"NAME=VALUE\" strings (at most "
		    "%lld)", (long long)a->hi);
	cJSON_ArrayForEach(e, v) {
		if (cJSON_IsObject(v)) {
			snprintf(key, sizeof key, "%s.%.40s", a->name,
			    e->string);
			if (!cJSON_IsString(e))
				return ops_fail(msg, p, key, "expected a "
				    "string");
		} else {
			snprintf(key, sizeof key, "%s[%d]", a->name, i);
			if (!cJSON_IsString(e) ||
			    strchr(e->valuestring, '=') == NULL)
				return ops_fail(msg, p, key, "expected a "
				    "\"NAME=VALUE\" string");
		}
		i++;
	}
	return 0;
}

/* A string-typed value: its type, then what the type asks of it. */
static int
ops_check_string_value(const struct op_arg *a, const char *p,
    const cJSON *v, char **msg)
{
	const char	*s;
	char		*list;
	int		 rc;

	if (!cJSON_IsString(v))
		return ops_fail(msg, p, a->name, "expected a string");
	s = v->valuestring;
	if (ops_check_str(a, p, s, msg) != 0)
		return CLAW_ERR_INVAL;
	switch (a->type) {
	case OP_ENUM:
		if (names_find(a->names, s) >= 0)
			return 0;
		list = names_list(a->names, 0);
		rc = ops_fail(msg, p, a->name, "expected one of %s", list);
		free(list);
		return rc;
	case OP_ID:
		return sandbox_id_ok(s) ? 0 : ops_fail(msg, p, a->name,
		    "expected a sandbox id ('c' and 12 characters of a-z 2-7, "
		    "as provision printed)");
	case OP_HANDLE:
		return process_handle_ok(s) ? 0 : ops_fail(msg, p, a->name,
		    "expected a process handle (p and 8 hex digits, as "
		    "process.start returned)");
	case OP_NAME:
		return process_name_ok(s) && *s != '-' ? 0 : ops_fail(msg, p,
		    a->name, "expected 1 to %lld of A-Z a-z 0-9 . _ - (not "
		    "starting with '-')", (long long)a->hi);
	case OP_OUTPUT_ID:
		return strlen(s) == 9 && *s == 'o' &&
		    strspn(s + 1, "0123456789abcdef") == 8 ? 0 :
		    ops_fail(msg, p, a->name, "expected an output id (o and 8 "
		    "hex digits, as an exec's outputId)");
	default:
		return 0;
	}
}

/* Check one value; see ops.h. */
int
ops_check_value(const struct op_arg *a, const char *p, const cJSON *v,
    char **msg)
{
	int64_t	 n;
	char	*cause = NULL;

	switch (a->type) {
	case OP_INT:
		return ops_is_int(v, a->lo, a->hi) ? 0 : ops_fail(msg, p,
		    a->name, "expected an integer from %lld to %lld",
		    (long long)a->lo, (long long)a->hi);
	case OP_BOOL:
		return cJSON_IsBool(v) ? 0 : ops_fail(msg, p, a->name,
		    "expected true or false");
	case OP_SIZE:
		if (ops_is_int(v, 0, a->hi) || (cJSON_IsString(v) &&
		    *v->valuestring != '-' &&
		    contain_size_parse(v->valuestring, &n, &cause) == 0))
			return 0;
		free(cause);
		return ops_fail(msg, p, a->name, "expected a non-negative "
		    "integer or a size such as \"512M\"");
	case OP_CPUS:
		if (contain_cpus_json(v, &n, &cause) == 0)
			return 0;
		free(cause);
		return ops_fail(msg, p, a->name, "expected a number of CPUs "
		    "from 0 to 4096 with at most three decimals, or a string "
		    "such as \"1.5\" or \"500m\"");
	case OP_GPU:
		return ops_is_int(v, a->lo, a->hi) || (cJSON_IsString(v) &&
		    strcmp(v->valuestring, "all") == 0) ? 0 : ops_fail(msg, p,
		    a->name, "expected an integer from %lld to %lld, or "
		    "\"all\"", (long long)a->lo, (long long)a->hi);
	case OP_SIGNAL:
		return ops_is_int(v, a->lo, a->hi) || (cJSON_IsString(v) &&
		    *v->valuestring != '-' && strlen(v->valuestring) < 16 &&
		    signals_from_name(v->valuestring) != 0) ? 0 :
		    ops_fail(msg, p, a->name, "expected a signal name "
		    "(\"TERM\", \"SIGKILL\") or number");
	case OP_ARGV:
		return ops_check_argv(a, p, v, msg);
	case OP_PATHS:
		return ops_check_strings(a, p, v, ops_path_ok, "paths",
		    "a non-empty path without control characters", msg);
	case OP_OPTIONS:
		return ops_check_strings(a, p, v, ops_option_ok,
		    "\"Key=Value\" strings", "a \"Key=Value\" string", msg);
	case OP_ENV:
		return ops_check_env(a, p, v, msg);
	default:
		return ops_check_string_value(a, p, v, msg);
	}
}

/* The OP_DATA argument whose NAME_base64 key is, or NULL. */
static const struct op_arg *
ops_data_of(const struct op_entry *op, const char *key)
{
	const struct op_arg	*a;
	size_t			 n = strlen(key);
	char			*base;

	if (n <= 7 || strcmp(key + n - 7, "_base64") != 0)
		return NULL;
	base = xstrndup(key, n - 7);
	a = ops_arg(op, OPS_SURFACE_RPC, base);
	free(base);
	return a != NULL && a->type == OP_DATA ? a : NULL;
}

/* A base64 form of data a beside its text form: exactly one may come. */
static int
ops_check_b64(const struct op_arg *a, const char *p, const cJSON *obj,
    char **msg)
{
	char	 key[96];

	snprintf(key, sizeof key, "%s_base64", a->name);
	if (cJSON_GetObjectItemCaseSensitive(obj, a->name) != NULL)
		return ops_fail(msg, p, key, "give %s or %s, not both",
		    a->name, key);
	return 0;
}

/* Each member of obj: known, once, and a good value. */
static int
ops_check_members(const struct op_entry *op, enum op_surface s,
    const char *p, const cJSON *obj, char **msg)
{
	const struct op_arg	*a;
	const cJSON		*m, *k;

	cJSON_ArrayForEach(m, obj) {
		for (k = obj->child; k != m; k = k->next)
			if (strcmp(k->string, m->string) == 0)
				return ops_fail(msg, p, m->string,
				    "given twice");
		if ((a = ops_arg(op, s, m->string)) != NULL) {
			if (ops_check_value(a, p, m, msg) != 0)
				return CLAW_ERR_INVAL;
			continue;
		}
		if (s == OPS_SURFACE_RPC &&
		    (a = ops_data_of(op, m->string)) != NULL) {
			if (!cJSON_IsString(m))
				return ops_fail(msg, p, m->string,
				    "expected a string");
			if (ops_check_b64(a, p, obj, msg) != 0)
				return CLAW_ERR_INVAL;
			continue;
		}
		return ops_fail(msg, p, m->string, "unknown parameter");
	}
	return 0;
}

/* Check an object of arguments; see ops.h. */
int
ops_check(const struct op_entry *op, enum op_surface s, const char *p,
    const cJSON *obj, char **msg)
{
	const struct op_arg	*a;
	char			 key[96];

	if (obj != NULL && !cJSON_IsObject(obj)) {
		*msg = xasprintf("%s: expected an object", p);
		return CLAW_ERR_INVAL;
	}
	if (obj != NULL && ops_check_members(op, s, p, obj, msg) != 0)
		return CLAW_ERR_INVAL;
	for (a = op->args; a->name != NULL; a++) {
		if (!ops_arg_on(a, s) || !ops_arg_required(a, s) ||
		    cJSON_GetObjectItemCaseSensitive(obj, a->name) != NULL)
			continue;
		snprintf(key, sizeof key, "%s_base64", a->name);
		if (a->type == OP_DATA && s == OPS_SURFACE_RPC &&
		    cJSON_GetObjectItemCaseSensitive(obj, key) != NULL)
			continue;
		return ops_fail(msg, p, a->name, "required");
	}
	return 0;
}

/* Check a CLI value; see ops.h. */
int
ops_check_text(const struct op_arg *a, const char *s, char **msg)
{
	struct op_arg	 cli = *a;	/* a path relative to where it runs */
	cJSON		*v = NULL;
	long long	 n;
	char		*end;
	int		 rc;

	cli.flags &= ~OPA_ABSOLUTE;

	if (a->type == OP_INT || a->type == OP_SIZE || a->type == OP_GPU ||
	    a->type == OP_SIGNAL) {
		errno = 0;
		n = strtoll(s, &end, 10);
		if (*s != '\0' && *end == '\0' && errno == 0 &&
		    (*s == '-' || (*s >= '0' && *s <= '9')))
			v = cJSON_CreateNumber((double)n);
	}
	if (v == NULL)
		v = cJSON_CreateString(s);
	rc = ops_check_value(&cli, NULL, v, msg);
	cJSON_Delete(v);
	return rc;
}

/* a's CLI form; see ops.h. */
char *
ops_cli_form(const struct op_arg *a)
{
	const char	*m = a->metavar != NULL ? a->metavar : "";
	const char	*sp = a->metavar != NULL ? " " : "";

	if (a->flags & OPA_STDIN)
		return xstrdup("stdin");
	if (a->flags & OPA_OPERAND)
		return xstrdup(m);
	if (a->opt != NULL && a->opt[0] == '-')
		return xstrdup(a->opt);
	if (a->opt != NULL && a->sopt != 0)
		return xasprintf("-%c, --%s%s%s", a->sopt, a->opt, sp, m);
	if (a->opt != NULL)
		return xasprintf("--%s%s%s", a->opt, sp, m);
	if (a->sopt != 0)
		return xasprintf("-%c%s%s", a->sopt, sp, m);
	return NULL;
}

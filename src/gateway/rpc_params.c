/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Strict checks of JSON-RPC params and the worker argv (see rpc_params.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base64.h"
#include "error.h"
#include "rpc_methods.h"
#include "rpc_params.h"
#include "xmalloc.h"

/* Check params against the operation. */
int
rp_init(struct rpc_params *rp, const struct op_entry *op,
    const cJSON *params)
{
	memset(rp, 0, sizeof *rp);
	rp->op = op;
	if ((rp->err = ops_check(op, OPS_SURFACE_RPC, "params", params,
	    &rp->msg)) != 0)
		return rp->err;
	rp->params = params;
	return 0;
}

/* Keep the first failure's message and code err; return that code. */
static int
rp_vfail(struct rpc_params *rp, int err, const char *fmt, va_list ap)
{
	if (rp->msg == NULL) {
		rp->msg = xvasprintf(fmt, ap);
		rp->err = err;
	}
	return rp->err;
}

/* Keep the first failure's message (CLAW_ERR_INVAL). */
int
rp_fail(struct rpc_params *rp, const char *fmt, ...)
{
	va_list	ap;
	int	rc;

	va_start(ap, fmt);
	rc = rp_vfail(rp, CLAW_ERR_INVAL, fmt, ap);
	va_end(ap);
	return rc;
}

/* Keep the first failure's message, with code err. */
static int
rp_failc(struct rpc_params *rp, int err, const char *fmt, ...)
{
	va_list	ap;
	int	rc;

	va_start(ap, fmt);
	rc = rp_vfail(rp, err, fmt, ap);
	va_end(ap);
	return rc;
}

/* Mark key as read; return its value or NULL. */
const cJSON *
rp_get(struct rpc_params *rp, const char *key)
{
	if (ops_arg(rp->op, OPS_SURFACE_RPC, key) == NULL ||
	    rp->nseen >= RP_SEEN_MAX)
		abort();	/* not in ops_table.c, or too many: a bug */
	rp->seen[rp->nseen++] = key;
	if (rp->params == NULL)
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(rp->params, key);
}

/* A string param (checked by ops_check). */
int
rp_string(struct rpc_params *rp, const char *key, const char **out)
{
	const cJSON	*v;

	*out = NULL;
	if (rp->msg != NULL)
		return rp->err;
	if ((v = rp_get(rp, key)) != NULL)
		*out = v->valuestring;
	return 0;
}

/* An integer param (checked by ops_check). */
int
rp_int(struct rpc_params *rp, const char *key, int64_t *out, int *present)
{
	const cJSON	*v;

	*present = 0;
	if (rp->msg != NULL)
		return rp->err;
	if ((v = rp_get(rp, key)) == NULL)
		return 0;
	*out = (int64_t)v->valuedouble;
	*present = 1;
	return 0;
}

/* A boolean param (checked by ops_check). */
int
rp_bool(struct rpc_params *rp, const char *key, int *out)
{
	const cJSON	*v;

	*out = 0;
	if (rp->msg != NULL)
		return rp->err;
	if ((v = rp_get(rp, key)) != NULL)
		*out = cJSON_IsTrue(v);
	return 0;
}

/* An enum param: the table's own spelling of the name. */
int
rp_enum(struct rpc_params *rp, const char *key, const char **out)
{
	const struct op_arg	*a;
	const char		*s;

	*out = NULL;
	if (rp_string(rp, key, &s) != 0 || s == NULL)
		return rp->err;
	a = ops_arg(rp->op, OPS_SURFACE_RPC, key);
	*out = a->names->v[names_find(a->names, s)];
	return 0;
}

/* Bytes as text or base64 (one of them, as ops_check made sure). */
int
rp_data(struct rpc_params *rp, const char *key, char **out, size_t *outlen)
{
	const cJSON	*t, *b;
	unsigned char	*d;
	char		*key_b64;
	size_t		 n;

	*out = NULL;
	*outlen = 0;
	if (rp->msg != NULL)
		return rp->err;
	key_b64 = xasprintf("%s_base64", key);
	t = rp_get(rp, key);
	b = cJSON_GetObjectItemCaseSensitive(rp->params, key_b64);
	if (b != NULL && rp->nseen < RP_SEEN_MAX)
		rp->seen[rp->nseen++] = b->string;
	if (t != NULL) {
		*outlen = strlen(t->valuestring);
		*out = xstrdup(t->valuestring);
	} else if (b != NULL) {
		if ((d = base64_decode(b->valuestring, strlen(b->valuestring),
		    &n)) == NULL)
			rp_fail(rp, "params.%s: expected base64", key_b64);
		*out = (char *)d;
		*outlen = n;
	}
	free(key_b64);
	return rp->err;
}

/* Refuse unknown and repeated members. */
int
rp_finish(struct rpc_params *rp)
{
	const cJSON	*m, *k;
	size_t		 i;

	if (rp->msg != NULL)
		return rp->err;
	if (rp->params == NULL)
		return 0;
	cJSON_ArrayForEach(m, rp->params) {
		for (i = 0; i < rp->nseen; i++)
			if (strcmp(m->string, rp->seen[i]) == 0)
				break;
		if (i == rp->nseen)
			return rp_fail(rp, "params.%s: unknown parameter",
			    m->string);
		for (k = rp->params->child; k != m; k = k->next)
			if (strcmp(k->string, m->string) == 0)
				return rp_fail(rp, "params.%s: given twice",
				    m->string);
	}
	return 0;
}

/* Append an argument. */
int
rp_arg(struct rpc_params *rp, const char *arg)
{
	size_t	n = strlen(arg);

	if (rp->msg != NULL)
		return rp->err;
	if (n > RPC_ARG_MAX || rp->argvbytes + n + 1 > RPC_ARGV_MAX ||
	    rp->argc + 1 >= RPC_ARGC_MAX)
		return rp_failc(rp, CLAW_ERR_RANGE, "params: the worker's "
		    "argument list would be too long (one argument at most %d "
		    "bytes, all of them %d)", RPC_ARG_MAX, RPC_ARGV_MAX);
	rp->argv = xreallocarray(rp->argv, (size_t)rp->argc + 2,
	    sizeof *rp->argv);
	rp->argv[rp->argc++] = xstrdup(arg);
	rp->argv[rp->argc] = NULL;
	rp->argvbytes += n + 1;
	return 0;
}

/* Append a formatted argument. */
int
rp_argf(struct rpc_params *rp, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	int	 rc;

	if (rp->msg != NULL)
		return rp->err;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	rc = rp_arg(rp, s);
	free(s);
	return rc;
}

/* Free the argv and the message. */
void
rp_free(struct rpc_params *rp)
{
	int	i;

	for (i = 0; i < rp->argc; i++)
		free(rp->argv[i]);
	free(rp->argv);
	free(rp->msg);
	rp->argv = NULL;
	rp->argc = 0;
	rp->msg = NULL;
	rp->err = 0;
}

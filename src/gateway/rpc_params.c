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
#include "rpc_methods.h"
#include "rpc_params.h"
#include "xmalloc.h"

/* Start checking params. */
int
rp_init(struct rpc_params *rp, const cJSON *params)
{
	memset(rp, 0, sizeof *rp);
	if (params != NULL && !cJSON_IsObject(params))
		return rp_fail(rp, "params: expected an object");
	rp->params = params;
	return 0;
}

/* Keep the first failure's message. */
int
rp_fail(struct rpc_params *rp, const char *fmt, ...)
{
	va_list	ap;

	if (rp->msg == NULL) {
		va_start(ap, fmt);
		rp->msg = xvasprintf(fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Mark key as known; return its value or NULL. */
const cJSON *
rp_get(struct rpc_params *rp, const char *key)
{
	if (rp->nseen < RP_SEEN_MAX)
		rp->seen[rp->nseen++] = key;
	else
		abort();	/* a method with too many params: a bug */
	if (rp->params == NULL)
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(rp->params, key);
}

/* Check the characters of a string param against flags. */
static int
rp_string_chars(struct rpc_params *rp, const char *key, const char *s,
    int flags)
{
	const unsigned char	*p;

	if ((flags & RP_NODASH) && *s == '-')
		return rp_fail(rp, "params.%s: may not start with '-'", key);
	if (flags & RP_TEXT)
		return 0;
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return rp_fail(rp, "params.%s: control characters "
			    "are not allowed", key);
		if ((flags & RP_WORD) && *p == ' ')
			return rp_fail(rp, "params.%s: spaces are not "
			    "allowed", key);
	}
	return 0;
}

/* A string param. */
int
rp_string(struct rpc_params *rp, const char *key, int flags, size_t max,
    const char **out)
{
	const cJSON	*v;

	*out = NULL;
	if (rp->msg != NULL)
		return -1;
	if ((v = rp_get(rp, key)) == NULL) {
		if (flags & RP_REQUIRED)
			return rp_fail(rp, "params.%s: required", key);
		return 0;
	}
	if (!cJSON_IsString(v))
		return rp_fail(rp, "params.%s: expected a string", key);
	if ((flags & RP_NONEMPTY) && *v->valuestring == '\0')
		return rp_fail(rp, "params.%s: expected a non-empty string",
		    key);
	if (strlen(v->valuestring) > max)
		return rp_fail(rp, "params.%s: expected at most %zu bytes",
		    key, max);
	if (rp_string_chars(rp, key, v->valuestring, flags) != 0)
		return -1;
	*out = v->valuestring;
	return 0;
}

/* An integer param in [lo, hi]. */
int
rp_int(struct rpc_params *rp, const char *key, int64_t lo, int64_t hi,
    int64_t *out, int *present)
{
	const cJSON	*v;
	double		 d;

	*present = 0;
	if (rp->msg != NULL)
		return -1;
	if ((v = rp_get(rp, key)) == NULL)
		return 0;
	d = cJSON_IsNumber(v) ? v->valuedouble : (double)lo - 1;
	if (!(d >= (double)lo && d <= (double)hi) || d != (double)(int64_t)d)
		return rp_fail(rp, "params.%s: expected an integer from "
		    "%lld to %lld", key, (long long)lo, (long long)hi);
	*out = (int64_t)d;
	*present = 1;
	return 0;
}

/* A boolean param. */
int
rp_bool(struct rpc_params *rp, const char *key, int *out)
{
	const cJSON	*v;

	*out = 0;
	if (rp->msg != NULL)
		return -1;
	if ((v = rp_get(rp, key)) == NULL)
		return 0;
	if (!cJSON_IsBool(v))
		return rp_fail(rp, "params.%s: expected true or false", key);
	*out = cJSON_IsTrue(v);
	return 0;
}

/* One of the names in t. */
int
rp_enum(struct rpc_params *rp, const char *key, const struct names *t,
    const char **out)
{
	const char	*s;
	char		*list;
	int		 v;

	if (rp_string(rp, key, 0, 64, &s) != 0 || s == NULL) {
		*out = NULL;
		return rp->msg != NULL ? -1 : 0;
	}
	if ((v = names_find(t, s)) >= 0) {
		*out = t->v[v];
		return 0;
	}
	list = names_list(t, 0);
	rp_fail(rp, "params.%s: expected one of %s", key, list);
	free(list);
	*out = NULL;
	return -1;
}

/* Bytes as text or base64. */
int
rp_data(struct rpc_params *rp, const char *key, const char *key_b64,
    char **out, size_t *outlen)
{
	const char	*t, *b;
	unsigned char	*d;
	size_t		 n;

	*out = NULL;
	*outlen = 0;
	if (rp_string(rp, key, RP_TEXT, SIZE_MAX, &t) != 0 ||
	    rp_string(rp, key_b64, RP_TEXT, SIZE_MAX, &b) != 0)
		return -1;
	if (t != NULL && b != NULL)
		return rp_fail(rp, "params.%s: give %s or %s, not both",
		    key_b64, key, key_b64);
	if (t != NULL) {
		*outlen = strlen(t);
		*out = xstrdup(t);
	} else if (b != NULL) {
		if ((d = base64_decode(b, strlen(b), &n)) == NULL)
			return rp_fail(rp, "params.%s: expected base64",
			    key_b64);
		*out = (char *)d;
		*outlen = n;
	}
	return 0;
}

/* Refuse unknown and repeated members. */
int
rp_finish(struct rpc_params *rp)
{
	const cJSON	*m, *k;
	size_t		 i;

	if (rp->msg != NULL)
		return -1;
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
		return -1;
	if (n > RPC_ARG_MAX || rp->argvbytes + n + 1 > RPC_ARGV_MAX ||
	    rp->argc + 1 >= RPC_ARGC_MAX)
		return rp_fail(rp, "params: the worker's argument list would "
		    "be too long (one argument at most %d bytes, all of them "
		    "%d)", RPC_ARG_MAX, RPC_ARGV_MAX);
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
		return -1;
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
}

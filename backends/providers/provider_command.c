/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "command" provider driver: any executable speaking a small JSON
 * protocol (docs/providers.md).  It is run as "COMMAND [ARGS...] OP [NAME]"
 * with OP one of get, create, delete, list (NAME for all but list) and a
 * JSON request on its stdin, and answers with one JSON object on stdout
 * and exit status 0.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "provider.h"
#include "xmalloc.h"

#define PCMD_NAME_MAX	63	/* longest sandbox name we hand over */
#define PCMD_LIST_MAX	10000	/* sandboxes in one list answer */

/* Run "COMMAND ARGS... op [name]" with request as stdin; *out: answer. */
static int
pcmd_call(const struct provider_conf *pc, const char *op, const char *name,
    cJSON *request, cJSON **out, char **cause)
{
	struct provider_run	 r;
	const cJSON		*e;
	char			**argv, *input;
	size_t			 i, n = 0;
	int			 rc;

	argv = xcalloc(pc->nargs + 4, sizeof *argv);
	argv[n++] = (char *)(uintptr_t)(pc->command != NULL ? pc->command : "");
	for (i = 0; i < pc->nargs; i++)
		argv[n++] = pc->args[i];
	argv[n++] = (char *)(uintptr_t)op;
	if (name != NULL)
		argv[n++] = (char *)(uintptr_t)name;
	cJSON_AddNumberToObject(request, "protocol", 1);
	cJSON_AddStringToObject(request, "op", op);
	input = cJSON_PrintUnformatted(request);
	memset(&r, 0, sizeof r);
	if (pc->command == NULL)
		rc = provider_fail(cause, pc, CLAW_ERR_INVAL, "no \"command\" "
		    "configured");
	else
		rc = provider_run(pc, argv, input, &r, cause);
	free(input);
	free(argv);
	if (rc != 0)
		return rc;
	*out = NULL;
	if (r.status != 0)
		rc = provider_fail_run(cause, pc, op, &r);
	else if ((*out = cJSON_ParseWithLength(r.out, r.len)) == NULL ||
	    !cJSON_IsObject(*out))
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "%s: the answer "
		    "is not a JSON object", op);
	else if ((e = cJSON_GetObjectItemCaseSensitive(*out, "error")) !=
	    NULL)
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "%s: %s", op,
		    cJSON_IsString(e) ? e->valuestring : "(error)");
	provider_run_free(&r);
	if (rc != 0) {
		cJSON_Delete(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * Copy string member key of o to *dst; absent or null is fine.  0, or
 * CLAW_ERR_PARSE if it is not a string.
 */
static int
pcmd_str(const cJSON *o, const char *key, char **dst)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return CLAW_ERR_PARSE;
	*dst = xstrdup(v->valuestring);
	return 0;
}

/*
 * Read an answer's "endpoint" object into ep; 0, or CLAW_ERR_PARSE with
 * *what if bad.
 */
static int
pcmd_endpoint(const cJSON *o, struct provider_endpoint *ep,
    const char **what)
{
	const cJSON	*e = cJSON_GetObjectItemCaseSensitive(o, "endpoint");
	const cJSON	*port;

	*what = "endpoint";
	if (e == NULL || cJSON_IsNull(e))
		return 0;
	if (!cJSON_IsObject(e))
		return CLAW_ERR_PARSE;
	port = cJSON_GetObjectItemCaseSensitive(e, "port");
	if (port != NULL && !cJSON_IsNull(port)) {
		*what = "endpoint.port";
		if (!cJSON_IsNumber(port) || port->valuedouble < 0 ||
		    port->valuedouble > 65535 ||
		    port->valuedouble != (double)(int)port->valuedouble)
			return CLAW_ERR_PARSE;
		ep->port = (int)port->valuedouble;
	}
	*what = "an endpoint member";
	if (pcmd_str(e, "host", &ep->host) != 0 ||
	    pcmd_str(e, "user", &ep->user) != 0 ||
	    pcmd_str(e, "proxyCommand", &ep->proxy_command) != 0 ||
	    pcmd_str(e, "identityFile", &ep->identity_file) != 0 ||
	    pcmd_str(e, "hostKeyAlias", &ep->host_key_alias) != 0 ||
	    pcmd_str(e, "execWrap", &ep->exec_wrap) != 0 ||
	    pcmd_str(e, "hostKeys", &ep->host_keys) != 0)
		return CLAW_ERR_PARSE;
	return 0;
}

/* Map a state word of the protocol; CLAW_ERR_PARSE if it is not one. */
static int
pcmd_state(const char *s, enum provider_state *st)
{
	static const enum provider_state all[] = { PROVIDER_ABSENT,
	    PROVIDER_PENDING, PROVIDER_READY, PROVIDER_FAILED, PROVIDER_GONE };
	size_t	i;

	for (i = 0; i < sizeof all / sizeof all[0]; i++) {
		if (strcmp(s, provider_state_name(all[i])) == 0) {
			*st = all[i];
			return 0;
		}
	}
	return CLAW_ERR_PARSE;
}

/* Read one sandbox object (an answer to get, or a list entry). */
static int
pcmd_sandbox(const struct provider_conf *pc, const cJSON *o,
    const char *name, struct provider_sandbox *out, char **cause)
{
	struct provider_sandbox	 s;
	const cJSON		*st;
	const char		*what = "state";

	memset(&s, 0, sizeof s);
	st = cJSON_GetObjectItemCaseSensitive(o, "state");
	if (!cJSON_IsString(st) || pcmd_state(st->valuestring, &s.state) != 0)
		goto bad;
	what = "name";
	if (pcmd_str(o, "name", &s.name) != 0 || (s.name == NULL &&
	    name == NULL))
		goto bad;
	if (s.name == NULL)
		s.name = xstrdup(name);
	what = "message or gpus";
	if (pcmd_str(o, "message", &s.state_text) != 0 ||
	    pcmd_str(o, "gpus", &s.gpus) != 0)
		goto bad;
	if (s.state_text == NULL)
		s.state_text = xstrdup(st->valuestring);
	if (pcmd_endpoint(o, &s.ep, &what) != 0)
		goto bad;
	*out = s;
	return 0;
bad:
	provider_sandbox_clear(&s);
	return provider_fail(cause, pc, CLAW_ERR_PROTO, "bad answer: %s is "
	    "missing or not valid (states: absent, pending, ready, failed, "
	    "gone)", what);
}

/* A request naming one sandbox. */
static cJSON *
pcmd_request(const char *name)
{
	cJSON	*req = cJSON_CreateObject();

	if (name != NULL)
		cJSON_AddStringToObject(req, "name", name);
	return req;
}

/* get: look name up. */
static int
pcmd_get(const struct provider_conf *pc, const char *name,
    struct provider_sandbox *out, char **cause)
{
	cJSON	*req = pcmd_request(name), *ans = NULL;
	int	 rc;

	if ((rc = pcmd_call(pc, "get", name, req, &ans, cause)) == 0)
		rc = pcmd_sandbox(pc, ans, name, out, cause);
	if (rc == 0 && strcmp(out->name, name) != 0) {
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "get %s answered "
		    "for another sandbox", name);
		provider_sandbox_clear(out);
	}
	cJSON_Delete(req);
	cJSON_Delete(ans);
	return rc;
}

/* create: ask for name with what req says. */
static int
pcmd_create(const struct provider_conf *pc, const char *name,
    const struct provider_request *rq, char **cause)
{
	cJSON	*req = pcmd_request(name), *ans = NULL, *extra;
	size_t	 i;
	int	 rc;

	if (rq->image != NULL)
		cJSON_AddStringToObject(req, "image", rq->image);
	cJSON_AddNumberToObject(req, "gpus", rq->gpus);
	if (rq->policy != NULL)
		cJSON_AddStringToObject(req, "policy", rq->policy);
	extra = cJSON_AddArrayToObject(req, "extra");
	for (i = 0; i < rq->nextra; i++)
		cJSON_AddItemToArray(extra, cJSON_CreateString(rq->extra[i]));
	rc = pcmd_call(pc, "create", name, req, &ans, cause);
	cJSON_Delete(req);
	cJSON_Delete(ans);
	return rc;
}

/* delete: remove name. */
static int
pcmd_destroy(const struct provider_conf *pc, const char *name, int *existed,
    char **cause)
{
	cJSON		*req = pcmd_request(name), *ans = NULL;
	const cJSON	*e;
	int		 rc;

	if ((rc = pcmd_call(pc, "delete", name, req, &ans, cause)) == 0) {
		e = cJSON_GetObjectItemCaseSensitive(ans, "existed");
		if (!cJSON_IsBool(e))
			rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "delete: "
			    "the answer has no boolean \"existed\"");
		else
			*existed = cJSON_IsTrue(e);
	}
	cJSON_Delete(req);
	cJSON_Delete(ans);
	return rc;
}

/* list: every sandbox the command knows. */
static int
pcmd_list(const struct provider_conf *pc, struct provider_sandbox **out,
    size_t *n, char **cause)
{
	cJSON			*req = pcmd_request(NULL), *ans = NULL;
	const cJSON		*arr, *o;
	struct provider_sandbox	*v = NULL;
	size_t			 k = 0;
	int			 rc;

	if ((rc = pcmd_call(pc, "list", NULL, req, &ans, cause)) != 0)
		goto out;
	arr = cJSON_GetObjectItemCaseSensitive(ans, "sandboxes");
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > PCMD_LIST_MAX) {
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "list: the "
		    "answer has no \"sandboxes\" array (of at most %d)",
		    PCMD_LIST_MAX);
		goto out;
	}
	v = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof *v);
	cJSON_ArrayForEach(o, arr) {
		if ((rc = pcmd_sandbox(pc, o, NULL, &v[k], cause)) != 0)
			break;
		k++;
	}
out:
	if (rc == 0) {
		*out = v;
		*n = k;
	} else
		provider_sandboxes_free(v, k);
	cJSON_Delete(req);
	cJSON_Delete(ans);
	return rc;
}

const struct provider_ops provider_command = {
	.driver = "command",
	.name_max = PCMD_NAME_MAX,
	.get = pcmd_get,
	.create = pcmd_create,
	.destroy = pcmd_destroy,
	.list = pcmd_list,
};

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MCP input schemas (JSON Schema) made from the operations table; see
 * ops.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "xmalloc.h"

/* {"type": "array", "items": {"type": "string"}}, with bounds. */
static cJSON *
ops_schema_strings(int64_t min, int64_t max)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", "array");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "items"), "type",
	    "string");
	if (min > 0)
		cJSON_AddNumberToObject(o, "minItems", (double)min);
	if (max > 0)
		cJSON_AddNumberToObject(o, "maxItems", (double)max);
	return o;
}

/* A string's schema: bounds and pattern. */
static cJSON *
ops_schema_string(const struct op_arg *a)
{
	cJSON	*o = cJSON_CreateObject(), *e;
	size_t	 i;

	cJSON_AddStringToObject(o, "type", "string");
	if (a->type == OP_ENUM) {
		e = cJSON_AddArrayToObject(o, "enum");
		for (i = 0; i < a->names->n; i++)
			cJSON_AddItemToArray(e,
			    cJSON_CreateString(a->names->v[i]));
		return o;
	}
	if ((a->flags & OPA_NONEMPTY) || a->type == OP_PATH)
		cJSON_AddNumberToObject(o, "minLength", 1);
	if (a->hi > 0 && a->type != OP_HANDLE)
		cJSON_AddNumberToObject(o, "maxLength", (double)a->hi);
	if (a->pattern != NULL)
		cJSON_AddStringToObject(o, "pattern", a->pattern);
	else if (a->type == OP_HANDLE)
		cJSON_AddStringToObject(o, "pattern", "^p[0-9a-f]{8}$");
	else if (a->type == OP_OUTPUT_ID)
		cJSON_AddStringToObject(o, "pattern", "^o[0-9a-f]{8}$");
	else if (a->type == OP_ID)
		cJSON_AddStringToObject(o, "pattern", "^c[a-z2-7]{12}$");
	return o;
}

/* The schema of one argument. */
static cJSON *
ops_schema_arg(const struct op_arg *a)
{
	cJSON	*o, *t;

	switch (a->type) {
	case OP_INT:
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", "integer");
		cJSON_AddNumberToObject(o, "minimum", (double)a->lo);
		cJSON_AddNumberToObject(o, "maximum", (double)a->hi);
		break;
	case OP_BOOL:
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", "boolean");
		break;
	case OP_CPUS:
	case OP_SIZE:
	case OP_GPU:
	case OP_SIGNAL:
		o = cJSON_CreateObject();
		t = cJSON_AddArrayToObject(o, "type");
		cJSON_AddItemToArray(t, cJSON_CreateString(a->type == OP_CPUS ?
		    "number" : "integer"));
		cJSON_AddItemToArray(t, cJSON_CreateString("string"));
		break;
	case OP_ARGV:
		o = ops_schema_strings(1, 0);
		break;
	case OP_PATHS:
	case OP_OPTIONS:
		o = ops_schema_strings(0, a->hi);
		break;
	case OP_ENV:
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", "object");
		cJSON_AddStringToObject(cJSON_AddObjectToObject(o,
		    "additionalProperties"), "type", "string");
		cJSON_AddNumberToObject(o, "maxProperties", (double)a->hi);
		break;
	default:
		o = ops_schema_string(a);
		break;
	}
	cJSON_AddStringToObject(o, "description", a->doc);
	return o;
}

/* Add op's extra schema members (a JSON object's insides). */
static void
ops_schema_extra(cJSON *o, const char *extra)
{
	cJSON	*x, *m;
	char	*text;

	text = xasprintf("{%s}", extra);
	if ((x = cJSON_Parse(text)) == NULL)
		abort();	/* a bad literal in ops_table.c */
	free(text);
	while ((m = x->child) != NULL) {
		cJSON_DetachItemViaPointer(x, m);
		cJSON_AddItemToObject(o, m->string, m);
	}
	cJSON_Delete(x);
}

/* The MCP inputSchema of op; see ops.h. */
cJSON *
ops_input_schema(const struct op_entry *op)
{
	const struct op_arg	*a;
	cJSON			*o, *props, *req;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", "object");
	props = cJSON_AddObjectToObject(o, "properties");
	req = cJSON_CreateArray();
	for (a = op->args; a->name != NULL; a++) {
		if (!ops_arg_on(a, OPS_SURFACE_MCP))
			continue;
		cJSON_AddItemToObject(props, a->name, ops_schema_arg(a));
		if (ops_arg_required(a, OPS_SURFACE_MCP))
			cJSON_AddItemToArray(req, cJSON_CreateString(a->name));
	}
	if (cJSON_GetArraySize(req) > 0)
		cJSON_AddItemToObject(o, "required", req);
	else
		cJSON_Delete(req);
	if (op->mcp_extra != NULL)
		ops_schema_extra(o, op->mcp_extra);
	cJSON_AddBoolToObject(o, "additionalProperties", 0);
	return o;
}

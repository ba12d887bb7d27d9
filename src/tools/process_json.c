/* SPDX-License-Identifier: BSD-2-Clause */
/* A process's state as JSON; see process_json.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "process.h"
#include "process_json.h"

/* A process's state as a JSON object; see process_json.h. */
cJSON *
process_state_json(const struct process_state *st)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "handle", st->handle);
	if (st->name[0] != '\0')
		cJSON_AddStringToObject(o, "name", st->name);
	else
		cJSON_AddNullToObject(o, "name");
	cJSON_AddStringToObject(o, "state", process_run_name(st->run));
	if (st->exit_status >= 0)
		cJSON_AddNumberToObject(o, "exit_status", st->exit_status);
	else
		cJSON_AddNullToObject(o, "exit_status");
	cJSON_AddNumberToObject(o, "started", (double)st->started);
	cJSON_AddStringToObject(o, "command", st->command);
	return o;
}

/* The state and output of a poll or log; see process_json.h. */
cJSON *
process_output_json(const struct process_state *st, const char *p,
    size_t len)
{
	struct buf	 clean = BUF_INIT;
	cJSON		*o = process_state_json(st);

	process_utf8_clean(&clean, p != NULL ? p : "", len);
	cJSON_AddStringToObject(o, "output", clean.data != NULL ?
	    clean.data : "");
	buf_free(&clean);
	return o;
}

/* A listing as a JSON array; see process_json.h. */
cJSON *
process_list_json(const struct process_state *v, size_t n)
{
	cJSON	*arr = cJSON_CreateArray();
	size_t	 i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, process_state_json(&v[i]));
	return arr;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exec --route-json: what the daemon needs to run a sandbox's commands
 * itself, printed once by a worker it starts (daemon_route.c, docs/
 * architecture.md "In-process exec").  See cmd_exec_route.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "compat.h"
#include "cmd_exec_route.h"
#include "contain.h"
#include "contain_bwrap.h"
#include "remote_cmd.h"
#include "xmalloc.h"

/*
 * The file at path as it is now: {"path", "dev", "ino", "size",
 * "mtime_s", "mtime_ns"}, or {"path", "absent": true} when there is none.
 */
static cJSON *
route_file(const char *path)
{
	cJSON		*o = cJSON_CreateObject();
	struct stat	 st;

	cJSON_AddStringToObject(o, "path", path);
	if (stat(path, &st) != 0) {
		cJSON_AddBoolToObject(o, "absent", 1);
		return o;
	}
	cJSON_AddNumberToObject(o, "dev", (double)st.st_dev);
	cJSON_AddNumberToObject(o, "ino", (double)st.st_ino);
	cJSON_AddNumberToObject(o, "size", (double)st.st_size);
	cJSON_AddNumberToObject(o, "mtime_s", (double)st.st_mtim.tv_sec);
	cJSON_AddNumberToObject(o, "mtime_ns", (double)st.st_mtim.tv_nsec);
	return o;
}

/* Print the route; see cmd_exec_route.h. */
int
exec_route_print(const struct exec_route_out *r)
{
	cJSON	*o, *a, *pair;
	char	*s;
	size_t	 i;
	int	 rc = 0;

	if (r->route == NULL || r->route->dir == NULL || r->hello == NULL)
		return cmd_fail("sandbox %s: no route through the host agent "
		    "(-v says why)", r->sandbox);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "sandbox", r->sandbox);
	cJSON_AddStringToObject(o, "hello", r->hello);
	cJSON_AddStringToObject(o, "agent", r->route->agent);
	cJSON_AddStringToObject(o, "dir", r->route->dir);
	cJSON_AddStringToObject(o, "token", r->route->token);
	cJSON_AddStringToObject(o, "workdir", r->route->cwd);
	cJSON_AddBoolToObject(o, "mirror", r->mirror);
	if (r->fs_local != NULL)
		cJSON_AddStringToObject(o, "fs_local", r->fs_local);
	else
		cJSON_AddNullToObject(o, "fs_local");
	cJSON_AddBoolToObject(o, "fs_ro", r->fs_ro);
	cJSON_AddBoolToObject(o, "fs_steps", r->fs_steps);
	cJSON_AddStringToObject(o, "label", r->label != NULL ? r->label : "");
	cJSON_AddStringToObject(o, "sandbox_dir", r->sandbox_dir);
	cJSON_AddNumberToObject(o, "timeout", r->timeout);
	cJSON_AddItemToObject(o, "limits", contain_limits_json(r->limits));
	a = cJSON_AddArrayToObject(o, "env");
	for (i = 0; i < r->nenv; i++) {
		pair = cJSON_CreateArray();
		cJSON_AddItemToArray(pair,
		    cJSON_CreateString(r->env[i].name));
		cJSON_AddItemToArray(pair,
		    cJSON_CreateString(r->env[i].value));
		cJSON_AddItemToArray(a, pair);
	}
	a = cJSON_AddArrayToObject(o, "files");
	for (i = 0; r->files[i] != NULL; i++)
		cJSON_AddItemToArray(a, route_file(r->files[i]));
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (printf("%s\n", s) < 0 || fflush(stdout) != 0)
		rc = cmd_fail("writing the route: %s", strerror(errno));
	freezero(s, strlen(s));		/* the env's values */
	return rc;
}

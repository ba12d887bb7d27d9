/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The workdir setting: where a contained command sees its workspace,
 * /workspace or the local workspace's own absolute path, and the check
 * of that path.  See sandbox.h and docs/sandboxes.md ("Paths inside").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sandbox.h"

/* The sandbox's own directories: a workspace there would hide them. */
static const char *const sandbox_workdir_own[] = {
	"/proc", "/dev", "/sys", "/tmp", "/run", SANDBOX_WORKSPACE "/"
};

static const char *const sandbox_workdirs[] = {
	[SANDBOX_WORKDIR_WORKSPACE] = SANDBOX_WORKSPACE,
	[SANDBOX_WORKDIR_LOCAL] = "local",
};

const struct names sandbox_workdir_names = NAMES_OF(sandbox_workdirs);

/* Parse a workdir name. */
int
sandbox_workdir_parse(const char *s, enum sandbox_workdir *out)
{
	int	v;

	if ((v = names_find(&sandbox_workdir_names, s)) < 0)
		return CLAW_ERR_INVAL;
	*out = (enum sandbox_workdir)v;
	return 0;
}

/* Name a workdir; "unknown" for a value outside the enum. */
const char *
sandbox_workdir_name(enum sandbox_workdir workdir)
{
	return names_get(&sandbox_workdir_names, (int)workdir);
}

/* Return why the components of absolute path are not normalised, or NULL. */
static const char *
sandbox_workdir_components(const char *path)
{
	const char	*p, *slash;
	size_t		 n;

	for (p = path + 1;; p = slash + 1) {
		slash = strchr(p, '/');
		n = slash == NULL ? strlen(p) : (size_t)(slash - p);
		if (n == 0)
			return "not normalised (an empty component: '//' or a "
			    "trailing '/')";
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return "not normalised ('.' or '..' component)";
		if (slash == NULL)
			return NULL;
	}
}

/* Return the sandbox directory path is or lies under, or NULL. */
static const char *
sandbox_workdir_owned(const char *path)
{
	const char	*d;
	size_t		 i, n;

	for (i = 0; i < sizeof sandbox_workdir_own /
	    sizeof sandbox_workdir_own[0]; i++) {
		d = sandbox_workdir_own[i];
		n = strlen(d);
		if (d[n - 1] == '/' && strncmp(path, d, n) == 0)
			return d;	/* under it only */
		if (d[n - 1] != '/' && strncmp(path, d, n) == 0 &&
		    (path[n] == '\0' || path[n] == '/'))
			return d;
	}
	return NULL;
}

/* Check a workdir path; see sandbox.h. */
int
sandbox_workdir_check(enum contain_runtime rt, const char *path,
    char **cause)
{
	const unsigned char	*p;
	const char		*why = NULL, *own;
	size_t			 len;

	if (path == NULL || path[0] != '/')
		return claw_fail(cause, CLAW_ERR_INVAL, "workdir local: the "
		    "local workspace path is not absolute");
	len = strnlen(path, SANDBOX_ROOT_MAX + 1);
	for (p = (const unsigned char *)path; why == NULL && *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			why = "a control character";
		else if ((rt == CONTAIN_DOCKER || rt == CONTAIN_PODMAN) &&
		    (*p == ',' || *p == '"'))
			why = "',' or '\"' (the engine's --mount is CSV)";
	}
	if (why == NULL && len > SANDBOX_ROOT_MAX)
		why = "longer than the limit";
	else if (why == NULL && len == 1)
		why = "'/' itself";
	if (why == NULL)
		why = sandbox_workdir_components(path);
	if (why == NULL && (own = sandbox_workdir_owned(path)) != NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "workdir local: the "
		    "local workspace %s is %s %s, which the sandbox has of "
		    "its own: use --workdir " SANDBOX_WORKSPACE, path,
		    own[strlen(own) - 1] == '/' ? "under" : "at or under",
		    own);
	if (why == NULL)
		return 0;
	return claw_fail(cause, CLAW_ERR_INVAL, "workdir local: the local "
	    "workspace path cannot be used inside the sandbox: %s", why);
}

/* The workspace's path inside; see sandbox.h. */
const char *
sandbox_workdir_path(const struct sandbox_settings *s, const char *local)
{
	if (s->workdir == SANDBOX_WORKDIR_LOCAL && local != NULL)
		return local;
	return SANDBOX_WORKSPACE;
}

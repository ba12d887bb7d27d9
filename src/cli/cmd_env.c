/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The --env list and the runtime wrapper shared by exec and process
 * start.  See cmd_env.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "agent_deploy.h"
#include "buf.h"
#include "clawconfig.h"
#include "cmd.h"
#include "cmd_box.h"
#include "cmd_env.h"
#include "cmd_ops.h"
#include "contain_bwrap.h"
#include "contain_oci.h"
#include "log.h"
#include "process.h"
#include "registry.h"
#include "remote_cmd.h"
#include "sandbox.h"
#include "shquote.h"
#include "transport.h"
#include "xmalloc.h"

/* Add one variable; see cmd_env.h. */
int
cmd_env_add(struct cmd_env *e, const char *spec, int replace)
{
	const char	*eq = strchr(spec, '='), *val;
	char		*name;
	size_t		 i;

	if (eq == NULL) {
		if (!remote_cmd_env_name_ok(spec))
			return cmd_fail("--env: invalid variable name '%s'",
			    spec);
		if ((val = getenv(spec)) == NULL)
			return cmd_fail("--env %s: not set here (give NAME="
			    "VALUE, or export %s first)", spec, spec);
		eq = spec + strlen(spec);
	} else
		val = eq + 1;
	name = xstrndup(spec, (size_t)(eq - spec));
	if (!remote_cmd_env_name_ok(name)) {
		free(name);
		return cmd_fail("--env: invalid variable name in '%s'", spec);
	}
	for (i = 0; i < e->n && strcmp(e->v[i].name, name) != 0; i++)
		;
	if (i < e->n && !replace) {
		free(name);
		return 0;
	}
	if (i == e->n) {
		e->v = xreallocarray(e->v, ++e->n, sizeof *e->v);
		e->v[i].name = name;
	} else {
		free(name);
		freezero(e->v[i].value, strlen(e->v[i].value));
	}
	e->v[i].value = xstrdup(val);
	return 0;
}

/* Add the parsed --env options; see cmd_env.h. */
int
cmd_env_options(struct cmd_env *e, const struct cmd_ops *o)
{
	const char *const	*env;
	size_t			 i, n;
	int			 rc;

	env = cmd_ops_list(o, "env", &n);
	for (i = 0; i < n; i++)
		if ((rc = cmd_env_add(e, env[i], 1)) != 0)
			return rc;
	return 0;
}

/* Add the config's entries; see cmd_env.h. */
int
cmd_env_config(struct cmd_env *e, const struct claw_config *c)
{
	char	*line;
	size_t	 i;
	int	 rc;

	for (i = 0; i < c->nenv; i++) {
		line = xasprintf("%s=%s", c->env[i].name, c->env[i].value);
		rc = cmd_env_add(e, line, 0);
		freezero(line, strlen(line));
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Free the list; see cmd_env.h. */
void
cmd_env_free(struct cmd_env *e)
{
	size_t	i;

	for (i = 0; i < e->n; i++) {
		free(e->v[i].name);
		freezero(e->v[i].value, strlen(e->v[i].value));
	}
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

/*
 * Put a managed sandbox's exec wrapper (its provider's, e.g. Slurm's srun
 * into the allocation) in front of the runtime's wrapper inner (taken;
 * NULL for runtime none, when the wrapper also changes to the working
 * directory, which remote_cmd leaves to wrappers).
 */
static char *
cmd_env_exec_wrap(const struct cmd_box *b, char *inner, const char *cwd)
{
	const struct registry_record	*r = b->rec;
	struct buf			 t = BUF_INIT;
	char				*ws, *dir;

	if (r == NULL || r->exec_wrap == NULL)
		return inner;
	if (inner != NULL) {
		buf_appendf(&t, "%s\n", inner);
		free(inner);
	} else {
		ws = hostdir_workspace(r->remote_root, r->id);
		if (cwd == NULL)
			dir = xstrdup(ws);
		else if (cwd[0] == '/')
			dir = xstrdup(cwd);
		else
			dir = xasprintf("%s/%s", ws, cwd);
		buf_append_str(&t, "cd -- ");
		shquote_append(&t, dir);
		buf_append_str(&t, " || exit 1\n");
		free(dir);
		free(ws);
	}
	buf_appendf(&t, "set -- %s \"$@\"", r->exec_wrap);
	return buf_detach(&t);
}

/* The host agent of b's host; see cmd_env.h. */
int
cmd_env_agent(const struct cmd_box *b, char **path)
{
	struct agent_host	 ah;
	const char		*off = getenv("CLAWSSH_NO_AGENT");
	char			*dir, *cause = NULL;
	int			 rc;

	*path = NULL;
	if (off != NULL && strcmp(off, "1") == 0) {
		log_info("the host agent is off (CLAWSSH_NO_AGENT=1): each "
		    "command runs in a sandbox of its own");
		return 0;
	}
	dir = xasprintf("%s/agents", registry_dir(b->reg));
	rc = agent_deploy_ensure(b->t, dir, &ah, &cause);
	free(dir);
	if (rc != 0) {
		rc = cmd_fail("host agent: %s", cause);
		free(cause);
		return rc;
	}
	if (ah.path == NULL)
		log_info("no host agent on %s (%s): each command runs in a "
		    "sandbox of its own", transport_label(b->t), ah.why);
	else
		log_debug("host agent %s", ah.path);
	*path = ah.path;
	ah.path = NULL;
	agent_host_clear(&ah);
	return 0;
}

/* The agent from the kept answer only; see cmd_env.h. */
char *
cmd_env_agent_cached(const struct cmd_box *b)
{
	struct agent_host	 ah;
	const char		*off = getenv("CLAWSSH_NO_AGENT");
	char			*dir, *path = NULL;

	if (off != NULL && strcmp(off, "1") == 0)
		return NULL;
	dir = xasprintf("%s/agents", registry_dir(b->reg));
	if (agent_deploy_cached(b->t, dir, &ah) == 0) {
		path = ah.path;
		ah.path = NULL;
		agent_host_clear(&ah);
	}
	free(dir);
	return path;
}

/* Forget b's host's kept agent answer; see cmd_env.h. */
void
cmd_env_agent_forget(const struct cmd_box *b)
{
	char	*dir = xasprintf("%s/agents", registry_dir(b->reg));

	agent_deploy_forget(b->t, dir);
	free(dir);
}

/*
 * The workspace's path inside b's sandbox under now besides /workspace
 * (*dir; NULL for none): its local workspace for workdir local, from the
 * local record, checked.  0, or an exit status.
 */
static int
cmd_env_workdir(const struct cmd_box *b, const struct sandbox_settings *now,
    const char **dir)
{
	const char	*ws = b->rec->workspace;
	char		*cause = NULL;
	int		 rc;

	*dir = NULL;
	if (now->workdir != SANDBOX_WORKDIR_LOCAL)
		return 0;
	if (sandbox_workdir_check(now->runtime, ws, &cause) != 0) {
		rc = cmd_fail("sandbox %s: %s", b->rec->id, cause);
		free(cause);
		return rc;
	}
	if (strcmp(ws, SANDBOX_WORKSPACE) != 0)
		*dir = ws;
	return 0;
}

/*
 * The bwrap wrapper for b's sandbox under now; keep lists e's names.
 * With the host agent, the command joins the sandbox's persistent
 * environment (contain_bwrap_box).  0, or an exit status.
 */
static int
cmd_env_bwrap(const struct cmd_box *b, const struct sandbox_settings *now,
    const char **keep, size_t nkeep, const char *cwd,
    const struct cmd_env_tty *tty, int *watches, char **wrap,
    struct contain_route *route)
{
	struct contain_spec	 spec;
	const char		*workdir;
	char			*agent;
	int			 rc, detached = tty != NULL && tty->detached;

	if ((rc = cmd_env_workdir(b, now, &workdir)) != 0 ||
	    (rc = cmd_env_agent(b, &agent)) != 0)
		return rc;
	if (agent == NULL && detached)
		return cmd_fail("a terminal for a background process needs "
		    "the host agent, which does not run on %s (-v says why)",
		    b->rec->host);
	memset(&spec, 0, sizeof spec);
	spec.workdir = workdir;
	spec.settings = now;
	spec.root = b->rec->remote_root;
	spec.id = b->rec->id;
	spec.cwd = cwd;
	spec.keep = keep;
	spec.nkeep = nkeep;
	spec.limits = &now->limits;
	spec.note_user = log_get_level() >= LOG_LEVEL_INFO;
	spec.agent = agent;
	spec.pty = tty != NULL && tty->pty;
	spec.pty_agent_only = detached;
	*wrap = agent != NULL ? contain_bwrap_box(&spec) :
	    contain_bwrap_wrap(&spec);
	if (watches != NULL)	/* box-exec, or bwrap --die-with-parent */
		*watches = agent != NULL;
	if (route != NULL && contain_bwrap_route(&spec, route) == 0)
		route->agent = agent;	/* the route owns it now */
	else
		free(agent);
	return 0;
}

/*
 * An absolute cwd at or under dir as the engine's exec takes it: relative
 * to dir (NULL for dir itself); any other cwd as it is.
 */
static const char *
cmd_env_oci_cwd(const char *cwd, const char *dir)
{
	size_t	n = strlen(dir);

	if (cwd == NULL || strncmp(cwd, dir, n) != 0)
		return cwd;
	if (cwd[n] == '\0')
		return NULL;
	return cwd[n] == '/' ? cwd + n + 1 : cwd;
}

/*
 * The docker or podman wrapper for b's sandbox under now: an exec into
 * the sandbox's long-lived container clawssh-ID, started on first use;
 * 0, or an exit status after printing why.  Without a user the container
 * runs, when the host user is root, as the sandbox's own uid
 * (sandbox_default_uid), as bwrap does; user "root" keeps the engine's
 * default user (no --user).  At -v the wrapper says when it (re)starts
 * the container.
 */
static int
cmd_env_oci(const struct cmd_box *b, const struct sandbox_settings *now,
    const char **keep, size_t nkeep, const char *cwd, char **wrap)
{
	const struct registry_record	*r = b->rec;
	struct contain_policy		 p;
	struct contain_oci_opts		 o;
	char				*ws, *scratch, *gpus = NULL, *dir;
	const char			*workdir;
	char				*cause = NULL;
	int				 rc = 0;

	if ((rc = cmd_env_workdir(b, now, &workdir)) != 0)
		return rc;
	cwd = cmd_env_oci_cwd(cwd, CONTAIN_OCI_WORKSPACE);
	if (workdir != NULL)
		cwd = cmd_env_oci_cwd(cwd, workdir);
	ws = hostdir_workspace(r->remote_root, r->id);
	dir = xasprintf("%s/%s", r->remote_root, r->id);
	scratch = xasprintf("%s/private", dir);
	memset(&p, 0, sizeof p);
	memset(&o, 0, sizeof o);
	p.runtime = now->runtime;
	p.access = (enum contain_access)now->access;
	p.network = now->network;
	p.image = now->image;
	p.sandbox = r->id;
	p.workspace = ws;
	p.scratch = scratch;
	p.cwd = cwd;
	p.workdir = workdir;
	p.limits = now->limits;
	if (now->user[0] == '\0')
		o.default_uid = sandbox_default_uid(r->id);
	else if (strcmp(now->user, "root") != 0)
		p.user = now->user;
	p.env = keep;
	p.nenv = nkeep;
	if (now->gpus != 0)
		gpus = xasprintf("%s/gpus", r->remote_root);
	o.dir = dir;
	o.gpu_file = gpus;
	o.verbose = log_get_level() >= LOG_LEVEL_INFO;
	if ((*wrap = contain_oci_wrap(&p, &o, &cause)) == NULL) {
		rc = cmd_fail("runtime %s: %s", contain_runtime_name(p.runtime),
		    cause);
		free(cause);
	}
	free(gpus);
	free(scratch);
	free(dir);
	free(ws);
	return rc;
}

/* Build the runtime wrapper; see cmd_env.h. */
int
cmd_env_wrap(const struct cmd_box *b, const struct sandbox_settings *now,
    const struct cmd_env *e, const char *cwd, const struct cmd_env_tty *tty,
    int *watches, char **wrap, struct contain_route *route)
{
	const char	**keep;
	size_t		  i;
	int		  rc = 0;

	*wrap = NULL;
	if (watches != NULL)
		*watches = 0;
	if (route != NULL)
		memset(route, 0, sizeof(*route));
	if (tty != NULL && tty->detached && now->runtime != CONTAIN_BWRAP)
		return cmd_fail("runtime %s gives a background process no "
		    "terminal (bwrap sandboxes do)",
		    contain_runtime_name(now->runtime));
	if (now->runtime == CONTAIN_NONE) {
		*wrap = cmd_env_exec_wrap(b, NULL, cwd);
		return 0;
	}
	keep = xcalloc(e->n + 1, sizeof *keep);
	for (i = 0; i < e->n; i++)
		keep[i] = e->v[i].name;
	if (now->runtime == CONTAIN_BWRAP)
		rc = cmd_env_bwrap(b, now, keep, e->n, cwd, tty, watches,
		    wrap, b->rec != NULL && b->rec->exec_wrap == NULL ? route :
		    NULL);
	else
		rc = cmd_env_oci(b, now, keep, e->n, cwd, wrap);
	free(keep);
	if (watches != NULL && b->rec != NULL && b->rec->exec_wrap != NULL)
		*watches = 0;	/* a provider's wrapper runs in between */
	if (rc == 0)
		*wrap = cmd_env_exec_wrap(b, *wrap, cwd);
	return rc;
}

/* The steps' way into the environment; see cmd_env.h. */
int
cmd_env_steps_route(const struct cmd_box *b,
    const struct sandbox_settings *now, struct contain_route *route)
{
	const char	*no = getenv("CLAWSSH_NO_AGENT_ROUTE");
	struct cmd_env	 none = { NULL, 0 };
	char		*wrap = NULL;
	int		 rc;

	memset(route, 0, sizeof *route);
	if (now->runtime != CONTAIN_BWRAP ||
	    (no != NULL && *no != '\0' && strcmp(no, "0") != 0))
		return 0;
	rc = cmd_env_wrap(b, now, &none, NULL, NULL, NULL, &wrap, route);
	free(wrap);
	return rc;
}

/* Let b's steps join the environment; see cmd_env.h. */
int
cmd_env_steps_join(struct cmd_box *b, const struct sandbox_settings *now,
    struct contain_route *route)
{
	int	rc;

	if ((rc = cmd_env_steps_route(b, now, route)) == 0 &&
	    route->dir != NULL)
		b->steps = route;
	return rc;
}

/* The login shell's sh text; see cmd_env.h. */
const char *
cmd_env_login(const struct sandbox_settings *now)
{
	if (now->runtime == CONTAIN_NONE)
		return "exec \"${SHELL:-/bin/sh}\" -l";
	return "if command -v bash >/dev/null 2>&1; then exec bash -l; fi; "
	    "exec /bin/sh -l";
}

/* Make wv run argv in the runtime wrap describes. */
static void
cmd_env_contain(char *wv[4], const char *wrap, int argc, char **argv)
{
	struct buf	b = BUF_INIT;

	buf_appendf(&b, "%s\nexec \"$@\" ", wrap);
	shquote_append_argv(&b, argc, argv);
	wv[0] = (char *)(uintptr_t)"sh";
	wv[1] = (char *)(uintptr_t)"-c";
	wv[2] = buf_detach(&b);
	wv[3] = NULL;
}

/* Start a background process in the sandbox; see cmd_env.h. */
int
cmd_env_process(struct cmd_box *b, const struct cmd_env *e,
    const char *wrap, int argc, char **argv, const char *name,
    size_t log_max, char **handle)
{
	const struct registry_record	*r = b->rec;
	struct process_start		 ps;
	struct process_at		 at;
	char				*ws, *pre, *sd, *agent = NULL;
	char				*cause = NULL, *wv[4] = { NULL };
	char				*shown;
	int				 rc, lost = 0;

	if ((rc = cmd_env_agent(b, &agent)) != 0)
		return rc;
	if (wrap != NULL) {		/* list and poll show argv, not wv */
		cmd_env_contain(wv, wrap, argc, argv);
		shown = process_display(argc, argv);
		rc = process_start_init(&ps, 3, wv, shown, name, log_max,
		    &cause);
		free(shown);
	} else
		rc = process_start_init(&ps, argc, argv, NULL, name, log_max,
		    &cause);
	ws = hostdir_workspace(r->remote_root, r->id);
	pre = hostdir_exec_pre(r->remote_root, r->id);
	sd = xasprintf("%s/%s", r->remote_root, r->id);
	memset(&at, 0, sizeof at);
	at.t = b->t;
	at.sd = sd;
	at.agent = agent;
	at.agent_lost = &lost;
	if (rc == 0)
		rc = process_start(&at, ws, pre, &ps, e->v, e->n, &cause);
	if (rc == 0)
		*handle = xstrdup(ps.handle);
	if (lost)
		cmd_env_agent_forget(b);
	free(wv[2]);
	free(agent);
	free(sd);
	free(pre);
	free(ws);
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
	}
	return rc;
}

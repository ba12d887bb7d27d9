/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON-RPC and MCP execs run by the daemon itself (issues 18 and 19):
 * for a sandbox whose host agent is up, the daemon sends serve's EXEC on
 * that agent's channel and turns the replies into the call's output and
 * result, with no worker process.  What a worker would work out first
 * (the record, the config, the settings in force, the agent's path, the
 * holder's run directory and token, the config's exec.env and timeout)
 * comes from one worker per sandbox (and set of connection parameters:
 * config, ssh_config, state_dir...) run as `exec --route-json` with
 * those, and is kept as the sandbox's route:
 * - while the files it came from (the record, config.json, the ssh
 *   config) have not changed; a changed one drops it;
 * - learnt again in the background after DROUTE_REFRESH_MS, the old one
 *   serving meanwhile;
 * - dropped when the agent refuses a command (no holder, other settings):
 *   that command, and the next ones until a route is learnt again, go to
 *   a worker as before, which starts the holder.
 * A call that needs more than the route gives (a mirror sandbox without
 * no_sync, a terminal, a host, strict_config) goes to a worker.  docs/architecture.md "In-process exec" has the picture.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>
#include <sys/stat.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent_req.h"
#include "box_stop.h"
#include "buf.h"
#include "clock.h"
#include "compat.h"
#include "contain.h"
#include "daemon_int.h"
#include "error.h"
#include "exec.h"
#include "log.h"
#include "msg.h"
#include "remote_cmd.h"
#include "shquote.h"
#include "strv.h"
#include "xmalloc.h"

#define DROUTE_REFRESH_MS	(30 * 1000)	/* learn again after */
#define DROUTE_RETRY_MS		(30 * 1000)	/* after "no route" */
#define DROUTE_GIVE_UP_MS	5000		/* KILL sent, no EXIT */
#define DROUTE_FILES_MAX	8
#define DROUTE_ENV_MAX		256

/* A file a route came from, as it was. */
struct droute_file {
	char		*path;
	int		 absent;
	double		 dev, ino, size, mtime_s, mtime_ns;
};

/* How to run one sandbox's commands, or that it cannot be done. */
struct droute {
	TAILQ_ENTRY(droute)	 entry;
	char			*key;		/* droute_key */
	char			*sandbox;
	int			 none;		/* no route: use workers */
	int64_t			 learnt;	/* monotonic ms */
	char			*hello;		/* the host's key */
	char			*agent;
	char			*dir;
	char			*token;
	char			*workdir;
	int			 mirror;
	char			*fs_local;	/* the file tools' local copy */
	int			 fs_ro;		/* ... read-only */
	int			 fs_steps;	/* the host's copy, joined */
	char			*label;		/* the host, for messages */
	char			*sandbox_dir;	/* its processes' state */
	int			 timeout;
	struct contain_limits	 limits;
	struct claw_env		*env;
	size_t			 nenv;
	struct droute_file	 files[DROUTE_FILES_MAX];
	size_t			 nfiles;
};

/* Free a route (unlinked). */
static void
droute_free(struct droute *r)
{
	size_t	i;

	for (i = 0; i < r->nenv; i++) {
		free(r->env[i].name);
		freezero(r->env[i].value, strlen(r->env[i].value));
	}
	free(r->env);
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i].path);
	free(r->key);
	free(r->sandbox);
	free(r->hello);
	free(r->agent);
	free(r->dir);
	free(r->token);
	free(r->workdir);
	free(r->fs_local);
	free(r->label);
	free(r->sandbox_dir);
	free(r);
}

/*
 * Which route a call takes: its sandbox and connection arguments, as a
 * JSON array (allocated).
 */
static char *
droute_key(const struct rpc_call *rc)
{
	cJSON	*a = cJSON_CreateArray();
	char	*s;
	int	 i;

	cJSON_AddItemToArray(a, cJSON_CreateString(rc->sandbox));
	for (i = 0; i < rc->conn_n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(
		    rc->argv[rc->conn_first + i]));
	s = cJSON_PrintUnformatted(a);
	cJSON_Delete(a);
	return s;
}

/* The route kept under key, or NULL. */
static struct droute *
droute_find(struct daemon *d, const char *key)
{
	struct droute	*r;

	TAILQ_FOREACH(r, &d->routes, entry) {
		if (strcmp(r->key, key) == 0)
			return r;
	}
	return NULL;
}

/* Forget r. */
static void
droute_drop(struct daemon *d, struct droute *r)
{
	TAILQ_REMOVE(&d->routes, r, entry);
	droute_free(r);
}

/* Whether every file r came from is as it was. */
static int
droute_fresh(const struct droute *r)
{
	const struct droute_file	*f;
	struct stat			 st;
	size_t				 i;

	for (i = 0; i < r->nfiles; i++) {
		f = &r->files[i];
		if (stat(f->path, &st) != 0) {
			if (!f->absent)
				return 0;
			continue;
		}
		if (f->absent || f->dev != (double)st.st_dev ||
		    f->ino != (double)st.st_ino ||
		    f->size != (double)st.st_size ||
		    f->mtime_s != (double)st.st_mtim.tv_sec ||
		    f->mtime_ns != (double)st.st_mtim.tv_nsec)
			return 0;
	}
	return 1;
}

/* Whether a worker is learning the route of key now. */
static int
droute_learning(struct daemon *d, const char *key)
{
	struct dcall	*c;
	char		*k;
	int		 same;

	TAILQ_FOREACH(c, &d->calls, entry) {
		if (!c->learn)
			continue;
		k = droute_key(&c->rc);
		same = strcmp(k, key) == 0;
		free(k);
		if (same)
			return 1;
	}
	return 0;
}

/*
 * Queue a worker that learns the route of call (its sandbox, with its
 * connection arguments) under key; drpc_start_pending starts it.  Not
 * while one is at it.
 */
static void
droute_learn(struct daemon *d, const struct rpc_call *call, const char *key)
{
	struct dcall	*c;
	int		 i, n = call->conn_n;

	if (droute_learning(d, key))
		return;
	c = xcalloc(1, sizeof *c);
	c->d = d;
	c->learn = 1;
	c->method = xstrdup("exec --route-json");
	c->rc.argv = xcalloc((size_t)n + 6, sizeof *c->rc.argv);
	c->rc.argv[0] = xstrdup("exec");
	c->rc.argv[1] = xstrdup("--route-json");
	c->rc.argv[2] = xasprintf("--sandbox=%s", call->sandbox);
	for (i = 0; i < n; i++)
		c->rc.argv[3 + i] = xstrdup(call->argv[call->conn_first +
		    i]);
	c->rc.argv[3 + n] = xstrdup("--");
	c->rc.argv[4 + n] = xstrdup("true");
	c->rc.argc = 5 + n;
	c->rc.conn_first = 3;
	c->rc.conn_n = n;
	c->rc.sandbox = xstrdup(call->sandbox);
	c->rc.tool = "exec";
	c->in_fd = c->out_fd = c->err_fd = -1;
	c->start = clock_now_ms();
	TAILQ_INSERT_TAIL(&d->calls, c, entry);
	log_debug("sandbox %s: learning its route", call->sandbox);
}

/* A string member of o, copied, or NULL when absent or not a string. */
static char *
droute_str(const cJSON *o, const char *key)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
}

/*
 * Read the env and files arrays of a worker's route: 0, CLAW_ERR_PARSE
 * for a missing or malformed one, or CLAW_ERR_RANGE for one too long.
 */
static int
droute_parse_lists(const cJSON *o, struct droute *r)
{
	const cJSON	*a, *v, *n, *x;

	a = cJSON_GetObjectItemCaseSensitive(o, "env");
	if (!cJSON_IsArray(a))
		return CLAW_ERR_PARSE;
	if (cJSON_GetArraySize(a) > DROUTE_ENV_MAX)
		return CLAW_ERR_RANGE;
	r->env = xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof *r->env);
	cJSON_ArrayForEach(v, a) {
		n = cJSON_GetArrayItem(v, 0);
		x = cJSON_GetArrayItem(v, 1);
		if (!cJSON_IsString(n) || !cJSON_IsString(x) ||
		    !remote_cmd_env_name_ok(n->valuestring))
			return CLAW_ERR_PARSE;
		r->env[r->nenv].name = xstrdup(n->valuestring);
		r->env[r->nenv++].value = xstrdup(x->valuestring);
	}
	a = cJSON_GetObjectItemCaseSensitive(o, "files");
	if (!cJSON_IsArray(a))
		return CLAW_ERR_PARSE;
	if (cJSON_GetArraySize(a) > DROUTE_FILES_MAX)
		return CLAW_ERR_RANGE;
	cJSON_ArrayForEach(v, a) {
		struct droute_file *f = &r->files[r->nfiles];

		if ((f->path = droute_str(v, "path")) == NULL)
			return CLAW_ERR_PARSE;
		r->nfiles++;
		f->absent = cJSON_IsTrue(cJSON_GetObjectItem(v, "absent"));
		f->dev = cJSON_GetNumberValue(cJSON_GetObjectItem(v, "dev"));
		f->ino = cJSON_GetNumberValue(cJSON_GetObjectItem(v, "ino"));
		f->size = cJSON_GetNumberValue(cJSON_GetObjectItem(v, "size"));
		f->mtime_s = cJSON_GetNumberValue(cJSON_GetObjectItem(v,
		    "mtime_s"));
		f->mtime_ns = cJSON_GetNumberValue(cJSON_GetObjectItem(v,
		    "mtime_ns"));
	}
	return 0;
}

/*
 * Read what `exec --route-json` printed into r: 0, CLAW_ERR_PARSE when
 * anything is missing or of the wrong kind, or CLAW_ERR_RANGE when a
 * list is too long.
 */
static int
droute_parse(const char *text, size_t len, struct droute *r)
{
	cJSON		*o, *h;
	const cJSON	*v;
	char		*cause = NULL;
	int		 rc = CLAW_ERR_PARSE;

	if ((o = cJSON_ParseWithLength(text, len)) == NULL)
		return CLAW_ERR_PARSE;
	r->hello = droute_str(o, "hello");
	r->agent = droute_str(o, "agent");
	r->dir = droute_str(o, "dir");
	r->token = droute_str(o, "token");
	r->workdir = droute_str(o, "workdir");
	v = cJSON_GetObjectItemCaseSensitive(o, "timeout");
	r->mirror = cJSON_IsTrue(cJSON_GetObjectItem(o, "mirror"));
	if ((r->fs_local = droute_str(o, "fs_local")) != NULL &&
	    *r->fs_local != '/')
		goto out;
	r->fs_ro = !cJSON_IsFalse(cJSON_GetObjectItem(o, "fs_ro"));
	r->fs_steps = cJSON_IsTrue(cJSON_GetObjectItem(o, "fs_steps"));
	if ((r->label = droute_str(o, "label")) == NULL ||
	    (r->sandbox_dir = droute_str(o, "sandbox_dir")) == NULL ||
	    *r->sandbox_dir != '/')
		goto out;
	if (r->hello == NULL || r->agent == NULL || r->dir == NULL ||
	    r->token == NULL || r->workdir == NULL || *r->agent != '/' ||
	    *r->workdir != '/' || !cJSON_IsNumber(v) || v->valuedouble < 0 ||
	    v->valuedouble > INT32_MAX / 1000 ||
	    contain_limits_from_json(cJSON_GetObjectItem(o, "limits"),
	    &r->limits, &cause) != 0)
		goto out;
	if ((rc = droute_parse_lists(o, r)) != 0)
		goto out;
	r->timeout = (int)v->valuedouble;
	/* the daemon's key for a host: HELLO as dclient_hello prints it */
	if ((h = cJSON_Parse(r->hello)) == NULL) {
		rc = CLAW_ERR_PARSE;
		goto out;
	}
	free(r->hello);
	r->hello = cJSON_PrintUnformatted(h);
	cJSON_Delete(h);
	rc = 0;
out:
	free(cause);
	cJSON_Delete(o);
	return rc;
}

/* The route learning worker c ended; see daemon_int.h. */
void
droute_learned(struct dcall *c, int status)
{
	struct daemon	*d = c->d;
	struct droute	*r, *old;
	size_t		 n;
	const char	*why;

	r = xcalloc(1, sizeof *r);
	if (status != 0 || droute_parse(c->out.data, c->out.len, r) != 0) {
		droute_free(r);		/* what the parse got so far */
		r = xcalloc(1, sizeof *r);
		r->none = 1;
		buf_append(&c->err, "", 1);
		why = c->err.data;
		n = strcspn(why, "\n");
		log_info("sandbox %s: its commands go through workers "
		    "(status %d): %.*s", c->rc.sandbox, status, (int)n,
		    n != 0 ? why : "no route");
	} else
		log_debug("sandbox %s: route through %s", c->rc.sandbox,
		    r->agent);
	r->key = droute_key(&c->rc);
	r->sandbox = xstrdup(c->rc.sandbox);
	r->learnt = clock_now_ms();
	if ((old = droute_find(d, r->key)) != NULL)
		droute_drop(d, old);
	TAILQ_INSERT_TAIL(&d->routes, r, entry);
	if (c->out.len != 0)
		explicit_bzero(c->out.data, c->out.len);	/* env values */
}

/* The route for c's sandbox, fresh; see daemon_int.h. */
struct droute *
droute_lookup(struct dcall *c)
{
	struct daemon	*d = c->d;
	char		*key = droute_key(&c->rc);
	struct droute	*r = droute_find(d, key);
	int64_t		 now = clock_now_ms();

	if (r != NULL && r->none && now - r->learnt >= DROUTE_RETRY_MS) {
		droute_drop(d, r);
		r = NULL;
	}
	if (r != NULL && !r->none && !droute_fresh(r)) {
		log_debug("sandbox %s: its files changed: learning its route "
		    "again", r->sandbox);
		droute_drop(d, r);
		r = NULL;
	}
	if (r == NULL)
		droute_learn(d, &c->rc, key);
	else if (!r->none && now - r->learnt >= DROUTE_REFRESH_MS)
		droute_learn(d, &c->rc, key);
	free(key);
	return r == NULL || r->none ? NULL : r;
}

/* The route if it may run c's command now; NULL: c goes to a worker. */
static struct droute *
droute_for(struct dcall *c)
{
	struct droute	*r = droute_lookup(c);

	if (r == NULL || (r->mirror && !c->rc.exec.no_sync))
		return NULL;
	return r;
}

/* The local copy r's file tools act on; see daemon_int.h. */
const char *
droute_fs_local(const struct droute *r, int *ro)
{
	*ro = r->fs_ro;
	return r->fs_local;
}

/* The host the route's HELLO names, or NULL when it has none now. */
static struct dhost *
droute_host(struct daemon *d, const struct droute *r)
{
	struct dhost	*h;

	TAILQ_FOREACH(h, &d->hosts, entry) {
		if (strcmp(h->key, r->hello) == 0)
			return h;
	}
	return NULL;
}

/*
 * The command's variables: the call's env, then the route's (config
 * exec.env) where the call has no such name, as exec --env does.
 */
static struct claw_env *
droute_env(const struct dcall *c, const struct droute *r, size_t *n)
{
	struct claw_env	*v;
	size_t		 i, j;

	v = xcalloc(c->rc.nenv + r->nenv + 1, sizeof *v);
	*n = 0;
	for (i = 0; i < c->rc.nenv; i++) {
		v[*n].name = c->rc.env_names[i];
		v[(*n)++].value = c->rc.env_values[i];
	}
	for (i = 0; i < r->nenv; i++) {
		for (j = 0; j < c->rc.nenv; j++)
			if (strcmp(c->rc.env_names[j], r->env[i].name) == 0)
				break;
		if (j == c->rc.nenv)
			v[(*n)++] = r->env[i];
	}
	return v;
}

/*
 * The sh that ends with AGENT_EXIT_NOJOIN (75) unless r's sandbox
 * environment runs with r's settings (box-exec --join --check), the
 * agent's absence included.
 */
static char *
droute_join_check(const struct droute *r)
{
	struct buf	b = BUF_INIT;

	shquote_append(&b, r->agent);
	buf_append_str(&b, " box-exec --join --check --dir ");
	shquote_append(&b, r->dir);
	buf_append_str(&b, " --spec ");
	shquote_append(&b, r->token);
	buf_append_str(&b, " -- true || exit 75");
	return buf_detach(&b);
}

/*
 * Send argv (env, cwd under the route) as serve's EXEC on r's agent with
 * c as its sink: 1 sent, 0 not (no session or agent up now).
 */
static int
droute_start(struct dcall *c, struct droute *r, int argc, char *const *argv,
    const struct claw_env *env, size_t nenv, const char *cwd, int self)
{
	struct exec_agent	 ea;
	struct dhost		*h;
	struct buf		 frame = BUF_INIT;

	if ((h = droute_host(c->d, r)) == NULL)
		return 0;
	memset(&ea, 0, sizeof ea);
	ea.path = r->agent;
	ea.dir = r->dir;
	ea.spec = r->token;
	ea.cwd = cwd;
	ea.self = self;
	if (agent_req_frame(&ea, argc, argv, env, nenv, &frame) == 0)
		c->areq = dagent_call(h, r->agent, c, &frame);
	buf_free_secret(&frame);
	if (c->areq == NULL)
		return 0;
	c->limits = r->limits;
	return 1;
}

/* Set c's deadline timeout_s seconds from now (0: none). */
static void
droute_deadline(struct dcall *c, int timeout_s)
{
	c->timeout_s = timeout_s;
	if (timeout_s > 0)
		c->deadline = clock_now_ms() + (int64_t)timeout_s * 1000;
}

/* Try c in the daemon; see daemon_int.h. */
int
droute_exec(struct dcall *c)
{
	struct droute		*r;
	struct claw_env		*env;
	const char		*cwd = c->rc.exec.cwd;
	char			*dir = NULL;
	size_t			 nenv;
	int			 started, argc = c->rc.argc - c->rc.exec.argi;

	if (!c->rc.exec.simple || c->rc.sandbox == NULL || argc < 1 ||
	    (r = droute_for(c)) == NULL)
		return 0;
	if (cwd == NULL)
		cwd = r->workdir;
	else if (*cwd != '/')
		cwd = dir = xasprintf("%s/%s", r->workdir, cwd);
	env = droute_env(c, r, &nenv);
	started = droute_start(c, r, argc, c->rc.argv + c->rc.exec.argi, env,
	    nenv, cwd, 0);
	free(env);
	free(dir);
	if (!started)
		return 0;
	droute_deadline(c, c->rc.exec.timeout > 0 ? c->rc.exec.timeout :
	    r->timeout);
	log_debug("%s: sandbox %s: in the daemon, on the host agent's "
	    "channel", c->method, c->rc.sandbox);
	return 1;
}

/* Run a file tool's step in the environment; see daemon_int.h. */
int
droute_fs_step(struct dcall *c, struct droute *r, char *const *argv,
    int self, int timeout_s)
{
	int	argc;

	if (!r->fs_steps)
		return 0;
	for (argc = 0; argv[argc] != NULL; argc++)
		;
	if (!droute_start(c, r, argc, argv, NULL, 0, r->workdir, self))
		return 0;
	droute_deadline(c, timeout_s);
	c->fs_label = xstrdup(r->label);
	log_debug("%s: sandbox %s: in the daemon, a step in the sandbox's "
	    "environment%s%s%s", c->method, c->rc.sandbox, self ? " (the "
	    "agent's own " : "", self ? argv[1] : "", self ? ")" : "");
	return 1;
}

/* Where r's sandbox's processes are and its host; see daemon_int.h. */
struct dhost *
droute_proc_at(struct dcall *c, const struct droute *r, const char **label,
    const char **sd, const char **agent)
{
	*label = r->label;
	*sd = r->sandbox_dir;
	*agent = r->agent;
	return droute_host(c->d, r);
}

/* What a process.start needs of r; see daemon_int.h. */
int
droute_proc_box(struct dcall *c, const struct droute *r,
    struct droute_box *b)
{
	struct buf	  keep = BUF_INIT;
	char		**v, *const *argv = c->rc.argv + c->rc.proc.argi;
	int		  argc = c->rc.argc - c->rc.proc.argi, i, k = 0;
	size_t		  j;

	memset(b, 0, sizeof *b);
	if (r->mirror || argc < 1)
		return -1;	/* a mirror sandbox pushes first: a worker */
	b->env = droute_env(c, r, &b->nenv);
	for (j = 0; j < b->nenv; j++)
		buf_appendf(&keep, "%s%s", j > 0 ? " " : "", b->env[j].name);
	v = xcalloc((size_t)argc + 15, sizeof *v);
	v[k++] = xstrdup(r->agent);
	v[k++] = xstrdup("box-exec");
	v[k++] = xstrdup("--join");
	v[k++] = xstrdup("--dir");
	v[k++] = xstrdup(r->dir);
	v[k++] = xstrdup("--spec");
	v[k++] = xstrdup(r->token);
	v[k++] = xstrdup("--watch-parent");
	if (c->rc.proc.pty)
		v[k++] = xstrdup("--pty");
	if (keep.len > 0) {
		v[k++] = xstrdup("--keep");
		v[k++] = buf_detach(&keep);
	}
	v[k++] = xstrdup("--cwd");
	v[k++] = xstrdup(r->workdir);
	v[k++] = xstrdup("--");
	for (i = 0; i < argc; i++)
		v[k++] = xstrdup(argv[i]);
	buf_free(&keep);
	b->argv = v;
	b->argc = k;
	b->check = droute_join_check(r);
	b->workspace = xasprintf("%s/workspace", r->sandbox_dir);
	return 0;
}

/* The stop script of r's sandbox; see daemon_int.h. */
char *
droute_stop_script(const struct droute *r)
{
	return box_stop_script_bwrap(r->sandbox_dir, r->dir, r->agent);
}

/* Free what droute_proc_box made. */
void
droute_box_clear(struct droute_box *b)
{
	strv_free(b->argv);
	free(b->env);		/* the names and values are c's and r's */
	free(b->check);
	free(b->workspace);
	memset(b, 0, sizeof *b);
}

/*
 * Whether r's agent runs its own steps; see daemon_int.h.
 * CLAWSSH_NO_AGENT_SELF=1 in the daemon's environment keeps the shell
 * steps (bench/rpc_fs.sh compares them).
 */
int
droute_agent_self(struct dcall *c, const struct droute *r)
{
	struct dhost	*h;
	const char	*no = getenv("CLAWSSH_NO_AGENT_SELF");

	if (no != NULL && strcmp(no, "1") == 0)
		return 0;
	return r->fs_steps && (h = droute_host(c->d, r)) != NULL &&
	    dagent_has(h, r->agent, MSG_CAP_SELF);
}

/* The command started: its stdin goes down, then its end. */
void
droute_started(struct dcall *c)
{
	if (c->fs_label != NULL)	/* a file tool's step */
		dareq_stdin(c->areq, c->fs_in.data, c->fs_in.len);
	else
		dareq_stdin(c->areq, c->rc.in, c->rc.inlen);
}

/* Add a "clawssh: warning: ..." line to c's stderr, as a worker would. */
static void
droute_warn(struct dcall *c, const char *text)
{
	char	*line = xasprintf("clawssh: warning: %s\n", text);

	dcall_output(c, 1, line, strlen(line));
	free(line);
}

/* The command ended with status (128+N for signal N). */
void
droute_exit(struct dcall *c, int status)
{
	char	*note;

	if (c->fs_label != NULL) {
		dfs_step_exit(c, c->timed_out ? EXEC_STATUS_TIMEOUT : status);
		return;
	}
	if (c->timed_out) {
		note = xasprintf(EXEC_TIMEOUT_NOTE, c->timeout_s);
		droute_warn(c, note);
		free(note);
		status = EXEC_STATUS_TIMEOUT;
	} else if ((note = contain_limit_note(&c->limits, status)) != NULL) {
		droute_warn(c, note);
		free(note);
	}
	drpc_finish(c, status);
}

/* Hand c, not started, to a worker; see daemon_int.h. */
int
droute_to_worker(struct dcall *c, const char *why, int drop)
{
	struct droute	*r;
	char		*key;

	if (c->d->quit || c->client == NULL || c->cancelled)
		return 0;
	log_info("%s: sandbox %s: host agent: %s; through a worker",
	    c->method, c->rc.sandbox, why);
	if (drop) {
		key = droute_key(&c->rc);
		if ((r = droute_find(c->d, key)) != NULL)
			droute_drop(c->d, r);
		free(key);
	}
	c->deadline = c->kill_at = c->give_up_at = 0;
	free(c->fs_label);
	c->fs_label = NULL;
	c->d->again = 1;	/* drpc_start_pending takes it */
	return 1;
}

/* The agent refused or dropped c's command; see daemon_int.h. */
void
droute_failed(struct dcall *c, int started, const char *why)
{
	char	*line;

	if (!started && droute_to_worker(c, why, 1))
		return;
	if (c->fs_label != NULL) {
		dfs_step_failed(c, why);
		return;
	}
	line = xasprintf("clawssh: host agent: %s\n", why);
	dcall_output(c, 1, line, strlen(line));
	free(line);
	drpc_finish(c, EXEC_STATUS_FAILURE);
}

/* Stop c's command; see daemon_int.h. */
void
droute_kill(struct dcall *c)
{
	if (c->areq == NULL || c->kill_at != 0 || c->give_up_at != 0)
		return;
	dareq_signal(c->areq, SIGTERM);
	c->kill_at = clock_now_ms() + EXEC_TERM_KILL_MS;
}

/* Timeouts and kills due; see daemon_int.h. */
void
droute_tick(struct daemon *d)
{
	struct dcall	*c, *next;
	int64_t		 now = clock_now_ms();

	for (c = TAILQ_FIRST(&d->calls); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->areq == NULL)
			continue;
		drpc_progress(c);
		if (c->deadline != 0 && now >= c->deadline) {
			c->deadline = 0;
			c->timed_out = 1;
			droute_kill(c);
		}
		if (c->kill_at != 0 && now >= c->kill_at) {
			c->kill_at = 0;
			c->give_up_at = now + DROUTE_GIVE_UP_MS;
			dareq_signal(c->areq, SIGKILL);
		}
		if (c->give_up_at != 0 && now >= c->give_up_at) {
			dareq_abandon(c->areq);
			c->areq = NULL;
			droute_failed(c, 1, "the command did not end after "
			    "SIGKILL");
		}
	}
}

/* The next deadline of an in-process call; see daemon_int.h. */
int64_t
droute_next_event(struct daemon *d)
{
	struct dcall	*c;
	int64_t		 t = CLOCK_NEVER;

	TAILQ_FOREACH(c, &d->calls, entry) {
		if (c->areq == NULL)
			continue;
		if (c->deadline != 0)
			t = clock_min(t, c->deadline);
		if (c->kill_at != 0)
			t = clock_min(t, c->kill_at);
		if (c->give_up_at != 0)
			t = clock_min(t, c->give_up_at);
	}
	return t;
}

/* Forget every route; see daemon_int.h. */
void
droute_free_all(struct daemon *d)
{
	struct droute	*r;

	while ((r = TAILQ_FIRST(&d->routes)) != NULL)
		droute_drop(d, r);
}

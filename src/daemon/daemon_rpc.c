/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON-RPC 2.0 and MCP clients of the daemon: on its socket (a client
 * whose first byte is '{'), or on stdin/stdout for `serve --stdio` and
 * `serve --mcp`.  Each request is checked (framing, JSON-RPC, params),
 * asked of the policy, run as a worker (daemon_call.c), answered, and
 * written to the audit log.  Nothing a client sends can stop the daemon.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "audit.h"
#include "buf.h"
#include "clock.h"
#include "daemon_int.h"
#include "error.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp_spill.h"
#include "mcp_tools.h"
#include "ops.h"
#include "policy.h"
#include "pty.h"
#include "rpc_methods.h"
#include "xmalloc.h"

/* Queue one serialized line for the client. */
static void
drpc_send(struct dclient *cl, char *line)
{
	buf_append_str(&cl->out, line);
	free(line);
}

/* Answer with an error (requests only; notifications get nothing). */
static void
drpc_error(struct dclient *cl, const cJSON *id, int code, const char *msg)
{
	if (id != NULL)
		drpc_send(cl, jsonrpc_error(id, code, msg, NULL));
}

/* The epoch in milliseconds, for the audit log. */
static int64_t
drpc_wall_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Write the audit line for a call (c) or a refused request (rc). */
static void
drpc_audit(struct dclient *cl, const struct rpc_call *rc, int64_t start,
    int64_t ms, int status, const char *error, uint64_t out)
{
	struct audit_rec	r;
	char			*caller;

	if (cl->d->audit == NULL)
		return;
	caller = xasprintf("uid=%u pid=%ld%s%s", (unsigned)getuid(),
	    (long)cl->pid, cl->agent != NULL ? " agent=" : "",
	    cl->agent != NULL ? cl->agent : "");
	memset(&r, 0, sizeof r);
	r.start_ms = start;
	r.duration_ms = ms;
	r.caller = caller;
	r.agent = cl->agent;
	r.sandbox = rc->sandbox;
	r.host = rc->host;
	r.tool = rc->tool;
	r.elevated = rc->elevated;
	r.exit_status = status;
	r.error = error;
	r.bytes_in = rc->inlen;
	r.bytes_out = out;
	if (audit_write(cl->d->audit, &r) != 0)
		log_warn("could not write the audit log");
	free(caller);
}

/* Free a call and unlink it. */
static void
drpc_call_free(struct dcall *c)
{
	if (c->areq != NULL)		/* in-process, still running */
		dareq_abandon(c->areq);
	TAILQ_REMOVE(&c->d->calls, c, entry);
	if (c->client != NULL)
		TAILQ_REMOVE(&c->client->calls, c, centry);
	cJSON_Delete(c->id);
	cJSON_Delete(c->progress);
	mcp_spill_free(c->spill);
	free(c->fs_label);
	buf_free_secret(&c->fs_in);
	dfs_patch_free(c->fs_patch);
	dproc_free(c);
	free(c->method);
	rpc_call_clear(&c->rc);
	buf_free(&c->out);
	buf_free(&c->err);
	free(c);
}

/* The result cap of the daemon's MCP clients. */
static size_t
drpc_max_result(const struct daemon *d)
{
	return d->mcp_max_result != 0 ? d->mcp_max_result :
	    MCP_MAX_RESULT_DEFAULT;
}

/* Answer an MCP call with an isError tool result holding msg. */
static void
drpc_mcp_error(struct dclient *cl, const cJSON *id, const char *method,
    int code, const char *msg)
{
	struct mcp_output	o;

	memset(&o, 0, sizeof o);
	if (id != NULL)
		drpc_send(cl, jsonrpc_result(id, mcp_tool_result_ex(method,
		    NULL, &o, code, msg)));
}

/*
 * Run method with params for cl; mcp: answer as tools/call, with the
 * call's MCP_CALL_* flags and progress token (or NULL).
 */
static void
drpc_run(struct dclient *cl, const cJSON *id, const char *method,
    const cJSON *params, int mcp, int flags, const cJSON *progress)
{
	struct daemon	*d = cl->d;
	struct rpc_call	 rc;
	struct dcall	*c;
	char		*msg = NULL, *rule = NULL;
	int		 code;

	memset(&rc, 0, sizeof rc);
	if ((code = rpc_call_build(method, params, &rc, &msg)) != 0) {
		drpc_error(cl, id, code, msg);
		free(msg);
		return;
	}
	if (policy_check(d->policy, cl->agent, rc.sandbox, rc.tool,
	    rc.elevated, &rule) != 0) {
		msg = xasprintf("denied by %s", rule);
		log_warn("%s: %s", method, msg);
		drpc_audit(cl, &rc, drpc_wall_ms(), 0, -1, msg, 0);
		if (mcp)	/* a tool result the model can read */
			drpc_mcp_error(cl, id, method, JSONRPC_DENIED, msg);
		else
			drpc_error(cl, id, JSONRPC_DENIED, msg);
		free(msg);
		free(rule);
		rpc_call_clear(&rc);
		return;
	}
	if (rc.elevated)
		log_warn("elevated exec on %s (outside any sandbox) for pid "
		    "%ld", rc.host != NULL ? rc.host : "?", (long)cl->pid);
	c = xcalloc(1, sizeof *c);
	c->d = d;
	c->client = cl;
	c->id = id != NULL ? cJSON_Duplicate(id, 1) : NULL;
	c->method = xstrdup(method);
	c->mcp = mcp;
	c->mcp_flags = flags;
	if (progress != NULL)
		c->progress = cJSON_Duplicate(progress, 1);
	if (mcp && rc.result == RPC_RESULT_EXEC)
		c->spill = mcp_spill_new(drpc_max_result(d));
	c->rc = rc;
	c->in_fd = c->out_fd = c->err_fd = -1;
	c->start = clock_now_ms();
	c->start_wall = drpc_wall_ms();
	c->deaths = d->deaths;
	TAILQ_INSERT_TAIL(&d->calls, c, entry);
	TAILQ_INSERT_TAIL(&cl->calls, c, centry);
	if (c->rc.result == RPC_RESULT_EXEC && droute_exec(c))
		return;
	if (c->rc.fs.simple && dfs_call(c))
		return;
	if (c->rc.proc.simple && dproc_call(c))
		return;
	if (c->rc.stop && dproc_stop(c))
		return;
	drpc_start_pending(d);
}

/*
 * Start waiting calls while there are worker slots (daemon.maxWorkers):
 * a flood of requests queues here instead of forking without bound.
 */
void
drpc_start_pending(struct daemon *d)
{
	struct dcall	*c, *next;
	char		*msg = NULL;

	for (c = TAILQ_FIRST(&d->calls); c != NULL &&
	    d->nworkers < d->max_workers; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->pid != 0 || c->areq != NULL || c->proc != NULL)
			continue;
		c->start = clock_now_ms();
		if (dcall_start(c, d->path, &msg) == 0)
			continue;
		c->pid = -1;
		if (c->client != NULL) {
			drpc_error(c->client, c->id, JSONRPC_INTERNAL_ERROR,
			    msg);
			drpc_audit(c->client, &c->rc, c->start_wall, 0, -1,
			    msg, 0);
		}
		free(msg);
		msg = NULL;
		drpc_call_free(c);
	}
}

/* "rpc.methods": the method names. */
static cJSON *
drpc_methods(void)
{
	cJSON	*a = cJSON_CreateArray();
	size_t	 i;

	for (i = 0; i < ops_n; i++)
		if (ops_table[i].only == 0)
			cJSON_AddItemToArray(a,
			    cJSON_CreateString(ops_table[i].method));
	return a;
}

/* Whether the policy lets cl's agent use tool on its sandbox. */
static int
drpc_allowed(const char *tool, void *arg)
{
	struct dclient	*cl = arg;
	char		*rule = NULL;

	if (policy_check(cl->d->policy, cl->agent, cl->sandbox, tool, 0,
	    &rule) == 0)
		return 1;
	free(rule);
	return 0;
}

/* read_output: a range of a cut exec's output, kept by this server. */
static void
drpc_read_output(struct dclient *cl, const cJSON *id, const cJSON *params)
{
	char	*msg;

	if (!drpc_allowed(mcp_policy_name(MCP_READ_OUTPUT), cl)) {
		msg = xstrdup("denied by the policy on exec");
		drpc_mcp_error(cl, id, MCP_READ_OUTPUT, JSONRPC_DENIED, msg);
		free(msg);
		return;
	}
	if (id != NULL)
		drpc_send(cl, jsonrpc_result(id, mcp_spills_tool(cl->spills,
		    params, drpc_max_result(cl->d))));
}

/* The _meta.progressToken of tools/call params, or NULL. */
static const cJSON *
drpc_progress_token(const cJSON *params)
{
	const cJSON	*t;

	t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    params, "_meta"), "progressToken");
	return cJSON_IsString(t) || cJSON_IsNumber(t) ? t : NULL;
}

/*
 * notifications/cancelled {requestId}: stop that call's worker (which
 * stops its remote command); its answer is not sent.
 */
static void
drpc_cancel(struct dclient *cl, const cJSON *params)
{
	const cJSON	*rid;
	struct dcall	*c;

	rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	if (rid == NULL)
		return;
	TAILQ_FOREACH(c, &cl->calls, centry) {
		if (c->id == NULL || !jsonrpc_id_is(c->id, rid))
			continue;
		log_info("%s: cancelled by the client", c->method);
		c->cancelled = 1;
		dcall_kill(c);
		if (c->pid == 0 && c->areq == NULL)
			c->pid = -1;	/* never started */
	}
}

/* A whole number from 1 to PTY_SIZE_MAX in params[key], or 0. */
static unsigned
drpc_size(const cJSON *params, const char *key)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(params, key);

	if (!cJSON_IsNumber(v) || v->valuedouble < 1 ||
	    v->valuedouble > PTY_SIZE_MAX ||
	    v->valuedouble != (double)(unsigned)v->valuedouble)
		return 0;
	return (unsigned)v->valuedouble;
}

/*
 * Write "COLS ROWS" where c's worker reads it (CLAWSSH_PTY_SIZE_FILE,
 * dcall_size_env: beside the socket), replacing the file whole: 0,
 * CLAW_ERR_INVAL for a socket path without a directory, or an I/O code
 * (errno's for the open, else CLAW_ERR_IO).
 */
static int
drpc_size_write(struct dcall *c, unsigned cols, unsigned rows)
{
	const char	*slash = strrchr(c->d->path, '/');
	char		*path, *tmp, text[32];
	int		 fd, n, rc;

	if (slash == NULL)
		return CLAW_ERR_INVAL;
	path = xasprintf("%.*s/size-%ld", (int)(slash - c->d->path),
	    c->d->path, (long)c->pid);
	tmp = xasprintf("%s.tmp", path);
	n = snprintf(text, sizeof text, "%u %u\n", cols, rows);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0600)) == -1)
		rc = claw_err_from_errno(errno);
	else if (write(fd, text, (size_t)n) == n && close(fd) == 0 &&
	    rename(tmp, path) == 0)
		rc = 0;
	else {
		rc = CLAW_ERR_IO;
		(void)unlink(tmp);
		(void)close(fd);
	}
	free(tmp);
	free(path);
	return rc;
}

/*
 * exec.resize {requestId, cols, rows}: the new size of a running exec's
 * terminal (one started with pty: true by the same client).  Its worker
 * reads it on SIGWINCH and passes it on to the command's terminal.
 */
static void
drpc_resize(struct dclient *cl, const cJSON *id, const cJSON *params)
{
	const cJSON	*rid;
	struct dcall	*c;
	unsigned	 cols, rows;

	rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	cols = drpc_size(params, "cols");
	rows = drpc_size(params, "rows");
	if (rid == NULL || cols == 0 || rows == 0) {
		drpc_error(cl, id, JSONRPC_INVALID_PARAMS, "exec.resize: "
		    "expected requestId, and cols and rows from 1 to 10000");
		return;
	}
	TAILQ_FOREACH(c, &cl->calls, centry) {
		if (c->id == NULL || !jsonrpc_id_is(c->id, rid) || c->pid <= 0 ||
		    c->cancelled)
			continue;
		if (drpc_size_write(c, cols, rows) != 0 ||
		    kill(c->pid, SIGWINCH) != 0) {
			drpc_error(cl, id, JSONRPC_INTERNAL_ERROR,
			    "exec.resize: cannot reach the call's worker");
			return;
		}
		if (id != NULL)
			drpc_send(cl, jsonrpc_result(id, cJSON_CreateObject()));
		return;
	}
	drpc_error(cl, id, JSONRPC_INVALID_PARAMS, "exec.resize: no running "
	    "call with that requestId");
}

/*
 * A progress notification for c, at most one a second: progress is the
 * seconds it has run (it must grow), the message says the output so far;
 * see daemon_int.h.
 */
void
drpc_progress(struct dcall *c)
{
	int64_t	 now = clock_now_ms();
	cJSON	*p;
	char	*text;

	if (c->progress == NULL || c->client == NULL || c->cancelled ||
	    now - c->progress_at < 1000)
		return;
	c->progress_at = now;
	p = cJSON_CreateObject();
	cJSON_AddItemToObject(p, "progressToken",
	    cJSON_Duplicate(c->progress, 1));
	cJSON_AddNumberToObject(p, "progress", (double)(now - c->start) /
	    1000);
	text = xasprintf("%llu bytes of output after %lld ms",
	    (unsigned long long)c->bytes_out, (long long)(now - c->start));
	cJSON_AddStringToObject(p, "message", text);
	free(text);
	drpc_send(c->client, jsonrpc_notification("notifications/progress",
	    p));
}

/* One MCP request or notification. */
static void
drpc_mcp(struct dclient *cl, const struct jsonrpc_req *req)
{
	cJSON	*params = NULL;
	char	*method = NULL, *msg = NULL;
	int	 code, flags;

	if (strcmp(req->method, "initialize") == 0) {
		if (req->id != NULL)
			drpc_send(cl, jsonrpc_result(req->id,
			    mcp_initialize_result(req->params, cl->sandbox)));
	} else if (strcmp(req->method, "ping") == 0) {
		if (req->id != NULL)
			drpc_send(cl, jsonrpc_result(req->id,
			    cJSON_CreateObject()));
	} else if (strcmp(req->method, "tools/list") == 0) {
		if (req->id != NULL)
			drpc_send(cl, jsonrpc_result(req->id,
			    mcp_tools_list_allowed(drpc_allowed, cl)));
	} else if (strcmp(req->method, "tools/call") == 0) {
		if ((code = mcp_tool_call_ex(req->params, cl->sandbox, &method,
		    &params, &flags, &msg)) != 0)
			drpc_error(cl, req->id, code, msg);
		else if (strcmp(method, MCP_READ_OUTPUT) == 0)
			drpc_read_output(cl, req->id, params);
		else
			drpc_run(cl, req->id, method, params, 1, flags,
			    drpc_progress_token(req->params));
		free(method);
		free(msg);
		cJSON_Delete(params);
	} else if (strcmp(req->method, "notifications/cancelled") == 0)
		drpc_cancel(cl, req->params);
	else if (strncmp(req->method, "notifications/", 14) != 0)
		drpc_error(cl, req->id, JSONRPC_METHOD_NOT_FOUND,
		    "method not found");
}

/* One line from the client. */
static void
drpc_line(struct dclient *cl, const char *line, size_t len)
{
	struct jsonrpc_req	 req;
	cJSON			*res;
	char			*msg = NULL;
	int			 code;

	memset(&req, 0, sizeof req);
	if ((code = jsonrpc_parse(line, len, &req, &msg)) != 0) {
		drpc_send(cl, jsonrpc_error(req.id, code, msg, NULL));
		free(msg);
	} else if (cl->mcp)
		drpc_mcp(cl, &req);
	else if (strcmp(req.method, "exec.resize") == 0)
		drpc_resize(cl, req.id, req.params);
	else if (strcmp(req.method, "rpc.methods") == 0) {
		if (req.id != NULL)
			drpc_send(cl, jsonrpc_result(req.id, drpc_methods()));
	} else if ((res = daemon_control(cl->d, req.method)) != NULL) {
		if (req.id != NULL)
			drpc_send(cl, jsonrpc_result(req.id, res));
		else
			cJSON_Delete(res);
	} else {
		cl->d->ncalls++;
		drpc_run(cl, req.id, req.method, req.params, 0, 0, NULL);
	}
	jsonrpc_req_clear(&req);
}

/* Take the requests that arrived; see daemon_int.h. */
void
drpc_read(struct dclient *cl)
{
	char	*line, *msg;
	size_t	 len;
	int	 rc;

	if (cl->framer == NULL)
		cl->framer = jsonrpc_framer_new(cl->d->max_line);
	jsonrpc_framer_feed(cl->framer, cl->in.data, cl->in.len);
	buf_reset(&cl->in);
	while ((rc = jsonrpc_framer_next(cl->framer, &line, &len)) != 0) {
		if (rc < 0) {
			msg = xasprintf("request line over %zu bytes",
			    cl->d->max_line);
			drpc_send(cl, jsonrpc_error(NULL,
			    JSONRPC_INVALID_REQUEST, msg, NULL));
			free(msg);
			continue;
		}
		drpc_line(cl, line, len);
	}
}

/*
 * The tools/call result of a finished MCP call; a cut exec's output is
 * kept for read_output.
 */
static cJSON *
drpc_mcp_result(struct dcall *c, const cJSON *result, int code,
    const char *msg)
{
	struct mcp_output	 o;
	const cJSON		*sc;
	cJSON			*r;

	memset(&o, 0, sizeof o);
	o.max_result = drpc_max_result(c->d);
	o.flags = c->mcp_flags;
	o.in_bytes = c->rc.inlen;
	if (c->spill != NULL) {
		o.out = mcp_spill_head(c->spill, 0, &o.outlen);
		o.err = mcp_spill_head(c->spill, 1, &o.errlen);
		o.out_total = mcp_spill_total(c->spill, 0);
		o.err_total = mcp_spill_total(c->spill, 1);
	} else {
		o.out = c->out.data;
		o.outlen = c->out.len;
	}
	r = mcp_tool_result_ex(c->method, result, &o, code, msg);
	sc = cJSON_GetObjectItemCaseSensitive(r, "structuredContent");
	if (c->spill != NULL && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
	    sc, "truncated"))) {
		if (c->client->spills == NULL)
			c->client->spills = mcp_spills_new();
		mcp_result_output_id(r, mcp_spills_keep(c->client->spills,
		    c->spill));
		c->spill = NULL;
	}
	return r;
}

/*
 * A worker ended: answer (or retry an idempotent call once if a session
 * died while it ran), audit, free; see daemon_int.h.
 */
void
drpc_finish(struct dcall *c, int status)
{
	struct dclient	*cl = c->client;
	cJSON		*result, *mres;
	char		*msg = NULL, *why = NULL;
	const char	*o = c->out.data, *e = c->err.data;
	size_t		 olen = c->out.len, elen = c->err.len;
	int64_t		 ms = clock_now_ms() - c->start;
	int		 code = 0;

	if (c->learn) {
		droute_learned(c, status);
		drpc_call_free(c);
		return;
	}
	if (status == 255 && c->rc.idempotent && !c->retried &&
	    !c->cancelled && c->d->deaths != c->deaths && cl != NULL) {
		log_info("%s: retrying after the connection was lost",
		    c->method);
		c->retried = 1;
		c->deaths = c->d->deaths;
		buf_reset(&c->out);
		buf_reset(&c->err);
		if (dcall_start(c, c->d->path, &why) == 0)
			return;
		free(why);
	}
	if (c->spill != NULL) {
		o = mcp_spill_head(c->spill, 0, &olen);
		e = mcp_spill_head(c->spill, 1, &elen);
	}
	if (c->overflow) {
		result = NULL;
		code = JSONRPC_INTERNAL_ERROR;
		msg = xasprintf("output over %llu bytes", c->spill != NULL ?
		    (unsigned long long)MCP_SPILL_MAX :
		    (unsigned long long)c->d->max_line);
	} else
		result = rpc_call_result(&c->rc, status, o, olen, e, elen, ms,
		    &code, &msg);
	if (cl != NULL && c->id != NULL && !c->cancelled) {
		if (c->mcp) {
			mres = drpc_mcp_result(c, result, result != NULL ? 0 :
			    code, msg);
			drpc_send(cl, jsonrpc_result(c->id, mres));
		} else if (result != NULL) {
			drpc_send(cl, jsonrpc_result(c->id, result));
			result = NULL;
		} else
			drpc_send(cl, jsonrpc_error(c->id, code, msg, NULL));
	}
	if (cl != NULL)
		drpc_audit(cl, &c->rc, c->start_wall, ms, status, msg,
		    c->bytes_out);
	cJSON_Delete(result);
	free(msg);
	drpc_call_free(c);
}

/* The client left: stop its workers, forget it; see daemon_int.h. */
void
drpc_gone(struct dclient *cl)
{
	struct dcall	*c;

	while ((c = TAILQ_FIRST(&cl->calls)) != NULL) {
		dcall_kill(c);
		if (c->pid == 0 && c->areq == NULL)
			c->pid = -1;	/* never started: nothing to reap */
		drpc_audit(cl, &c->rc, c->start_wall, clock_now_ms() - c->start,
		    -1, "the client went away", c->bytes_out);
		TAILQ_REMOVE(&cl->calls, c, centry);
		c->client = NULL;
	}
	jsonrpc_framer_free(cl->framer);
	cl->framer = NULL;
	mcp_spills_free(cl->spills);
	cl->spills = NULL;
	free(cl->agent);
	free(cl->sandbox);
}

/* Stop and free what still runs at the end; see daemon_int.h. */
void
drpc_end(struct daemon *d)
{
	struct dcall	*c;

	while ((c = TAILQ_FIRST(&d->calls)) != NULL) {
		dcall_kill(c);
		if (c->in_fd != -1)
			close(c->in_fd);
		if (c->out_fd != -1)
			close(c->out_fd);
		if (c->err_fd != -1)
			close(c->err_fd);
		drpc_call_free(c);
	}
}

/* A client on stdin/stdout; see daemon_int.h. */
struct dclient *
drpc_stdio(struct daemon *d, int mcp, const char *agent,
    const char *sandbox)
{
	struct dclient	*cl = xcalloc(1, sizeof *cl);

	cl->d = d;
	cl->fd = 0;
	cl->wfd = 1;
	cl->stdio = 1;
	cl->kind = DCLIENT_RPC;
	cl->mcp = mcp;
	cl->pid = getpid();
	(void)fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	(void)fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
	cl->agent = agent != NULL ? xstrdup(agent) : NULL;
	cl->sandbox = sandbox != NULL ? xstrdup(sandbox) : NULL;
	TAILQ_INIT(&cl->chans);
	TAILQ_INIT(&cl->areqs);
	TAILQ_INIT(&cl->calls);
	TAILQ_INSERT_TAIL(&d->clients, cl, entry);
	return cl;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * process.start, list, poll, log, wait, kill and write, and
 * sandbox.stop, made by the daemon itself (issue 19), with no worker
 * process: for a sandbox with a route (daemon_route.c: its host, its
 * directory there, the host agent's path) the daemon runs the step
 * process_step_argv builds -- the host agent's proc-* command -- on a
 * channel of its own on its session to the host, collects the reply,
 * judges it with process_step_reply and answers with the JSON the CLI's
 * --json prints (process_json.c), so that a worker and the daemon give
 * the same result.  A wait runs in slices of
 * DPROC_WAIT_SLICE_DS, so that a cancelled one ends on the host soon
 * after.  A start runs its command through box-exec --join in the
 * sandbox's running environment (on a terminal of its own with pty),
 * after a check that it runs (else a worker, which starts it); its
 * variables travel on the channel's stdin as an exec's do.  Anything
 * else (no route, no session to the host now, a mirror sandbox's start,
 * which pushes first) goes to a worker as before.  A stop runs clawssh
 * stop's script (box_stop.h) and answers as `clawssh stop --json`.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "box_stop.h"
#include "buf.h"
#include "clock.h"
#include "compat.h"
#include "daemon_int.h"
#include "log.h"
#include "process.h"
#include "process_json.h"
#include "remote_cmd.h"
#include "remote_err.h"
#include "shquote.h"
#include "strv.h"
#include "xmalloc.h"

#define DPROC_WAIT_SLICE_DS	50	/* a wait's remote slice, 0.1 s */
#define DPROC_EXIT_FAILED	255	/* the CLI's own failures */
#define DPROC_NOJOIN		75	/* droute_proc_box's check failed */
#define DPROC_STOP_OUT_MAX	64	/* "stopped\n" or "not running\n" */

/* A process call's step and what came back so far. */
struct dproc {
	struct dchan		*ch;		/* running, or NULL */
	struct dhost		*host;
	struct process_at	 at;		/* on the strings below */
	char			*label;
	char			*sd;
	char			*agent;
	struct process_step	 s;		/* handle, sig: the call's */
	struct process_start	 start;		/* START: its handle */
	int64_t			 deadline;	/* wait: monotonic ms, 0: none */
	int			 stop;		/* sandbox.stop, not s */
	struct buf		 out;
	struct buf		 err;
	size_t			 max;		/* stdout cap */
	int			 overflow;
};

/* Answer c with the CLI's failure line for cause (freed). */
static void
dproc_fail(struct dcall *c, char *cause)
{
	char	*line = xasprintf("clawssh: %s\n", cause);

	dcall_output(c, 1, line, strlen(line));
	free(line);
	free(cause);
	drpc_finish(c, DPROC_EXIT_FAILED);
}

/* Answer c with json (freed) on one line, as the CLI prints it. */
static void
dproc_json(struct dcall *c, cJSON *json)
{
	char	*text = cJSON_PrintUnformatted(json);

	cJSON_Delete(json);
	dcall_output(c, 0, text, strlen(text));
	dcall_output(c, 0, "\n", 1);
	free(text);
}

/* The host command of argv as one line for sshd's shell. */
static char *
dproc_command(char *const *argv)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; argv[i] != NULL; i++) {
		if (i != 0)
			buf_append_str(&b, " ");
		shquote_append(&b, argv[i]);
	}
	return buf_detach(&b);
}

/* Queue the call's step (a wait: its next slice) on the host: 0 or -1. */
static int
dproc_step(struct dcall *c, char **cause)
{
	struct dproc	*p = c->proc;
	char		**argv, *cmd;
	int64_t		 left;

	if (p->s.op == PROCESS_OP_WAIT) {
		p->s.ds = DPROC_WAIT_SLICE_DS;
		if (p->deadline != 0) {
			left = p->deadline - clock_now_ms();
			left = left > 0 ? (left + 99) / 100 : 0;
			if (left < p->s.ds)
				p->s.ds = (int)left;
		}
	}
	if (process_step_argv(&p->at, &p->s, &argv, &p->max, cause) != 0)
		return -1;
	cmd = dproc_command(argv);
	strv_free(argv);
	buf_reset(&p->out);
	buf_reset(&p->err);
	p->ch = dchan_new(p->host, NULL, 0, cmd, NULL);
	p->ch->call = c;
	if (p->s.op == PROCESS_OP_WRITE && c->rc.inlen != 0)
		buf_append(&p->ch->in, c->rc.in, c->rc.inlen);
	p->ch->in_eof = 1;
	free(cmd);
	return 0;
}

/*
 * Queue c's start on the host: proc-start (or the sh script) with the
 * command joining the sandbox's running environment, through the exec
 * wrapper that exports the variables from stdin after b's check; 0 or
 * -1 with *cause (a bad name or log cap: as the CLI says).
 */
static int
dproc_start(struct dcall *c, const struct droute_box *b, char **cause)
{
	struct dproc		 *p = c->proc;
	const struct rpc_proc	 *a = &c->rc.proc;
	struct remote_cmd	  rcmd;
	char			**argv, *shown;
	int			  argc, rc;

	shown = process_display(c->rc.argc - a->argi, c->rc.argv + a->argi);
	rc = process_start_init(&p->start, b->argc, b->argv, shown, a->name,
	    (size_t)a->log_max, cause);
	free(shown);
	if (rc != 0)
		return -1;
	p->s.handle = p->start.handle;
	p->s.start = &p->start;
	rc = process_step_argv(&p->at, &p->s, &argv, &p->max, cause);
	p->start.argv = NULL;		/* b's, copied into argv */
	p->start.argc = 0;
	if (rc != 0)
		return -1;
	for (argc = 0; argv[argc] != NULL; argc++)
		;
	rc = remote_cmd_build_wrapped(&rcmd, argc, argv, b->check, NULL,
	    b->workspace, b->env, b->nenv, REMOTE_CMD_NO_WATCHDOG, cause);
	strv_free(argv);
	if (rc != 0)
		return -1;
	p->ch = dchan_new(p->host, NULL, 0, rcmd.command, NULL);
	p->ch->call = c;
	buf_append(&p->ch->in, rcmd.preamble, rcmd.preamble_len);
	p->ch->in_eof = 1;
	remote_cmd_clear(&rcmd);
	return 0;
}

/* Make c's step in the daemon; see daemon_int.h. */
int
dproc_call(struct dcall *c)
{
	const struct rpc_proc	*a = &c->rc.proc;
	struct droute_box	 box;
	struct droute		*r;
	struct dhost		*h;
	struct dproc		*p;
	const char		*label, *sd, *agent;
	char			*cause = NULL;
	int			 rc;

	if (!a->simple || c->rc.sandbox == NULL ||
	    (r = droute_lookup(c)) == NULL ||
	    (h = droute_proc_at(c, r, &label, &sd, &agent)) == NULL ||
	    (a->op == PROCESS_OP_START && droute_proc_box(c, r, &box) != 0))
		return 0;
	p = xcalloc(1, sizeof *p);
	p->host = h;
	p->at.label = p->label = xstrdup(label);
	p->at.sd = p->sd = xstrdup(sd);
	p->at.agent = p->agent = xstrdup(agent);
	p->s.op = (enum process_op)a->op;
	p->s.handle = a->handle;
	p->s.tail = a->tail;
	p->s.sig = a->sig;
	p->s.eof = a->eof;
	if (p->s.op == PROCESS_OP_WAIT && a->timeout >= 0)
		p->deadline = clock_now_ms() + (int64_t)a->timeout * 1000;
	c->proc = p;
	log_debug("%s: sandbox %s: in the daemon, the host agent's %s",
	    c->method, c->rc.sandbox, p->at.agent);
	if (p->s.op == PROCESS_OP_START) {
		rc = dproc_start(c, &box, &cause);
		droute_box_clear(&box);
	} else
		rc = dproc_step(c, &cause);
	if (rc != 0)
		dproc_fail(c, cause);	/* a bad handle: as the CLI says */
	return 1;
}

/* Make c's sandbox.stop in the daemon; see daemon_int.h. */
int
dproc_stop(struct dcall *c)
{
	struct droute	*r;
	struct dhost	*h;
	struct dproc	*p;
	const char	*label, *sd, *agent;
	char		*script, *cmd;
	char		*argv[] = { (char *)(uintptr_t)"sh",
			    (char *)(uintptr_t)"-c", NULL, NULL };

	if (c->rc.sandbox == NULL || (r = droute_lookup(c)) == NULL ||
	    (h = droute_proc_at(c, r, &label, &sd, &agent)) == NULL)
		return 0;
	p = xcalloc(1, sizeof *p);
	p->host = h;
	p->at.label = p->label = xstrdup(label);
	p->stop = 1;
	p->max = DPROC_STOP_OUT_MAX;
	c->proc = p;
	log_debug("%s: sandbox %s: in the daemon, clawssh stop's script",
	    c->method, c->rc.sandbox);
	script = droute_stop_script(r);
	argv[2] = script;
	cmd = dproc_command(argv);
	free(script);
	p->ch = dchan_new(h, NULL, 0, cmd, NULL);
	p->ch->call = c;
	p->ch->in_eof = 1;
	free(cmd);
	return 1;
}

/* Answer c's stop from what its script said, as `clawssh stop --json`. */
static void
dproc_stop_answer(struct dcall *c, int status)
{
	struct dproc	*p = c->proc;
	const char	*state;
	cJSON		*json;

	if (status != 0) {
		dproc_fail(c, remote_err_explain_label(p->label, &p->err,
		    status));
		return;
	}
	if ((state = box_stop_state(&p->out)) == NULL) {
		dproc_fail(c, xasprintf("%s: malformed answer to stop",
		    p->label));
		return;
	}
	json = cJSON_CreateObject();
	cJSON_AddStringToObject(json, "id", c->rc.sandbox);
	cJSON_AddStringToObject(json, "state", state);
	dproc_json(c, json);
	drpc_finish(c, 0);
}

/* Collect the step's output, capped; see daemon_int.h. */
void
dproc_output(struct dcall *c, int stream, const char *p, size_t n)
{
	struct dproc	*d = c->proc;
	struct buf	*b = stream == 0 ? &d->out : &d->err;
	size_t		 max = stream == 0 ? d->max : PROCESS_ERR_MAX;

	if (b->len + n > max) {
		d->overflow = 1;
		n = b->len < max ? max - b->len : 0;
	}
	buf_append(b, p, n);
}

/* Answer c with the judged reply r, as `process SUB --json` would. */
static void
dproc_answer(struct dcall *c, struct process_reply *r)
{
	struct dproc	*p = c->proc;
	cJSON		*json;
	char		*line;

	switch (p->s.op) {
	case PROCESS_OP_LIST:
		dproc_json(c, process_list_json(r->list, r->n));
		process_list_free(r->list, r->n);
		break;
	case PROCESS_OP_POLL:
	case PROCESS_OP_LOG:
		dproc_json(c, process_output_json(&r->st, r->output->data,
		    r->output->len));
		break;
	case PROCESS_OP_WAIT:
		dproc_json(c, process_state_json(&r->st));
		break;
	case PROCESS_OP_KILL:
		if (r->was_running)
			break;
		line = xasprintf("clawssh: process %s had already exited\n",
		    p->s.handle);
		dcall_output(c, 1, line, strlen(line));
		free(line);
		break;
	case PROCESS_OP_WRITE:
		break;
	case PROCESS_OP_START:
		json = cJSON_CreateObject();
		cJSON_AddStringToObject(json, "handle", p->s.handle);
		dproc_json(c, json);
		break;
	}
	process_state_clear(&r->st);
	drpc_finish(c, 0);
}

/* The step ended; see daemon_int.h. */
void
dproc_exit(struct dcall *c, int status, const char *sig)
{
	struct dproc		*p = c->proc;
	struct process_reply	 r;
	struct buf		 output = BUF_INIT;
	const char		*why;
	char			*cause = NULL;
	int			 drop;

	p->ch = NULL;
	if (sig != NULL && *sig != '\0') {
		dproc_fail(c, xasprintf("%s: the process step ended by "
		    "SIG%s", p->at.label, sig));
		return;
	}
	if (p->overflow) {
		dproc_fail(c, xasprintf("%s: remote output larger than "
		    "expected", p->at.label));
		return;
	}
	if (p->stop) {
		dproc_stop_answer(c, status);
		return;
	}
	if (p->s.op == PROCESS_OP_START && (status == DPROC_NOJOIN ||
	    process_agent_missing(&p->at, status))) {
		/*
		 * box-exec --join's check: no environment (the route
		 * stands: the worker starts one), or no agent (it does not)
		 */
		why = status == DPROC_NOJOIN ? "no sandbox environment to "
		    "join" : "not on the host";
		drop = status != DPROC_NOJOIN;
		dproc_free(c);
		if (!droute_to_worker(c, why, drop))
			droute_failed(c, 1, why);
		return;
	}
	if (process_agent_missing(&p->at, status)) {
		process_agent_drop(&p->at);
		free(p->agent);
		p->agent = NULL;
		if (dproc_step(c, &cause) != 0)
			dproc_fail(c, cause);
		return;
	}
	memset(&r, 0, sizeof r);
	r.output = &output;
	if (process_step_reply(&p->at, &p->s, status, &p->out, &p->err, &r,
	    &cause) != 0) {
		buf_free(&output);
		dproc_fail(c, cause);
		return;
	}
	if (p->s.op == PROCESS_OP_WAIT && r.st.run == PROCESS_RUNNING &&
	    (p->deadline == 0 || clock_now_ms() < p->deadline) &&
	    !c->cancelled && c->client != NULL) {
		process_state_clear(&r.st);
		drpc_progress(c);
		if (dproc_step(c, &cause) != 0)
			dproc_fail(c, cause);
		return;
	}
	dproc_answer(c, &r);
	buf_free(&output);
}

/* The step's channel failed; see daemon_int.h. */
void
dproc_failed(struct dcall *c, const char *why)
{
	c->proc->ch = NULL;
	dproc_fail(c, xstrdup(why));
}

/* Stop c's step (cancelled, or its client left); see daemon_int.h. */
void
dproc_kill(struct dcall *c)
{
	struct dproc	*p = c->proc;

	if (p != NULL && p->ch != NULL) {
		p->ch->call = NULL;
		dchan_abandon(p->ch);
		p->ch = NULL;
	}
}

/* Let go of c's step; see daemon_int.h. */
void
dproc_free(struct dcall *c)
{
	struct dproc	*p = c->proc;

	if (p == NULL)
		return;
	dproc_kill(c);
	free(p->label);
	free(p->sd);
	free(p->agent);
	buf_free(&p->out);
	buf_free(&p->err);
	free(p);
	c->proc = NULL;
}

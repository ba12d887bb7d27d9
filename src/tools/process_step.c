/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A process's calls to its host (start, list, poll, log, wait, kill,
 * write): what to run there -- the host agent's proc-* command, or the
 * sh script of process_scripts.h where the host has no agent; both
 * answer alike -- and how to judge the reply, shared by the CLI (which
 * runs the step over its transport, below) and the daemon (which runs
 * it on a channel of its own, daemon_proc.c).  Everything the host sends
 * back is parsed as hostile input, with caps.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compat.h"
#include "buf.h"
#include "clock.h"
#include "error.h"
#include "exec.h"
#include "lines.h"
#include "log.h"
#include "process.h"
#include "process_scripts.h"
#include "remote_err.h"
#include "signals.h"
#include "strv.h"
#include "transport.h"
#include "xmalloc.h"

#define PROCESS_OUT_MAX		(PROCESS_LOG_LIMIT + 64 * 1024)
#define PROCESS_LIST_MAX	(16 * 1024 * 1024)
#define PROCESS_LIST_ENTRIES	10000
#define PROCESS_STEP_ARGS	6	/* the most words after the command */
#define PROCESS_SIGNAL_MAX	64	/* a number's top (SIGRTMAX on Linux) */

/* What each step runs: its agent command, its script, its output cap. */
static const struct {
	const char	*agent;
	const char	*script;
	size_t		 max;
} process_steps[] = {
	[PROCESS_OP_LIST] = { "proc-list", PROCESS_SCRIPT_LIST,
	    PROCESS_LIST_MAX },
	[PROCESS_OP_POLL] = { "proc-poll", PROCESS_SCRIPT_POLL,
	    PROCESS_OUT_MAX },
	[PROCESS_OP_LOG] = { "proc-log", PROCESS_SCRIPT_LOG, PROCESS_OUT_MAX },
	[PROCESS_OP_WAIT] = { "proc-wait", PROCESS_SCRIPT_WAIT,
	    PROCESS_ERR_MAX },
	[PROCESS_OP_KILL] = { "proc-kill", PROCESS_SCRIPT_KILL,
	    PROCESS_ERR_MAX },
	[PROCESS_OP_WRITE] = { "proc-write", PROCESS_SCRIPT_WRITE,
	    PROCESS_ERR_MAX },
	[PROCESS_OP_START] = { "proc-start", PROCESS_SCRIPT_START,
	    PROCESS_ERR_MAX },
};

/* The host's name in messages. */
static const char *
process_label(const struct process_at *at)
{
	return at->label != NULL ? at->label : transport_label(at->t);
}

/*
 * Canonical name of a signal ("usr1", "SIGUSR1" -> "USR1"; a number from
 * 1 to PROCESS_SIGNAL_MAX: its name, or itself if it has none, as
 * kill -s and pkill take it) and its number; 0 or CLAW_ERR_INVAL.
 */
static int
process_signal_name(const char *sig, char *out, size_t len, int *num)
{
	const char	*name;
	size_t		 i;

	if (sig[0] >= '1' && sig[0] <= '9' && strspn(sig, "0123456789") ==
	    strlen(sig) && strlen(sig) <= 2) {
		if ((*num = atoi(sig)) > PROCESS_SIGNAL_MAX)
			return CLAW_ERR_INVAL;
		name = signals_name(*num);
		snprintf(out, len, "%s", name != NULL ? name : sig);
		return 0;
	}
	if (strncasecmp(sig, "SIG", 3) == 0)
		sig += 3;
	if ((*num = signals_from_name(sig)) == 0 || strlen(sig) >= len)
		return CLAW_ERR_INVAL;
	for (i = 0; sig[i] != '\0'; i++)
		out[i] = (char)toupper((unsigned char)sig[i]);
	out[i] = '\0';
	return 0;
}

/*
 * The words after the command for s (allocated into w): the sandbox
 * directory first; agent: a kill's signal as a number, not a name.  The
 * count, or CLAW_ERR_INVAL with *cause.
 */
static int
process_step_words(const struct process_at *at, const struct process_step *s,
    int agent, char **w, char **cause)
{
	char	name[16];
	int	n = 0, num;

	w[n++] = xstrdup(at->sd);
	if (s->op == PROCESS_OP_LIST)
		return n;
	if (!process_handle_ok(s->handle))
		return claw_fail(cause, CLAW_ERR_INVAL, "'%s' is not a "
		    "process handle", s->handle);
	w[n++] = xstrdup(s->handle);
	switch (s->op) {
	case PROCESS_OP_LOG:
		w[n++] = s->tail > 0 ? xasprintf("%d", s->tail) : xstrdup("");
		break;
	case PROCESS_OP_WAIT:
		w[n++] = xasprintf("%d", s->ds);
		break;
	case PROCESS_OP_KILL:
		if (process_signal_name(s->sig != NULL ? s->sig : "TERM", name,
		    sizeof name, &num) != 0) {
			free(w[0]);
			free(w[1]);
			return claw_fail(cause, CLAW_ERR_INVAL, "unknown "
			    "signal '%s'", s->sig);
		}
		w[n++] = agent ? xasprintf("%d", num) : xstrdup(name);
		w[n++] = xstrdup(s->sig == NULL ? "1" : "0");
		w[n++] = xasprintf("%d", PROCESS_GRACE_DS);
		break;
	case PROCESS_OP_WRITE:
		w[n++] = xstrdup(s->eof ? "1" : "0");
		break;
	default:
		break;
	}
	return n;
}

/*
 * A start's words after the command: the sandbox directory, the handle,
 * the log cap and chunk, the name, the display form; the script then
 * takes its supervisor and functions; then the command's own words.
 */
static char **
process_start_words(const struct process_at *at,
    const struct process_start *ps, int *n)
{
	char	**w;
	int	  i, k = 0;

	w = xcalloc((size_t)ps->argc + 9, sizeof *w);
	w[k++] = xstrdup(at->sd);
	w[k++] = xstrdup(ps->handle);
	w[k++] = xasprintf("%zu", ps->log_max);
	w[k++] = xasprintf("%zu", ps->log_max / 8);
	w[k++] = xstrdup(ps->name != NULL ? ps->name : "-");
	w[k++] = xstrdup(ps->shown);
	if (at->agent == NULL) {
		w[k++] = xstrdup(PROCESS_SCRIPT_SUPERVISOR);
		w[k++] = xstrdup(PROCESS_SCRIPT_LIB);
	}
	for (i = 0; i < ps->argc; i++)
		w[k++] = xstrdup(ps->argv[i]);
	*n = k;
	return w;
}

/* The host command of a step; see process.h. */
int
process_step_argv(const struct process_at *at, const struct process_step *s,
    char ***argv, size_t *max, char **cause)
{
	char	*ws[PROCESS_STEP_ARGS], **w = ws, **v;
	int	 n, i, k = 0;

	if (s->op == PROCESS_OP_START)
		w = process_start_words(at, s->start, &n);
	else if ((n = process_step_words(at, s, at->agent != NULL, w,
	    cause)) < 0)
		return n;
	v = xcalloc((size_t)n + 5, sizeof *v);
	if (at->agent != NULL) {
		v[k++] = xstrdup(at->agent);
		v[k++] = xstrdup(process_steps[s->op].agent);
	} else {
		v[k++] = xstrdup("sh");
		v[k++] = xstrdup("-c");
		v[k++] = xstrdup(process_steps[s->op].script);
		v[k++] = xstrdup("sh");
	}
	for (i = 0; i < n; i++)
		v[k++] = w[i];
	if (w != ws)
		free(w);
	*argv = v;
	*max = process_steps[s->op].max;
	return 0;
}

/*
 * Parse a poll or log reply: the state line, "clawssh-out DROPPED LEN",
 * then exactly LEN bytes, which go to output after the dropped line.
 * Returns 0 or CLAW_ERR_PARSE.
 */
static int
process_parse_output(const struct buf *in, const char *handle,
    struct process_state *st, struct buf *output)
{
	struct process_state	 new;
	struct lines		 lr, w;
	const char		*line, *data;
	size_t			 n;
	uint64_t		 dropped, len;

	lines_init(&lr, in->data, in->len);
	if (lines_next(&lr, PROCESS_LINE_MAX, &line, &n) != 0 ||
	    process_parse_state(line, n, &new) != 0)
		return CLAW_ERR_PARSE;
	if (strcmp(new.handle, handle) != 0 ||
	    lines_next(&lr, PROCESS_LINE_MAX, &line, &n) != 0)
		goto bad;
	lines_init(&w, line, n);
	if (lines_expect(&w, "clawssh-out") != 0 ||
	    lines_number(&w, 0, PROCESS_NUM_MAX - 1, &dropped) != 0 ||
	    lines_number(&w, 0, PROCESS_NUM_MAX - 1, &len) != 0 ||
	    lines_left(&w) != 0 || len != lines_left(&lr) ||
	    lines_bytes(&lr, (size_t)len, &data) != 0)
		goto bad;
	new.dropped = dropped;
	if (dropped != 0)
		buf_appendf(output, "[clawssh: %llu bytes of earlier output "
		    "dropped]\n", (unsigned long long)dropped);
	buf_append(output, data, (size_t)len);
	*st = new;
	return 0;
bad:
	process_state_clear(&new);
	return CLAW_ERR_PARSE;
}

/* Parse a wait's reply: one state line, for handle.  0 or CLAW_ERR_PARSE. */
static int
process_parse_one(const struct buf *in, const char *handle,
    struct process_state *st)
{
	struct process_state	 new;
	struct lines		 lr;
	const char		*line;
	size_t			 n;

	lines_init(&lr, in->data, in->len);
	if (lines_next(&lr, PROCESS_LINE_MAX, &line, &n) != 0 ||
	    lines_left(&lr) != 0 || process_parse_state(line, n, &new) != 0)
		return CLAW_ERR_PARSE;
	if (strcmp(new.handle, handle) != 0) {
		process_state_clear(&new);
		return CLAW_ERR_PARSE;
	}
	*st = new;
	return 0;
}

/* Order listing entries by start time, then handle. */
static int
process_cmp(const void *a, const void *b)
{
	const struct process_state	*x = a, *y = b;

	if (x->started != y->started)
		return x->started < y->started ? -1 : 1;
	return strcmp(x->handle, y->handle);
}

/* Parse a listing: state lines only.  0 or CLAW_ERR_PARSE. */
static int
process_parse_list(const struct buf *in, struct process_state **list,
    size_t *n)
{
	struct process_state	*v = NULL;
	struct lines		 lr;
	const char		*line;
	size_t			 k = 0, len;

	lines_init(&lr, in->data, in->len);
	while (lines_left(&lr) != 0) {
		if (k >= PROCESS_LIST_ENTRIES ||
		    lines_next(&lr, PROCESS_LINE_MAX, &line, &len) != 0)
			goto bad;
		v = xreallocarray(v, k + 1, sizeof *v);
		if (process_parse_state(line, len, &v[k]) != 0)
			goto bad;
		k++;
	}
	if (k > 1)
		qsort(v, k, sizeof *v, process_cmp);
	*list = v;
	*n = k;
	return 0;
bad:
	process_list_free(v, k);
	return CLAW_ERR_PARSE;
}

/* Whether out is exactly the line text. */
static int
process_said(const struct buf *out, const char *text)
{
	return out->len == strlen(text) && memcmp(out->data, text,
	    out->len) == 0;
}

/*
 * Whether out has the line "clawssh-started HANDLE" (after the exec
 * wrapper's pid marker, in the daemon).
 */
static int
process_started(const struct buf *out, const char *handle)
{
	char	want[PROCESS_HANDLE_LEN + 20];
	size_t	n;

	n = (size_t)snprintf(want, sizeof want, "clawssh-started %s\n",
	    handle);
	return out->len >= n && (memcmp(out->data, want, n) == 0 ||
	    memmem(out->data, out->len, want, n) != NULL);
}

/* Judge a step's reply; see process.h. */
int
process_step_reply(const struct process_at *at, const struct process_step *s,
    int status, const struct buf *out, const struct buf *err,
    struct process_reply *r, char **cause)
{
	const char	*label = process_label(at);

	if (status != 0) {
		*cause = remote_err_explain_label(label, err, status);
		return CLAW_ERR_PROTO;
	}
	switch (s->op) {
	case PROCESS_OP_LIST:
		if (process_parse_list(out, &r->list, &r->n) != 0)
			return claw_fail(cause, CLAW_ERR_PARSE, "%s: garbled "
			    "process listing from the host", label);
		return 0;
	case PROCESS_OP_POLL:
	case PROCESS_OP_LOG:
	case PROCESS_OP_WAIT:
		if ((s->op == PROCESS_OP_WAIT ? process_parse_one(out,
		    s->handle, &r->st) : process_parse_output(out, s->handle,
		    &r->st, r->output)) != 0)
			return claw_fail(cause, CLAW_ERR_PARSE, "%s: garbled "
			    "state for process %s on the host", label,
			    s->handle);
		return 0;
	case PROCESS_OP_KILL:
		if (process_said(out, "clawssh-exited\n"))
			r->was_running = 0;
		else if (process_said(out, "clawssh-killed\n"))
			r->was_running = 1;
		else
			return claw_fail(cause, CLAW_ERR_PROTO, "%s: the kill "
			    "of process %s was not confirmed", label,
			    s->handle);
		return 0;
	case PROCESS_OP_WRITE:
		if (out->data == NULL || strstr(out->data,
		    "clawssh-written\n") == NULL)
			return claw_fail(cause, CLAW_ERR_PROTO, "%s: the write "
			    "to process %s was not confirmed", label,
			    s->handle);
		return 0;
	case PROCESS_OP_START:
		if (!process_started(out, s->start->handle))
			return claw_fail(cause, CLAW_ERR_PROTO, "%s: process "
			    "did not report its start", label);
		return 0;
	}
	return claw_fail(cause, CLAW_ERR_INVAL, "no such process step");
}

/* Whether the host could not run the agent; see process.h. */
int
process_agent_missing(const struct process_at *at, int status)
{
	return at->agent != NULL && (status == 126 || status == 127);
}

/* The agent has gone: say so, tell the caller, use the scripts. */
void
process_agent_drop(struct process_at *at)
{
	log_info("%s: the host agent %s is not there any more: the sh "
	    "script instead", process_label(at), at->agent);
	if (at->agent_lost != NULL)
		*at->agent_lost = 1;
	at->agent = NULL;
}

/*
 * Run s over at->t with stdin data[0..len) then in_fd (-1: none) and
 * judge its reply into *r; where the agent has gone from the host, the
 * sh script instead (but after stdin from in_fd: that went to the first
 * try, so the call fails saying to run it again).
 */
static int
process_step_run(const struct process_at *at, const struct process_step *s,
    const char *data, size_t len, int in_fd, struct process_reply *r,
    char **cause)
{
	struct exec_opts	 eo;
	struct process_at	 sh;
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	char			**argv;
	size_t			 max, argc;
	int			 rc, status = 0;

	if ((rc = process_step_argv(at, s, &argv, &max, cause)) != 0)
		return rc;
	for (argc = 0; argv[argc] != NULL; argc++)
		;
	exec_opts_capture(&eo, data, len, max, &out, &err);
	eo.err.max = PROCESS_ERR_MAX;
	eo.forward_stdin = in_fd >= 0;
	eo.in_fd = in_fd;
	eo.argc = (int)argc;
	eo.argv = argv;
	rc = exec_run(at->t, &eo, &status, cause);
	if (rc == 0 && process_agent_missing(at, status) && in_fd >= 0) {
		if (at->agent_lost != NULL)
			*at->agent_lost = 1;
		rc = claw_fail(cause, CLAW_ERR_PROTO, "%s: the host agent %s "
		    "is not there any more; run the command again",
		    process_label(at), at->agent);
	} else if (rc == 0 && process_agent_missing(at, status)) {
		sh = *at;
		process_agent_drop(&sh);
		rc = process_step_run(&sh, s, data, len, -1, r, cause);
	} else if (rc == 0)
		rc = process_step_reply(at, s, status, &out, &err, r, cause);
	strv_free(argv);
	buf_free(&out);
	buf_free(&err);
	return rc;
}

/* Start a background process; see process.h. */
int
process_start(const struct process_at *at, const char *workspace,
    const char *pre, const struct process_start *ps,
    const struct claw_env *env, size_t nenv, char **cause)
{
	struct process_step	  s = { .op = PROCESS_OP_START,
	    .handle = ps->handle, .start = ps };
	struct process_at	  sh;
	struct exec_opts	  eo;
	struct buf		  out = BUF_INIT, err = BUF_INIT;
	char			**argv;
	size_t			  max, argc;
	int			  rc, status = 0;

	if ((rc = process_step_argv(at, &s, &argv, &max, cause)) != 0)
		return rc;
	for (argc = 0; argv[argc] != NULL; argc++)
		;
	log_debug("process start: %s", at->agent != NULL ? "the host "
	    "agent's proc-start" : "the host's sh script");
	exec_opts_capture(&eo, NULL, 0, max, &out, &err);
	eo.argc = (int)argc;
	eo.argv = argv;
	eo.pre = pre;
	eo.cwd = workspace;
	eo.env = env;
	eo.nenv = nenv;
	rc = exec_run(at->t, &eo, &status, cause);
	if (rc == 0 && process_agent_missing(at, status)) {
		sh = *at;
		process_agent_drop(&sh);
		rc = process_start(&sh, workspace, pre, ps, env, nenv, cause);
	} else if (rc == 0)
		rc = process_step_reply(at, &s, status, &out, &err, NULL,
		    cause);
	strv_free(argv);
	buf_free(&out);
	buf_free(&err);
	return rc;
}

/* Poll a process; see process.h. */
int
process_poll(const struct process_at *at, const char *handle,
    struct process_state *st, struct buf *output, char **cause)
{
	struct process_step	s = { .op = PROCESS_OP_POLL, .handle = handle };
	struct process_reply	r = { .output = output };
	int			rc;

	if ((rc = process_step_run(at, &s, NULL, 0, -1, &r, cause)) == 0)
		*st = r.st;
	return rc;
}

/* Read a process's log; see process.h. */
int
process_log(const struct process_at *at, const char *handle, int tail_lines,
    struct process_state *st, struct buf *output, char **cause)
{
	struct process_step	s = { .op = PROCESS_OP_LOG, .handle = handle,
				    .tail = tail_lines };
	struct process_reply	r = { .output = output };
	int			rc;

	if ((rc = process_step_run(at, &s, NULL, 0, -1, &r, cause)) == 0)
		*st = r.st;
	return rc;
}

/* Wait for a process to end; see process.h. */
int
process_wait(const struct process_at *at, const char *handle,
    int64_t timeout_ms, struct process_state *st, char **cause)
{
	struct process_step	s = { .op = PROCESS_OP_WAIT, .handle = handle };
	struct process_reply	r;
	int64_t			deadline = clock_now_ms() + timeout_ms;
	int64_t			left;
	int			rc;

	if (!process_handle_ok(handle))
		return claw_fail(cause, CLAW_ERR_INVAL, "'%s' is not a "
		    "process handle", handle);
	for (;;) {
		s.ds = PROCESS_WAIT_SLICE_DS;
		if (timeout_ms >= 0) {
			left = deadline - clock_now_ms();
			left = left > 0 ? (left + 99) / 100 : 0;
			if (left < s.ds)
				s.ds = (int)left;
		}
		memset(&r, 0, sizeof r);
		if ((rc = process_step_run(at, &s, NULL, 0, -1, &r,
		    cause)) != 0)
			return rc;
		if (r.st.run != PROCESS_RUNNING || (timeout_ms >= 0 &&
		    clock_now_ms() >= deadline)) {
			*st = r.st;
			return 0;
		}
		process_state_clear(&r.st);
	}
}

/* List a sandbox's processes; see process.h. */
int
process_list(const struct process_at *at, struct process_state **list,
    size_t *n, char **cause)
{
	struct process_step	s = { .op = PROCESS_OP_LIST };
	struct process_reply	r;
	int			rc;

	memset(&r, 0, sizeof r);
	if ((rc = process_step_run(at, &s, NULL, 0, -1, &r, cause)) == 0) {
		*list = r.list;
		*n = r.n;
	}
	return rc;
}

/* Write to a process's stdin; see process.h. */
int
process_write(const struct process_at *at, const char *handle,
    const char *data, size_t len, int in_fd, int eof, char **cause)
{
	struct process_step	s = { .op = PROCESS_OP_WRITE, .handle = handle,
				    .eof = eof };
	struct process_reply	r;

	memset(&r, 0, sizeof r);
	return process_step_run(at, &s, data, len, in_fd, &r, cause);
}

/* Signal a process's group and session; see process.h. */
int
process_kill(const struct process_at *at, const char *handle,
    const char *sig, int *was_running, char **cause)
{
	struct process_step	s = { .op = PROCESS_OP_KILL, .handle = handle,
				    .sig = sig };
	struct process_reply	r;
	int			rc;

	memset(&r, 0, sizeof r);
	if ((rc = process_step_run(at, &s, NULL, 0, -1, &r, cause)) == 0 &&
	    was_running != NULL)
		*was_running = r.was_running;
	return rc;
}

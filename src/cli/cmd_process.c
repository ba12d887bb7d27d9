/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh process: background processes in a sandbox.
 *
 *	clawssh process start -s ID [--name NAME] [--log-max BYTES] [--pty]
 *	    -- CMD...
 *	clawssh process list|poll|log|write|kill|wait -s ID [HANDLE] [options]
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "compat.h"
#include "buf.h"
#include "clawconfig.h"
#include "cmd.h"
#include "cmd_box.h"
#include "cmd_conn.h"
#include "cmd_env.h"
#include "cmd_ops.h"
#include "contain_bwrap.h"
#include "fdio.h"
#include "log.h"
#include "process.h"
#include "process_json.h"
#include "registry.h"
#include "remote_cmd.h"
#include "shquote.h"
#include "xmalloc.h"

enum proc_sub {
	PROC_START, PROC_LIST, PROC_POLL, PROC_LOG, PROC_WRITE, PROC_KILL,
	PROC_WAIT
};

#define PROC_WAIT_TIMEDOUT	124	/* wait --timeout: still running */

static const char *const proc_subs[] = {
	"start", "list", "poll", "log", "write", "kill", "wait"
};

struct proc_args {
	struct cmd_box	 box;		/* box.cc: connection options */
	enum proc_sub	 sub;
	const char	*sandbox;	/* -s ID */
	const char	*name;		/* --name */
	int		 log_max;	/* --log-max, 0: default */
	int		 json;
	int		 tail;		/* --tail N, 0: all */
	int		 eof;		/* --eof */
	int		 pty;		/* start --pty */
	const char	*signal;	/* --signal */
	int		 timeout;	/* wait --timeout S, -1: none */
	struct cmd_env	 env;		/* --env, then the config's */
	int		 argc;		/* the positional words */
	char		**argv;
	char		*sd;		/* <remote_root>/<id> */
	char		*agent;		/* the host agent, or NULL */
	int		 agent_lost;	/* it was not there */
	struct process_at at;		/* sd on box.t */
};

static const char proc_usage[] =
    "usage: clawssh process start -s ID [--name NAME] [--log-max BYTES]\n"
    "           [--env NAME=VALUE] [--pty] [--json] -- CMD [ARG...]\n"
    "       clawssh process list -s ID [--json]\n"
    "       clawssh process poll -s ID [--json] HANDLE\n"
    "       clawssh process log -s ID [--tail N] [--json] HANDLE\n"
    "       clawssh process write -s ID [--eof] HANDLE   (stdin goes to "
    "it)\n"
    "       clawssh process kill -s ID [--signal SIG] HANDLE\n"
    "       clawssh process wait -s ID [--timeout S] [--json] HANDLE\n"
    "           (exits with its status; 124 if still running at S)\n";

/* The operation (src/ops/ops_table.c) of each sub-command. */
static const char *const proc_methods[] = {
	"process.start", "process.list", "process.poll", "process.log",
	"process.write", "process.kill", "process.wait"
};

/*
 * Take the parsed options (a sub-command's own; another's read as not
 * given); 0 or an exit status.
 */
static int
proc_take(struct proc_args *a, const struct cmd_ops *o)
{
	int64_t	v;

	a->sandbox = cmd_ops_get(o, "sandbox");
	a->json = cmd_ops_flag(o, "json");
	a->name = cmd_ops_get(o, "name");
	a->pty = cmd_ops_flag(o, "pty");
	if (cmd_ops_int(o, "log_max", &v))
		a->log_max = (int)v;
	if (cmd_ops_int(o, "tail", &v))
		a->tail = (int)v;
	a->eof = cmd_ops_flag(o, "eof");
	a->signal = cmd_ops_get(o, "signal");
	if (cmd_ops_int(o, "timeout", &v))
		a->timeout = (int)v;
	a->argc = o->noperands;
	a->argv = o->operands;
	return cmd_env_options(&a->env, o);
}

/* Check the positional words for the sub-command. */
static int
proc_check_words(struct proc_args *a)
{
	if (a->sandbox == NULL)
		return cmd_fail("give the sandbox with -s ID (see 'clawssh "
		    "process --help')");
	if (a->sub == PROC_START)
		return a->argc == 0 ? cmd_fail("no command given after "
		    "'--'") : 0;
	if (a->sub == PROC_LIST)
		return a->argc == 0 ? 0 : cmd_fail("unexpected argument "
		    "'%s'", a->argv[0]);
	if (a->argc != 1)
		return cmd_fail("usage: clawssh process %s -s ID [options] "
		    "HANDLE", proc_subs[a->sub]);
	if (!process_handle_ok(a->argv[0]))
		return cmd_fail("'%s' is not a process handle (want p and 8 "
		    "hex digits, as 'process start' printed)", a->argv[0]);
	return 0;
}

/* Parse the command line; returns 0, -1 for --help, or a status. */
static int
proc_parse_args(int argc, char **argv, struct proc_args *a)
{
	struct cmd_ops	o;
	int		rc;

	rc = cmd_ops_parse(&o, proc_methods[a->sub], &a->box.cc, proc_usage,
	    argc, argv);
	if (rc == 0)
		rc = proc_take(a, &o);
	cmd_ops_free(&o);
	return rc != 0 ? rc : proc_check_words(a);
}

/* Print a JSON value on one line and free it. */
static void
proc_print_json(cJSON *o)
{
	char	*text = cJSON_PrintUnformatted(o);

	printf("%s\n", text);
	free(text);
	cJSON_Delete(o);
}

/* The state as one word or "exited N". */
static void
proc_state_word(const struct process_state *st, char *out, size_t len)
{
	if (st->run == PROCESS_EXITED)
		snprintf(out, len, "exited %d", st->exit_status);
	else
		snprintf(out, len, "%s", process_run_name(st->run));
}

/* process start: print the handle. */
static int
proc_start(struct proc_args *a)
{
	struct registry_record	*r = a->box.rec;
	struct sandbox_settings	 now;
	struct cmd_env_tty	 tty = { 1, 0, 1 };
	struct contain_route	 route;
	char			*wrap, *h = NULL, *cause = NULL;
	cJSON			*o;
	int			 rc;

	cmd_box_settings(&a->box, &r->settings, &now);
	if ((rc = cmd_box_stale(&a->box, r->id, r->config_hash, &now)) != 0)
		return rc;
	memset(&route, 0, sizeof route);
	if (now.mode == SANDBOX_MODE_MIRROR && r->workspace != NULL &&
	    now.access != SANDBOX_ACCESS_NONE) {
		/* the push's steps join the environment, as exec's do */
		if ((rc = cmd_env_steps_join(&a->box, &now, &route)) == 0 &&
		    cmd_box_push(&a->box, NULL, &cause) != 0) {
			rc = cmd_fail("sync up: %s", cause);
			free(cause);
		}
		a->box.steps = NULL;
		contain_route_free(&route);
		if (rc != 0)
			return rc;
	}
	if ((rc = cmd_env_wrap(&a->box, &now, &a->env, NULL,
	    a->pty ? &tty : NULL, NULL, &wrap, NULL)) != 0)
		return rc;
	rc = cmd_env_process(&a->box, &a->env, wrap, a->argc, a->argv,
	    a->name, (size_t)a->log_max, &h);
	free(wrap);
	if (rc != 0)
		return rc;
	if (a->json) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "handle", h);
		proc_print_json(o);
	} else
		printf("%s\n", h);
	free(h);
	return 0;
}

/* process list: a table or a JSON array. */
static int
proc_list(struct proc_args *a)
{
	struct process_state	*v = NULL;
	char			*cause = NULL, state[32], when[32];
	size_t			 n = 0, i;
	time_t			 t;
	int			 rc;

	if (process_list(&a->at, &v, &n, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (a->json)
		proc_print_json(process_list_json(v, n));
	else {
		printf("%-9s  %-16s %-10s %-19s  %s\n", "HANDLE", "NAME",
		    "STATE", "STARTED", "COMMAND");
		for (i = 0; i < n; i++) {
			t = (time_t)v[i].started;
			strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S",
			    localtime(&t));
			proc_state_word(&v[i], state, sizeof state);
			printf("%-9s  %-16s %-10s %-19s  %s\n", v[i].handle,
			    v[i].name[0] != '\0' ? v[i].name : "-", state,
			    when, v[i].command);
		}
	}
	process_list_free(v, n);
	return 0;
}

/* process poll / log: the output, then the state. */
static int
proc_read(struct proc_args *a)
{
	struct process_state	 st;
	struct buf		 out = BUF_INIT;
	char			*cause = NULL, state[32];
	int			 rc;

	memset(&st, 0, sizeof st);
	if (a->sub == PROC_POLL)
		rc = process_poll(&a->at, a->argv[0], &st, &out, &cause);
	else
		rc = process_log(&a->at, a->argv[0], a->tail, &st, &out,
		    &cause);
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (a->json)
		proc_print_json(process_output_json(&st, out.data, out.len));
	else {
		if (out.len != 0 && fdio_write_all(STDOUT_FILENO, out.data,
		    out.len) != 0)
			rc = cmd_fail("cannot write the output");
		proc_state_word(&st, state, sizeof state);
		if (a->sub == PROC_POLL)
			fprintf(stderr, "[clawssh: process %s %s]\n",
			    st.handle, state);
	}
	process_state_clear(&st);
	buf_free(&out);
	return rc;
}

/*
 * process wait: block until it ends; print its state (or JSON) and exit
 * with its status: 0..255 (128+N for signal N), PROC_WAIT_TIMEDOUT if
 * --timeout passed first, CMD_EXIT_FAILURE if it was lost.  With --json
 * the object says all that and the exit status is 0 (as for poll).
 */
static int
proc_wait(struct proc_args *a)
{
	struct process_state	 st;
	char			*cause = NULL, state[32];
	int			 rc;

	memset(&st, 0, sizeof st);
	if (process_wait(&a->at, a->argv[0], a->timeout >= 0 ?
	    (int64_t)a->timeout * 1000 : -1, &st, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (a->json)
		proc_print_json(process_state_json(&st));
	else {
		proc_state_word(&st, state, sizeof state);
		fprintf(stderr, "[clawssh: process %s %s]\n", st.handle,
		    state);
	}
	if (a->json)
		rc = 0;
	else if (st.run == PROCESS_RUNNING)
		rc = PROC_WAIT_TIMEDOUT;
	else if (st.run == PROCESS_LOST || st.exit_status < 0)
		rc = CMD_EXIT_FAILURE;
	else
		rc = st.exit_status;
	process_state_clear(&st);
	return rc;
}

/* process write and kill. */
static int
proc_act(struct proc_args *a)
{
	char	*cause = NULL;
	int	 rc, running = 1;

	if (a->sub == PROC_WRITE)
		rc = process_write(&a->at, a->argv[0], NULL, 0, STDIN_FILENO,
		    a->eof, &cause);
	else
		rc = process_kill(&a->at, a->argv[0], a->signal, &running,
		    &cause);
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (!running)
		fprintf(stderr, "clawssh: process %s had already exited\n",
		    a->argv[0]);
	return 0;
}

/* Load the sandbox, apply the config's environment, connect. */
static int
proc_setup(struct proc_args *a)
{
	int	rc;

	if ((rc = cmd_box_load(&a->box, a->sandbox)) != 0)
		return rc;
	if (a->sub == PROC_START &&
	    (rc = cmd_env_config(&a->env, a->box.cc.cfg)) != 0)
		return rc;
	a->sd = xasprintf("%s/%s", a->box.rec->remote_root, a->box.rec->id);
	if ((rc = cmd_box_connect(&a->box)) != 0 || a->sub == PROC_START ||
	    (rc = cmd_env_agent(&a->box, &a->agent)) != 0)
		return rc;
	a->at.t = a->box.t;
	a->at.sd = a->sd;
	a->at.agent = a->agent;
	a->at.agent_lost = &a->agent_lost;
	log_debug("process %s: %s", proc_subs[a->sub], a->agent != NULL ?
	    "the host agent's proc-* command" : "the host's sh script");
	return 0;
}

/* Release everything the arguments own. */
static void
proc_args_free(struct proc_args *a)
{
	cmd_env_free(&a->env);
	free(a->sd);
	free(a->agent);
	cmd_box_free(&a->box);
}

/* The process command; see clawssh(1). */
int
cmd_process(int argc, char **argv)
{
	struct proc_args	a;
	size_t			i;
	int			rc;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		printf("%s\n  -s, --sandbox ID      the sandbox, as provision "
		    "printed it\n%s\nEach one's own options: clawssh "
		    "process SUB --help.\n", proc_usage, CMD_CONN_USAGE);
		return 0;
	}
	memset(&a, 0, sizeof a);
	a.timeout = -1;
	for (i = 0; argc >= 2 && i < sizeof proc_subs / sizeof *proc_subs;
	    i++) {
		if (strcmp(argv[1], proc_subs[i]) == 0)
			break;
	}
	if (argc < 2 || i == sizeof proc_subs / sizeof *proc_subs)
		return cmd_fail("usage: clawssh process "
		    "start|list|poll|log|write|kill|wait ... (see 'clawssh "
		    "process --help')");
	a.sub = (enum proc_sub)i;
	if ((rc = proc_parse_args(argc - 1, argv + 1, &a)) == 0 &&
	    (rc = proc_setup(&a)) == 0) {
		if (a.sub == PROC_START)
			rc = proc_start(&a);
		else if (a.sub == PROC_LIST)
			rc = proc_list(&a);
		else if (a.sub == PROC_POLL || a.sub == PROC_LOG)
			rc = proc_read(&a);
		else if (a.sub == PROC_WAIT)
			rc = proc_wait(&a);
		else
			rc = proc_act(&a);
		if (a.agent_lost)
			cmd_env_agent_forget(&a.box);
	}
	proc_args_free(&a);
	return rc < 0 ? 0 : rc;
}

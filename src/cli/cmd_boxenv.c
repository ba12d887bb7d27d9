/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A sandbox's persistent environment from the command line: clawssh stop
 * ID (end its processes, keep the workspace), clawssh start ID, and what
 * clawssh status shows of it.  See cmd_boxenv.h and docs/agent.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "box_stop.h"
#include "buf.h"
#include "cmd.h"
#include "cmd_box.h"
#include "cmd_boxenv.h"
#include "cmd_conn.h"
#include "cmd_ops.h"
#include "cmd_env.h"
#include "contain_bwrap.h"
#include "contain_oci.h"
#include "error.h"
#include "exec.h"
#include "host_sh.h"
#include "hostdir.h"
#include "hostdir_scripts.h"
#include "log.h"
#include "registry.h"
#include "remote_err.h"
#include "shquote.h"
#include "transport.h"
#include "xmalloc.h"

#define BOXENV_OUT_MAX	(1024 * 1024)	/* box-status's JSON */
#define BOXENV_ENTRY_MAX (1024 * 1024 + 4096)	/* box-entry's, before it */
#define BOXENV_ERR_MAX	(64 * 1024)

static const char stop_usage[] =
    "usage: clawssh stop [--json] [options] ID\n\n"
    "End every process of a sandbox (its environment and its background\n"
    "processes); the workspace stays.  The next command starts it again.\n";
static const char start_usage[] =
    "usage: clawssh start [--json] [options] ID\n\n"
    "Start a sandbox's environment now rather than at its next command.\n";

/*
 * The scripts are in src/host (src/host/host_sh.h), each taking the
 * parameters boxenv_params sets: $1 the sandbox directory, $2 its run
 * directory, $3 the agent ('' when none).  boxenv_procs.sh ends the
 * sandbox's background processes and sets $id; boxenv_stop_bwrap.sh ends
 * the bwrap holder, printing "stopped" or "not running", before the
 * removal of the sandbox's cgroups; boxenv_status.sh prints box-status's
 * JSON.
 */
/*
 * Parse the options of stop/start (the operations table's sandbox.stop
 * and sandbox.start), load and connect the sandbox; 0, or an exit
 * status (CMD_EXIT_HELP after --help).
 */
static int
boxenv_parse(int argc, char **argv, struct cmd_box *b, int *json,
    const char *name)
{
	struct cmd_ops	o;
	int		rc, stop = strcmp(name, "stop") == 0;

	rc = cmd_ops_parse(&o, stop ? "sandbox.stop" : "sandbox.start", &b->cc,
	    stop ? stop_usage : start_usage, argc, argv);
	*json = rc == 0 && cmd_ops_flag(&o, "json");
	cmd_ops_free(&o);	/* keeps the operands: they are argv's */
	if (rc != 0)
		return rc == -1 ? CMD_EXIT_HELP : rc;
	if (o.noperands != 1)
		return cmd_fail("usage: clawssh %s [--json] [options] ID",
		    name);
	if ((rc = cmd_box_load(b, o.operands[0])) != 0 ||
	    (rc = cmd_box_connect(b)) != 0)
		return rc;
	return 0;
}

/* Run script on b's host; its stdout in out.  0, or an exit status. */
static int
boxenv_run(struct cmd_box *b, const char *script, struct buf *out)
{
	struct buf	 err = BUF_INIT;
	char		*cause = NULL;
	int		 rc, status = 0;

	rc = exec_script(b->t, script, NULL, 0, BOXENV_OUT_MAX, out, &err,
	    &status, &cause);
	if (rc == 0 && status != 0) {
		cause = remote_err_explain(b->t, &err, status);
		rc = CLAW_ERR_PROTO;
	}
	buf_free(&err);
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
	}
	return rc;
}

/*
 * The sandbox directory of b, its run directory and the agent (NULL when
 * none), allocated, the parameters of the boxenv scripts; 0, or an exit
 * status after printing why.
 */
static int
boxenv_where(struct cmd_box *b, char **dir, char **run, char **agent)
{
	const struct registry_record	*r = b->rec;
	int				 rc;

	*agent = NULL;
	if (r->settings.runtime == CONTAIN_BWRAP &&
	    (rc = cmd_env_agent(b, agent)) != 0)
		return rc;
	*dir = xasprintf("%s/%s", r->remote_root, r->id);
	*run = contain_bwrap_rundir(r->remote_root, r->id);
	return 0;
}

/*
 * Append "set -- " and the parameters of the boxenv scripts, quoted; 0,
 * or an exit status after printing why.
 */
static int
boxenv_params(struct cmd_box *b, struct buf *s)
{
	char	*dir, *run, *agent;
	int	 rc;

	if ((rc = boxenv_where(b, &dir, &run, &agent)) != 0)
		return rc;
	box_script_params(s, dir, run, agent);
	free(agent);
	free(run);
	free(dir);
	return 0;
}

/* Print the outcome of stop or start. */
static void
boxenv_said(const char *id, const char *state, int json)
{
	cJSON	*o;

	if (!json) {
		printf("%s %s\n", state, id);
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "state", state);
	cmd_print_json(o);
	cJSON_Delete(o);
}

/*
 * The stop script of b's sandbox: its background processes, then its
 * environment (the bwrap holder, or the docker/podman container).  NULL
 * after printing why.
 */
static char *
boxenv_stop_script(struct cmd_box *b)
{
	const struct registry_record	*r = b->rec;
	struct buf			 s = BUF_INIT;
	char				*oci, *cause = NULL, *dir, *run, *agent;

	if (boxenv_where(b, &dir, &run, &agent) != 0)
		return NULL;
	box_stop_start(&s, dir, run, agent);
	free(dir);
	free(run);
	free(agent);
	if (r->settings.runtime == CONTAIN_BWRAP)
		box_stop_end_bwrap(&s);
	else if (r->settings.runtime == CONTAIN_NONE)
		buf_append_str(&s, "echo stopped\n");
	else if ((oci = contain_oci_stop(r->settings.runtime, r->id,
	    &cause)) != NULL) {
		buf_append_str(&s, oci);
		free(oci);
	} else {
		cmd_fail("%s", cause);
		free(cause);
		buf_free(&s);
	}
	return s.data != NULL ? buf_detach(&s) : NULL;
}

/* The stop command; see clawssh(1). */
int
cmd_stop(int argc, char **argv)
{
	struct cmd_box	 b;
	struct buf	 out = BUF_INIT;
	const char	*state;
	char		*script;
	int		 rc, json = 0;

	memset(&b, 0, sizeof b);
	if ((rc = boxenv_parse(argc, argv, &b, &json, "stop")) != 0)
		goto out;
	if ((script = boxenv_stop_script(&b)) == NULL) {
		rc = CMD_EXIT_FAILURE;
		goto out;
	}
	rc = boxenv_run(&b, script, &out);
	free(script);
	if (rc == 0 && (state = box_stop_state(&out)) == NULL)
		rc = cmd_fail("%s: malformed answer to stop",
		    transport_label(b.t));
	else if (rc == 0)
		boxenv_said(b.rec->id, state, json);
out:
	buf_free(&out);
	cmd_box_free(&b);
	return rc;
}

/* Whether env (box-status's answer) says the holder runs. */
static int
boxenv_running(const cJSON *env)
{
	return env != NULL && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
	    env, "running"));
}

/* The start command; see clawssh(1). */
int
cmd_start(int argc, char **argv)
{
	struct cmd_box		 b;
	struct sandbox_settings	 now;
	struct cmd_env		 e = { NULL, 0 };
	struct exec_opts	 eo;
	cJSON			*env = NULL;
	char			*wrap = NULL, *pre = NULL, *cause = NULL;
	char			*argv1[] = { (char *)(uintptr_t)"true", NULL };
	int			 rc, json = 0, status = 0, was;

	memset(&b, 0, sizeof b);
	if ((rc = boxenv_parse(argc, argv, &b, &json, "start")) != 0)
		goto out;
	if (b.rec->settings.runtime == CONTAIN_NONE) {
		rc = cmd_fail("sandbox %s: runtime none keeps no environment "
		    "to start", b.rec->id);
		goto out;
	}
	was = boxenv_running(env = cmd_boxenv_status(&b));
	cJSON_Delete(env);
	cmd_box_settings(&b, &b.rec->settings, &now);
	if ((rc = cmd_env_wrap(&b, &now, &e, NULL, NULL, NULL, &wrap,
	    NULL)) != 0)
		goto out;
	pre = hostdir_exec_pre(b.rec->remote_root, b.rec->id);
	memset(&eo, 0, sizeof eo);
	eo.argc = 1;
	eo.argv = argv1;
	eo.pre = pre;
	eo.wrap = wrap;
	eo.out.fd = STDERR_FILENO;
	eo.err.fd = STDERR_FILENO;
	if (exec_run(b.t, &eo, &status, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
	} else if (status != 0)
		rc = cmd_fail("sandbox %s: its environment did not start "
		    "(status %d)", b.rec->id, status);
	else if (!boxenv_running(env = cmd_boxenv_status(&b)))
		rc = cmd_fail("sandbox %s: no persistent environment on %s "
		    "(clawssh -v exec says why)", b.rec->id,
		    transport_label(b.t));
	else
		boxenv_said(b.rec->id, was ? "running" : "started", json);
	cJSON_Delete(env);
out:
	free(pre);
	free(wrap);
	cmd_box_free(&b);
	return rc;
}

/*
 * The docker/podman status lines (contain_oci_status) as the JSON of
 * cmd_boxenv_status: {"running", "state", "memory", "processes":
 * [LINE...]}.
 */
static cJSON *
boxenv_oci_json(const char *text)
{
	cJSON		*o = cJSON_CreateObject(), *procs;
	const char	*p = text, *nl;
	char		*line;

	procs = cJSON_AddArrayToObject(o, "processes");
	for (; *p != '\0'; p = *nl != '\0' ? nl + 1 : nl) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p);
		line = xstrndup(p, (size_t)(nl - p));
		if (strncmp(line, "state: ", 7) == 0)
			cJSON_AddStringToObject(o, "state", line + 7);
		else if (strncmp(line, "memory: ", 8) == 0)
			cJSON_AddStringToObject(o, "memory", line + 8);
		else if (strncmp(line, "  ", 2) == 0 &&
		    cJSON_GetArraySize(procs) < 4096)
			cJSON_AddItemToArray(procs, cJSON_CreateString(line +
			    2));
		free(line);
	}
	cJSON_AddBoolToObject(o, "running", cJSON_GetObjectItemCaseSensitive(
	    o, "state") != NULL && strcmp(cJSON_GetObjectItemCaseSensitive(o,
	    "state")->valuestring, "running") == 0);
	return o;
}

/* The status script of b's sandbox, or NULL (none, or after a warning). */
static char *
boxenv_status_script(struct cmd_box *b)
{
	const struct registry_record	*r = b->rec;
	struct buf			 s = BUF_INIT;
	char				*script, *cause = NULL;

	if (r->settings.runtime == CONTAIN_NONE)
		return NULL;
	if (r->settings.runtime != CONTAIN_BWRAP) {
		if ((script = contain_oci_status(r->settings.runtime, r->id,
		    &cause)) == NULL) {
			log_warn("%s", cause);
			free(cause);
		}
		return script;
	}
	if (boxenv_params(b, &s) != 0) {
		buf_free(&s);
		return NULL;
	}
	buf_append_str(&s, HOST_SH_BOXENV_STATUS);
	return buf_detach(&s);
}

/* What the environment does now; see cmd_boxenv.h. */
cJSON *
cmd_boxenv_status(struct cmd_box *b)
{
	struct buf	 out = BUF_INIT;
	char		*script;
	cJSON		*o = NULL;

	if ((script = boxenv_status_script(b)) == NULL)
		return NULL;
	if (boxenv_run(b, script, &out) == 0) {
		buf_append(&out, "", 1);
		if (b->rec->settings.runtime != CONTAIN_BWRAP)
			o = boxenv_oci_json(out.data);
		else if ((o = cJSON_Parse(out.data)) != NULL &&
		    !cJSON_IsObject(o)) {
			cJSON_Delete(o);
			o = NULL;
		}
		if (o == NULL)
			log_warn("%s: malformed status of the sandbox "
			    "environment", transport_label(b->t));
	}
	free(script);
	buf_free(&out);
	return o;
}

/* status's one step; see cmd_boxenv.h. */
int
cmd_boxenv_status_entry(struct cmd_box *b, struct hostdir_listing *l,
    cJSON **env)
{
	const struct registry_record	*r = b->rec;
	struct buf			 out = BUF_INIT, err = BUF_INIT;
	char				*dir, *run, *agent, *cmd;
	char				*cause = NULL;
	size_t				 at = 0;
	int				 rc = 1, status = 0;

	*env = NULL;
	if (r->settings.runtime != CONTAIN_BWRAP)
		return 1;
	if (boxenv_where(b, &dir, &run, &agent) != 0)
		return 2;	/* said why; cmd_boxenv_status would again */
	if (agent != NULL) {
		cmd = hostdir_entry_command(agent, r->remote_root, r->id, run);
		if ((rc = exec_script(b->t, cmd, NULL, 0, BOXENV_OUT_MAX +
		    BOXENV_ENTRY_MAX, &out, &err, &status, &cause)) == 0 &&
		    (rc = status) == 0 &&
		    (rc = hostdir_parse_entry_env(transport_label(b->t), &out,
		    l, &at, &cause)) != 0)
			hostdir_listing_clear(l);
		if (rc != 0)	/* an older agent, or a failure: two steps */
			log_info("%s: status in one step: %s; in two",
			    transport_label(b->t), cause != NULL ? cause :
			    "the agent refused");
		free(cmd);
	}
	free(cause);
	free(dir);
	free(run);
	free(agent);
	buf_free(&err);
	if (rc != 0) {
		buf_free(&out);
		return 1;
	}
	log_info("%s: status in one step (the host agent's box-entry)",
	    transport_label(b->t));
	buf_append(&out, "", 1);
	if ((*env = cJSON_Parse(out.data + at)) != NULL &&
	    !cJSON_IsObject(*env)) {
		cJSON_Delete(*env);
		*env = NULL;
	}
	if (*env == NULL)
		log_warn("%s: malformed status of the sandbox environment",
		    transport_label(b->t));
	buf_free(&out);
	return 0;
}

/* A number member of o, or -1. */
static double
boxenv_num(const cJSON *o, const char *name)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 ? v->valuedouble : -1;
}

/* Print at most max bytes of s, each unprintable one as '?'. */
static void
boxenv_print_safe(const char *s, size_t max)
{
	for (; *s != '\0' && max > 0; s++, max--)
		putchar((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f ?
		    '?' : *s);
}

/* Print what status shows of env; see cmd_boxenv.h. */
void
cmd_boxenv_print(const cJSON *env)
{
	const cJSON	*procs, *p, *cmd, *mem;
	double		 rss = 0;
	int		 n = 0;

	if (!boxenv_running(env)) {
		printf("environment: not running\n");
		return;
	}
	procs = cJSON_GetObjectItemCaseSensitive(env, "processes");
	cJSON_ArrayForEach(p, procs) {
		n++;
		rss += boxenv_num(p, "rss_kb") > 0 ? boxenv_num(p, "rss_kb") : 0;
	}
	mem = cJSON_GetObjectItemCaseSensitive(env, "memory");
	if (cJSON_IsString(mem)) {
		printf("environment: running (container), memory ");
		boxenv_print_safe(mem->valuestring, 80);
		printf("\n");
		cJSON_ArrayForEach(p, procs) {
			printf("  ");
			boxenv_print_safe(cJSON_IsString(p) ? p->valuestring :
			    "?", 160);
			putchar('\n');
		}
		return;
	}
	printf("environment: running, %d processes, %.0f kB resident\n", n,
	    rss);
	printf("  %7s %7s %10s %8s  %s\n", "PID", "RSS_KB", "CPU_MS", "AGE_S",
	    "COMMAND");
	cJSON_ArrayForEach(p, procs) {
		cmd = cJSON_GetObjectItemCaseSensitive(p, "cmd");
		printf("  %7.0f %7.0f %10.0f %8.0f  ", boxenv_num(p, "pid"),
		    boxenv_num(p, "rss_kb"), boxenv_num(p, "cpu_ms"),
		    boxenv_num(p, "age_s"));
		boxenv_print_safe(cJSON_IsString(cmd) ? cmd->valuestring : "?",
		    80);
		putchar('\n');
	}
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh exec: run one command on a remote host or in a sandbox.
 *
 *	clawssh exec [--host] TARGET [options] -- CMD [ARG...]
 *	clawssh exec -s ID [options] -- CMD [ARG...]
 *	clawssh shell [options] ID
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "agent_req.h"
#include "clawconfig.h"
#include "clock.h"
#include "cmd.h"
#include "cmd_box.h"
#include "cmd_conn.h"
#include "cmd_env.h"
#include "cmd_ops.h"
#include "cmd_exec_bg.h"
#include "cmd_exec_route.h"
#include "contain_bwrap.h"
#include "error.h"
#include "exec.h"
#include "log.h"
#include "mirror.h"
#include "mux_client.h"
#include "pathguard.h"
#include "pty.h"
#include "registry.h"
#include "remote_cmd.h"
#include "signals.h"
#include "transport.h"
#include "tty.h"
#include "xmalloc.h"

struct exec_args {
	struct cmd_box	 box;		/* box.cc: the connection options */
	const char	*sandbox;	/* -s ID */
	struct cmd_env	 env;		/* --env, then config.json's */
	const char	*cwd;
	int		 timeout;	/* -1: not given */
	int		 interactive;	/* -i */
	int		 tty;		/* -t given this many times */
	int		 no_tty;	/* -T */
	unsigned	 cols, rows;	/* --size, or 0 */
	struct cmd_env_tty term;	/* decided: a pty, a login shell */
	char		*login_argv[4];	/* shell: sh -c LOGIN */
	int		 no_sync;	/* --no-sync */
	int		 mass_delete;	/* --allow-mass-delete */
	int		 background;	/* --background */
	int64_t		 yield_ms;	/* --yield-ms, -1: not given */
	int		 json;		/* --json (with those two) */
	int		 sync_json;	/* --sync-json */
	int		 route_json;	/* --route-json (hidden) */
	int		 argc;
	char		**argv;
	struct contain_limits limits;	/* in force when contained */
	struct sandbox_settings now;	/* -s: the settings in force */
	int		 watches;	/* the runtime's wrapper watches
					   the connection itself */
	struct contain_route route;	/* through the daemon's host agent
					   channel, when dir is set */
};

static const char exec_usage[] =
    "usage: clawssh exec [--host] TARGET [options] -- CMD [ARG...]\n"
    "       clawssh exec -s ID [options] -- CMD [ARG...]\n"
    "\n"
    "TARGET is [user@]host[:port] or a Host alias from the ssh config;\n"
    "-s ID (--sandbox ID) runs in the workspace of a sandbox made by\n"
    "'clawssh provision'.  --env NAME=VALUE sets a variable, --env NAME\n"
    "passes this one's; neither value reaches a remote argv.\n";

/* --size COLSxROWS: 0, or the exit status on error. */
static int
exec_parse_size(struct exec_args *a, const char *arg)
{
	const char	*x = strchr(arg, 'x');
	char		*cols;
	int		 c, r, rc;

	if (x == NULL)
		return cmd_fail("bad --size '%s': want COLSxROWS", arg);
	cols = xstrndup(arg, (size_t)(x - arg));
	rc = cmd_parse_int(cols, 1, PTY_SIZE_MAX, &c) != 0 ||
	    cmd_parse_int(x + 1, 1, PTY_SIZE_MAX, &r) != 0;
	free(cols);
	if (rc != 0)
		return cmd_fail("bad --size '%s': want COLSxROWS, each from 1 "
		    "to %d", arg, PTY_SIZE_MAX);
	a->cols = (unsigned)c;
	a->rows = (unsigned)r;
	return 0;
}

/*
 * Take exec's or shell's parsed options into a (shell has some of
 * exec's: the others read as not given); 0, or the exit status on error.
 */
static int
exec_take(struct exec_args *a, const struct cmd_ops *o)
{
	const char	*v;
	int64_t		 n;
	int		 rc;

	a->interactive = cmd_ops_flag(o, "interactive");
	a->tty = cmd_ops_count(o, "tty");
	a->no_tty = cmd_ops_flag(o, "no_tty");
	if ((v = cmd_ops_get(o, "size")) != NULL &&
	    (rc = exec_parse_size(a, v)) != 0)
		return rc;
	a->sandbox = cmd_ops_get(o, "sandbox");
	a->cwd = cmd_ops_get(o, "cwd");
	if ((rc = cmd_env_options(&a->env, o)) != 0)
		return rc;
	if ((v = cmd_ops_get(o, "host")) != NULL)
		a->box.cc.target = v;
	if (cmd_ops_flag(o, "strict_config"))
		a->box.strict_config = 1;
	a->no_sync = cmd_ops_flag(o, "no_sync");
	a->mass_delete = cmd_ops_flag(o, "allow_mass_delete");
	a->background = cmd_ops_flag(o, "background");
	a->sync_json = cmd_ops_flag(o, "sync_json");
	a->route_json = cmd_ops_flag(o, "route_json");
	a->json = cmd_ops_flag(o, "json");
	if (cmd_ops_int(o, "yield_ms", &n))
		a->yield_ms = n;
	if (cmd_ops_int(o, "timeout", &n))
		a->timeout = (int)n;
	return 0;
}

/*
 * Decide on a pseudo-terminal as ssh does: -t when stdin is a terminal
 * (else ssh's note), -tt always, -T never (it wins); a foreground
 * command only.  0, or the exit status on error.
 */
static int
exec_check_tty(struct exec_args *a)
{
	if (a->no_tty)
		a->tty = 0;
	if (a->tty == 0) {
		if (a->cols != 0)
			return cmd_fail("--size goes with -t or -tt");
		return 0;
	}
	if (a->background || a->yield_ms >= 0)
		return cmd_fail("-t goes with a foreground command, not "
		    "--background or --yield-ms");
	if (a->tty == 1 && !isatty(STDIN_FILENO)) {
		fputs("Pseudo-terminal will not be allocated because stdin "
		    "is not a terminal.\n", stderr);
		return 0;
	}
	a->term.pty = 1;
	return 0;
}

/* Parse the command line into a; returns 0, -1 for --help, or a status. */
static int
exec_parse_args(int argc, char **argv, struct exec_args *a)
{
	struct cmd_ops	o;
	int		rc;

	rc = cmd_ops_parse(&o, "exec", &a->box.cc, exec_usage, argc, argv);
	if (rc == 0)
		rc = exec_take(a, &o);
	if (rc == 0 && o.nbefore > 0) {		/* TARGET */
		if (a->box.cc.target == NULL && a->sandbox == NULL)
			a->box.cc.target = o.before[0];
		else
			rc = cmd_fail("unexpected argument '%s' before '--' "
			    "(put the command after '--')", o.before[0]);
	}
	a->argc = o.noperands;
	a->argv = o.operands;
	cmd_ops_free(&o);	/* keeps the words: they are argv's */
	if (rc != 0)
		return rc;
	if ((a->box.cc.target == NULL) == (a->sandbox == NULL))
		return cmd_fail("give a TARGET or -s ID (see 'clawssh exec "
		    "--help')");
	if (a->argc == 0)
		return cmd_fail("no command given after '--'");
	if ((a->background || a->yield_ms >= 0) && a->sandbox == NULL)
		return cmd_fail("--background and --yield-ms need -s ID");
	if (a->background && a->yield_ms >= 0)
		return cmd_fail("give --background or --yield-ms, not both");
	if (a->json && !a->background && a->yield_ms < 0)
		return cmd_fail("--json goes with --background or --yield-ms");
	if (a->route_json && a->sandbox == NULL)
		return cmd_fail("--route-json needs -s ID");
	return exec_check_tty(a);
}

/* Fold the config file's exec settings in, after the command line's. */
static int
exec_apply_config(struct exec_args *a, const struct claw_config *c)
{
	if (a->timeout < 0)
		a->timeout = c->exec_timeout;
	return cmd_env_config(&a->env, c);
}

/*
 * With -s (the record loaded): the workspace as cwd, the check-and-touch,
 * the stale check.
 */
static int
exec_sandbox(struct exec_args *a, char **pre, char **cwd)
{
	struct registry_record	*rec;
	char			*ws;
	int			 rc;

	rec = a->box.rec;
	cmd_box_settings(&a->box, &rec->settings, &a->now);
	if ((rc = cmd_box_stale(&a->box, rec->id, rec->config_hash,
	    &a->now)) != 0)
		return rc;
	ws = hostdir_workspace(rec->remote_root, rec->id);
	*pre = hostdir_exec_pre(rec->remote_root, rec->id);
	if (a->term.login) {
		a->login_argv[0] = (char *)(uintptr_t)"sh";
		a->login_argv[1] = (char *)(uintptr_t)"-c";
		a->login_argv[2] = (char *)(uintptr_t)cmd_env_login(&a->now);
		a->argc = 3;
		a->argv = a->login_argv;
	}
	if (a->cwd == NULL)
		*cwd = ws;
	else {
		*cwd = a->cwd[0] == '/' ? xstrdup(a->cwd) :
		    xasprintf("%s/%s", ws, a->cwd);
		free(ws);
	}
	return 0;
}

/*
 * Whether a contained command may go through the daemon's host agent
 * channel (clawssh-agent serve on the host, no shell there): in the
 * foreground, connected through the daemon, not CLAWSSH_NO_AGENT_ROUTE.
 */
static int
exec_routable(const struct exec_args *a)
{
	const char	*no = getenv("CLAWSSH_NO_AGENT_ROUTE");

	return !a->background && a->yield_ms < 0 &&
	    transport_mux(a->box.t) != NULL && (no == NULL || *no == '\0' ||
	    strcmp(no, "0") == 0);
}

/*
 * With -s, once connected (the runtime may ask the host for its agent):
 * the runtime's wrapper, and the limits it applies.
 */
static int
exec_wrap(struct exec_args *a, char **wrap)
{
	int	rc;

	if (a->sandbox == NULL)
		return 0;
	if ((rc = cmd_env_wrap(&a->box, &a->now, &a->env, a->cwd, &a->term,
	    &a->watches, wrap, exec_routable(a) ? &a->route : NULL)) != 0)
		return rc;
	if (*wrap != NULL)
		a->limits = a->now.limits;
	return 0;
}

/*
 * Whether this exec mirrors the workspace around the command (not with
 * access none: the command sees only its private workspace).
 */
static int
exec_mirrors(const struct exec_args *a)
{
	return a->sandbox != NULL && !a->no_sync &&
	    a->box.rec->settings.mode == SANDBOX_MODE_MIRROR &&
	    a->box.rec->settings.access != SANDBOX_ACCESS_NONE;
}

/*
 * Mirror mode: open the sync state and push local changes up (small ones
 * go with a foreground command instead).
 */
static int
exec_sync_up(struct exec_args *a, struct mirror *m, struct pathguard **pg)
{
	char	*cause = NULL;
	int	 rc;

	if ((rc = pathguard_open(a->box.rec->workspace, pg, &cause)) != 0) {
		rc = cmd_fail("workspace: %s", cause);
		free(cause);
		return rc;
	}
	if ((rc = cmd_box_mirror(&a->box, *pg, m, &cause)) == 0) {
		/*
		 * Not with a terminal (it would mangle a tar), nor where the
		 * steps join the environment: a push of its own there and
		 * the command on the agent's channel cost less than the
		 * shell path a packed push needs.
		 */
		m->allow_inline = !a->background && a->yield_ms < 0 &&
		    !a->term.pty && (m->hw.agent == NULL ||
		    transport_mux(a->box.t) == NULL);
		m->allow_mass_delete = a->mass_delete;
		rc = mirror_push(m, &cause);
	}
	if (rc != 0) {
		rc = cmd_fail("sync up: %s", cause);
		free(cause);
	}
	return rc;
}

/*
 * Mirror mode: bring the command's changes down.  A pull that fails
 * after the command ran must not hide the command's status: both go to
 * stderr, and *err keeps the failure for --sync-json.
 */
static int
exec_sync_down(struct mirror *m, int status, char **err)
{
	char	*cause = NULL;
	int	 rc;

	if ((rc = mirror_pull(m, &cause)) != 0) {
		/*
		 * One line, the cause last: a gateway shows a worker's last
		 * "clawssh: " line as the call's error.
		 */
		rc = cmd_fail("the command ran and exited with status %d, "
		    "but not all its changes came back (exit status %d): "
		    "sync down: %s", status, status != 0 ? status :
		    CMD_EXIT_FAILURE, cause);
		*err = cause;
		return rc;
	}
	log_info("synced: up %llu files, down %llu files, %zu deleted "
	    "there, %zu deleted here, %zu conflicts",
	    (unsigned long long)m->up.files,
	    (unsigned long long)m->down.files, m->deleted_remote,
	    m->deleted_local, m->conflicts);
	return 0;
}

/* Say which limit a contained command's end points at, if any. */
static void
exec_limit_note(const struct contain_limits *l, int status)
{
	char	*note = contain_limit_note(l, status);

	if (note != NULL)
		log_warn("%s", note);
	free(note);
}

/*
 * The pseudo-terminal to ask for: $TERM, the size from --size, else this
 * terminal's, the erase key this terminal has.
 */
static void
exec_pty(const struct exec_args *a, struct pty_req *pty)
{
	unsigned	cols = a->cols, rows = a->rows;

	if (cols == 0 && tty_size(STDIN_FILENO, &cols, &rows) != 0 &&
	    tty_size(STDOUT_FILENO, &cols, &rows) != 0)
		cols = rows = 0;
	pty_req_init(pty, getenv("TERM"), cols, rows,
	    tty_erase_char(STDIN_FILENO));
}

/*
 * Run eo: through the host agent's channel when a->route has one and
 * routable (no inline push goes along), else, or when the agent path
 * refused before the command started (no holder yet, other settings, an
 * older daemon), through the shell and the runtime's wrapper.
 */
static int
exec_fg_run(struct exec_args *a, struct exec_opts *eo, int routable,
    int *status, char **cause)
{
	struct exec_agent	ea;
	int			rc, sig;

	/*
	 * A SIGTERM (a daemon's worker whose client left) or SIGINT caught
	 * before now may have been taken by a step before the command (the
	 * push) whose failure was not fatal: the command must not start.
	 */
	if ((sig = signals_caught(0)) != 0)
		return claw_fail(cause, CLAW_ERR_INTERRUPTED, "SIG%s before the "
		    "command started", signals_name(sig));
	if (a->route.dir != NULL && routable && eo->pty == NULL) {
		memset(&ea, 0, sizeof ea);
		ea.path = a->route.agent;
		ea.dir = a->route.dir;
		ea.spec = a->route.token;
		ea.cwd = a->route.cwd;
		eo->agent = &ea;
		rc = exec_run(a->box.t, eo, status, cause);
		eo->agent = NULL;
		if (rc != CLAW_ERR_UNSUPPORTED) {
			if (rc == 0)
				log_info("ran through the host agent's "
				    "channel");
			return rc;
		}
		log_info("the host agent's channel: %s; through the shell",
		    *cause != NULL ? *cause : "refused");
		free(*cause);
		*cause = NULL;
	}
	return exec_run(a->box.t, eo, status, cause);
}

/*
 * Run the command in the foreground; clears *mirroring on failure.  A
 * small push of m goes along with it (see mirror_inline).
 */
static int
exec_fg(struct exec_args *a, const char *pre, const char *cwd,
    const char *wrap, int *mirroring, struct mirror *m)
{
	struct exec_opts	 eo;
	struct pty_req		 pty;
	const char		*inl = NULL;
	char			*cause = NULL, *both = NULL;
	int			 status = CMD_EXIT_FAILURE, synced = 0;

	memset(&eo, 0, sizeof eo);
	if (*mirroring && (inl = mirror_inline(m, &eo.in_data,
	    &eo.in_len)) != NULL) {
		both = pre != NULL ? xasprintf("%s; %s", pre, inl) : NULL;
		pre = both != NULL ? both : inl;
		eo.synced = &synced;
	}
	eo.argc = a->argc;
	eo.argv = a->argv;
	eo.pre = pre;
	eo.cwd = cwd;
	eo.wrap = wrap;
	eo.wrap_watches = a->watches;
	eo.env = a->env.v;
	eo.nenv = a->env.n;
	eo.timeout = a->timeout > 0 ? a->timeout : 0;
	eo.forward_stdin = a->interactive || !isatty(STDIN_FILENO);
	eo.in_fd = STDIN_FILENO;
	eo.out.fd = STDOUT_FILENO;
	eo.err.fd = STDERR_FILENO;
	if (a->term.pty) {
		exec_pty(a, &pty);
		eo.pty = &pty;
		eo.tty_fd = isatty(STDIN_FILENO) ? STDIN_FILENO : -1;
		if (eo.tty_fd < 0)	/* a daemon's worker: exec.resize */
			eo.size_file = getenv("CLAWSSH_PTY_SIZE_FILE");
		eo.forward_stdin = 1;
	}
	if (exec_fg_run(a, &eo, inl == NULL && transport_mux(a->box.t) != NULL,
	    &status, &cause) != 0) {
		status = cmd_fail("%s", cause);
		free(cause);
		*mirroring = 0;
	} else if (status == EXEC_STATUS_TIMEOUT && eo.timeout > 0)
		log_warn(EXEC_TIMEOUT_NOTE, eo.timeout);
	else
		exec_limit_note(&a->limits, status);
	if (inl != NULL) {
		mirror_inline_done(m, synced);
		if (!synced && *mirroring) {
			status = cmd_fail("sync up: the local changes could "
			    "not be unpacked on the host; the command did "
			    "not run");
			*mirroring = 0;
		}
	}
	free(both);
	return status;
}

/* Run it as a background process; pulls only if it finished. */
static int
exec_bg(struct exec_args *a, const char *wrap, int *mirroring)
{
	struct cmd_exec_bg	bg;
	int			status, finished = 0;

	memset(&bg, 0, sizeof bg);
	bg.box = &a->box;
	bg.env = &a->env;
	bg.wrap = wrap;
	bg.argc = a->argc;
	bg.argv = a->argv;
	bg.yield_ms = a->background ? -1 : a->yield_ms;
	bg.json = a->json;
	status = cmd_exec_bg(&bg, &finished);
	if (!finished)
		*mirroring = 0;
	return status;
}

/*
 * --sync-json: one line on stderr saying what the mirror sync moved, the
 * command's own status (null if it did not run to an end) and, when the
 * pull failed, why.
 */
static void
exec_sync_json(const struct mirror *m, int64_t up_ms, int64_t down_ms,
    int pulled, int ran, int status, const char *err)
{
	cJSON	*e;
	char	*etext = NULL;

	if (err != NULL) {
		e = cJSON_CreateString(err);
		etext = cJSON_PrintUnformatted(e);
		cJSON_Delete(e);
	}
	if (ran)
		fprintf(stderr, "{\"status\": %d, ", status);
	else
		fputs("{\"status\": null, ", stderr);
	if (etext != NULL)
		fprintf(stderr, "\"error\": %s, ", etext);
	cJSON_free(etext);
	fprintf(stderr, "\"sync\": {\"up\": {\"files\": %llu, \"dirs\": "
	    "%llu, \"links\": %llu, \"bytes\": %llu, \"deleted\": %zu, "
	    "\"with_command\": %s, \"ms\": %lld, \"local\": \"%s\"}, "
	    "\"down\": {\"done\": %s, \"files\": %llu, \"dirs\": %llu, "
	    "\"links\": %llu, \"bytes\": %llu, \"deleted\": %zu, "
	    "\"conflicts\": %zu, \"refused\": %llu, \"ms\": %lld, "
	    "\"remote\": \"%s\"}}}\n",
	    (unsigned long long)m->up.files, (unsigned long long)m->up.dirs,
	    (unsigned long long)m->up.links, (unsigned long long)m->up.bytes,
	    m->deleted_remote, m->inl_pre != NULL ? "true" : "false",
	    (long long)up_ms, m->local_how != NULL ? m->local_how : "none",
	    pulled ? "true" : "false",
	    (unsigned long long)m->down.files,
	    (unsigned long long)m->down.dirs,
	    (unsigned long long)m->down.links,
	    (unsigned long long)m->down.bytes, m->deleted_local, m->conflicts,
	    (unsigned long long)m->down.refused, (long long)down_ms,
	    m->remote_how != NULL ? m->remote_how : "none");
}

/*
 * --route-json, once connected and the wrapper known: print the route
 * to this sandbox's persistent environment, for the daemon.
 */
static int
exec_route(struct exec_args *a)
{
	struct exec_route_out	 r;
	struct mux		*m = transport_mux(a->box.t);
	char			*files[4], *sd;
	int			 rc;

	if (a->box.warned)
		return cmd_fail("sandbox %s runs with older settings: no "
		    "route", a->sandbox);
	files[0] = registry_record_path(a->box.reg, a->sandbox);
	files[1] = a->box.cc.cfg->path != NULL ?
	    xstrdup(a->box.cc.cfg->path) : config_default_path(cmd_home());
	files[2] = cmd_conn_ssh_config_path(&a->box.cc);
	files[3] = NULL;
	if (files[1] == NULL) {		/* no config location at all */
		files[1] = files[2];
		files[2] = NULL;
	}
	memset(&r, 0, sizeof r);
	r.sandbox = a->sandbox;
	r.hello = m != NULL ? mux_hello_text(m) : NULL;
	r.route = a->route.dir != NULL ? &a->route : NULL;
	r.env = a->env.v;
	r.nenv = a->env.n;
	r.timeout = a->timeout > 0 ? a->timeout : 0;
	r.limits = &a->now.limits;
	r.mirror = exec_mirrors(a);
	if (a->now.mode == SANDBOX_MODE_MIRROR &&	/* as cmd_fs_open */
	    a->now.access != SANDBOX_ACCESS_NONE)
		r.fs_local = a->box.rec->workspace;
	r.fs_ro = a->now.access == SANDBOX_ACCESS_RO;
	r.fs_steps = r.fs_local == NULL &&	/* as cmd_box_hostws */
	    a->now.access != SANDBOX_ACCESS_NONE &&
	    cmd_box_steps_join(&a->now);
	r.label = transport_label(a->box.t);
	r.sandbox_dir = sd = xasprintf("%s/%s", a->box.rec->remote_root,
	    a->box.rec->id);
	r.files = files;
	rc = exec_route_print(&r);
	free(sd);
	free(files[0]);
	free(files[1]);
	free(files[2]);
	return rc;
}

/* Connect and run the command; returns the exit status. */
static int
exec_connect_run(struct exec_args *a, const char *pre, const char *cwd)
{
	struct mirror		 m;
	struct pathguard	*pg = NULL;
	int64_t			 t0, up_ms = 0, down_ms = 0;
	char			*err = NULL, *wrap = NULL;
	int			 rc, status = CMD_EXIT_FAILURE, mirroring = 0;
	int			 pulled = 0, ran, own;

	memset(&m, 0, sizeof m);
	m.statefd = -1;
	if ((rc = cmd_conn_resolve(&a->box.cc, &a->box.sc)) != 0 ||
	    (rc = cmd_conn_connect(&a->box.cc, a->box.sc, &a->box.t)) != 0 ||
	    (rc = exec_wrap(a, &wrap)) != 0)
		return rc;
	if (a->route_json) {
		free(wrap);
		return exec_route(a);
	}
	/*
	 * In the background, or without the daemon, the command goes its
	 * own way, its steps not.
	 */
	if ((a->background || a->yield_ms >= 0 ||
	    transport_mux(a->box.t) == NULL) && exec_mirrors(a) &&
	    (rc = cmd_env_steps_route(&a->box, &a->now, &a->route)) != 0) {
		free(wrap);
		return rc;
	}
	if (a->route.dir != NULL)	/* the sync's steps may take it too */
		a->box.steps = &a->route;
	if (exec_mirrors(a)) {
		t0 = clock_now_ms();
		if ((rc = exec_sync_up(a, &m, &pg)) != 0) {
			mirror_close(&m);
			pathguard_close(pg);
			free(wrap);
			return rc;
		}
		up_ms = clock_now_ms() - t0;
		mirroring = 1;
	}
	if (a->background || a->yield_ms >= 0)
		status = exec_bg(a, wrap, &mirroring);
	else
		status = exec_fg(a, pre, cwd, wrap, &mirroring, &m);
	ran = mirroring;	/* the command ran and ended */
	own = status;
	if (mirroring) {
		t0 = clock_now_ms();
		if (exec_sync_down(&m, status, &err) != 0 && status == 0)
			status = CMD_EXIT_FAILURE;
		else
			pulled = err == NULL;
		down_ms = clock_now_ms() - t0;
	}
	if (a->sync_json && exec_mirrors(a))
		exec_sync_json(&m, up_ms, down_ms, pulled, ran, own, err);
	free(err);
	free(wrap);
	mirror_close(&m);
	pathguard_close(pg);
	return status;
}

/* Release everything the arguments own. */
static void
exec_args_free(struct exec_args *a)
{
	contain_route_free(&a->route);
	cmd_env_free(&a->env);
	cmd_box_free(&a->box);
}

/*
 * Run what the parsed arguments a say (exec's and shell's common part):
 * load, the config, the sandbox, connect and run.  a is freed.
 */
static int
exec_main(struct exec_args *a, int rc)
{
	char	*pre = NULL, *cwd = NULL;

	if (rc != 0) {
		exec_args_free(a);
		return rc < 0 ? 0 : rc;
	}
	if (a->sandbox != NULL)
		rc = cmd_box_load(&a->box, a->sandbox);
	else
		rc = cmd_conn_load(&a->box.cc);
	if (rc == 0)
		rc = exec_apply_config(a, a->box.cc.cfg);
	if (a->term.login)
		a->timeout = 0;	/* an interactive shell: no exec.timeout */
	if (rc == 0 && a->sandbox != NULL)
		rc = exec_sandbox(a, &pre, &cwd);
	if (rc == 0)
		rc = exec_connect_run(a, pre, cwd != NULL ? cwd : a->cwd);
	free(pre);
	free(cwd);
	exec_args_free(a);
	return rc;
}

/* The exec command; see clawssh(1). */
int
cmd_exec(int argc, char **argv)
{
	struct exec_args	 a;

	memset(&a, 0, sizeof a);
	a.timeout = -1;
	a.yield_ms = -1;
	return exec_main(&a, exec_parse_args(argc, argv, &a));
}

static const char shell_usage[] =
    "usage: clawssh shell [options] ID\n"
    "\n"
    "An interactive login shell in the workspace of sandbox ID, on a\n"
    "pseudo-terminal (as exec -tt -s ID of a login shell).\n";

/* Parse shell's command line; 0, -1 for --help, or an exit status. */
static int
shell_parse_args(int argc, char **argv, struct exec_args *a)
{
	struct cmd_ops	o;
	int		rc;

	rc = cmd_ops_parse(&o, "sandbox.shell", &a->box.cc, shell_usage,
	    argc, argv);
	if (rc == 0)
		rc = exec_take(a, &o);
	cmd_ops_free(&o);	/* keeps the words: they are argv's */
	if (rc != 0)
		return rc;
	if (o.noperands != 1)
		return cmd_fail("give one sandbox ID (see 'clawssh shell "
		    "--help')");
	a->sandbox = o.operands[0];
	a->tty = 2;		/* -tt */
	a->term.login = 1;
	return exec_check_tty(a);
}

/* The shell command: exec -tt -s ID of a login shell; see clawssh(1). */
int
cmd_shell(int argc, char **argv)
{
	struct exec_args	 a;

	memset(&a, 0, sizeof a);
	a.timeout = -1;
	a.yield_ms = -1;
	return exec_main(&a, shell_parse_args(argc, argv, &a));
}

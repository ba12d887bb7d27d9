/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What exec and process start share: the --env list (NAME=VALUE, or NAME
 * valued from clawssh's own environment, then the config's exec.env) and
 * the runtime wrapper a contained sandbox's commands run in.
 */
#ifndef CLAW_CMD_ENV_H
#define CLAW_CMD_ENV_H

#include <stddef.h>

struct claw_config;
struct claw_env;
struct cmd_box;
struct contain_route;
struct sandbox_settings;

/*
 * How a command meets a terminal: what exec -t/-tt and shell hand the
 * runtime a sandbox's command runs in (the hook for a sandbox's exec
 * path).  Today's runtimes: none and bwrap take the remote
 * pseudo-terminal as it is (bwrap keeps --new-session, so a shell there
 * has no job control); docker and podman run with -t.
 */
struct cmd_env_tty {
	int	pty;	/* stdin, stdout, stderr: a pseudo-terminal */
	int	login;	/* an interactive login shell (cmd_env_login) */
	int	detached; /* no terminal of the caller's (a background
			     process): only the host agent can make one,
			     in a bwrap sandbox */
};

/* An environment list being built. */
struct cmd_env {
	struct claw_env	*v;
	size_t		 n;
};

/*
 * Add NAME=VALUE, or NAME with the value of our own NAME, to e; an
 * existing NAME is replaced when replace is set, else kept.  Returns 0 or
 * an exit status (message printed).
 */
int	cmd_env_add(struct cmd_env *e, const char *spec, int replace);

struct cmd_ops;

/* Add the --env options parsed into o (cmd_env_add, replacing). */
int	cmd_env_options(struct cmd_env *e, const struct cmd_ops *o);

/* Add the config's exec.env entries that the command line did not set. */
int	cmd_env_config(struct cmd_env *e, const struct claw_config *c);

/* Wipe the values and free everything. */
void	cmd_env_free(struct cmd_env *e);

/*
 * Set *path (allocated) to the host agent of b's connected host, or NULL
 * when the host cannot run it (said at -v) or CLAWSSH_NO_AGENT=1: it is
 * uploaded on first use and remembered in the state directory.  0, or an
 * exit status after printing why.
 */
int	cmd_env_agent(const struct cmd_box *b, char **path);

/*
 * The host agent's path (allocated) where a fresh kept answer says it is
 * on b's connected host, without asking it or installing anything (for
 * listings); NULL otherwise or with CLAWSSH_NO_AGENT=1.
 */
char	*cmd_env_agent_cached(const struct cmd_box *b);
/* The host lost its agent: forget the kept answer (the next call asks). */
void	cmd_env_agent_forget(const struct cmd_box *b);

/*
 * Set *wrap to the runtime wrapper (remote_cmd's wrap slot, allocated)
 * for b's loaded sandbox under the settings now, keeping e's names,
 * starting in cwd (inside the workspace, or NULL); NULL for runtime
 * none.  bwrap: with the host agent, contain_bwrap_box (the sandbox's
 * persistent environment), else contain_bwrap_wrap (with a note on
 * stderr at -v when the sandbox's user is not switched); docker and
 * podman: contain_oci_wrap, an exec into the sandbox's long-lived
 * container clawssh-ID.  tty (NULL: none) says how the command meets a
 * terminal.  *watches (unless NULL) is set when the wrapper itself ends
 * the command once its sshd goes (the remote wrapper then needs no
 * watchdog: exec_opts.wrap_watches).  route (NULL: not wanted) gets,
 * for a bwrap sandbox with the host agent and neither a terminal, GPUs
 * nor a provider's wrapper, the way into its persistent environment
 * without a shell (contain_bwrap_route; route->dir NULL: none); the
 * caller frees it with contain_route_free.  0, or an exit status after
 * printing why.
 */
int	cmd_env_wrap(const struct cmd_box *b,
	    const struct sandbox_settings *now, const struct cmd_env *e,
	    const char *cwd, const struct cmd_env_tty *tty, int *watches,
	    char **wrap, struct contain_route *route);

/*
 * Fill route with the way to b's running environment (under now) that
 * its host-side steps may take (cmd_box_hostws: through the daemon's
 * channel to the host agent, or without the daemon through the agent's
 * box-exec --join in each step's script), when the host agent runs:
 * route->dir stays NULL otherwise.  0, or an exit status after printing
 * why.
 */
int	cmd_env_steps_route(const struct cmd_box *b,
	    const struct sandbox_settings *now, struct contain_route *route);
/*
 * cmd_env_steps_route for b's record under now, and b's steps take the
 * route when there is one (b->steps = route; free it with
 * contain_route_free after b's last step).  0, or an exit status.
 */
int	cmd_env_steps_join(struct cmd_box *b,
	    const struct sandbox_settings *now, struct contain_route *route);

/*
 * The sh text (static) that runs an interactive login shell for the
 * runtime of the settings now: none, the user's own ("${SHELL:-/bin/sh}"
 * -l) in the working directory; bwrap, docker and podman, bash -l where
 * the sandbox has bash, else /bin/sh -l.
 */
const char	*cmd_env_login(const struct sandbox_settings *now);

/*
 * Start argv as a background process of b's loaded, connected sandbox
 * (see process.h), in the runtime wrap describes (NULL: none), with e's
 * variables.  Sets *handle (allocated).  0, or an exit status after
 * printing why.
 */
int	cmd_env_process(struct cmd_box *b, const struct cmd_env *e,
	    const char *wrap, int argc, char **argv, const char *name,
	    size_t log_max, char **handle);

#endif /* CLAW_CMD_ENV_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where the host-side steps on a sandbox's workspace run: its directory
 * on the host and, for a contained sandbox, the jail around each step
 * (contain_bwrap_step), so that a step reaches only what the sandbox's
 * own command could.  Every script that touches a sandbox's files on its
 * host (push, deletions, listings, pull, conflict copies, the watcher,
 * the file tools) is built here, with the workspace as its working
 * directory: bodies name paths relative to ".", never the host path.
 * See docs/security.md.
 */
#ifndef CLAW_HOSTWS_H
#define CLAW_HOSTWS_H

#include <stddef.h>

struct buf;
struct exec_opts;
struct transport;

struct hostws {
	char	*dir;		/* the workspace on the host */
	char	*jail;		/* sh setting "$@" to the jail, or NULL:
				   runtime none, the step runs as the SSH
				   user in dir, like the command */
	char	*pre;		/* sh run first on the script's path,
				   outside the jail, or NULL (hostws_pre) */
	/*
	 * Set by hostws_join: a step may run in the sandbox's persistent
	 * environment, through the daemon's host agent channel, or without
	 * the daemon through `clawssh-agent box-exec --join' in the step's
	 * script (the jail when the environment does not run).
	 */
	char	*agent;		/* the agent on the host */
	char	*rundir;	/* the holder's run directory */
	char	*token;		/* its start script's token */
	char	*workdir;	/* the workspace inside */
};

/* Set h to dir and jail (both copied; jail may be NULL), not joined. */
void	hostws_init(struct hostws *h, const char *dir, const char *jail);

/* Make dst a copy of src (a hostws_init'd one, joined or not). */
void	hostws_copy(struct hostws *dst, const struct hostws *src);

/*
 * Let h's steps run (hostws_run) in the sandbox's persistent
 * environment: the holder at rundir with the start script's token,
 * reached through the agent on the host, the workspace at workdir in
 * there (all copied).  Only for what the environment can do as the jail
 * would (docs/agent.md, "Host-side steps"): the caller decides.
 */
void	hostws_join(struct hostws *h, const char *agent, const char *rundir,
	    const char *token, const char *workdir);

/*
 * Run pre (sh text, copied) before each step that takes the script's
 * path, outside the jail: the sandbox's check-and-touch.  A step in the
 * joined environment needs none: a holder runs only for a sandbox that
 * exists, and the agent checks its token.
 */
void	hostws_pre(struct hostws *h, const char *pre);

/*
 * Run the agent's own step argv ("clawssh-agent", "fs-unpack", ...: one
 * process of the agent's, no shell) in the sandbox's running environment
 * from its workspace, as hostws_run would run a step there: 0 with
 * *status, CLAW_ERR_UNSUPPORTED when h is not joined or the environment
 * refused it (nothing ran: run the shell step instead), or another
 * error.  An environment started by an older agent that lacks the step
 * exits AGENT_EXIT_ERR (125) with its usage on stderr: the caller checks.
 * CLAWSSH_NO_AGENT_SELF=1 keeps the shell steps.
 */
int	hostws_run_self(struct transport *t, const struct hostws *h,
	    char *const *argv, struct exec_opts *o, int *status,
	    char **cause);

/*
 * Whether a step of the agent's own ended as an agent older than the
 * step ends it: status 125 (AGENT_EXIT_ERR) and its usage on stderr.
 */
int	hostws_self_unknown(int status, const struct buf *err);

/*
 * hostws_run_self with captured output, as hostws_capture: also
 * CLAW_ERR_UNSUPPORTED (out and err emptied) when the environment's agent
 * predates the step (status 125 and its usage on stderr), so the caller
 * runs the shell step.
 */
int	hostws_capture_self(struct transport *t, const struct hostws *h,
	    char *const *argv, const char *in, size_t inlen, size_t max,
	    struct buf *out, struct buf *err, int *status, char **cause);

/* Free what h holds; h may be all zero. */
void	hostws_clear(struct hostws *h);

/*
 * Return (allocated) a whole script running body (sh text built by
 * clawssh) in the workspace: inside the jail, or after cd into dir
 * (made when missing).  The script's stdin, stdout and stderr are the
 * body's.
 */
char	*hostws_script(const struct hostws *h, const char *body);

/*
 * As hostws_script, as one command to embed in a larger script whose
 * positional parameters are free (before a runtime wrapper sets them):
 * the jail runs as a child of the script itself, so what its preparation
 * learnt (the host user, the workspace given to the sandbox's user)
 * spares the wrapper asking again.  Runtime none: a subshell, so the
 * script's working directory stays.
 */
char	*hostws_inline(const struct hostws *h, const char *body);

/*
 * Run body as a step with o (as exec_run takes it; its argv and agent
 * are set here): in the sandbox's running environment when h was joined
 * and t goes through the daemon, else, or when the agent refuses before
 * it starts (no environment running, other settings), as hostws_script.
 * Returns as exec_run.
 */
int	hostws_run(struct transport *t, const struct hostws *h,
	    const char *body, struct exec_opts *o, int *status, char **cause);

/*
 * hostws_run with in[0..inlen) as stdin and stdout and stderr captured
 * into out and err, max bytes each, as exec_script.
 */
int	hostws_capture(struct transport *t, const struct hostws *h,
	    const char *body, const char *in, size_t inlen, size_t max,
	    struct buf *out, struct buf *err, int *status, char **cause);

#endif /* CLAW_HOSTWS_H */

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

struct hostws {
	char	*dir;		/* the workspace on the host */
	char	*jail;		/* sh setting "$@" to the jail, or NULL:
				   runtime none, the step runs as the SSH
				   user in dir, like the command */
};

/* Set h to dir and jail (both copied; jail may be NULL). */
void	hostws_init(struct hostws *h, const char *dir, const char *jail);

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

#endif /* CLAW_HOSTWS_H */

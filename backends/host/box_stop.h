/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh stop's host side as text: the script that ends a sandbox's
 * background processes and its environment, and the judge of its
 * answer.  The CLI (cmd_boxenv.c) runs it over its connection, the daemon
 * (daemon_proc.c) on a channel of its own, so that both say the same.
 */
#ifndef CLAW_BOX_STOP_H
#define CLAW_BOX_STOP_H

struct buf;

/*
 * Append "set -- DIR RUN AGENT\n" to s, quoted: the parameters of the
 * boxenv scripts (src/host/boxenv_*.sh): the sandbox directory, its run
 * directory and the host agent's path ('' for NULL: none).
 */
void		 box_script_params(struct buf *s, const char *dir,
		    const char *run, const char *agent);

/*
 * Append the script's start to s: its parameters (the sandbox directory
 * dir, its run directory run, the host agent's path or NULL) and the end
 * of the sandbox's background processes.  What stops the environment
 * (the runtime's) follows it.
 */
void		 box_stop_start(struct buf *s, const char *dir, const char *run,
		    const char *agent);

/* Append what stops a bwrap sandbox's environment and its cgroups. */
void		 box_stop_end_bwrap(struct buf *s);

/* The whole script for a bwrap sandbox (allocated): start, then end. */
char		*box_stop_script_bwrap(const char *dir, const char *run,
		    const char *agent);

/*
 * The state a successful script printed ("stopped" or "not running",
 * static), or NULL when its stdout out is anything else.
 */
const char	*box_stop_state(const struct buf *out);

#endif /* CLAW_BOX_STOP_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host agent on a host.  clawssh carries clawssh-agent (built static
 * for the architecture it was built on, embedded at build time) and makes
 * sure a host has it before a contained command needs it: a check over
 * one channel, and when the host lacks it an upload over the same
 * session to ${XDG_CACHE_HOME:-$HOME/.cache}/clawssh/agent/NAME, where
 * NAME carries the version and a hash of the content (written to a
 * temporary name, size and checksum verified, run once, then renamed).
 * What a host said is remembered in the state directory for
 * AGENT_RECHECK_S so that a warm exec pays nothing.  See docs/agent.md.
 */
#ifndef CLAW_AGENT_DEPLOY_H
#define CLAW_AGENT_DEPLOY_H

#include <stddef.h>

struct transport;

#define AGENT_RECHECK_S	600	/* how long a host's answer is kept */

/* What a host can run. */
struct agent_host {
	char	*path;	/* the agent's absolute path there, or NULL */
	char	*why;	/* when path is NULL: why not (allocated) */
};

/* The agent's file name: "clawssh-agent-VERSION-HASH" (static). */
const char	*agent_deploy_name(void);

/* The embedded agent's bytes. */
const unsigned char *agent_deploy_blob(size_t *len);

/* The embedded bytes' SHA-256 in hex, taken at build time. */
const char	*agent_deploy_sum(void);

/*
 * Make sure t's host has the agent, uploading it when missing, and fill
 * out: its path, or NULL and why the host cannot run it (another
 * architecture, no home directory, a noexec cache directory: the caller
 * falls back to the sh path).  cache_dir, when not NULL, is a local
 * directory (made if missing) where the answer for t's user@host:port is
 * kept; a kept answer younger than AGENT_RECHECK_S is used without asking
 * the host.  Returns 0, or a negative CLAW_ERR_* with *cause set when the
 * host could not be asked (the connection failed).
 */
int	agent_deploy_ensure(struct transport *t, const char *cache_dir,
	    struct agent_host *out, char **cause);

/*
 * The agent's path on t's host from the kept answer alone (no question
 * to the host, nothing installed): 0 with out->path set, or 1 when no
 * fresh answer says the agent is there.
 */
int	agent_deploy_cached(struct transport *t, const char *cache_dir,
	    struct agent_host *out);

/* Forget t's kept answer (the host lost its agent).  Never fails. */
void	agent_deploy_forget(struct transport *t, const char *cache_dir);

/* Free what out holds. */
void	agent_host_clear(struct agent_host *out);

#endif /* CLAW_AGENT_DEPLOY_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A contained command as the host agent's serve takes it (docs/agent.md):
 * one EXEC frame naming the sandbox holder's run directory, built here
 * for the daemon's host agent channel (mux OPEN_AGENT).
 */
#ifndef CLAW_AGENT_REQ_H
#define CLAW_AGENT_REQ_H

#include <stddef.h>

struct buf;
struct claw_env;

/* Where and how a contained command runs through the agent. */
struct exec_agent {
	const char	*path;	/* the agent on the host */
	const char	*dir;	/* the holder's run directory (absolute) */
	const char	*spec;	/* the start script's token */
	const char	*cwd;	/* inside the sandbox (absolute) */
	int		 self;	/* argv is the agent's own command
				   (FRAME_EXEC_SELF: fs-read ...) */
};

/*
 * Append serve's EXEC for argv[0..argc) with env's variables over the
 * host session's own PATH, LANG... (FRAME_EXEC_BASEENV) to out: 0,
 * CLAW_ERR_INVAL if argv is empty, or CLAW_ERR_RANGE if it does not fit
 * in a frame (the caller runs it the usual way).
 */
int	agent_req_frame(const struct exec_agent *a, int argc,
	    char *const *argv, const struct claw_env *env, size_t nenv,
	    struct buf *out);

#endif /* CLAW_AGENT_REQ_H */

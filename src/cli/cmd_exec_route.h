/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exec --route-json (a daemon's worker only): one JSON line saying how
 * the daemon may run this sandbox's commands itself on its host agent's
 * channel, and the files whose change makes it stale.
 */
#ifndef CLAW_CMD_EXEC_ROUTE_H
#define CLAW_CMD_EXEC_ROUTE_H

#include <stddef.h>

struct claw_env;
struct contain_limits;
struct contain_route;

struct exec_route_out {
	const char			*sandbox;
	const char			*hello;	/* the daemon's host key */
	const struct contain_route	*route;	/* NULL: none */
	const struct claw_env		*env;	/* --env, config's exec.env */
	size_t				 nenv;
	int				 timeout; /* seconds, 0: none */
	const struct contain_limits	*limits;
	int				 mirror; /* syncs around commands */
	const char			*fs_local; /* the file tools' copy
					   when it is the local one, or NULL */
	int				 fs_ro;	/* they may not write */
	int				 fs_steps; /* the host's copy: their
					   steps may join the environment */
	const char			*label;	/* the host, for messages */
	const char			*sandbox_dir; /* <remote_root>/<id> */
	char *const			*files;	/* NULL-ended */
};

/*
 * Print r on stdout:
 * {"sandbox", "hello", "agent", "dir", "token", "workdir", "mirror",
 *  "fs_local" (a path, or null), "fs_ro", "fs_steps", "label",
 *  "sandbox_dir" (where its processes' state is on the host),
 *  "timeout", "limits", "env": [[NAME, VALUE]...], "files": [{"path",
 *  "dev", "ino", "size", "mtime_s", "mtime_ns"} or {"path", "absent":
 *  true}]}.
 * 0, or an exit status after saying why there is no route.
 */
int	exec_route_print(const struct exec_route_out *r);

#endif /* CLAW_CMD_EXEC_ROUTE_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exec --background and --yield-ms: a sandbox command run as a background
 * process of the process tool.
 */
#ifndef CLAW_CMD_EXEC_BG_H
#define CLAW_CMD_EXEC_BG_H

#include <stdint.h>

struct cmd_box;
struct cmd_env;

struct cmd_exec_bg {
	struct cmd_box		*box;		/* loaded and connected */
	const struct cmd_env	*env;
	const char		*wrap;		/* runtime wrapper or NULL */
	int			 argc;
	char			**argv;
	int64_t			 yield_ms;	/* -1: --background */
	int			 json;
};

/*
 * Start the command.  With --background print its handle and return 0.
 * With --yield-ms wait up to that long, streaming its output to stdout:
 * if it ends, return its exit status and set *finished; if not, say on
 * stderr which handle to poll and return 0.  With json, print one object
 * {"handle", "state", "exit_status", "output"} instead.  Failures print
 * their message and return CMD_EXIT_FAILURE.
 */
int	cmd_exec_bg(const struct cmd_exec_bg *bg, int *finished);

#endif /* CLAW_CMD_EXEC_BG_H */

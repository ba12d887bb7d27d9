/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A sandbox's persistent environment (docs/agent.md) from the command
 * line: stop and start (in cmd.h), and what status shows of it.
 */
#ifndef CLAW_CMD_BOXENV_H
#define CLAW_CMD_BOXENV_H

struct cJSON;
struct cmd_box;
struct hostdir_listing;

/*
 * What b's loaded, connected sandbox's environment does now, as the host
 * agent's box-status says it ({"running": false} or {"running": true,
 * "started", "spec", "processes": [{"pid", "ppid", "state", "rss_kb",
 * "cpu_ms", "age_s", "cmd"}...]}; for docker and podman {"running",
 * "state", "memory", "processes": [LINE...]}): hostile input, parsed
 * with bounds.  NULL for runtime none, or when the host could not say
 * (a warning was printed).
 */
struct cJSON	*cmd_boxenv_status(struct cmd_box *b);

/*
 * status's host side in one step where b's sandbox is bwrap and the host
 * agent is there: its entry in the host directory (*l, as hostdir_list
 * fills it) and the environment (*env, as cmd_boxenv_status; NULL after
 * a warning).  0; 1 when it
 * cannot (another runtime, no agent, an older one, a failure): the two
 * steps then (hostdir_list, cmd_boxenv_status), which say what fails;
 * 2 when the host agent could not be had (said): the listing only, no
 * environment.
 */
int		 cmd_boxenv_status_entry(struct cmd_box *b,
		    struct hostdir_listing *l, struct cJSON **env);

/* Print env (or "not running" for NULL) as status's lines. */
void		 cmd_boxenv_print(const struct cJSON *env);

#endif /* CLAW_CMD_BOXENV_H */

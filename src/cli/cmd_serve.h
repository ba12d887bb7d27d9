/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh serve --status and --stop: ask the daemon listening on a
 * control socket (its JSON-RPC methods daemon.status and daemon.stop).
 */
#ifndef CLAW_CMD_SERVE_H
#define CLAW_CMD_SERVE_H

/*
 * Print the daemon's state (json: one JSON object).  Returns 0 if one
 * runs, 1 if none listens on path, CMD_EXIT_FAILURE on an error.
 */
int	serve_ctl_status(const char *path, int json);

/*
 * Stop the daemon on path and wait (up to 10 s) until it is gone.
 * Returns 0 once it ended, 1 if none was running, CMD_EXIT_FAILURE on an
 * error or if it did not end in time.
 */
int	serve_ctl_stop(const char *path);

#endif /* CLAW_CMD_SERVE_H */

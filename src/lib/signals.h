/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Termination signals turned into readable events: SIGINT, SIGTERM and
 * SIGHUP are written to a self-pipe that a poll loop watches; SIGPIPE is
 * ignored so a closed output shows up as EPIPE.
 */
#ifndef CLAW_SIGNALS_H
#define CLAW_SIGNALS_H

#include <sys/types.h>

/* Install the handlers.  Returns 0 or CLAW_ERR_IO. */
int	signals_init(void);

/* The fd to poll for POLLIN; -1 before signals_init. */
int	signals_fd(void);

/* Return the first pending signal and drain the pipe, or 0 if none. */
int	signals_take(void);

/*
 * Return the latest SIGINT, SIGTERM or SIGHUP caught since it was last
 * cleared (0: none), clearing it when clear is set.  signals_take leaves
 * it: a caller learns after a run whether a signal stopped it.
 */
int	signals_caught(int clear);

/*
 * The pid that sent the latest signal caught with kill(2) (0: the
 * kernel's own, or none yet), for a log line that says who stopped us.
 */
pid_t	signals_sender(void);

/*
 * Forward each signal caught to pid too (a child doing the local half of
 * the work, which must stop with its parent); 0 stops forwarding.
 */
void	signals_forward(pid_t pid);

/*
 * Return the number of the signal named name ("TERM", "SIGKILL", ...), or
 * 0 if unknown.
 */
int	signals_from_name(const char *name);

/* The name of signal num without "SIG" ("TERM"), or NULL if unlisted. */
const char	*signals_name(int num);

#endif /* CLAW_SIGNALS_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Child processes that are the point of the exercise (a ProxyCommand, a
 * provider's executable): a clean start in the child, and reaping with a
 * bounded wait.
 */
#ifndef CLAW_SPAWN_H
#define CLAW_SPAWN_H

#include <sys/types.h>

/*
 * In a freshly forked child: make it its own process group leader,
 * restore the default signal dispositions and mask, and close every
 * descriptor above 2.  Call after arranging fds 0, 1 and 2.
 */
void	spawn_child_setup(void);

/*
 * Reap pid: wait up to grace_ms for it to exit by itself, then SIGTERM
 * its process group, then SIGKILL after another grace_ms.  Returns the
 * wait status, or -1 if it could not be reaped.
 */
int	spawn_reap(pid_t pid, int grace_ms);

/* If pid has exited, reap it and return its wait status; else -1. */
int	spawn_poll(pid_t pid);

/* "exited with status N" or "killed by signal N" (allocated). */
char	*spawn_status_text(int status);

#endif /* CLAW_SPAWN_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The holder's parts other than its loop (box_init.c): starting a
 * command (box_spawn.c) and listing the sandbox's processes
 * (box_procs.c).
 */
#ifndef CLAW_AGENT_BOX_INIT_H
#define CLAW_AGENT_BOX_INIT_H

#include <sys/types.h>

#include <stdint.h>
#include <time.h>

#include "frame.h"
#include "msg.h"

/*
 * Start m's command (vfork) in a session of its own with fds[0..3) as
 * its stdio, or (FRAME_EXEC_PTY) a new pty whose master goes to
 * *master.  The pid, or -1 with a message in cause[len].
 */
pid_t	spawn_command(const struct msg_exec *m, const int *fds, int *master,
	    char *cause, size_t len);

/*
 * Append a PROCS frame answering request id: every process of /proc,
 * the holder's start (epoch) and spec.  Too many: an ERROR instead.
 */
void	procs_put(struct frame_wr *w, uint32_t id, time_t started,
	    const char *spec);

#endif /* CLAW_AGENT_BOX_INIT_H */

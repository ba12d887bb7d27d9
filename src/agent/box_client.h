/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client end of a holder's socket, shared by box-exec, box-status
 * and box-stop: connect to RUNDIR/box.sock, exchange HELLOs, start the
 * holder when nobody answers (box-exec only).
 */
#ifndef CLAW_AGENT_BOX_CLIENT_H
#define CLAW_AGENT_BOX_CLIENT_H

#include <stdint.h>

#include "msg.h"
#include "wire.h"

struct box_client {
	struct wire		w;	/* non-blocking */
	struct msg_hello	hello;	/* the holder's */
	uint32_t		next_id;
};

/*
 * Connect to RUNDIR/box.sock: 0, or the connect's -errno (-ENOENT:
 * no socket, -ECONNREFUSED: nobody listens).
 */
int	box_connect(const char *dir, struct box_client *c);
/*
 * Connect, starting the holder with $__claw_box_start under RUNDIR/lock
 * if nobody answers; dies (exit 125) on failure.  verbose: say on
 * stderr that an environment was started.
 */
void	box_connect_or_start(const char *dir, int verbose,
	    struct box_client *c);
/*
 * Take RUNDIR/lock, which serialises starting and stopping a holder
 * (RUNDIR is made, 0700, if missing): its fd, O_CLOEXEC.  Dies on failure.
 */
int	box_lock(const char *dir);
/* Exchange HELLOs; dies on failure. */
void	box_hello(struct box_client *c);
/* Wait for one frame of the holder (dies on EOF or protocol errors). */
void	box_expect(struct box_client *c, struct frame *f, int timeout_ms);
/* Close the connection. */
void	box_client_close(struct box_client *c);

#endif /* CLAW_AGENT_BOX_CLIENT_H */

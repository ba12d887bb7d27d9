/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One agent protocol connection over an AF_UNIX stream socket: frames in
 * (bounded by FRAME_MAX), frames out (queued, sent without blocking when
 * the socket is non-blocking), and file descriptors that travel as
 * SCM_RIGHTS attached to the first byte of the frame that names them in
 * its TAG_NFDS field.  Received fds wait in a small queue until a frame
 * claims them; fds nobody claims are closed.  Errors are negative errno
 * values (-EPROTO: the peer broke the protocol).
 */
#ifndef CLAW_AGENT_WIRE_H
#define CLAW_AGENT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"

#define WIRE_MAXFDS	8	/* fds a connection may hold unclaimed */

struct wire_out;

struct wire {
	int		 fd;
	uint8_t		*rbuf;
	size_t		 rlen;
	size_t		 rcap;
	int		 fdq[WIRE_MAXFDS];
	int		 nfdq;
	struct wire_out	*out;		/* queued frames, oldest first */
	struct wire_out	*out_last;
};

/* Start a connection on fd (the wire owns it from now on). */
void	wire_init(struct wire *w, int fd);
/* Close the fd, every queued fd, and free the buffers. */
void	wire_close(struct wire *w);
/*
 * One recvmsg: the number of bytes read (fds queued), 0 at EOF,
 * -EAGAIN if nothing is there, another negative errno on failure
 * (-EPROTO: truncated ancillary data or too many fds).
 */
int	wire_recv(struct wire *w);
/*
 * The next whole frame in the buffer: 1 and *f (valid until
 * wire_consume), 0 if none yet, -EPROTO if what is there is no frame.
 */
int	wire_frame(struct wire *w, struct frame *f);
/* Drop frame f from the buffer; fds left with no bytes are closed. */
void	wire_consume(struct wire *w, const struct frame *f);
/* Take exactly n received fds (the caller owns them): 0 or -EPROTO. */
int	wire_take_fds(struct wire *w, int n, int *fds);
/*
 * Queue the frames in fw, with copies of fds[0..nfds) attached to their
 * first byte.  0, or a negative errno (the frames are not queued).
 */
int	wire_queue(struct wire *w, const struct frame_wr *fw,
	    const int *fds, int nfds);
/* Send what is queued: 0 all sent, 1 more left (-EAGAIN), -errno. */
int	wire_flush(struct wire *w);
/* 1 if frames wait to be sent. */
int	wire_pending(const struct wire *w);
/* Queue and send, waiting up to timeout_ms: 0 or a negative errno. */
int	wire_send(struct wire *w, const struct frame_wr *fw, const int *fds,
	    int nfds, int timeout_ms);
/*
 * Wait up to timeout_ms (-1: forever) for a whole frame on a
 * non-blocking socket: 1 and *f, 0 at EOF, a negative errno
 * (-ETIMEDOUT, -EPROTO).
 */
int	wire_wait(struct wire *w, struct frame *f, int timeout_ms);

#endif /* CLAW_AGENT_WIRE_H */

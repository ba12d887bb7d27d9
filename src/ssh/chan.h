/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One command channel on a transport, whether the transport is a libssh2
 * session of this process or the daemon's warm session reached through
 * the control socket.  Non-blocking: calls that cannot go on now say so
 * and the caller polls transport_fd for transport_poll_events.
 */
#ifndef CLAW_CHAN_H
#define CLAW_CHAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct chan;
struct pty_req;
struct transport;

/*
 * Open a session channel and start command on it, waiting until deadline
 * (CLOCK_NEVER: none).  nonce, when not NULL, is the pid marker's (see
 * remote_cmd.h).  NULL with *cause set on failure.
 */
struct chan	*chan_exec(struct transport *t, const char *command,
		    const char *nonce, int64_t deadline, char **cause);

/*
 * As chan_exec, with a pseudo-terminal (pty.h) requested first when pty
 * is not NULL: the command's stdin, stdout and stderr are then that
 * terminal, and its output comes as stream 0.  Through the daemon, one
 * that does not offer terminals fails it with a message saying to
 * restart the daemon.
 */
struct chan	*chan_exec_pty(struct transport *t, const char *command,
		    const char *nonce, const struct pty_req *pty,
		    int64_t deadline, char **cause);

/*
 * Start a contained command through the daemon's host agent channel:
 * agent is the agent's path on the host, frame serve's EXEC (see
 * mux_chan_open_agent).  NULL with *cause when there is no daemon or it
 * does not offer the channel.  A read returning CLAW_ERR_UNSUPPORTED
 * means the command never started: run it the usual way.  The command
 * prints no pid marker; chan_signal reaches its process group.
 */
struct chan	*chan_exec_agent(struct transport *t, const char *agent,
		    const void *frame, size_t len, char **cause);

/* Signal an agent channel's command group: 0, or negative with *cause. */
int	chan_signal(struct chan *, int sig, char **cause);

/* Whether the command started (an agent channel: once OPENED came). */
int	chan_started(struct chan *);

/*
 * Tell the remote pseudo-terminal its new window size: 0 sent, 1 not now
 * (call again with the same size), negative with *cause.
 */
int	chan_resize(struct chan *, unsigned cols, unsigned rows, char **cause);

/*
 * Read stream 0 (stdout) or 1 (stderr): bytes read, 0 when nothing is
 * there now, or a negative CLAW_ERR_* (*cause set) when the channel broke.
 */
ssize_t	chan_read(struct chan *, int stream, char *p, size_t n,
	    char **cause);

/* Send stdin: bytes taken (0: not now), or negative with *cause. */
ssize_t	chan_write(struct chan *, const char *p, size_t n, char **cause);

/* Send EOF on stdin: 0 done, 1 not now, negative with *cause. */
int	chan_send_eof(struct chan *, char **cause);

/* Whether the remote end has sent EOF on its output. */
int	chan_eof(struct chan *);

/*
 * Whether output is already buffered on this side (read by a call for
 * the other stream, or by chan_eof): poll(2) on the socket would not
 * say so, so a caller about to wait must read first.
 */
int	chan_pending(struct chan *);

/* Wait for the remote close: 0 closed, 1 not yet, negative with *cause. */
int	chan_wait_closed(struct chan *, char **cause);

/*
 * After close: *status is the exit status (-1 if none came) and *signame
 * an allocated signal name if a signal ended the command (else NULL).
 */
void	chan_exit(struct chan *, int *status, char **signame);

/* Tell the transport the remote process group (the daemon kills it if
   this process goes away first). */
void	chan_set_pgid(struct chan *, long pgid, const char *ident);

/* Free the channel (closing it if needed); NULL is fine. */
void	chan_free(struct chan *);

#endif /* CLAW_CHAN_H */

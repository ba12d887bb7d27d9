/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A clawssh command's side of the control socket: a transport whose
 * channels run on the daemon's warm SSH session instead of one of its own.
 * exec.c reaches it through chan.h; nothing else needs to know.
 */
#ifndef CLAW_MUX_CLIENT_H
#define CLAW_MUX_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct buf;
struct mux;
struct mux_chan;
struct pty_req;
struct sshconfig;
struct transport;
struct transport_opts;

/*
 * The control socket path (allocated): $CLAWSSH_DAEMON_SOCKET when it is
 * an absolute path (how the daemon points its workers at itself), else
 * configured if not NULL, else
 * $XDG_RUNTIME_DIR/clawssh/control.sock when that variable is an absolute
 * path, else /tmp/clawssh-UID/control.sock.
 */
char	*mux_socket_path(const char *configured);

/*
 * Connect the daemon's Unix socket at path: 0 with *fdp (close-on-exec),
 * CLAW_ERR_NOTFOUND (no message) if nobody listens there, or another
 * error with *cause.
 */
int	mux_dial(const char *path, int *fdp, char **cause);

/*
 * Connect to the daemon listening on path and bind the connection to the
 * host sc describes (the daemon connects, verifies and authenticates as
 * transport_connect would, or reuses a warm session).  Nothing waits for
 * the session: a failed connect fails the first channel with the daemon's
 * message.  Returns 0 with *out set; CLAW_ERR_NOTFOUND when no daemon
 * listens there (use a direct connection); else CLAW_ERR_* with *cause.
 */
int	mux_connect(const char *path, const struct sshconfig *sc,
	    const struct transport_opts *opts, struct transport **out,
	    char **cause);

/* Close the control connection and free; NULL is fine. */
void	mux_free(struct mux *);

/* The socket, and the poll events it waits for. */
int	mux_fd(struct mux *);
short	mux_poll_events(struct mux *);

/*
 * Move bytes both ways without blocking: send what is queued, read and
 * dispatch what arrived.  0, or CLAW_ERR_CONNECT with the reason kept for
 * mux_error once the daemon or its SSH session is gone.
 */
int	mux_pump(struct mux *);

/* The last connection-level error (static to the mux, may be NULL). */
const char	*mux_error(struct mux *);

/*
 * The HELLO this client sent (its host settings as JSON): the daemon's
 * key for the host, which the route of an in-process exec names.
 */
const char	*mux_hello_text(const struct mux *);

/*
 * Start command on a new channel, without waiting for the daemon: a
 * refusal fails the first read.  NULL with *cause if the daemon is
 * already gone.  nonce,
 * when not NULL, is that of the pid marker the command prints first (see
 * remote_cmd.h): the daemon watches for it too, so it can stop the command
 * even if this process dies before the marker arrives.  pty, when not
 * NULL, asks for a pseudo-terminal first; that waits for the daemon's
 * READY, and a daemon without "pty" is refused here ("restart it").
 */
struct mux_chan	*mux_chan_open(struct mux *, const char *command,
		    const char *nonce, const struct pty_req *pty,
		    char **cause);

/* Send the new window size of c's terminal: 0, or <0 if gone. */
int	mux_chan_resize(struct mux_chan *c, unsigned cols, unsigned rows);

/*
 * Start a contained command through the daemon's host agent channel
 * (OPEN_AGENT): agent is the agent's path on the host, frame serve's
 * EXEC.  NULL with *cause when the daemon does not offer it.  Until
 * OPENED, writes take nothing and EOF waits (a refusal must lose no
 * stdin); a refusal before it (ERROR CLAW_ERR_UNSUPPORTED) makes reads
 * return CLAW_ERR_UNSUPPORTED: the command never started.
 */
struct mux_chan	*mux_chan_open_agent(struct mux *, const char *agent,
		    const void *frame, size_t len, char **cause);
/* Send signal sig to an OPEN_AGENT command's process group. */
int	mux_chan_signal(struct mux_chan *, int sig);
/* Whether the command started (always, but for OPEN_AGENT before OPENED). */
/*
 * Whether an OPEN_AGENT command was refused before it started (no holder,
 * other settings): its caller may run it another way.
 */
int	mux_chan_refused(const struct mux_chan *);
int	mux_chan_started(const struct mux_chan *);
/* The ERROR text the daemon sent for this channel, or NULL. */
const char	*mux_chan_errmsg(const struct mux_chan *);

/* Bytes of stream 0 (stdout) or 1 (stderr): >0, 0 none now, <0 error. */
ssize_t	mux_chan_read(struct mux_chan *, int stream, char *p, size_t n);

/* Whether output of c is buffered, not yet read. */
int	mux_chan_pending(const struct mux_chan *c);

/* Queue stdin bytes: how many were taken (maybe 0), or <0 error. */
ssize_t	mux_chan_write(struct mux_chan *, const char *p, size_t n);

/* Send EOF on stdin: 0 done, <0 error. */
int	mux_chan_send_eof(struct mux_chan *);

/* Whether the remote side ended its output / the command's end arrived. */
int	mux_chan_eof(struct mux_chan *);
int	mux_chan_closed(struct mux_chan *);

/*
 * The command's end once closed: *status is its exit status or -1, and
 * *signame (owned by the channel, may be NULL) the signal that killed it.
 */
void	mux_chan_exit(struct mux_chan *, int *status, const char **signame);

/*
 * Tell the daemon the remote process group (and its leader's identity,
 * or ""), to kill if we vanish.
 */
void	mux_chan_pgid(struct mux_chan *, long pgid, const char *ident);

/*
 * Whether the daemon understands cap (a word of MUX_CAPS), waiting up to
 * timeout_ms for its READY; 0 for an older daemon, one that failed, or no
 * READY in time.
 */
int	mux_has(struct mux *, const char *cap, int timeout_ms);

/* Queue a frame of type on channel 0 and send what the socket takes. */
void	mux_send(struct mux *, int type, const void *payload, size_t len);

/*
 * Send a request of type on channel 0 and wait (at most timeout_ms) for
 * the daemon's answer of type want, whose payload is put in reply.
 * Returns 0, CLAW_ERR_TIMEOUT, or CLAW_ERR_CONNECT with *cause.
 */
int	mux_request(struct mux *, int type, const void *payload, size_t len,
	    int want, struct buf *reply, int timeout_ms, char **cause);

/* Release the channel (stopping it if it still runs); NULL is fine. */
void	mux_chan_free(struct mux_chan *);

#endif /* CLAW_MUX_CLIENT_H */

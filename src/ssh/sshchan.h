/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One session channel on a libssh2 session, stepped without blocking:
 * open, terminal, exec, then reads, writes, EOF, close and free.  The
 * one place that drives libssh2's channel calls, for both of its users:
 * the CLI's own sessions (chan_ssh.c, which waits on the socket between
 * steps until a deadline) and the daemon's poll loop (daemon_host.c,
 * which steps a channel whenever its session may have moved).
 *
 * Every call returns 0 (done), SSHCHAN_AGAIN (libssh2 would block: step
 * again when the socket is ready; nothing was lost), or a negative
 * CLAW_ERR_* mapped once from libssh2's code (transport_map_error), with
 * c->what naming the step that failed for the caller's message
 * ("could not open a channel", "sending stdin", ...).  CLAW_ERR_CHANNEL
 * is this channel's failure; CLAW_ERR_PROTO and the others take the
 * whole session.  Not thread-safe: one thread per session.
 */
#ifndef CLAW_SSHCHAN_H
#define CLAW_SSHCHAN_H

#include <sys/types.h>

#include <libssh2.h>

struct pty_req;

#define SSHCHAN_AGAIN	1
#define SSHCHAN_WINDOW	(16 * 1024 * 1024)	/* the receive window */
#define SSHCHAN_PACKET	(32 * 1024)		/* the largest packet */

enum sshchan_phase {
	SSHCHAN_OPEN = 0,	/* asking for the channel */
	SSHCHAN_PTY,		/* asking for the terminal */
	SSHCHAN_EXEC,		/* asking to run the command */
	SSHCHAN_RUNNING
};

struct sshchan {
	LIBSSH2_SESSION		*session;
	LIBSSH2_CHANNEL		*ch;		/* NULL until opened */
	enum sshchan_phase	 phase;
	const char		*command;	/* the caller's, kept */
	const struct pty_req	*pty;		/* the caller's, or NULL */
	const char		*what;		/* the step that failed */
	int			 lerr;		/* ... libssh2's code */
};

/*
 * Set c up to run command (and ask for pty first unless NULL) on
 * session; both stay the caller's and must outlive the start.
 */
void	sshchan_init(struct sshchan *c, LIBSSH2_SESSION *session,
	    const char *command, const struct pty_req *pty);

/*
 * Step the start: open the channel, ask for the terminal, run the
 * command.  0 once it runs (c->phase SSHCHAN_RUNNING).  libssh2 takes one
 * channel open at a time per session: a caller with several channels
 * on one session starts them one after another.
 */
int	sshchan_start(struct sshchan *c);

/*
 * Read up to n bytes of stream 0 (stdout) or 1 (stderr): the count, 0
 * when nothing is there now (or the stream ended: see sshchan_eof), or
 * a negative CLAW_ERR_*.
 */
ssize_t	sshchan_read(struct sshchan *c, int stream, char *p, size_t n);

/* Send up to n bytes of stdin: the count (0: not now), or < 0. */
ssize_t	sshchan_write(struct sshchan *c, const char *p, size_t n);

/* Send EOF on stdin: 0, SSHCHAN_AGAIN, or < 0. */
int	sshchan_send_eof(struct sshchan *c);

/* 1 once the server sent EOF (or the channel is gone), else 0. */
int	sshchan_eof(struct sshchan *c);

/* 1 if libssh2 already holds output of either stream, else 0. */
int	sshchan_pending(struct sshchan *c);

/* Wait for the server's close: 0, SSHCHAN_AGAIN, or < 0. */
int	sshchan_wait_closed(struct sshchan *c);

/*
 * The command's exit status as libssh2 has it (0 when the server sent
 * none) and, if a signal ended it, *signame (allocated; else left
 * alone).  After the close.
 */
void	sshchan_exit(struct sshchan *c, int *status, char **signame);

/* Send a new terminal size: 0, SSHCHAN_AGAIN, or < 0. */
int	sshchan_resize(struct sshchan *c, unsigned cols, unsigned rows);

/*
 * Free the libssh2 channel (its slot on the session): 0 once freed or
 * when there is none, SSHCHAN_AGAIN to step again.
 */
int	sshchan_free(struct sshchan *c);

#endif /* CLAW_SSHCHAN_H */
